/** `metav1.Time` as kube-apiserver writes it: RFC 3339, UTC, whole seconds (`2024-01-02T03:04:05Z`). */
export function timestampText(date: Date = new Date()): string {
  return `${date.toISOString().slice(0, 19)}Z`;
}
