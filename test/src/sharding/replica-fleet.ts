/**
 * A fleet of sharded operator replicas (sharded-operator-process.ts), each its own process, as a
 * Deployment scales them: started, stopped with SIGTERM, killed with SIGKILL, paused with SIGSTOP and
 * resumed with SIGCONT. It keeps what the invariant checker needs: every replica's record file, and
 * how and when each replica ended. Every wait is bounded; `dispose` kills what still runs.
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { NodeProcess } from '../support/node-process.js';
import { readCallLines } from './handler-call.js';
import type { CallLine } from './handler-call.js';
import type { Pause, ReplicaEnd } from './invariants.js';
import type { ShardedOperatorOptions } from './sharded-operator-process.js';

const PROGRAM = fileURLToPath(new URL('./sharded-operator-process.js', import.meta.url));

/** Options of {@link ReplicaFleet}. */
export interface ReplicaFleetOptions {
  /** Where the record files go. */
  dir: string;
  /** The kubeconfig file of the API server. */
  kubeconfig: string;
  /** Prefix of the replicas' identities (`<prefix>-<n>`). */
  prefix: string;
  /** What every replica is started with (identity and record file are the fleet's). */
  program: Omit<ShardedOperatorOptions, 'identity' | 'record'>;
  /** How long a replica may take to sync, and to exit after SIGTERM, in milliseconds. Default: 30000. */
  timeoutMs?: number;
}

/** One replica process. */
export interface Replica {
  readonly identity: string;
  readonly record: string;
  readonly process: NodeProcess;
  /** Stopped, killed or paused by the fleet (an exit it did not ask for is a problem). */
  state: 'running' | 'paused' | 'stopping' | 'ended';
}

/** Starts and stops replicas; see the file comment. */
export class ReplicaFleet {
  /** Every replica started, in order, ended ones included. */
  readonly replicas: Replica[] = [];
  private readonly endings = new Map<string, ReplicaEnd>();
  private readonly pauses = new Map<string, Pause[]>();
  private readonly timeoutMs: number;

  constructor(private readonly options: ReplicaFleetOptions) {
    this.timeoutMs = options.timeoutMs ?? 30_000;
  }

  /** The replicas not ended (paused ones included). */
  live(): Replica[] {
    return this.replicas.filter((r) => r.state === 'running' || r.state === 'paused');
  }

  /** Starts one replica with `extra` options on top of the fleet's; resolves once it printed `synced`. */
  async start(extra: Partial<ShardedOperatorOptions> = {}): Promise<Replica> {
    const identity = `${this.options.prefix}-${this.replicas.length + 1}`;
    const record = join(this.options.dir, `${identity}.ndjson`);
    const program: ShardedOperatorOptions = { ...this.options.program, ...extra, identity, record };
    const replica: Replica = { identity, record, process: new NodeProcess(PROGRAM, [JSON.stringify(program)], { KUBECONFIG: this.options.kubeconfig }), state: 'running' };
    this.replicas.push(replica);
    await replica.process.line(/^synced$/, this.timeoutMs);
    return replica;
  }

  /**
   * Scales to `count` live replicas: starts new ones (in parallel, each with `extra(i)`), or stops the
   * newest ones gracefully, one after another as a rolling scale-down does.
   */
  async scaleTo(count: number, extra: (index: number) => Partial<ShardedOperatorOptions> = () => ({})): Promise<void> {
    const live = this.live();
    if (count > live.length) await Promise.all(Array.from({ length: count - live.length }, (_, i) => this.start(extra(live.length + i))));
    for (const replica of live.slice(count).reverse()) await this.stop(replica);
  }

  /** SIGTERM, then waits for the exit (SIGKILL after the timeout); throws unless it exited 0 in time. */
  async stop(replica: Replica): Promise<void> {
    if (replica.state === 'paused') this.resume(replica);
    replica.state = 'stopping';
    const exit = await replica.process.stop('SIGTERM', this.timeoutMs);
    replica.state = 'ended';
    this.endings.set(replica.identity, { at: Date.now(), killed: exit.signal === 'SIGKILL' });
    if (exit.code !== 0) throw new Error(`replica ${replica.identity} exited with ${JSON.stringify(exit)} after SIGTERM\n${replica.process.transcript()}`);
  }

  /** kill -9: the process ends at once, its calls in flight cut. */
  async kill(replica: Replica): Promise<void> {
    replica.state = 'stopping';
    replica.process.child.kill('SIGKILL');
    this.endings.set(replica.identity, { at: Date.now(), killed: true });
    await replica.process.waitForExit(this.timeoutMs);
    replica.state = 'ended';
  }

  /** SIGSTOP: the process freezes, its timers and its Lease renewals with it. */
  pause(replica: Replica): void {
    replica.process.child.kill('SIGSTOP');
    replica.state = 'paused';
    this.pauses.set(replica.identity, [...(this.pauses.get(replica.identity) ?? []), { from: Date.now(), to: Number.POSITIVE_INFINITY }]);
  }

  /** SIGCONT. */
  resume(replica: Replica): void {
    replica.process.child.kill('SIGCONT');
    replica.state = 'running';
    const last = this.pauses.get(replica.identity)?.at(-1);
    if (last !== undefined) last.to = Date.now();
  }

  /** When each replica was frozen. */
  paused(): ReadonlyMap<string, readonly Pause[]> {
    return this.pauses;
  }

  /** Every line every replica recorded so far. */
  records(): Promise<CallLine[]> {
    return readCallLines(this.replicas.map((r) => r.record));
  }

  /** How each ended replica ended. */
  ended(): ReadonlyMap<string, ReplicaEnd> {
    return this.endings;
  }

  /** Replicas that exited while nobody asked them to, described with their output. */
  unexpectedExits(): string[] {
    return this.replicas.filter((r) => (r.state === 'running' || r.state === 'paused') && !r.process.running).map((r) => `replica ${r.identity} exited by itself (${JSON.stringify(r.process.exit)})\n${r.process.transcript()}`);
  }

  /** Stops every live replica gracefully (bounded). */
  async stopAll(): Promise<void> {
    for (const replica of this.live()) await this.stop(replica);
  }

  /** Kills whatever still runs (for `after()` hooks). */
  async dispose(): Promise<void> {
    for (const replica of this.replicas) {
      if (replica.state === 'paused') replica.process.child.kill('SIGCONT');
      await replica.process.dispose();
    }
  }
}
