/** Plain-text and markdown tables. */

/** Renders an aligned plain-text table (first column left-aligned, the rest right-aligned). */
export function renderTextTable(columns: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = columns.map((c, i) => Math.max(c.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]): string =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ').trimEnd();
  return [line(columns), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map((r) => line(columns.map((_, i) => r[i] ?? '')))].join('\n');
}

/** Escapes a markdown table cell. */
function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

/** Renders a GitHub-flavoured markdown table (numbers right-aligned). */
export function renderMarkdownTable(columns: readonly string[], rows: readonly (readonly string[])[]): string {
  return [
    `| ${columns.map(cell).join(' | ')} |`,
    `| ${columns.map((_, i) => (i === 0 ? '---' : '---:')).join(' | ')} |`,
    ...rows.map((r) => `| ${columns.map((_, i) => cell(r[i] ?? '')).join(' | ')} |`),
  ].join('\n');
}
