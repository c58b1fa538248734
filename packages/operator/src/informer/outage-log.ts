/**
 * What an informer says about an outage, so that a person reading the logs sees an operator that
 * waits for its API server, not a dead one: one WARN once the informer has failed to reach the
 * server for longer than its backoff cap (with the last error), and one INFO when a watch is back.
 */
import type { LogAttributes, Logger } from '../observability/logger.js';

/** Counts failed attempts since the last working watch and logs the two lines of an outage. */
export class OutageLog {
  private startedAt: number | undefined;
  private attempts = 0;
  private warned = false;

  /**
   * @param logger where the two lines go
   * @param warnAfterMs how long an outage lasts before the WARN line: the backoff cap
   * @param attributes added to both lines (component, kind, namespace)
   */
  constructor(
    private readonly logger: Logger,
    private readonly warnAfterMs: number,
    private readonly attributes: LogAttributes,
  ) {}

  /** A request failed and the informer backs off; `now` in ms. */
  failed(now: number, error: string): void {
    this.startedAt ??= now;
    this.attempts++;
    const downMs = now - this.startedAt;
    if (!this.warned && downMs > this.warnAfterMs) {
      this.warned = true;
      this.logger.warn(`cannot reach the API server for ${seconds(downMs)} s (${attempts(this.attempts)}); still retrying`, { ...this.attributes, lastError: error });
    }
  }

  /** A watch connected: the outage, if there was one, is over. */
  resumed(now: number): void {
    if (this.startedAt === undefined) return;
    this.logger.info(`watch resumed after ${seconds(now - this.startedAt)} s, ${attempts(this.attempts)}`, this.attributes);
    this.startedAt = undefined;
    this.attempts = 0;
    this.warned = false;
  }
}

function seconds(ms: number): string {
  return (ms / 1000).toFixed(1);
}

function attempts(n: number): string {
  return n === 1 ? '1 attempt' : `${n} attempts`;
}
