/**
 * A seeded pseudo-random generator (mulberry32): every run generates the same data, so two runs, or two
 * consumers in one run, see byte-identical streams.
 */
export class SeededRandom {
  private state: number;

  /** @param seed any 32-bit integer. */
  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** A float in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  /** One element of `items` (which must not be empty). */
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!;
  }

  /** `length` characters of lower-case hex. */
  hex(length: number): string {
    let out = '';
    for (let i = 0; i < length; i++) out += '0123456789abcdef'[this.int(16)];
    return out;
  }
}
