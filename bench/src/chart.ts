/**
 * A horizontal grouped bar chart as SVG text, drawn by hand: one group per category, one bar per
 * series, the value written at the end of each bar, a light grid on round numbers.
 */

/** What to draw. */
export interface BarChartData {
  title: string;
  categories: string[];
  /** One bar per category; `labels` replace the value written after each bar. */
  series: Array<{ name: string; values: number[]; labels?: string[] }>;
  /** A line under the title. */
  subtitle?: string;
}

const COLORS = ['#4e79a7', '#f28e2b', '#59a14f', '#e15759'];
const WIDTH = 880;
const LABEL_WIDTH = 250;
const RIGHT_MARGIN = 120;
const TOP = 74;
const BAR = 16;
const BAR_GAP = 3;
const GROUP_GAP = 14;

function escape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** A round step giving about `count` grid lines up to `max`. */
function niceStep(max: number, count = 5): number {
  const raw = max / count;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * magnitude).find((s) => s >= raw);
  return step ?? 10 * magnitude;
}

/** The chart as a standalone SVG document. */
export function barChart(data: BarChartData): string {
  const values = data.series.flatMap((s) => s.values).filter(Number.isFinite);
  const step = niceStep(Math.max(1, ...values));
  const max = Math.ceil(Math.max(1, ...values) / step) * step;
  const plotWidth = WIDTH - LABEL_WIDTH - RIGHT_MARGIN;
  const groupHeight = data.series.length * (BAR + BAR_GAP) - BAR_GAP;
  const plotHeight = data.categories.length * (groupHeight + GROUP_GAP);
  const height = TOP + plotHeight + 36;
  const x = (value: number) => LABEL_WIDTH + (value / max) * plotWidth;
  const out: string[] = [];
  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" font-family="Helvetica, Arial, sans-serif" font-size="12">`,
  );
  out.push(`<rect width="${WIDTH}" height="${height}" fill="#ffffff"/>`);
  out.push(`<text x="${WIDTH / 2}" y="22" text-anchor="middle" font-size="15" font-weight="bold">${escape(data.title)}</text>`);
  if (data.subtitle) out.push(`<text x="${WIDTH / 2}" y="40" text-anchor="middle" fill="#555555">${escape(data.subtitle)}</text>`);
  data.series.forEach((s, i) => {
    const lx = LABEL_WIDTH + i * 150;
    out.push(`<rect x="${lx}" y="51" width="12" height="12" fill="${COLORS[i % COLORS.length]}"/>`);
    out.push(`<text x="${lx + 17}" y="61">${escape(s.name)}</text>`);
  });
  for (let v = 0; v <= max; v += step) {
    out.push(`<line x1="${x(v).toFixed(1)}" y1="${TOP - 4}" x2="${x(v).toFixed(1)}" y2="${TOP + plotHeight}" stroke="#dddddd"/>`);
    out.push(`<text x="${x(v).toFixed(1)}" y="${TOP + plotHeight + 16}" text-anchor="middle" fill="#555555">${Math.round(v).toLocaleString('en-US')}</text>`);
  }
  out.push(`<text x="${LABEL_WIDTH + plotWidth / 2}" y="${TOP + plotHeight + 32}" text-anchor="middle" fill="#555555">requests per second</text>`);
  data.categories.forEach((category, c) => {
    const groupTop = TOP + c * (groupHeight + GROUP_GAP);
    out.push(`<text x="${LABEL_WIDTH - 8}" y="${(groupTop + groupHeight / 2 + 4).toFixed(1)}" text-anchor="end">${escape(category)}</text>`);
    data.series.forEach((s, i) => {
      const value = s.values[c];
      if (!Number.isFinite(value)) return;
      const y = groupTop + i * (BAR + BAR_GAP);
      const w = Math.max(1, x(value) - LABEL_WIDTH);
      out.push(`<rect x="${LABEL_WIDTH}" y="${y}" width="${w.toFixed(1)}" height="${BAR}" fill="${COLORS[i % COLORS.length]}"/>`);
      const text = s.labels?.[c] ?? Math.round(value).toLocaleString('en-US');
      out.push(`<text x="${(LABEL_WIDTH + w + 4).toFixed(1)}" y="${y + BAR - 4}" fill="#333333">${escape(text)}</text>`);
    });
  });
  out.push(`<line x1="${LABEL_WIDTH}" y1="${TOP - 4}" x2="${LABEL_WIDTH}" y2="${TOP + plotHeight}" stroke="#999999"/>`);
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}
