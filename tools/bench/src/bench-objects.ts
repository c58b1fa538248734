/**
 * The objects every scenario streams: ConfigMaps of about 1 KB with a realistic `managedFields` array
 * (two managers, as after `kubectl apply` and one controller update), generated from a seed.
 */
import type { KubeObject } from '@kubeloop/resource';
import type { SeededRandom } from './seeded-random.js';

/** The namespace of every benchmark object. */
export const BENCH_NAMESPACE = 'bench';
/** The annotation a latency writer stamps with its send time (epoch milliseconds, fractional). */
export const SENT_AT_ANNOTATION = 'bench.kubeloop.dev/sent-at';
/** The annotation carrying a latency writer's sequence number (0-based) of the write. */
export const SEQ_ANNOTATION = 'bench.kubeloop.dev/seq';
const REVISION_ANNOTATION = 'bench.kubeloop.dev/revision';

/** Target JSON size of one object in bytes, close to the reference objects (1,066 bytes). */
export const TARGET_OBJECT_BYTES = 1066;

const WORDS = ['alpha', 'bravo', 'cache', 'delta', 'edge', 'fleet', 'gamma', 'harbor', 'ingress', 'jitter', 'kilo', 'lease'];

/** The name of the object with index `i`: `bench-000042`. */
export function benchObjectName(i: number): string {
  return `bench-${String(i).padStart(6, '0')}`;
}

/** A mutable benchmark ConfigMap; `touch` changes it as a controller update would. */
export interface BenchObject extends KubeObject {
  metadata: KubeObject['metadata'] & { annotations: Record<string, string>; resourceVersion: string };
  data: Record<string, string>;
}

/** Creates object `index` at resourceVersion `rv`. Deterministic for a given `rng` state. */
export function makeBenchObject(rng: SeededRandom, index: number, rv: number): BenchObject {
  const name = benchObjectName(index);
  const created = `2025-06-01T12:${String(index % 60).padStart(2, '0')}:00Z`;
  const obj: BenchObject = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name,
      namespace: BENCH_NAMESPACE,
      uid: `${rng.hex(8)}-${rng.hex(4)}-4${rng.hex(3)}-a${rng.hex(3)}-${rng.hex(12)}`,
      resourceVersion: String(rv),
      creationTimestamp: created,
      labels: {
        'app.kubernetes.io/name': 'bench',
        'app.kubernetes.io/instance': name,
        tier: rng.pick(['frontend', 'backend', 'batch']),
      },
      annotations: { [REVISION_ANNOTATION]: '1' },
      managedFields: [
        {
          manager: 'kubectl-client-side-apply',
          operation: 'Update',
          apiVersion: 'v1',
          time: created,
          fieldsType: 'FieldsV1',
          fieldsV1: {
            'f:data': { '.': {}, 'f:config.yaml': {}, 'f:log-level': {} },
            'f:metadata': {
              'f:labels': {
                '.': {},
                'f:app.kubernetes.io/instance': {},
                'f:app.kubernetes.io/name': {},
                'f:tier': {},
              },
            },
          },
        },
        {
          manager: 'bench-controller',
          operation: 'Update',
          apiVersion: 'v1',
          time: created,
          fieldsType: 'FieldsV1',
          fieldsV1: { 'f:data': { 'f:revision': {} }, 'f:metadata': { 'f:annotations': { '.': {}, [`f:${REVISION_ANNOTATION}`]: {} } } },
        },
      ],
    },
    data: { 'config.yaml': '', 'log-level': rng.pick(['info', 'debug', 'warn']), revision: '1' },
  };
  // Pad the config file with seeded YAML-ish lines up to the target size (a newline costs 2 bytes in JSON).
  let text = '';
  const base = JSON.stringify(obj).length;
  while (text.length < TARGET_OBJECT_BYTES - base) text += `${rng.pick(WORDS)}: ${rng.int(10000)}\n`;
  for (let size = text.length; size > 0; ) {
    obj.data['config.yaml'] = text.slice(0, size);
    const over = JSON.stringify(obj).length - TARGET_OBJECT_BYTES;
    if (over <= 0) break;
    size -= over;
  }
  return obj;
}

/** Changes `obj` as one controller update does: new revision, new manager time, new resourceVersion. */
export function touchBenchObject(obj: BenchObject, rv: number, revision: number): void {
  obj.metadata.resourceVersion = String(rv);
  obj.metadata.annotations[REVISION_ANNOTATION] = String(revision);
  obj.data.revision = String(revision);
  const entry = obj.metadata.managedFields?.[1];
  if (entry) entry.time = new Date(Date.UTC(2025, 5, 2, 0, 0, revision % 86400)).toISOString().replace('.000Z', 'Z');
}
