// Hand-written SVG charts: diverging bars, lines over steps, a heat map. Each is an `<svg role="img">` named by its
// `<title>` and described by its `<desc>`; each mark has a `<title>` of its own (the tooltip, and what a screen
// reader reads), and carries its exact figure in `data-v`. Pure and deterministic: coordinates are rounded to two
// decimals, so the same figures make the same text.

import { clipped } from '../../util/inputText.js';
import { el, esc, num, text } from './markup.js';

/** Width of every chart in SVG units (the chart scales to the page). */
const W = 960;

/**
 * The `<svg>` around a chart, with its accessible name and description, in a wrapper that scrolls sideways where
 * the page is narrower than the chart: the chart is never drawn narrower than its width in SVG units (CSS
 * `min-width`), so its text stays at its CSS size (12 px) on a phone instead of shrinking with the drawing.
 */
function svg(id: string, title: string, desc: string, height: number, inner: string, defs = ''): string {
  return (
    `<div class="chart-wrap" tabindex="0" role="group" aria-label="${esc(title)} (scrolls sideways on a narrow screen)">` +
    `<svg class="chart" id="${esc(id)}" role="img" aria-labelledby="${esc(id)}-t ${esc(id)}-d" viewBox="0 0 ${W} ${num(height)}" xmlns="http://www.w3.org/2000/svg">` +
    `<title id="${esc(id)}-t">${esc(title)}</title><desc id="${esc(id)}-d">${esc(desc)}</desc>${defs}${inner}</svg></div>`
  );
}

/** Diagonal stripes over a bar: added and removed groups stand apart from changed ones without colour too. */
function hatch(id: string): string {
  return `<defs><pattern id="${esc(id)}-hatch" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><line x1="0" y1="0" x2="0" y2="6" class="hatch-line"/></pattern></defs>`;
}

/** Most bars in a bar chart (the table has every group). */
export const MAX_BARS = 30;

export interface Bar {
  /** The group's key, as read (escaped and clipped here). */
  label: string;
  /** The figure the bar is as long as (signed), exact. */
  value: number;
  /** The figure as printed at the end of the bar, with its mark (`~`, `added`, `removed`). */
  valueText: string;
  /** fewer, more, added, removed, faster, slower, noise. */
  cls: string;
  /** Striped (added, removed). */
  striped: boolean;
  /** The tooltip, already safe text (made of clipped input and kprof's own words). */
  tip: string;
}

const LABEL_W = 230;
const VALUE_W = 150;
const ROW_H = 22;
const BAR_H = 14;
const TOP = 6;
const AXIS_H = 22;

/** Room between two labels on one line, in SVG units. */
const LABEL_GAP = 6;

/**
 * The width a text of the charts' 12 px sans-serif takes, in SVG units, rounded up: 7.5 a character is more
 * than the widest digits, signs and unit letters take, so labels kept apart by this estimate do not touch.
 */
export function textWidth(s: string): number {
  return [...s].length * 7.5;
}

/** Horizontal bars from a zero line, left for negative figures and right for positive ones, in the order given. */
export function divergingBars(id: string, title: string, desc: string, bars: Bar[], axisText: (v: number) => string): string {
  let neg = 0;
  let pos = 0;
  for (const b of bars) {
    if (b.value < 0) neg = Math.max(neg, -b.value);
    else pos = Math.max(pos, b.value);
  }
  const area = W - LABEL_W - 2 * VALUE_W;
  const span = neg + pos || 1;
  // Both sides get room in proportion to their largest bar, so one scale serves both.
  const zero = LABEL_W + VALUE_W + (area * neg) / span;
  const scale = area / span;
  const height = TOP + bars.length * ROW_H + AXIS_H;
  const parts: string[] = [];
  parts.push(`<line class="axis" x1="${num(zero)}" y1="${TOP - 2}" x2="${num(zero)}" y2="${num(TOP + bars.length * ROW_H)}"/>`);
  bars.forEach((b, i) => {
    const y = TOP + i * ROW_H;
    const w = Math.abs(b.value) * scale;
    const x = b.value < 0 ? zero - w : zero;
    const barY = y + (ROW_H - BAR_H) / 2;
    const textY = y + ROW_H / 2 + 4;
    const rect = `<rect class="${esc(b.cls)}" x="${num(x)}" y="${num(barY)}" width="${num(Math.max(w, 1))}" height="${BAR_H}" data-v="${esc(String(b.value))}"/>`;
    const stripes = b.striped
      ? `<rect fill="url(#${esc(id)}-hatch)" x="${num(x)}" y="${num(barY)}" width="${num(Math.max(w, 1))}" height="${BAR_H}"/>`
      : '';
    const value =
      b.value < 0
        ? `<text x="${num(x - 4)}" y="${num(textY)}" text-anchor="end">${esc(b.valueText)}</text>`
        : `<text x="${num(x + Math.max(w, 1) + 4)}" y="${num(textY)}">${esc(b.valueText)}</text>`;
    const label = `<text class="mono" x="${LABEL_W - 8}" y="${num(textY)}" text-anchor="end">${text(b.label, 30)}</text>`;
    parts.push(`<g class="bar"><title>${esc(b.tip)}</title>${label}${rect}${stripes}${value}</g>`);
  });
  const axisY = TOP + bars.length * ROW_H + 16;
  // The axis: 0 at the zero line, the largest figure of each side at its end. An end label is left out where it
  // would run into the 0 (a side whose bars are short next to the other side's): the bars' own figures say it.
  const zeroHalf = textWidth('0') / 2 + LABEL_GAP;
  parts.push(`<text class="lbl" x="${num(zero)}" y="${num(axisY)}" text-anchor="middle">0</text>`);
  if (neg > 0) {
    const t = axisText(-neg);
    const x = zero - neg * scale;
    if (x + textWidth(t) <= zero - zeroHalf) parts.push(`<text class="lbl" x="${num(x)}" y="${num(axisY)}" text-anchor="start">${esc(t)}</text>`);
  }
  if (pos > 0) {
    const t = axisText(pos);
    const x = zero + pos * scale;
    if (x - textWidth(t) >= zero + zeroHalf) parts.push(`<text class="lbl" x="${num(x)}" y="${num(axisY)}" text-anchor="end">${esc(t)}</text>`);
  }
  return svg(id, title, desc, height, parts.join(''), bars.some((b) => b.striped) ? hatch(id) : '');
}

export interface Series {
  /** base or pr: the line's class and the legend. */
  side: 'base' | 'pr';
  legend: string;
  /** Figure per Step Id. */
  points: Map<number, number>;
}

/** Most points a line has; more steps are drawn in buckets of consecutive steps (mean, and a band lowest to highest). */
export const MAX_STEP_POINTS = 200;

/** Marks with a tooltip on each point up to this many steps (beyond, the line alone: the table has the figures). */
const MAX_DOTS = 60;

/** Buckets of consecutive Step Ids (all of them when few): how many steps each bucket holds. */
export function stepBuckets(stepIds: number[], max = MAX_STEP_POINTS): number[][] {
  const per = Math.max(1, Math.ceil(stepIds.length / max));
  const out: number[][] = [];
  for (let i = 0; i < stepIds.length; i += per) out.push(stepIds.slice(i, i + per));
  return out;
}

/** Lines of a figure per step, steps (in Step Id order, evenly spaced) on the x axis, one line per series. */
export function stepLines(id: string, title: string, desc: string, stepIds: number[], series: Series[], fmt: (v: number) => string, H = 260): string {
  const buckets = stepBuckets(stepIds);
  const left = 70;
  const right = 20;
  const top = 28;
  const bottom = 36;
  let max = 0;
  for (const s of series) for (const v of s.points.values()) max = Math.max(max, v);
  const yMax = niceCeil(max);
  const x = (i: number): number => (buckets.length === 1 ? (left + W - right) / 2 : left + ((W - left - right) * i) / (buckets.length - 1));
  const y = (v: number): number => top + (H - top - bottom) * (1 - (yMax === 0 ? 0 : v / yMax));
  const parts: string[] = [];
  for (const f of [0, 0.5, 1]) {
    const v = yMax * f;
    parts.push(`<line class="grid" x1="${left}" y1="${num(y(v))}" x2="${W - right}" y2="${num(y(v))}"/>`);
    parts.push(`<text class="lbl" x="${left - 6}" y="${num(y(v) + 4)}" text-anchor="end">${esc(fmt(v))}</text>`);
  }
  // Step Ids under the axis: the first, the last and a few between.
  // A tick whose label would touch the one before it is left out (the last one is kept: it is where the axis ends).
  const ticks = [...new Set([0, buckets.length - 1, ...[1, 2, 3].map((k) => Math.round(((buckets.length - 1) * k) / 4))])].sort((a, b) => a - b);
  const tickLabel = (i: number): string => {
    const b = buckets[i]!;
    return b.length === 1 ? String(b[0]) : `${b[0]}-${b[b.length - 1]}`;
  };
  const span = (i: number): [number, number] => [x(i) - textWidth(tickLabel(i)) / 2, x(i) + textWidth(tickLabel(i)) / 2];
  const kept: number[] = [];
  for (const i of ticks) {
    if (kept.length > 0 && span(kept[kept.length - 1]!)[1] + LABEL_GAP > span(i)[0]) {
      if (i !== ticks[ticks.length - 1] || kept.length === 1) continue;
      kept.pop();
    }
    kept.push(i);
  }
  for (const i of kept) parts.push(`<text class="lbl" x="${num(x(i))}" y="${H - bottom + 18}" text-anchor="middle">${esc(tickLabel(i))}</text>`);
  parts.push(`<text class="lbl" x="${num((left + W - right) / 2)}" y="${H - 4}" text-anchor="middle">Step Id</text>`);
  series.forEach((s, k) => {
    const stats = buckets.map((b) => {
      const vs = b.filter((step) => s.points.has(step)).map((step) => s.points.get(step)!);
      if (vs.length === 0) return null;
      let lo = Infinity;
      let hi = -Infinity;
      let sum = 0;
      for (const v of vs) {
        lo = Math.min(lo, v);
        hi = Math.max(hi, v);
        sum += v;
      }
      return { lo, hi, mean: sum / vs.length };
    });
    // A line through the buckets the side has; a gap where it has none (Step Ids on one side only).
    const runs: { i: number; v: { lo: number; hi: number; mean: number } }[][] = [];
    stats.forEach((v, i) => {
      if (v === null) runs.push([]);
      else {
        if (runs.length === 0) runs.push([]);
        runs[runs.length - 1]!.push({ i, v });
      }
    });
    for (const run of runs.filter((r) => r.length > 0)) {
      if (buckets.some((b) => b.length > 1)) {
        const upper = run.map((p) => `${num(x(p.i))},${num(y(p.v.hi))}`);
        const lower = run.map((p) => `${num(x(p.i))},${num(y(p.v.lo))}`).reverse();
        parts.push(`<polygon class="band-${s.side}" points="${[...upper, ...lower].join(' ')}"/>`);
      }
      if (run.length > 1) parts.push(`<polyline class="line-${s.side}" points="${run.map((p) => `${num(x(p.i))},${num(y(p.v.mean))}`).join(' ')}"/>`);
    }
    if (stepIds.length <= MAX_DOTS) {
      stats.forEach((v, i) => {
        if (v === null) return;
        const step = buckets[i]![0]!;
        const tip = `${s.legend}, step ${step}: ${fmt(v.mean)}`;
        parts.push(
          `<circle class="dot-${s.side}" cx="${num(x(i))}" cy="${num(y(v.mean))}" r="${s.side === 'base' ? 4.5 : 3}" data-step="${step}" data-v="${esc(String(v.mean))}"><title>${esc(tip)}</title></circle>`,
        );
      });
    }
    const lx = left + 10 + k * 200;
    parts.push(`<line class="line-${s.side}" x1="${lx}" y1="12" x2="${lx + 28}" y2="12"/><text x="${lx + 34}" y="16">${esc(s.legend)}</text>`);
  });
  return svg(id, title, desc, H, parts.join(''));
}

/** The smallest of 1, 2, 2.5, 5 × 10^k at least v (0 for 0). */
function niceCeil(v: number): number {
  if (v <= 0) return 0;
  const p = 10 ** Math.floor(Math.log10(v));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * p >= v) return m * p;
  return 10 * p;
}

export interface HeatCell {
  /** h-3 … h3, hadd (added), hnone (absent on both sides). */
  cls: string;
  /** The tooltip, safe text. */
  tip: string;
  /** The figure (the change), exact; null where the group is absent on both sides. */
  v: number | null;
}

export interface HeatRow {
  label: string;
  cells: HeatCell[];
}

/** Rows of groups, columns of ranks; each cell coloured by the class given. */
export function heatMap(id: string, title: string, desc: string, cols: string[], rows: HeatRow[], legend: { cls: string; text: string }[]): string {
  const label = 250;
  const top = 40;
  const legendH = 34;
  const cell = Math.max(6, Math.min(36, (W - label - 10) / Math.max(cols.length, 1)));
  const rowH = 20;
  const parts: string[] = [];
  // Column labels are clipped to 8 characters: one every so many columns that the widest never touch.
  const widest = Math.max(0, ...cols.map((c) => textWidth(clipped(c, 8))));
  const everyCol = Math.max(1, Math.ceil((widest + LABEL_GAP) / cell));
  cols.forEach((c, j) => {
    if (j % everyCol !== 0) return;
    parts.push(`<text class="lbl" x="${num(label + j * cell + cell / 2)}" y="${top - 8}" text-anchor="middle">${text(c, 8)}</text>`);
  });
  parts.push(`<text class="lbl" x="${label - 8}" y="${top - 8}" text-anchor="end">rank</text>`);
  rows.forEach((r, i) => {
    const y = top + i * rowH;
    parts.push(`<text class="mono" x="${label - 8}" y="${num(y + rowH / 2 + 4)}" text-anchor="end">${text(r.label, 30)}</text>`);
    r.cells.forEach((c, j) => {
      const attrs = {
        class: c.cls,
        x: label + j * cell + 1,
        y: y + 1,
        width: Math.max(cell - 2, 1),
        height: rowH - 2,
        'data-v': c.v === null ? '' : String(c.v),
      };
      parts.push(el('rect', attrs, `<title>${esc(c.tip)}</title>`));
    });
  });
  // The legend, on as many lines as it needs within the chart's width.
  let ly = top + rows.length * rowH + 14;
  let lx = label;
  for (const l of legend) {
    const w = 18 + textWidth(l.text) + 12;
    if (lx > label && lx + w > W) {
      lx = label;
      ly += 22;
    }
    parts.push(
      `<rect class="${esc(l.cls)}" x="${num(lx)}" y="${ly}" width="14" height="14"/><text class="lbl" x="${num(lx + 18)}" y="${ly + 12}">${esc(l.text)}</text>`,
    );
    lx += w;
  }
  return svg(id, title, desc, ly - 14 + legendH, parts.join(''));
}
