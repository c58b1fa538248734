/** Observations counted into fixed buckets (bucket i: values <= bounds[i] and > bounds[i-1]), with sum and count. */
export class BucketCounts {
  readonly counts: Float64Array;
  sum = 0;
  count = 0;
  constructor(readonly bounds: readonly number[]) {
    this.counts = new Float64Array(bounds.length);
  }

  observe(value: number): void {
    const bounds = this.bounds;
    for (let i = 0; i < bounds.length; i++) {
      if (value <= bounds[i]!) {
        this.counts[i]!++;
        break;
      }
    }
    this.sum += value;
    this.count++;
  }

  /** Back to no observations (after they were handed on). */
  reset(): void {
    this.counts.fill(0);
    this.sum = 0;
    this.count = 0;
  }
}
