/**
 * Runs one program: a fresh API server (on a data directory) and a fresh operator, the program's
 * writes and faults in order, then the faults are cleared and the invariants are checked:
 *
 * 1. every handler's view equals the server's list (nothing lost, nothing stale) within the bound
 *    after the last fault (and stays so), and the server holds what the model says;
 * 2. events of one object reach each handler in order and never concurrently;
 * 3. each finalizer-guarded delete ran the user's delete exactly once, and the finalizers are gone;
 * 4. no unhandled rejection, no uncaught exception, the operator never stopped by itself.
 * (The heap is checked by the caller, across programs.)
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { isApiError, isNotFound } from '@kubeloop/resource';
import type { Client, KubeObject } from '@kubeloop/resource';
import { addFinalizer, removeFinalizer } from '@kubeloop/operator';
import { GadgetKind, NAMESPACE } from './cluster.js';
import { contentOf, viewKey } from './handler-record.js';
import { HeapSampler, heapAfterGc } from './heap.js';
import { Model, modelKey } from './model.js';
import { CONVERGENCE_BOUND_MS } from './operator-under-test.js';
import type { ErrorCounts, HandlerUnderTest } from './operator-under-test.js';
import { EXITED_BY_ITSELF } from '../support/watched-child.js';
import { clusterInChildProcess } from './process-cluster.js';
import { operatorInChildProcess } from './process-operator.js';
import { clusterInThisProcess, operatorInThisProcess } from './program-target.js';
import type { ProgramCluster, ProgramOperator } from './program-target.js';
import { ProcessGuard } from './process-guard.js';
import { waitFor } from '../support/wait-for.js';
import { countWrites, isFault, isWrite } from './program.js';
import type { FaultStep, ObjectKind, Program, Step, WriteStep } from './program.js';

/** The finalizer the program puts on objects to keep them in deletion (`deleteHeld`). */
export const HOLD_FINALIZER = 'reliability.kubeloop.dev/held-by-test';

/** Options of {@link runProgram}. */
export interface RunProgramOptions {
  /** Convergence bound after the last fault. Default {@link CONVERGENCE_BOUND_MS}. */
  boundMs?: number;
  /** How long to keep waiting past the bound, to tell "late" from "never" in the report. Default 5000. */
  graceMs?: number;
  /**
   * Called when the program's steps run out: more steps to run, or undefined to stop (a soak keeps
   * going this way). The heap is measured (after a collection) at each call. Default: none.
   */
  moreSteps?: () => Step[] | undefined;
  /**
   * Run the API server and the operator each in a child process of its own, as users deploy an
   * operator (faults over IPC, the restart fault a real SIGKILL and restart of the server process,
   * the operator stopped by SIGTERM at the end): a process that exits by itself is a violation.
   * Default false (both in the test's process).
   */
  processes?: boolean;
}

/** The heap after a collection, at a moment of the run. */
export interface HeapSample {
  atMs: number;
  bytes: number;
}

/** What a program did and what it broke. */
export interface ProgramOutcome {
  program: Program;
  violations: string[];
  /** From the last fault to every view equal to the server; undefined when it never converged. */
  convergenceMs: number | undefined;
  faults: number;
  writes: number;
  writesFailed: number;
  /** Handler calls, all handlers together. */
  handlerCalls: number;
  /** Objects present on the server at the end. */
  objects: number;
  /** Objects some view lacked, or held in an old version, at the end. */
  objectsLost: number;
  /** User deletes that ran more than once for one object in one handler. */
  duplicateDeletes: number;
  /** User deletes that ran. */
  deletes: number;
  /** Processes of the program (server, operator) that exited without being told to (process mode). */
  unexpectedExits: number;
  errors: ErrorCounts;
  peakHeapBytes: number;
  /** With `moreSteps`: the heap at each call of it, and once the handlers converged. */
  heapSamples: HeapSample[];
  durationMs: number;
}

/** The objects on the server, by view key. */
type ServerState = Map<string, { kind: ObjectKind; object: KubeObject }>;

/** Runs `program` and checks the invariants. Never throws for a violation: it is in `violations`. */
export async function runProgram(program: Program, options: RunProgramOptions = {}): Promise<ProgramOutcome> {
  const boundMs = options.boundMs ?? CONVERGENCE_BOUND_MS;
  const graceMs = options.graceMs ?? 5000;
  const started = Date.now();
  const dir = await mkdtemp(join(tmpdir(), 'kubeloop-reliability-'));
  const guard = new ProcessGuard();
  const heap = new HeapSampler();
  guard.start();
  heap.start();
  const violations: string[] = [];
  const model = new Model();
  let writesFailed = 0;
  let cluster: ProgramCluster | undefined;
  let operator: ProgramOperator | undefined;
  let handlers: readonly HandlerUnderTest[] = [];
  let errors: ErrorCounts = {};
  let convergenceMs: number | undefined;
  let server: ServerState = new Map();
  const steps = [...program.steps];
  const heapSamples: HeapSample[] = [];
  try {
    cluster = options.processes ? await clusterInChildProcess(join(dir, 'data')) : await clusterInThisProcess(join(dir, 'data'));
    operator = options.processes ? await operatorInChildProcess(cluster.url) : operatorInThisProcess(cluster.url);
    const runningOperator = operator;
    await waitFor(() => runningOperator.hasSynced(), { timeoutMs: options.processes ? 30_000 : 10_000, intervalMs: 10, what: 'the informers to sync' });

    for (let i = 0; ; i++) {
      if (i === steps.length) {
        const more = options.moreSteps?.();
        if (more === undefined) break;
        heapSamples.push({ atMs: Date.now() - started, bytes: heapAfterGc() });
        steps.push(...more);
      }
      const step = steps[i]!;
      if (!isWrite(step)) await applyFault(cluster, operator, model, step, () => writesFailed++);
      else if (!(await applyWrite(cluster, model, step))) writesFailed++;
    }
    await cluster.fault({ op: 'reset' });
    await operator.setHandlerDelay(0);
    const converged = await awaitConvergence(cluster, operator, boundMs, graceMs);
    handlers = converged.handlers;
    server = converged.server;
    convergenceMs = converged.convergenceMs;
    if (convergenceMs !== undefined && options.moreSteps !== undefined) heapSamples.push({ atMs: Date.now() - started, bytes: heapAfterGc() });
    if (convergenceMs === undefined) {
      violations.push([`not converged ${boundMs + graceMs} ms after the last fault (bound ${boundMs} ms); differences:`, ...converged.diffs.slice(0, 12).map((d) => `    ${d}`)].join('\n'));
    } else if (convergenceMs > boundMs) {
      violations.push(`converged ${convergenceMs} ms after the last fault, beyond the bound of ${boundMs} ms`);
    }
    violations.push(...modelDiffs(model, server));
    violations.push(...deleteDiffs(handlers, server, model));
    for (const h of handlers) violations.push(...h.record.violations);
    errors = await operator.errors();
  } catch (error) {
    violations.push(`the run itself failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  } finally {
    if (operator !== undefined) violations.push(...(await operator.shutdown()));
    if (cluster !== undefined) violations.push(...(await cluster.stop()));
    heap.stop();
    guard.stop();
    await rm(dir, { recursive: true, force: true });
  }
  violations.push(...guard.problems);

  const { objectsLost, deletes, duplicateDeletes } = tally(handlers, server);
  const ran: Program = { seed: program.seed, steps };
  return {
    program: ran,
    violations,
    convergenceMs,
    faults: steps.filter(isFault).length,
    writes: countWrites(ran),
    writesFailed,
    handlerCalls: handlers.reduce((n, h) => n + h.record.calls, 0),
    objects: server.size,
    objectsLost,
    duplicateDeletes,
    deletes,
    unexpectedExits: violations.filter((v) => v.includes(EXITED_BY_ITSELF)).length,
    errors,
    peakHeapBytes: heap.peak,
    heapSamples,
    durationMs: Date.now() - started,
  };
}

/**
 * Polls until every handler's view equals the server (and still does 300 ms later: a late stale
 * retry would undo it), or `boundMs + graceMs` after now (the faults were just cleared).
 */
async function awaitConvergence(
  cluster: ProgramCluster,
  operator: ProgramOperator,
  boundMs: number,
  graceMs: number,
): Promise<{ convergenceMs: number | undefined; server: ServerState; diffs: string[]; handlers: readonly HandlerUnderTest[] }> {
  const faultsEndedAt = Date.now();
  const deadline = faultsEndedAt + boundMs + graceMs;
  const differences = async (): Promise<{ server: ServerState; diffs: string[]; handlers: readonly HandlerUnderTest[] }> => {
    const server = await snapshot(cluster);
    const handlers = await operator.handlers();
    return { server, handlers, diffs: handlers.flatMap((h) => viewDiffs(h, server).map((d) => d.message)) };
  };
  for (;;) {
    let state = await differences();
    if (state.diffs.length === 0) {
      const at = Date.now() - faultsEndedAt;
      await sleep(300);
      state = await differences();
      if (state.diffs.length === 0) return { convergenceMs: at, ...state };
    }
    if (Date.now() > deadline) return { convergenceMs: undefined, ...state };
    await sleep(20);
  }
}

/** Objects some view still gets wrong, and the user deletes run (and run again) per object. */
function tally(handlers: readonly HandlerUnderTest[], server: ServerState): { objectsLost: number; deletes: number; duplicateDeletes: number } {
  const lost = new Set<string>();
  for (const h of handlers) for (const d of viewDiffs(h, server)) lost.add(d.key);
  let deletes = 0;
  let duplicateDeletes = 0;
  for (const h of handlers) {
    for (const times of h.record.deletes.values()) {
      deletes += times;
      if (times > 1) duplicateDeletes += times - 1;
    }
  }
  return { objectsLost: lost.size, deletes, duplicateDeletes };
}

async function applyFault(cluster: ProgramCluster, operator: ProgramOperator, model: Model, step: FaultStep, failed: () => void): Promise<void> {
  switch (step.op) {
    case 'dropWatches':
      await cluster.fault({ op: 'dropWatches', options: step.mode === 'reset' ? {} : step.mode === 'midLine' ? { midLine: true } : { graceful: true } });
      return;
    case 'failNext':
      await cluster.fault({
        op: 'failNext',
        rule: {
          status: step.status,
          count: step.count,
          ...(step.verb !== undefined ? { verb: step.verb } : {}),
          ...(step.resource !== undefined ? { resource: step.resource } : {}),
          ...(step.retryAfterSeconds !== undefined ? { retryAfterSeconds: step.retryAfterSeconds } : {}),
        },
      });
      return;
    case 'gap':
      // Every informer's next two watches fail, so it backs off while the writes land;
      // the compaction then turns its resume into a 410 and a relist that must find the deletes.
      await cluster.fault({ op: 'failNext', rule: { verb: 'watch', status: 503, count: 2 * operator.informerCount } });
      await cluster.fault({ op: 'dropWatches', options: {} });
      for (const write of step.writes) if (!(await applyWrite(cluster, model, write))) failed();
      await cluster.fault({ op: 'compact' });
      return;
    case 'latency':
      await cluster.fault({ op: 'latency', ms: step.ms });
      return;
    case 'restart':
      await cluster.restart();
      return;
    case 'slowHandlers':
      await operator.setHandlerDelay(step.ms);
      return;
    case 'pause':
      await sleep(step.ms);
      return;
  }
}

/** Makes a write as a plain client would; true when the server acknowledged it (the model follows). */
async function applyWrite(cluster: ProgramCluster, model: Model, step: WriteStep): Promise<boolean> {
  const { kind, name } = step.target;
  const key = modelKey(kind, name);
  const client = (kind === 'gadget' ? cluster.gadgets : cluster.configMaps) as unknown as Client<KubeObject>;
  const id = { namespace: NAMESPACE, name };
  try {
    switch (step.op) {
      case 'create':
        await client.create(
          kind === 'gadget'
            ? { apiVersion: GadgetKind.apiVersion, kind: GadgetKind.kind, metadata: { name, namespace: NAMESPACE, labels: step.labels }, spec: { value: step.value } }
            : ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: NAMESPACE, labels: step.labels }, data: { value: String(step.value) } }),
        );
        model.create(key, step.value, step.labels);
        return true;
      case 'updateSpec':
        await client.patch(id, { merge: kind === 'gadget' ? { spec: { value: step.value } } : { data: { value: String(step.value) } } });
        model.setValue(key, step.value);
        return true;
      case 'updateStatus':
        await client.patch(id, { merge: { status: { value: step.value } } }, { subresource: 'status' });
        model.setStatus(key, step.value);
        return true;
      case 'setLabels': {
        // A merge patch removes a label by setting it to null.
        const labels: Record<string, string | null> = { tier: null, track: null, ...step.labels };
        await client.patch(id, { merge: { metadata: { labels } } });
        model.setLabels(key, step.labels);
        return true;
      }
      case 'delete':
        await client.delete(id);
        model.delete(key);
        return true;
      case 'forceDelete': {
        await client.delete(id);
        model.delete(key);
        try {
          const stripped = await client.patch(id, { merge: { metadata: { finalizers: null } } });
          model.forceOut(key, stripped.metadata.uid ?? '');
        } catch (error) {
          // Gone already: no finalizer held it, or the handlers ran their deletes and removed theirs.
          if (!isNotFound(error)) throw error;
        }
        return true;
      }
      case 'deleteHeld': {
        const held = await addFinalizer(client, await client.get(id), HOLD_FINALIZER);
        if (held?.metadata.finalizers?.includes(HOLD_FINALIZER)) model.hold(key);
        await client.delete(id);
        model.delete(key);
        return true;
      }
      case 'release':
        await removeFinalizer(client, await client.get(id), HOLD_FINALIZER);
        model.release(key);
        return true;
    }
  } catch (error) {
    // Faults, and writes that do not apply (404, 409): the model stays as it is. Anything else is a surprise.
    if (isApiError(error) || (error instanceof Error && error.name === 'FinalizerOperationError')) return false;
    throw error;
  }
}

/** Both kinds as the server has them now (no fault is active when this is called). */
async function snapshot(cluster: ProgramCluster): Promise<ServerState> {
  const state: ServerState = new Map();
  for (const object of (await cluster.gadgets.listAll(NAMESPACE)).items) state.set(viewKey('gadget', object), { kind: 'gadget', object });
  for (const object of (await cluster.configMaps.listAll(NAMESPACE)).items) state.set(viewKey('configmap', object), { kind: 'configmap', object });
  return state;
}

/** One way a handler's view differs from the server. */
export interface ViewDiff {
  key: string;
  message: string;
}

/** How a handler's view differs from what its contract says it must be, one entry per object. */
export function viewDiffs(handler: HandlerUnderTest, server: ServerState): ViewDiff[] {
  const { record, finalizer } = handler;
  const diffs: ViewDiff[] = [];
  const diff = (key: string, message: string): void => void diffs.push({ key, message: `${record.name} ${message}` });
  const selected = (object: KubeObject): boolean => handler.selects?.matches(object.metadata.labels) ?? true;
  for (const [key, { kind, object }] of server) {
    if (kind !== handler.kind || !selected(object)) continue;
    const seen = record.view.get(key);
    const uid = object.metadata.uid ?? '';
    const otherUid = seen !== undefined && seen.uid !== uid ? ' (another uid)' : '';
    if (record.contract === 'version') {
      if (seen === undefined) diff(key, `lost ${key} (resourceVersion ${object.metadata.resourceVersion})`);
      else if (otherUid || seen.resourceVersion !== object.metadata.resourceVersion) {
        diff(key, `stale ${key}: holds resourceVersion ${seen.resourceVersion}, the server ${object.metadata.resourceVersion}${otherUid}`);
      }
      continue;
    }
    if (object.metadata.deletionTimestamp) {
      if (finalizer !== undefined && object.metadata.finalizers?.includes(finalizer)) diff(key, `left ${key} being deleted with its finalizer ${finalizer}`);
      continue;
    }
    if (seen === undefined) diff(key, `lost ${key} (${contentOf(object)})`);
    else if (otherUid || seen.content !== contentOf(object)) diff(key, `stale ${key}: holds ${seen.content}, the server ${contentOf(object)}${otherUid}`);
  }
  for (const key of record.view.keys()) {
    if (!key.startsWith(`${handler.kind}/`)) continue;
    const object = server.get(key)?.object;
    if (object === undefined) diff(key, `stale ${key}: gone from the server, still in the view`);
    else if (!selected(object)) diff(key, `stale ${key}: no longer matches ${handler.selects?.toString()}, still in the view`);
  }
  return diffs;
}

/** The server against the model of acknowledged writes. */
function modelDiffs(model: Model, server: ServerState): string[] {
  const diffs: string[] = [];
  const onServer = new Map<string, KubeObject>();
  for (const { kind, object } of server.values()) onServer.set(modelKey(kind, object.metadata.name), object);
  for (const [key, expected] of model.objects) {
    const object = onServer.get(key);
    if (object === undefined) {
      diffs.push(`server lost ${key}: an acknowledged write created it and no acknowledged delete removed it`);
      continue;
    }
    const o = object as KubeObject & { data?: Record<string, string>; spec?: { value?: number }; status?: { value?: number } };
    const value = o.spec?.value ?? (o.data?.value !== undefined ? Number(o.data.value) : undefined);
    if (value !== expected.value) diffs.push(`server has ${key} value ${value}, the model ${expected.value}`);
    if (expected.status !== undefined && o.status?.value !== expected.status) diffs.push(`server has ${key} status ${o.status?.value}, the model ${expected.status}`);
    if (JSON.stringify(sorted(object.metadata.labels ?? {})) !== JSON.stringify(sorted(expected.labels))) {
      diffs.push(`server has ${key} labels ${JSON.stringify(object.metadata.labels ?? {})}, the model ${JSON.stringify(expected.labels)}`);
    }
    if (Boolean(object.metadata.deletionTimestamp) !== expected.deleting) diffs.push(`server has ${key} ${expected.deleting ? 'not ' : ''}being deleted, the model the opposite`);
  }
  for (const key of onServer.keys()) if (!model.objects.has(key)) diffs.push(`server still has ${key}, which the model deleted (or never created)`);
  return diffs;
}

/** Each object a finalizer-based handler saw and that is now gone had its user delete run exactly once. */
function deleteDiffs(handlers: readonly HandlerUnderTest[], server: ServerState, model: Model): string[] {
  const uids = new Set<string>();
  for (const { object } of server.values()) uids.add(object.metadata.uid ?? '');
  const diffs: string[] = [];
  for (const h of handlers) {
    if (h.finalizer === undefined) continue;
    for (const [uid, key] of h.record.seen) {
      if (uids.has(uid) || model.forcedOut.has(uid)) continue;
      if ((h.record.deletes.get(uid) ?? 0) === 0) diffs.push(`${h.record.name}: ${key} (uid ${uid}) was deleted but the user's delete never ran`);
    }
  }
  return diffs;
}

function sorted(labels: Record<string, string>): [string, string][] {
  return Object.entries(labels).sort(([a], [b]) => a.localeCompare(b));
}
