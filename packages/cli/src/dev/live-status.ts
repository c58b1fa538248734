/**
 * The live status of `kubeloop dev`: on a terminal, a few lines at the bottom redrawn in place; elsewhere
 * (a pipe, CI), a plain line whenever what it says changed. Messages (restarts, compile errors) go above it.
 */
import type { Style } from '../style.js';

/** Where the live status writes. */
export interface StatusOutput {
  /** Raw text, no newline added. */
  write(text: string): void;
  /** True on a terminal: redraw in place. */
  readonly isTTY: boolean;
  readonly style: Style;
}

export class LiveStatus {
  private lines: string[] = [];
  private drawn = 0;
  private lastPlain = '';

  constructor(private readonly output: StatusOutput) {}

  /** Prints a message line above the status. */
  message(line: string): void {
    if (!this.output.isTTY) {
      this.output.write(`${line}\n`);
      return;
    }
    this.erase();
    this.output.write(`${line}\n`);
    this.draw();
  }

  /** Replaces the status lines. */
  update(lines: readonly string[]): void {
    this.lines = [...lines];
    if (this.output.isTTY) {
      this.erase();
      this.draw();
      return;
    }
    const plain = lines.join(' | ');
    if (plain !== this.lastPlain) {
      this.lastPlain = plain;
      this.output.write(`${plain}\n`);
    }
  }

  /** Leaves the last status on screen and stops redrawing over it. */
  finish(): void {
    this.drawn = 0;
  }

  private erase(): void {
    // Up one line and clear it, per line drawn.
    if (this.drawn > 0) this.output.write('\u001b[1A\u001b[2K'.repeat(this.drawn) + '\r');
    this.drawn = 0;
  }

  private draw(): void {
    const width = process.stdout.columns > 20 ? process.stdout.columns - 1 : 119;
    for (const line of this.lines) this.output.write(`${line.length > width ? `${line.slice(0, width - 1)}…` : line}\n`);
    this.drawn = this.lines.length;
  }
}
