/**
 * The workload faults of a simulated cluster (`server.faults.imagePullFailure(...)` and the rest):
 * which Pods cannot pull, crash, never become Ready or start slowly, and which Nodes are NotReady.
 * Each fault holds until cleared (`fault.clear()`, or `faults.reset()` for all); the kubelet and
 * the node controllers read them at every step and are told when they change, so Pods recover as
 * on a cluster once a fault is gone.
 */
import { LabelSelector } from '@kubeloop/resource';
import type { KubeObject } from '@kubeloop/resource';

/** Which Pods a workload fault hits: all of the given conditions hold. Default (`{}`): every Pod. */
export interface PodSelector {
  /** Only Pods in this namespace. Default: every namespace. */
  readonly namespace?: string;
  /** A label selector (`app=web,tier!=canary`) the Pod's labels match. Default: any labels. */
  readonly labelSelector?: string;
  /**
   * Only the containers (and init containers) of this image: the whole reference (`nginx:1.27`) or
   * its repository without tag or digest (`nginx`). Default: every container of the matching Pods.
   */
  readonly image?: string;
}

/** Options of a crash loop. */
export interface CrashLoopOptions extends PodSelector {
  /** The exit code of each crash (reason `Error`). Default: 1. */
  readonly exitCode?: number;
  /** How long each start of the container runs before it crashes. Default: 1,000 ms. */
  readonly runMs?: number;
}

/** Options of a slow start. */
export interface SlowStartOptions extends PodSelector {
  /** The time from binding to running of the matching Pods (instead of `simulate.kubelet.podStartMs`). */
  readonly podStartMs: number;
}

/** Options of a Node going NotReady. */
export interface NodeNotReadyOptions {
  /**
   * `Unknown` (the default): the kubelet stops posting status (a node unreachable, powered off):
   * after the node monitor grace period (40 s) the node lifecycle controller sets its conditions
   * Unknown and taints it `node.kubernetes.io/unreachable`; its Pods are not updated any more.
   * `False`: the kubelet reports NotReady at once (`KubeletNotReady`, a runtime network not ready),
   * taint `node.kubernetes.io/not-ready`; its Pods' containers are not ready.
   */
  readonly status?: 'Unknown' | 'False';
}

/** A fault in place; `clear()` ends it (a no-op when already cleared). */
export interface WorkloadFault {
  /** What it does, e.g. `imagePullFailure image=nginx:bad`. */
  readonly description: string;
  clear(): void;
}

/** A container's crash, as the kubelet plays it. */
export interface Crash {
  readonly exitCode: number;
  readonly runMs: number;
}

type PodFault =
  | { readonly kind: 'imagePullFailure' | 'neverReady'; readonly match: PodMatch }
  | { readonly kind: 'crashLoop'; readonly match: PodMatch; readonly crash: Crash }
  | { readonly kind: 'slowStart'; readonly match: PodMatch; readonly podStartMs: number };

interface PodMatch {
  readonly namespace: string | undefined;
  readonly labels: LabelSelector | undefined;
  readonly image: string | undefined;
}

interface Container {
  readonly image?: string;
}

/** `nginx:1.27`, `docker.io/library/nginx@sha256:...` -> `nginx`, `docker.io/library/nginx`. */
export function imageRepository(image: string): string {
  const withoutDigest = image.split('@')[0] ?? image;
  const slash = withoutDigest.lastIndexOf('/');
  const colon = withoutDigest.lastIndexOf(':');
  return colon > slash ? withoutDigest.slice(0, colon) : withoutDigest;
}

function imageMatches(wanted: string, image: string | undefined): boolean {
  return image !== undefined && (image === wanted || imageRepository(image) === wanted);
}

function containersOf(pod: KubeObject): Container[] {
  const spec = (pod.spec ?? {}) as { containers?: Container[]; initContainers?: Container[] };
  return [...(spec.initContainers ?? []), ...(spec.containers ?? [])];
}

function parseMatch(selector: PodSelector): PodMatch {
  const labels = selector.labelSelector ? LabelSelector.parse(selector.labelSelector) : undefined;
  return { namespace: selector.namespace, labels, image: selector.image };
}

function describeSelector(selector: PodSelector): string {
  const parts = [
    selector.namespace !== undefined ? `namespace=${selector.namespace}` : '',
    selector.labelSelector ? `labels=${selector.labelSelector}` : '',
    selector.image !== undefined ? `image=${selector.image}` : '',
  ].filter((part) => part !== '');
  return parts.length > 0 ? parts.join(' ') : 'every pod';
}

/** Whether the fault hits `pod`, or (given) this container of it. */
function hits(match: PodMatch, pod: KubeObject, container?: Container): boolean {
  if (match.namespace !== undefined && pod.metadata.namespace !== match.namespace) return false;
  if (match.labels && !match.labels.matches(pod.metadata.labels)) return false;
  if (match.image === undefined) return true;
  const wanted = match.image;
  return container ? imageMatches(wanted, container.image) : containersOf(pod).some((c) => imageMatches(wanted, c.image));
}

/** The workload faults in place on one server. */
export class WorkloadFaults {
  readonly #pods = new Map<number, PodFault>();
  readonly #nodes = new Map<number, { readonly node: string; readonly status: 'Unknown' | 'False' }>();
  readonly #listeners: (() => void)[] = [];
  #nextId = 1;

  /** Pulls of the matching containers' images fail: `ErrImagePull`, then `ImagePullBackOff` (10 s doubling to 5 min between tries); the Pod stays Pending. */
  imagePullFailure(selector: PodSelector = {}): WorkloadFault {
    return this.#addPod({ kind: 'imagePullFailure', match: parseMatch(selector) }, `imagePullFailure ${describeSelector(selector)}`);
  }

  /** The matching containers crash after each start: `CrashLoopBackOff`, restartCount growing, back-off 10 s doubling to 5 min. */
  crashLoop(options: CrashLoopOptions = {}): WorkloadFault {
    const exitCode = options.exitCode ?? 1;
    const runMs = options.runMs ?? 1_000;
    if (!Number.isInteger(exitCode) || exitCode < 1 || exitCode > 255) throw new RangeError(`crashLoop: exitCode must be 1-255, got ${exitCode}`);
    if (!(runMs >= 0)) throw new RangeError(`crashLoop: runMs must be >= 0, got ${runMs}`);
    return this.#addPod({ kind: 'crashLoop', match: parseMatch(options), crash: { exitCode, runMs } }, `crashLoop ${describeSelector(options)} exit ${exitCode}`);
  }

  /** The matching Pods run but their readiness never passes (containers `ready: false`, Pod not Ready). */
  neverReady(selector: PodSelector = {}): WorkloadFault {
    return this.#addPod({ kind: 'neverReady', match: parseMatch(selector) }, `neverReady ${describeSelector(selector)}`);
  }

  /** The matching Pods take `podStartMs` from binding to running. */
  slowStart(options: SlowStartOptions): WorkloadFault {
    if (!(options.podStartMs >= 0)) throw new RangeError(`slowStart: podStartMs must be >= 0, got ${options.podStartMs}`);
    return this.#addPod({ kind: 'slowStart', match: parseMatch(options), podStartMs: options.podStartMs }, `slowStart ${describeSelector(options)} ${options.podStartMs} ms`);
  }

  /** The Node goes NotReady (see {@link NodeNotReadyOptions}); its Pods are evicted after their toleration (300 s by default). */
  nodeNotReady(node: string, options: NodeNotReadyOptions = {}): WorkloadFault {
    const status = options.status ?? 'Unknown';
    if (status !== 'Unknown' && status !== 'False') throw new RangeError(`nodeNotReady: status must be Unknown or False, got ${String(status)}`);
    const id = this.#nextId++;
    this.#nodes.set(id, { node, status });
    this.#changed();
    return this.#handle(id, `nodeNotReady ${node} ${status}`);
  }

  /** Clears every workload fault. */
  clearAll(): void {
    if (this.#pods.size === 0 && this.#nodes.size === 0) return;
    this.#pods.clear();
    this.#nodes.clear();
    this.#changed();
  }

  /** Calls `listener` after every change (a fault set or cleared). */
  onChange(listener: () => void): void {
    this.#listeners.push(listener);
  }

  // --- what the kubelet and node controllers read ---

  /** Whether pulling this container's image fails. */
  pullFails(pod: KubeObject, container: Container): boolean {
    return this.#podFaults('imagePullFailure').some((f) => hits(f.match, pod, container));
  }

  /** How this container crashes, or undefined. */
  crashOf(pod: KubeObject, container: Container): Crash | undefined {
    for (const fault of this.#pods.values()) if (fault.kind === 'crashLoop' && hits(fault.match, pod, container)) return fault.crash;
    return undefined;
  }

  /** Whether the Pod's readiness never passes. */
  holdsUnready(pod: KubeObject): boolean {
    return this.#podFaults('neverReady').some((f) => hits(f.match, pod));
  }

  /** The Pod's start time: the longest slow start that hits it, else `defaultMs`. */
  startMs(pod: KubeObject, defaultMs: number): number {
    let startMs: number | undefined;
    for (const fault of this.#pods.values()) {
      if (fault.kind === 'slowStart' && hits(fault.match, pod)) startMs = Math.max(startMs ?? 0, fault.podStartMs);
    }
    return startMs ?? defaultMs;
  }

  /** The Node's NotReady status while a fault holds it, else undefined (`Unknown` wins over `False`). */
  nodeStatus(node: string): 'Unknown' | 'False' | undefined {
    let status: 'Unknown' | 'False' | undefined;
    for (const fault of this.#nodes.values()) if (fault.node === node && status !== 'Unknown') status = fault.status;
    return status;
  }

  #podFaults(kind: 'imagePullFailure' | 'neverReady'): PodFault[] {
    return [...this.#pods.values()].filter((f) => f.kind === kind);
  }

  #addPod(fault: PodFault, description: string): WorkloadFault {
    const id = this.#nextId++;
    this.#pods.set(id, fault);
    this.#changed();
    return this.#handle(id, description);
  }

  #handle(id: number, description: string): WorkloadFault {
    return {
      description,
      clear: () => {
        if (this.#pods.delete(id) || this.#nodes.delete(id)) this.#changed();
      },
    };
  }

  #changed(): void {
    for (const listener of this.#listeners) listener();
  }
}
