/** One line of a chart. */
export interface ChartSeries {
  label: string;
  color: string;
  points: readonly (readonly [number, number])[];
  /** Points drawn dashed after the solid ones (a continuation, not data). */
  tail?: readonly (readonly [number, number])[];
}

/** A note pinned to a data point. */
export interface ChartNote {
  x: number;
  y: number;
  text: string;
  color: string;
  /** Which side of the point the text goes. */
  anchor: "start" | "end";
  /** Above the point (default) or below it. */
  below?: boolean;
  /** Data x of the text, when it should sit away from the point along the same height. */
  textX?: number;
}

/** What to draw: a titled line chart with labelled axes. */
export interface LineChartSpec {
  title: string;
  subtitle?: string;
  xLabel: string;
  yLabel: string;
  series: readonly ChartSeries[];
  notes?: readonly ChartNote[];
  formatY?: (value: number) => string;
  width?: number;
  height?: number;
}

const FONT = "font-family=\"-apple-system, 'Segoe UI', Helvetica, Arial, sans-serif\"";
const INK = "#24292f";
const MUTED = "#57606a";
const GRID = "#d0d7de";

/** Round axis ticks from 0 up to at least `max`: steps of 1, 2, 2.5 or 5 times a power of ten. */
export function niceTicks(max: number, target = 5): number[] {
  if (!(max > 0)) return [0, 1];
  const raw = max / target;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const step = ([1, 2, 2.5, 5, 10].find((m) => raw <= m * magnitude) ?? 10) * magnitude;
  const ticks: number[] = [];
  for (let v = 0; v < max + step / 2; v += step) ticks.push(Number(v.toPrecision(12)));
  if (ticks.at(-1)! < max) ticks.push(Number((ticks.at(-1)! + step).toPrecision(12)));
  return ticks;
}

/** Text safe inside SVG markup. */
export function escapeXml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

/** Short axis labels: 600000 -> "600k", 1500000 -> "1.5M". */
export function compactNumber(value: number): string {
  if (Math.abs(value) >= 1e6) return `${Number((value / 1e6).toPrecision(3))}M`;
  if (Math.abs(value) >= 1e3) return `${Number((value / 1e3).toPrecision(3))}k`;
  return String(value);
}

/**
 * A line chart as standalone SVG: white background (readable in GitHub's
 * light and dark themes), axes with ticks, one polyline per series, a legend
 * and optional notes on points.
 */
export function lineChart(spec: LineChartSpec): string {
  const width = spec.width ?? 760;
  const height = spec.height ?? 440;
  const margin = { left: 84, right: 28, top: spec.subtitle ? 88 : 68, bottom: 58 };
  const plotW = width - margin.left - margin.right;
  const plotH = height - margin.top - margin.bottom;
  const all = spec.series.flatMap((s) => [...s.points, ...(s.tail ?? [])]);
  const xTicks = niceTicks(Math.max(...all.map(([x]) => x)), 10);
  const yTicks = niceTicks(Math.max(...all.map(([, y]) => y)), 6);
  const xMax = xTicks.at(-1)!;
  const yMax = yTicks.at(-1)!;
  const fmtY = spec.formatY ?? compactNumber;
  const px = (x: number) => (margin.left + (x / xMax) * plotW).toFixed(1);
  const py = (y: number) => (margin.top + plotH - (y / yMax) * plotH).toFixed(1);
  const path = (points: readonly (readonly [number, number])[]) => points.map(([x, y]) => `${px(x)},${py(y)}`).join(" ");
  const out: string[] = [];

  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" aria-label="${escapeXml(spec.title)}">`,
    `<rect width="${width}" height="${height}" fill="#ffffff"/>`,
    `<text x="${margin.left}" y="28" ${FONT} font-size="17" font-weight="600" fill="${INK}">${escapeXml(spec.title)}</text>`,
  );
  if (spec.subtitle) {
    out.push(`<text x="${margin.left}" y="50" ${FONT} font-size="13" fill="${MUTED}">${escapeXml(spec.subtitle)}</text>`);
  }
  for (const y of yTicks) {
    out.push(
      `<line x1="${margin.left}" x2="${margin.left + plotW}" y1="${py(y)}" y2="${py(y)}" stroke="${GRID}" stroke-width="1"/>`,
      `<text x="${margin.left - 8}" y="${py(y)}" dy="4" text-anchor="end" ${FONT} font-size="12" fill="${MUTED}">${escapeXml(fmtY(y))}</text>`,
    );
  }
  for (const x of xTicks) {
    out.push(
      `<line x1="${px(x)}" x2="${px(x)}" y1="${margin.top + plotH}" y2="${margin.top + plotH + 5}" stroke="${INK}" stroke-width="1"/>`,
      `<text x="${px(x)}" y="${margin.top + plotH + 20}" text-anchor="middle" ${FONT} font-size="12" fill="${MUTED}">${x}</text>`,
    );
  }
  out.push(
    `<line x1="${margin.left}" x2="${margin.left + plotW}" y1="${margin.top + plotH}" y2="${margin.top + plotH}" stroke="${INK}" stroke-width="1.2"/>`,
    `<line x1="${margin.left}" x2="${margin.left}" y1="${margin.top}" y2="${margin.top + plotH}" stroke="${INK}" stroke-width="1.2"/>`,
    `<text x="${margin.left + plotW / 2}" y="${height - 14}" text-anchor="middle" ${FONT} font-size="13" fill="${INK}">${escapeXml(spec.xLabel)}</text>`,
    `<text transform="translate(20 ${margin.top + plotH / 2}) rotate(-90)" text-anchor="middle" ${FONT} font-size="13" fill="${INK}">${escapeXml(spec.yLabel)}</text>`,
  );
  for (const s of spec.series) {
    if (s.tail?.length) {
      const from = s.points.at(-1);
      const tail = from ? [from, ...s.tail] : s.tail;
      out.push(`<polyline points="${path(tail)}" fill="none" stroke="${s.color}" stroke-width="2" stroke-dasharray="6 5" opacity="0.8"/>`);
    }
    out.push(`<polyline points="${path(s.points)}" fill="none" stroke="${s.color}" stroke-width="2.5" stroke-linejoin="round"/>`);
    for (const [x, y] of s.points) out.push(`<circle cx="${px(x)}" cy="${py(y)}" r="2.6" fill="${s.color}"/>`);
  }
  for (const note of spec.notes ?? []) {
    const dx = note.anchor === "start" ? 10 : -10;
    out.push(
      `<circle cx="${px(note.x)}" cy="${py(note.y)}" r="5" fill="none" stroke="${note.color}" stroke-width="2"/>`,
      `<text x="${px(note.textX ?? note.x)}" y="${py(note.y)}" dx="${dx}" dy="${note.below ? 22 : -10}" text-anchor="${note.anchor}" ${FONT} font-size="13" font-weight="600" fill="${note.color}">${escapeXml(note.text)}</text>`,
    );
  }
  // Legend in the top-left of the plot, where rising lines leave room.
  spec.series.forEach((s, i) => {
    const y = margin.top + 18 + i * 22;
    const x = margin.left + 16;
    out.push(
      `<line x1="${x}" x2="${x + 28}" y1="${y}" y2="${y}" stroke="${s.color}" stroke-width="3"/>`,
      `<text x="${x + 36}" y="${y}" dy="4" ${FONT} font-size="13" fill="${INK}">${escapeXml(s.label)}</text>`,
    );
  });
  out.push("</svg>");
  return `${out.join("\n")}\n`;
}
