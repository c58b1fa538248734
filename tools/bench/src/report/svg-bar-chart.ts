/** A dependency-free horizontal bar chart in SVG: one chart per scenario in docs/bench/. */

/** One bar. */
export interface Bar {
  label: string;
  /** NaN draws no bar and prints `n/a`. */
  value: number;
  /** Drawn in the accent colour (kubeloop's own bars). Default: false. */
  emphasis?: boolean | undefined;
}

/** What to draw. */
export interface BarChartSpec {
  title: string;
  /** E.g. `events per second, higher is better`. */
  subtitle: string;
  bars: Bar[];
  /** Formats a value for the label at the end of its bar. Default: rounded with thousands separators. */
  format?: ((value: number) => string) | undefined;
}

const WIDTH = 760;
const LABEL_WIDTH = 230;
const VALUE_WIDTH = 110;
const BAR_HEIGHT = 22;
const BAR_GAP = 10;
const TOP = 62;
const BOTTOM = 16;

/** Escapes text for SVG element content and attribute values. */
export function escapeXml(text: string): string {
  return text.replace(/[<>&'"]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', "'": '&apos;', '"': '&quot;' })[c]!);
}

function defaultFormat(value: number): string {
  return Math.round(value).toLocaleString('en-US');
}

/** Renders `spec` as a standalone SVG document. Bars are scaled to the largest finite value. */
export function renderBarChartSvg(spec: BarChartSpec): string {
  const format = spec.format ?? defaultFormat;
  const finite = spec.bars.map((b) => b.value).filter((v) => Number.isFinite(v) && v > 0);
  const max = finite.length > 0 ? Math.max(...finite) : 1;
  const plot = WIDTH - LABEL_WIDTH - VALUE_WIDTH - 20;
  const height = TOP + spec.bars.length * (BAR_HEIGHT + BAR_GAP) + BOTTOM;
  const out: string[] = [];
  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" font-family="system-ui, -apple-system, Segoe UI, Helvetica, Arial, sans-serif" role="img" aria-label="${escapeXml(spec.title)}">`,
    `<rect width="${WIDTH}" height="${height}" fill="#ffffff"/>`,
    `<text x="16" y="26" font-size="17" font-weight="600" fill="#1f2328">${escapeXml(spec.title)}</text>`,
    `<text x="16" y="46" font-size="12" fill="#59636e">${escapeXml(spec.subtitle)}</text>`,
  );
  spec.bars.forEach((bar, i) => {
    const y = TOP + i * (BAR_HEIGHT + BAR_GAP);
    const ok = Number.isFinite(bar.value) && bar.value >= 0;
    const w = ok ? Math.max(1, (bar.value / max) * plot) : 0;
    const fill = bar.emphasis ? '#1f6feb' : '#8c959f';
    out.push(
      `<text x="${LABEL_WIDTH - 8}" y="${y + BAR_HEIGHT / 2 + 4}" font-size="13" text-anchor="end" fill="#1f2328">${escapeXml(bar.label)}</text>`,
    );
    if (ok) out.push(`<rect x="${LABEL_WIDTH}" y="${y}" width="${w.toFixed(1)}" height="${BAR_HEIGHT}" rx="3" fill="${fill}"/>`);
    out.push(
      `<text x="${(LABEL_WIDTH + w + 6).toFixed(1)}" y="${y + BAR_HEIGHT / 2 + 4}" font-size="12" fill="#1f2328">${escapeXml(ok ? format(bar.value) : 'n/a')}</text>`,
    );
  });
  out.push('</svg>', '');
  return out.join('\n');
}
