/**
 * Kubernetes' version ordering (`k8s.io/apimachinery/pkg/version.CompareKubeAwareVersionStrings`):
 * GA before beta before alpha, higher numbers first, then versions that do not look like
 * Kubernetes versions in alphabetical order. Decides the preferred version of a CRD group.
 */

const kubeVersion = /^v(\d+)(?:(alpha|beta)(\d+))?$/;

function rank(version: string): [number, number, number] | undefined {
  const m = kubeVersion.exec(version);
  if (!m) return undefined;
  const stability = m[2] === undefined ? 3 : m[2] === 'beta' ? 2 : 1;
  return [stability, Number(m[1]), Number(m[3] ?? 0)];
}

/** Negative when `a` has the higher priority (sorts first). */
export function compareVersionPriority(a: string, b: string): number {
  const ra = rank(a);
  const rb = rank(b);
  if (ra && rb) {
    if (ra[0] !== rb[0]) return rb[0] - ra[0];
    if (ra[1] !== rb[1]) return rb[1] - ra[1];
    return rb[2] - ra[2];
  }
  if (ra) return -1;
  if (rb) return 1;
  return a < b ? -1 : a > b ? 1 : 0;
}
