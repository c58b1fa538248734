/**
 * A reliability program: a list of writes over a few objects, interleaved with faults of the API
 * server, generated from a seed. Steps are plain data (JSON), so a program can be printed, shrunk,
 * saved and replayed exactly.
 */
import { Prng } from '@kubeloop/apiserver/testing';

/** The two kinds a program writes: a custom resource with a status subresource, and ConfigMaps. */
export type ObjectKind = 'gadget' | 'configmap';

/** One object of a program. */
export interface Target {
  kind: ObjectKind;
  name: string;
}

/** A write the program makes as an ordinary client would. */
export type WriteStep =
  | { op: 'create'; target: Target; value: number; labels: Record<string, string> }
  /** Changes the spec (a gadget's `spec.value`, a ConfigMap's `data.value`): a new generation for gadgets. */
  | { op: 'updateSpec'; target: Target; value: number }
  /** Changes only the status subresource (gadgets only). */
  | { op: 'updateStatus'; target: Target; value: number }
  /** Changes only labels (no new generation). */
  | { op: 'setLabels'; target: Target; labels: Record<string, string> }
  | { op: 'delete'; target: Target }
  /**
   * Deletes, then strips every finalizer (the handlers' too), as `kubectl patch` does to force an
   * object out: it goes at once, its user deletes are not owed, and the name is free for another uid.
   */
  | { op: 'forceDelete'; target: Target }
  /** Adds the program's own finalizer, then deletes: the object stays, being deleted, until `release`. */
  | { op: 'deleteHeld'; target: Target }
  /** Removes the program's own finalizer (the object goes away if it was being deleted and no other finalizer holds it). */
  | { op: 'release'; target: Target };

/** The verbs failures can target (the embedded server's `FaultVerb`). */
export type FaultVerbName = 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete';

/** A fault of the API server, or a pause of the program. */
export type FaultStep =
  /** Cuts every watch: `reset` (connection reset), `midLine` (half an event line first), `graceful` (clean end, as a server timeout). */
  | { op: 'dropWatches'; mode: 'reset' | 'midLine' | 'graceful' }
  /** The next `count` matching requests fail with `status` (and `Retry-After`). */
  | { op: 'failNext'; verb: FaultVerbName | undefined; resource: string | undefined; status: number; count: number; retryAfterSeconds: number | undefined }
  /** Watches are cut and held off while `writes` happen, then the watch history is compacted: resuming gets 410 and relists. */
  | { op: 'gap'; writes: WriteStep[] }
  /** Every response waits `ms` (0 turns it off). */
  | { op: 'latency'; ms: number }
  /** The API server stops and starts again on the same data directory and port. */
  | { op: 'restart' }
  /** Every handler call of the operator waits `ms` before it runs (0 turns it off): slow handlers, so events pile up behind them. */
  | { op: 'slowHandlers'; ms: number }
  /** The program waits (lets the operator catch up, or not). */
  | { op: 'pause'; ms: number };

export type Step = WriteStep | FaultStep;

/** A program: the seed it came from (0 for a hand-written or shrunk one) and its steps. */
export interface Program {
  seed: number;
  steps: Step[];
}

/** Options of {@link generateProgram}. */
export interface ProgramShape {
  /** Number of steps (a gap counts as one). Default 60. */
  steps?: number;
  /** Objects per kind. Default 6. */
  objectsPerKind?: number;
}

const WRITE_OPS: ReadonlySet<string> = new Set<WriteStep['op']>(['create', 'updateSpec', 'updateStatus', 'setLabels', 'delete', 'forceDelete', 'deleteHeld', 'release']);

/** True for a write of the program. */
export function isWrite(step: Step): step is WriteStep {
  return WRITE_OPS.has(step.op);
}

/** True for a step that injects a fault (pauses are neither writes nor faults). */
export function isFault(step: Step): boolean {
  return !isWrite(step) && step.op !== 'pause';
}

/** The writes of a program, also those inside gaps. */
export function countWrites(program: Program): number {
  return program.steps.reduce((n, s) => n + (s.op === 'gap' ? s.writes.length : isWrite(s) ? 1 : 0), 0);
}

/** One short line per step, for failure reports. */
export function describeStep(step: Step): string {
  switch (step.op) {
    case 'create':
      return `create ${name(step.target)} value=${step.value} labels=${JSON.stringify(step.labels)}`;
    case 'updateSpec':
    case 'updateStatus':
      return `${step.op} ${name(step.target)} value=${step.value}`;
    case 'setLabels':
      return `setLabels ${name(step.target)} ${JSON.stringify(step.labels)}`;
    case 'delete':
    case 'forceDelete':
    case 'deleteHeld':
    case 'release':
      return `${step.op} ${name(step.target)}`;
    case 'dropWatches':
      return `FAULT dropWatches ${step.mode}`;
    case 'failNext':
      return `FAULT failNext ${step.verb ?? 'any'} ${step.resource ?? 'any'} ${step.status} x${step.count}${step.retryAfterSeconds !== undefined ? ` Retry-After ${step.retryAfterSeconds}s` : ''}`;
    case 'gap':
      return `FAULT gap [${step.writes.map(describeStep).join('; ')}] then compact`;
    case 'latency':
      return `FAULT latency ${step.ms} ms`;
    case 'restart':
      return 'FAULT restart the API server';
    case 'slowHandlers':
      return `FAULT slow handlers ${step.ms} ms`;
    case 'pause':
      return `pause ${step.ms} ms`;
  }
}

/** The program as numbered lines. */
export function describeProgram(program: Program): string {
  return program.steps.map((s, i) => `  ${String(i + 1).padStart(3)}. ${describeStep(s)}`).join('\n');
}

function name(target: Target): string {
  return `${target.kind}/${target.name}`;
}

/** What the generator believes about an object (writes may fail under faults: it is a guide, not a model). */
interface Guess {
  exists: boolean;
  held: boolean;
}

const WRITE_WEIGHTS = { create: 20, updateSpec: 26, updateStatus: 12, setLabels: 12, delete: 12, deleteHeld: 8, release: 6 } as const;
const FAULT_WEIGHTS = { dropWatches: 24, failNext: 26, gap: 10, latency: 10, restart: 6, pause: 24, scenario: 20 } as const;
/**
 * Scenarios: short fixed shapes of steps, aimed at the weak spots of an informer-driven controller
 * (issue 9), drawn like faults. `recreateInGap`: an object force-deleted and created again under the
 * same name while the watches are down, so the 410 relist finds another uid; `burstWhileSlow`: many
 * updates of one object while the handlers are slow and the handlers' writes fail (coalescing and
 * retries together); `heldDeleteRestart`: deletes held by finalizers, the API server restarted right
 * after, then released; `relabel`: labels that move objects in and out of the `tier=web` informers;
 * `throttledHandlerWrites`: a burst of 429 with Retry-After on the writes the handlers make
 * (finalizers added on create, removed on delete).
 */
const SCENARIO_WEIGHTS = { recreateInGap: 1, burstWhileSlow: 1, heldDeleteRestart: 1, relabel: 1, throttledHandlerWrites: 1 } as const;
const FAIL_VERBS: readonly FaultVerbName[] = ['list', 'watch', 'create', 'update', 'patch', 'delete', 'get'];

/** Generates the program of `seed`. */
export function generateProgram(seed: number, shape: ProgramShape = {}): Program {
  const rng = new Prng(seed);
  const stepCount = shape.steps ?? 60;
  const perKind = shape.objectsPerKind ?? 6;
  const targets: Target[] = [];
  for (const kind of ['gadget', 'configmap'] as const) for (let i = 0; i < perKind; i++) targets.push({ kind, name: `${kind === 'gadget' ? 'g' : 'c'}${i}` });
  const guesses = new Map<Target, Guess>(targets.map((t) => [t, { exists: false, held: false }]));
  const steps: Step[] = [];
  let latencyOffIn = -1;

  const write = (op: WriteStep['op'], target: Target): WriteStep => {
    const guess = guesses.get(target)!;
    switch (op) {
      case 'create':
        if (!guess.exists) guess.exists = true;
        return { op, target, value: rng.int(0, 99), labels: labels(rng) };
      case 'updateSpec':
        return { op, target, value: rng.int(0, 99) };
      case 'updateStatus':
        return target.kind === 'gadget' ? { op, target, value: rng.int(0, 99) } : { op: 'updateSpec', target, value: rng.int(0, 99) };
      case 'setLabels':
        return { op, target, labels: labels(rng) };
      case 'delete':
        if (!guess.held) guess.exists = false;
        return { op, target };
      case 'forceDelete':
        guess.held = false;
        guess.exists = false;
        return { op, target };
      case 'deleteHeld':
        guess.held = true;
        return { op, target };
      case 'release':
        guess.held = false;
        guess.exists = false;
        return { op, target };
    }
  };

  /** A target that makes `op` meaningful, most of the time. */
  const targetFor = (op: WriteStep['op']): Target => {
    const fits = targets.filter((t) => {
      const g = guesses.get(t)!;
      if (op === 'create') return !g.exists;
      if (op === 'release') return g.held;
      return g.exists;
    });
    return fits.length > 0 && rng.chance(0.9) ? rng.pick(fits) : rng.pick(targets);
  };

  // Start with a populated world.
  for (const t of targets) if (rng.chance(0.6)) steps.push(write('create', t));

  while (steps.length < stepCount) {
    if (latencyOffIn === 0) {
      steps.push({ op: 'latency', ms: 0 });
      latencyOffIn = -1;
      continue;
    }
    if (latencyOffIn > 0) latencyOffIn--;
    if (!rng.chance(0.27)) {
      const op = rng.weighted(WRITE_WEIGHTS);
      steps.push(write(op, targetFor(op)));
      continue;
    }
    const fault = rng.weighted(FAULT_WEIGHTS);
    switch (fault) {
      case 'dropWatches':
        steps.push({ op: 'dropWatches', mode: rng.pick(['reset', 'midLine', 'graceful'] as const) });
        break;
      case 'failNext': {
        const status = rng.pick([500, 503, 429]);
        steps.push({
          op: 'failNext',
          verb: rng.chance(0.85) ? rng.pick(FAIL_VERBS) : undefined,
          resource: rng.chance(0.5) ? rng.pick(['gadgets', 'configmaps']) : undefined,
          status,
          count: rng.int(1, 3),
          retryAfterSeconds: status !== 500 && rng.chance(0.6) ? 1 : undefined,
        });
        break;
      }
      case 'gap': {
        const writes: WriteStep[] = [];
        const n = rng.int(1, 4);
        for (let i = 0; i < n; i++) {
          const op = rng.chance(0.6) ? 'delete' : rng.pick(['create', 'updateSpec', 'deleteHeld'] as const);
          writes.push(write(op, targetFor(op)));
        }
        steps.push({ op: 'gap', writes });
        break;
      }
      case 'latency':
        if (latencyOffIn < 0) {
          steps.push({ op: 'latency', ms: rng.int(10, 120) });
          latencyOffIn = rng.int(2, 8);
        }
        break;
      case 'restart':
        steps.push({ op: 'restart' });
        break;
      case 'pause':
        steps.push({ op: 'pause', ms: rng.int(10, 300) });
        break;
      case 'scenario':
        steps.push(...scenario(rng.weighted(SCENARIO_WEIGHTS)));
        break;
    }
  }
  return { seed, steps };

  function scenario(kind: keyof typeof SCENARIO_WEIGHTS): Step[] {
    switch (kind) {
      case 'recreateInGap': {
        const target = targetFor('delete');
        const writes: WriteStep[] = [];
        if (rng.chance(0.5)) writes.push(write('updateSpec', target));
        writes.push(write('forceDelete', target), write('create', target));
        if (rng.chance(0.5)) writes.push(write('updateSpec', target));
        return [{ op: 'gap', writes }];
      }
      case 'burstWhileSlow': {
        const target = targetFor('updateSpec');
        const out: Step[] = [{ op: 'slowHandlers', ms: rng.int(20, 120) }];
        const n = rng.int(5, 14);
        for (let i = 0; i < n; i++) {
          if (i === 2) out.push({ op: 'failNext', verb: rng.pick(['update', 'patch'] as const), resource: undefined, status: rng.pick([500, 503]), count: rng.int(1, 3), retryAfterSeconds: undefined });
          out.push(write(rng.chance(0.75) ? 'updateSpec' : 'updateStatus', target));
        }
        out.push({ op: 'pause', ms: rng.int(0, 200) }, { op: 'slowHandlers', ms: 0 });
        return out;
      }
      case 'heldDeleteRestart': {
        const held = targetFor('deleteHeld');
        const out: Step[] = [write('deleteHeld', held)];
        if (rng.chance(0.5)) out.push(write('delete', targetFor('delete')));
        out.push({ op: 'restart' });
        if (rng.chance(0.7)) out.push(write('release', held));
        return out;
      }
      case 'relabel': {
        const out: Step[] = [];
        const n = rng.int(2, 5);
        for (let i = 0; i < n; i++) {
          const target = targetFor('setLabels');
          const tier = rng.pick(['web', 'db', undefined]);
          out.push({ op: 'setLabels', target, labels: tier !== undefined ? { tier } : {} });
          if (rng.chance(0.3)) out.push({ op: 'dropWatches', mode: rng.pick(['reset', 'midLine', 'graceful'] as const) });
        }
        return out;
      }
      case 'throttledHandlerWrites': {
        const out: Step[] = [{ op: 'failNext', verb: rng.pick(['update', 'patch'] as const), resource: undefined, status: 429, count: rng.int(4, 10), retryAfterSeconds: 1 }];
        const n = rng.int(1, 3);
        for (let i = 0; i < n; i++) {
          const op = rng.pick(['create', 'delete'] as const);
          out.push(write(op, targetFor(op)));
        }
        return out;
      }
    }
  }
}

function labels(rng: Prng): Record<string, string> {
  const out: Record<string, string> = {};
  if (rng.chance(0.7)) out['tier'] = rng.pick(['web', 'db', 'cache']);
  if (rng.chance(0.4)) out['track'] = rng.pick(['stable', 'canary']);
  return out;
}
