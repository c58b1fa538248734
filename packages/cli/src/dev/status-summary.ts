/**
 * The few lines `kubeloop dev` shows of a running operator, from its `/status.json`: objects per kind,
 * reconciles, errors and the last error.
 */

/** The part of the operator's `/status.json` (`OperatorStatus` of @kubeloop/operator) read here. */
export interface StatusJson {
  readonly controllers: readonly {
    readonly informers: readonly { readonly kind: string; readonly objects: number }[];
    readonly totals: { readonly calls: number; readonly errors: number; readonly lastError?: { at: number; kind: string; key: string; message: string } | undefined };
  }[];
}

/** What the live status shows. */
export interface StatusSummary {
  /** Objects in the informers' caches, per kind (primary and owned). */
  readonly objects: ReadonlyMap<string, number>;
  readonly calls: number;
  readonly errors: number;
  /** `Kind namespace/name: message` of the last failed call. */
  readonly lastError?: string | undefined;
}

export function summarize(status: StatusJson): StatusSummary {
  const objects = new Map<string, number>();
  let calls = 0;
  let errors = 0;
  let last: { at: number; text: string } | undefined;
  for (const c of status.controllers) {
    for (const informer of c.informers) {
      // `Website.example.com` or `example.com/v1/Website`: the kind alone.
      const kind = (informer.kind.split('/').at(-1) ?? informer.kind).split('.')[0] ?? informer.kind;
      objects.set(kind, Math.max(objects.get(kind) ?? 0, informer.objects));
    }
    calls += c.totals.calls;
    errors += c.totals.errors;
    const e = c.totals.lastError;
    if (e !== undefined && (last === undefined || e.at > last.at)) last = { at: e.at, text: `${e.kind} ${e.key}: ${e.message}` };
  }
  return { objects, calls, errors, lastError: last?.text };
}

/** One line: `objects: Website 2, Deployment 2 · reconciles 14 · errors 1`. */
export function summaryLine(summary: StatusSummary): string {
  const kinds = [...summary.objects].map(([kind, n]) => `${kind} ${n}`).join(', ') || 'none';
  return `objects: ${kinds} · handler calls ${summary.calls} · errors ${summary.errors}`;
}
