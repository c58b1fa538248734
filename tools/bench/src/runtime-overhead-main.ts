/**
 * Child process of scenario 6, runtime overhead: pushes update events through one controller in process
 * (a `PushInformer`, no I/O) and reports the CPU per handled event. Four variants, two pairs:
 * - `gate-waited` / `gate-open`: an `InformerController` whose informer syncs only after `run()` has
 *   started (the sync gate waits, then opens) against one whose informer has synced at once (the gate is
 *   trivially open). After the gate opened, the per-event path of the two is the cost of the gate.
 * - `writes-tracked` / `writes-untracked`: a `ReconcileController` whose reconciler writes the object
 *   it reconciles once per event, through `trackWrites(client)` (read-your-writes: recorded, then
 *   compared before the next reconcile of the key) or through the plain client.
 * Events go in rounds of one update per key, each round waited for, so that nothing coalesces.
 */
import { ConfigMapKind } from '@kubeloop/resource';
import type { ConfigMap } from '@kubeloop/resource';
import { InformerController, noopLogger } from '@kubeloop/operator';
import { newController, reconcileFunc } from '@kubeloop/operator/reconcile';
import type { WriteClient } from '@kubeloop/operator/reconcile';
import { runChildMain } from './child-runtime.js';
import { mark } from './measure.js';
import { PushInformer } from './push-informer.js';

/** The four variants, in pairs. */
export type OverheadVariant = 'gate-waited' | 'gate-open' | 'writes-tracked' | 'writes-untracked';

/** Input of a runtime-overhead child. */
export interface OverheadInput {
  variant: OverheadVariant;
  /** Events to push (rounded up to whole rounds of `keys`). */
  events: number;
  keys: number;
}

/** What a runtime-overhead child reports. */
export interface OverheadResult {
  variant: OverheadVariant;
  events: number;
  cpuSeconds: number;
  wallSeconds: number;
}

const NAMESPACE = 'bench';

function configMap(name: string, rv: number): ConfigMap {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: NAMESPACE, name, resourceVersion: String(rv) }, data: { rv: String(rv) } };
}

/** A client whose writes succeed at once and answer with the object as written. */
function echoClient(): WriteClient<ConfigMap> {
  const refuse = (): Promise<never> => Promise.reject(new Error('not used by the benchmark'));
  return { kind: ConfigMapKind, get: refuse, create: refuse, updateStatus: refuse, patch: refuse, delete: refuse, update: async (object: ConfigMap) => object };
}

runChildMain<OverheadInput>(async (input) => {
  const gated = input.variant === 'gate-waited' || input.variant === 'gate-open';
  const informer = new PushInformer<ConfigMap>(ConfigMapKind, input.variant !== 'gate-waited');
  let handled = 0;
  let target = 0;
  let roundDone: (() => void) | undefined;
  const count = (): void => {
    handled++;
    if (handled === target) roundDone?.();
  };

  const stop = new AbortController();
  let running: Promise<void>;
  if (gated) {
    const controller = new InformerController({ logger: noopLogger });
    controller.addInformer(informer, 'ConfigMap');
    controller.addWatcher({ add: async () => undefined, update: async () => count(), delete: async () => undefined }, 'ConfigMap');
    running = controller.run(stop.signal);
  } else {
    const client = echoClient();
    let writer: WriteClient<ConfigMap> = client;
    const controller = newController<ConfigMap>({
      kind: ConfigMapKind,
      informer,
      logger: noopLogger,
      reconciler: reconcileFunc(async (_ctx, request) => {
        const current = informer.store.get(`${request.namespace}/${request.name}`);
        if (current !== undefined) await writer.update(current);
        count();
        return {};
      }),
    });
    if (input.variant === 'writes-tracked') writer = controller.trackWrites(client);
    running = controller.run(stop.signal);
  }
  await new Promise<void>((resolve) => setImmediate(resolve));
  if (input.variant === 'gate-waited') informer.markSynced();

  const names = Array.from({ length: input.keys }, (_, i) => `obj-${i}`);
  const rounds = Math.ceil(input.events / input.keys);
  let rv = 0;
  const begin = mark();
  for (let round = 0; round < rounds; round++) {
    target += input.keys;
    const done = new Promise<void>((resolve) => (roundDone = resolve));
    for (let i = 0; i < input.keys; i++) {
      informer.update(`${NAMESPACE}/${names[i]!}`, configMap(names[i]!, ++rv));
    }
    await done;
  }
  const end = mark();
  stop.abort();
  await running;
  return { variant: input.variant, events: rounds * input.keys, cpuSeconds: end.cpu - begin.cpu, wallSeconds: end.wall - begin.wall } satisfies OverheadResult;
});
