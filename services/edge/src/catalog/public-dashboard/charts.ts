import { escapeHtml } from "../../pages/html";

// The dashboard's charts as SVG drawn on the server: they show without JavaScript, cost no library, and
// load nothing. Colours come from the stylesheet by class (the page's CSP allows no inline style), and
// each chart carries a text alternative (its <title>) and a data table beside it for screen readers and
// for reading exact numbers.

export const SOURCE_ORDER = ["x", "reddit", "youtube", "linkedin", "hackernews", "bluesky", "rss", "github"] as const;
export const SOURCE_NAMES: Record<string, string> = {
  x: "X",
  reddit: "Reddit",
  youtube: "YouTube",
  linkedin: "LinkedIn",
  hackernews: "Hacker News",
  bluesky: "Bluesky",
  rss: "Feeds",
  github: "GitHub",
};
export const SENTIMENT_ORDER = ["positive", "neutral", "negative"] as const;

export interface DayCounts {
  /** A short label of the day, e.g. "12 Nov". */
  label: string;
  counts: Record<string, number>;
}

export interface NamedCount {
  name: string;
  count: number;
}

/** A round upper bound for an axis: 1, 2 or 5 times a power of ten, at least `max`. */
const niceMax = (max: number): number => {
  if (max <= 0) return 1;
  const power = 10 ** Math.floor(Math.log10(max));
  for (const step of [1, 2, 5, 10]) if (step * power >= max) return step * power;
  return 10 * power;
};

const n = (value: number) => Number(value.toFixed(2));

/** Mentions per day stacked by source, with a light grid and the first, middle and last day named. */
export const stackedDaysChart = (id: string, days: DayCounts[], title: string): string => {
  const width = 720;
  const height = 240;
  const left = 36;
  const bottom = 24;
  const top = 8;
  const plotW = width - left - 8;
  const plotH = height - top - bottom;
  const totals = days.map((d) => SOURCE_ORDER.reduce((sum, s) => sum + (d.counts[s] ?? 0), 0));
  const max = niceMax(Math.max(0, ...totals));
  const slot = plotW / Math.max(1, days.length);
  const barW = Math.max(1, slot * 0.72);
  const parts: string[] = [];
  for (const fraction of [0, 0.5, 1]) {
    const y = n(top + plotH - fraction * plotH);
    parts.push(`<line class="grid" x1="${left}" x2="${width - 8}" y1="${y}" y2="${y}"/>`);
    parts.push(`<text class="axis" x="${left - 6}" y="${n(y + 4)}" text-anchor="end">${Math.round(fraction * max)}</text>`);
  }
  days.forEach((d, i) => {
    let y = top + plotH;
    const x = n(left + i * slot + (slot - barW) / 2);
    for (const s of SOURCE_ORDER) {
      const count = d.counts[s] ?? 0;
      if (count === 0) continue;
      const h = (count / max) * plotH;
      y -= h;
      parts.push(`<rect class="fill-${s}" x="${x}" y="${n(y)}" width="${n(barW)}" height="${n(h)}"><title>${escapeHtml(`${d.label}: ${count} on ${SOURCE_NAMES[s]}`)}</title></rect>`);
    }
  });
  const labelled = days.length <= 1 ? [0] : [0, Math.floor((days.length - 1) / 2), days.length - 1];
  for (const i of new Set(labelled)) {
    const d = days[i];
    if (!d) continue;
    const anchor = i === 0 ? "start" : i === days.length - 1 ? "end" : "middle";
    const x = i === 0 ? left : i === days.length - 1 ? width - 8 : left + i * slot + slot / 2;
    parts.push(`<text class="axis" x="${n(x)}" y="${height - 6}" text-anchor="${anchor}">${escapeHtml(d.label)}</text>`);
  }
  return `<svg class="chart" id="${id}" viewBox="0 0 ${width} ${height}" role="img" aria-labelledby="${id}-title" preserveAspectRatio="none"><title id="${id}-title">${escapeHtml(title)}</title>${parts.join("")}</svg>`;
};

/** Horizontal bars, one per name, longest first, each labelled with its count (and share of `of`). */
export const barsChart = (id: string, rows: NamedCount[], title: string, of?: number, fillClass = "fill-bar"): string => {
  const rowH = 28;
  const width = 480;
  const labelW = 150;
  const height = Math.max(1, rows.length) * rowH;
  const max = Math.max(1, ...rows.map((r) => r.count));
  const parts = rows.map((r, i) => {
    const y = i * rowH;
    const w = n(((width - labelW - 70) * r.count) / max);
    const share = of ? ` (${Math.round((100 * r.count) / Math.max(1, of))}%)` : "";
    const name = r.name.length > 22 ? `${r.name.slice(0, 21)}…` : r.name;
    return (
      `<text class="label" x="${labelW - 8}" y="${y + 18}" text-anchor="end">${escapeHtml(name)}</text>` +
      `<rect class="${fillClass}" x="${labelW}" y="${y + 5}" width="${Math.max(2, w)}" height="${rowH - 10}" rx="3"><title>${escapeHtml(`${r.name}: ${r.count}${share}`)}</title></rect>` +
      `<text class="value" x="${n(labelW + Math.max(2, w) + 6)}" y="${y + 18}">${r.count}${escapeHtml(share)}</text>`
    );
  });
  return `<svg class="chart bars" id="${id}" viewBox="0 0 ${width} ${height}" role="img" aria-labelledby="${id}-title"><title id="${id}-title">${escapeHtml(title)}</title>${parts.join("")}</svg>`;
};

/** One bar split by sentiment, each part as wide as its share. */
export const sentimentChart = (id: string, counts: Record<string, number>, title: string): string => {
  const width = 480;
  const height = 36;
  const total = SENTIMENT_ORDER.reduce((sum, s) => sum + (counts[s] ?? 0), 0);
  let x = 0;
  const parts: string[] = [];
  if (total === 0) parts.push(`<rect class="fill-empty" x="0" y="4" width="${width}" height="28" rx="4"/>`);
  for (const s of SENTIMENT_ORDER) {
    const count = counts[s] ?? 0;
    if (count === 0) continue;
    const w = (width * count) / total;
    parts.push(`<rect class="fill-${s}" x="${n(x)}" y="4" width="${n(w)}" height="28"><title>${escapeHtml(`${s}: ${count} (${Math.round((100 * count) / total)}%)`)}</title></rect>`);
    x += w;
  }
  return `<svg class="chart split" id="${id}" viewBox="0 0 ${width} ${height}" role="img" aria-labelledby="${id}-title" preserveAspectRatio="none"><title id="${id}-title">${escapeHtml(title)}</title>${parts.join("")}</svg>`;
};

/** The data of a chart as a table, folded away by default. */
export const dataTable = (caption: string, head: string[], rows: Array<Array<string | number>>): string =>
  `<details class="data"><summary>Data table<span class="visually-hidden">: ${escapeHtml(caption)}</span></summary><div class="table-wrap"><table><caption>${escapeHtml(caption)}</caption>` +
  `<thead><tr>${head.map((h, i) => `<th scope="col"${i > 0 ? ' class="num"' : ""}>${escapeHtml(h)}</th>`).join("")}</tr></thead><tbody>` +
  rows.map((r) => `<tr>${r.map((c, i) => (i === 0 ? `<th scope="row">${escapeHtml(String(c))}</th>` : `<td class="num">${escapeHtml(String(c))}</td>`)).join("")}</tr>`).join("") +
  `</tbody></table></div></details>`;
