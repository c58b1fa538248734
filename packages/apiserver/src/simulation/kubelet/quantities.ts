/**
 * Resource quantities as the scheduler counts them: cpu in millicores, everything else in whole
 * units (bytes for memory), from Kubernetes' quantity text (`250m`, `1.5`, `128Mi`, `1G`, `2e3`).
 */

const binarySuffixes: Readonly<Record<string, number>> = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60 };
const decimalSuffixes: Readonly<Record<string, number>> = { n: 1e-9, u: 1e-6, m: 1e-3, '': 1, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18 };

/** The value of a quantity (`128Mi` is 134217728, `250m` is 0.25); NaN when it is not one. */
export function quantityValue(text: unknown): number {
  if (typeof text === 'number') return text;
  if (typeof text !== 'string') return Number.NaN;
  const match = /^([+-]?(?:\d+\.?\d*|\.\d+))(?:([eE][+-]?\d+)|(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE])?)$/.exec(text.trim());
  if (!match) return Number.NaN;
  const number = Number(match[1]);
  if (match[2] !== undefined) return number * 10 ** Number(match[2].slice(1));
  const suffix = match[3] ?? '';
  return number * (binarySuffixes[suffix] ?? decimalSuffixes[suffix] ?? Number.NaN);
}

/** A resource in the scheduler's unit: millicores for `cpu`, the plain value (rounded up) for the rest. */
export function schedulerUnits(resource: string, text: unknown): number {
  const value = quantityValue(text);
  if (Number.isNaN(value)) return 0;
  return resource === 'cpu' ? Math.ceil(value * 1000) : Math.ceil(value);
}
