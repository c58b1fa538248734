/**
 * Parent side of the process-per-participant model: every consumer and every server of a benchmark
 * runs in its own `node --expose-gc` child, so that one cannot disturb another's heap, JIT or event loop.
 * Messages travel over the IPC channel (see child-runtime.ts for the child side).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** A message between parent and child. */
export interface ChildMessage {
  kind: 'input' | 'ready' | 'result' | 'error' | 'stop' | 'command' | 'reply';
  value?: unknown;
}

/** Options of {@link BenchChild.start}. */
export interface BenchChildOptions {
  /** The child is killed, and every pending promise rejects, after this many milliseconds. */
  timeoutMs: number;
  /** Extra environment variables. Default: none. */
  env?: Record<string, string> | undefined;
  /** Extra node flags, e.g. `--cpu-prof`. Default: none (`--expose-gc` is always passed). */
  execArgv?: readonly string[] | undefined;
  /** A name for error messages. Default: the script's file name. */
  label?: string | undefined;
}

/** A running child process with a request/response protocol on top of IPC. */
export class BenchChild {
  private readonly child: ChildProcess;
  private readonly label: string;
  private readonly waiters = new Map<ChildMessage['kind'], { resolve: (v: unknown) => void; reject: (e: Error) => void }[]>();
  private readonly early = new Map<ChildMessage['kind'], unknown[]>();
  private failure: Error | undefined;
  private readonly exited: Promise<number | null>;
  private readonly timer: NodeJS.Timeout;

  private constructor(script: URL, input: unknown, options: BenchChildOptions) {
    this.label = options.label ?? fileURLToPath(script).split('/').pop()!;
    this.child = fork(fileURLToPath(script), [], {
      execArgv: ['--expose-gc', ...(options.execArgv ?? [])],
      env: { ...process.env, ...options.env },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      serialization: 'advanced',
    });
    this.child.on('message', (msg: ChildMessage) => this.deliver(msg));
    // 'close', not 'exit': it comes after the IPC channel is drained, so a result sent just before exiting is never lost.
    this.exited = new Promise((resolve) => {
      this.child.on('close', (code, signal) => {
        clearTimeout(this.timer);
        if (code !== 0) this.fail(new Error(`${this.label} exited with ${signal ?? `code ${code}`}`));
        else this.fail(new Error(`${this.label} exited before answering`));
        resolve(code);
      });
    });
    this.child.on('error', (err) => this.fail(err));
    this.timer = setTimeout(() => {
      this.fail(new Error(`${this.label} timed out after ${options.timeoutMs} ms`));
      this.child.kill('SIGKILL');
    }, options.timeoutMs);
    this.child.send({ kind: 'input', value: input } satisfies ChildMessage);
  }

  /** Starts `script` (a compiled .js file of this package) and sends it `input`. */
  static start(script: URL, input: unknown, options: BenchChildOptions): BenchChild {
    return new BenchChild(script, input, options);
  }

  /** Resolves with the child's `ready` value (servers send one when listening). */
  ready<T>(): Promise<T> {
    return this.next('ready') as Promise<T>;
  }

  /** Resolves with the child's `result` value; rejects if it exits, fails or times out first. */
  result<T>(): Promise<T> {
    return this.next('result') as Promise<T>;
  }

  /** Sends a command and resolves with the child's reply. */
  async command<T>(value: unknown): Promise<T> {
    const reply = this.next('reply');
    this.child.send({ kind: 'command', value } satisfies ChildMessage);
    return (await reply) as T;
  }

  /** Asks the child to stop, then kills it if it has not exited after `graceMs`. Resolves when it is gone. */
  async stop(graceMs = 5000): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    if (this.child.connected) this.child.send({ kind: 'stop' } satisfies ChildMessage);
    const kill = setTimeout(() => this.child.kill('SIGKILL'), graceMs);
    await this.exited;
    clearTimeout(kill);
  }

  /** kill -9: the child ends at once (a replica dying, for the re-balance measure). Resolves when it is gone. */
  async kill(): Promise<void> {
    this.child.kill('SIGKILL');
    await this.exited;
  }

  /** Resolves with the exit code once the child has exited. */
  async exit(): Promise<number | null> {
    return this.exited;
  }

  private next(kind: ChildMessage['kind']): Promise<unknown> {
    const queued = this.early.get(kind);
    if (queued && queued.length > 0) return Promise.resolve(queued.shift());
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      const list = this.waiters.get(kind) ?? [];
      list.push({ resolve, reject });
      this.waiters.set(kind, list);
    });
  }

  private deliver(msg: ChildMessage): void {
    if (msg.kind === 'error') {
      this.fail(new Error(`${this.label} failed: ${String(msg.value)}`));
      return;
    }
    const waiter = this.waiters.get(msg.kind)?.shift();
    if (waiter) waiter.resolve(msg.value);
    else this.early.set(msg.kind, [...(this.early.get(msg.kind) ?? []), msg.value]);
  }

  private fail(err: Error): void {
    this.failure ??= err;
    for (const list of this.waiters.values()) for (const w of list.splice(0)) w.reject(this.failure);
  }
}
