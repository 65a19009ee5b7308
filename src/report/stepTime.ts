// The "Step time" section of summary and diff (--step-time), in every format but CSV: what it says is built once
// (a block: title, table, notes), and each format draws the block. The JSON of the section is declared in
// schema.ts. Pure.
//
// Summary: a table per step and rank when there are few (at most PER_STEP_ROWS), else per rank (steps, median,
// min, max, the first step) and over all ranks; with step_trace_time.csv, its Computing, Communication (not
// overlapped) and Free columns. A first step much slower than the median (a warm-up) is said plainly.
// Diff: the wall span over all ranks and per rank, and the step_trace columns, base vs PR medians over steps,
// judged as group times are (analysis/stepTime.ts): `~` when the steps do not show a change.

import { SPAN, type StepTimeDiff, type StepTimeRow } from '../analysis/stepTime.js';
import { median, smallestP } from '../analysis/noise.js';
import { TICKS_PER_US, type RankStepTime, type StepTimeGap, type StepTimeSummary } from '../model/model.js';
import type { DiffStepTimeJson, StepTimeRankJson, SummaryStepTimeJson } from '../model/schema.js';
import { exactUs, fmtCount, fmtPct, fmtSignedPct, fmtSignedUs, fmtUs, plural, ranksNamed, round4 } from '../util/format.js';
import { clipped } from '../util/inputText.js';
import { markdownTable, paint, textTable, type Align, type RenderContext } from './render.js';
import { esc } from './html/markup.js';
import { formatsNotAnswering } from '../input/formats/registry.js';
import { stepTimeFiles } from '../input/formats/readers.js';

/** Up to this many (step, rank) rows the summary lists every step; above, one row per rank. */
export const PER_STEP_ROWS = 16;

/** At most this many ranks get a row of their own (all of them are in JSON). */
export const RANK_ROWS = 32;

/** A first step at least this many times the median of the others is called a warm-up. */
const WARM_UP = 1.5;

/** The step_trace columns shown in tables (all of them are in JSON), with their headings. */
const SHOWN_COLUMNS = [
  ['Computing', 'computing'],
  ['Communication(Not Overlapped)', 'comm. not overlapped'],
  ['Free', 'free'],
] as const;

/** What a section says, for any format: input text (ranks) already shown by the format's `q`. */
export interface Block {
  title: string;
  head: string[];
  align: Align[];
  body: string[][];
  notes: string[];
}

/** Why a rank has no step spans (the formats without start times named as the registry names them). */
function gapText(gap: StepTimeGap): string {
  switch (gap) {
    case 'no-starts':
      return `its files have no start time per kernel (${[...formatsNotAnswering(['starts']).map((f) => f.naming.brief), 'or a table without a start column'].join(', ')})`;
    case 'no-steps':
      return 'its kernels have no Step Id';
    case 'not-saved':
      return 'a summary JSON made without --step-time';
  }
}

const SUMMARY_TITLE = 'Step time: the wall span of each step on the device, first kernel start to last kernel end (all kernels, communication too)';

// Loops, not Math.min(...xs): a spread of one argument per step overflows the stack at ~125k steps.
function least(xs: readonly number[]): number {
  let m = Number.POSITIVE_INFINITY;
  for (const x of xs) if (x < m) m = x;
  return m;
}

function most(xs: readonly number[]): number {
  let m = Number.NEGATIVE_INFINITY;
  for (const x of xs) if (x > m) m = x;
  return m;
}

function usOf(ticks: number): number {
  return ticks / TICKS_PER_US;
}

/** The shown step_trace columns a rank's file has, with their index in it. */
function shownColumns(ranks: readonly RankStepTime[]): { name: string; heading: string }[] {
  return SHOWN_COLUMNS.filter(([name]) => ranks.some((r) => r.trace?.columns.includes(name))).map(([name, heading]) => ({ name, heading }));
}

function traceValue(r: RankStepTime, step: number, column: string): number | null {
  const i = r.trace?.columns.indexOf(column) ?? -1;
  if (i < 0) return null;
  return r.trace!.rows.find((x) => x.step === step)?.values[i] ?? null;
}

function traceMedian(r: RankStepTime, column: string): number | null {
  const i = r.trace?.columns.indexOf(column) ?? -1;
  if (i < 0) return null;
  const v = r.trace!.rows.flatMap((x) => (x.values[i] === null || x.values[i] === undefined ? [] : [x.values[i]!]));
  return v.length === 0 ? null : median(v);
}

const us = (v: number | null): string => (v === null ? '-' : fmtUs(v));

/** Notes of one rank each, past which a cluster's are counted, not listed (the JSON has every rank). */
const RANK_NOTES = 8;

/**
 * Notes of the summary: ranks without spans, starts that could not be read, warm-up steps. The same reason on many
 * ranks is one line (`ranks 0–999: no step spans: …`); notes whose figures differ by rank, past RANK_NOTES, are
 * counted: a 1,000-rank run gives a few lines, not thousands.
 */
function summaryNotes(st: StepTimeSummary, q: (s: string) => string): string[] {
  const alike = new Map<string, string[]>();
  const own: string[] = [];
  const same = (text: string, rank: string): void => {
    const ranks = alike.get(text);
    if (ranks === undefined) alike.set(text, [rank]);
    else ranks.push(rank);
  };
  for (const r of st.ranks) {
    if (r.gap !== null) same(`no step spans: ${gapText(r.gap)}.`, r.rank);
    else if (r.spans.length === 0) same('no step in the selection.', r.rank);
    if (r.withoutStart > 0) own.push(`${ranksNamed([r.rank], q)}: ${plural(r.withoutStart, 'kernel')} with a Step Id had no start time: in no span.`);
    if (r.trace !== null && r.trace.rowsSkipped > 0)
      own.push(`${ranksNamed([r.rank], q)}: ${plural(r.trace.rowsSkipped, `${stepTimeFiles()} row`)} could not be read (see the warnings).`);
    if (r.spans.length >= 3) {
      const [first, ...rest] = r.spans;
      const m = median(rest.map((s) => s.ticks));
      if (first!.ticks >= WARM_UP * m) {
        own.push(
          `${ranksNamed([r.rank], q)}: the first step (${first!.step}) took ${fmtUs(usOf(first!.ticks))}, ${(first!.ticks / m).toFixed(1)}× the median of the others: a warm-up? --steps ${first!.step + 1}- leaves it out.`,
        );
      }
    }
  }
  const notes = [...alike].map(([text, ranks]) => `${ranksNamed(ranks, q)}: ${text}`);
  notes.push(...own.slice(0, RANK_NOTES));
  if (own.length > RANK_NOTES)
    notes.push(`… and ${plural(own.length - RANK_NOTES, 'more note')} of this kind, one per rank (--format json has every rank's figures).`);
  return notes;
}

/** The summary's step-time section. */
export function summaryStepTimeBlock(st: StepTimeSummary, q: (s: string) => string): Block {
  const cols = shownColumns(st.ranks);
  const rows = st.ranks.reduce((n, r) => n + Math.max(r.spans.length, r.trace?.rows.length ?? 0), 0);
  const notes = summaryNotes(st, q);
  if (rows <= PER_STEP_ROWS) {
    const head = ['step', 'rank', 'wall span', 'kernels', ...cols.map((c) => c.heading)];
    const body: string[][] = [];
    for (const r of st.ranks) {
      const steps = [...new Set([...r.spans.map((s) => s.step), ...(r.trace?.rows.map((x) => x.step) ?? [])])].sort((a, b) => a - b);
      for (const step of steps) {
        const s = r.spans.find((x) => x.step === step);
        body.push([
          String(step),
          q(r.rank),
          s ? fmtUs(usOf(s.ticks)) : '-',
          s ? fmtCount(s.kernels) : '-',
          ...cols.map((c) => us(traceValue(r, step, c.name))),
        ]);
      }
    }
    const align: Align[] = ['right', 'left', 'right', 'right', ...cols.map((): Align => 'right')];
    return { title: SUMMARY_TITLE, head, align, body, notes };
  }
  const head = ['rank', 'steps', 'median', 'min', 'max', 'first step', ...cols.map((c) => `${c.heading} (median)`)];
  const line = (label: string, spans: number[], first: string, trace: (string | null)[]): string[] => [
    label,
    fmtCount(spans.length),
    spans.length > 0 ? fmtUs(usOf(median(spans))) : '-',
    spans.length > 0 ? fmtUs(usOf(least(spans))) : '-',
    spans.length > 0 ? fmtUs(usOf(most(spans))) : '-',
    first,
    ...trace.map((t) => t ?? '-'),
  ];
  // With many ranks, those whose median span is farthest from the ranks' median have a row, in rank order (a
  // straggler is the rank to see; the first by id on ties); all of them are in JSON.
  const medians = new Map(st.ranks.map((r) => [r, r.spans.length > 0 ? median(r.spans.map((s) => s.ticks)) : null]));
  const known = [...medians.values()].filter((m): m is number => m !== null);
  const mid = known.length > 0 ? median(known) : 0;
  const away = (r: RankStepTime): number => {
    const m = medians.get(r);
    return m === null || m === undefined ? -1 : Math.abs(m - mid);
  };
  const kept = new Set([...st.ranks].sort((a, b) => away(b) - away(a)).slice(0, RANK_ROWS));
  const listed = st.ranks.filter((r) => kept.has(r));
  if (listed.length < st.ranks.length)
    notes.push(
      `The ${RANK_ROWS} of ${fmtCount(st.ranks.length)} ranks whose median wall span is farthest from the ranks' median have a row; all of them are in --format json.`,
    );
  const body = listed.map((r) =>
    line(
      q(r.rank),
      r.spans.map((s) => s.ticks),
      r.spans.length > 0 ? `${r.spans[0]!.step}: ${fmtUs(usOf(r.spans[0]!.ticks))}` : '-',
      cols.map((c) => us(traceMedian(r, c.name))),
    ),
  );
  if (st.ranks.length > 1) {
    const all = st.ranks.flatMap((r) => r.spans.map((s) => s.ticks));
    body.push(
      line(
        'all ranks',
        all,
        '',
        cols.map(() => ''),
      ),
    );
  }
  const align: Align[] = ['left', 'right', 'right', 'right', 'right', 'right', ...cols.map((): Align => 'right')];
  return { title: SUMMARY_TITLE, head, align, body, notes };
}

/** The label of a diff row. */
function metricLabel(r: StepTimeRow, q: (s: string) => string): string {
  const what = r.metric === SPAN ? 'wall span' : (SHOWN_COLUMNS.find(([n]) => n === r.metric)?.[1] ?? clipped(r.metric, 40));
  return r.rank === null ? (r.metric === SPAN ? 'wall span, all ranks' : what) : `${what}, ${ranksNamed([r.rank], q)}`;
}

function pText(r: StepTimeRow): string {
  const t = r.judged.test;
  return t === null ? '-' : t.p < 0.001 ? '<0.001' : t.p.toFixed(3);
}

/** The diff's step-time section. */
export function diffStepTimeBlock(sd: StepTimeDiff, q: (s: string) => string): Block {
  const ranks = sd.rows.filter((r) => r.rank !== null);
  // With many ranks, those whose median moved most (then by rank) have a row; all of them are in JSON.
  const moved = (r: StepTimeRow): number => (r.judged.baseMedian > 0 ? Math.abs(r.judged.delta / r.judged.baseMedian) : 0);
  const kept = new Set([...ranks].sort((a, b) => moved(b) - moved(a)).slice(0, RANK_ROWS));
  const shown = sd.rows.filter((r) => (r.rank === null || kept.has(r)) && (r.metric === SPAN || SHOWN_COLUMNS.some(([n]) => n === r.metric)));
  const head = ['step time (median per step)', 'base', 'PR', 'Δ', 'Δ%', 'steps', 'p'];
  // Neither side has a span: no table (the notes say why), as in the summary.
  const rows = shown.every((r) => r.baseSteps === 0 && r.prSteps === 0) ? [] : shown;
  const body = rows.map((r) => {
    const j = r.judged;
    const none = r.baseSteps === 0 || r.prSteps === 0;
    return [
      metricLabel(r, q),
      r.baseSteps > 0 ? fmtUs(j.baseMedian) : '-',
      r.prSteps > 0 ? fmtUs(j.prMedian) : '-',
      none ? '-' : j.significant ? fmtSignedUs(j.delta) : '~',
      none || j.baseMedian === 0 ? '-' : j.significant ? fmtSignedPct((100 * j.delta) / j.baseMedian) : '~',
      `${fmtCount(r.baseSteps)} / ${fmtCount(r.prSteps)}`,
      pText(r),
    ];
  });
  const notes: string[] = [];
  if (body.some((cells) => cells[3] === '~')) {
    notes.push(
      `~: not shown as a change: the Mann–Whitney U test over the steps (each step of each rank a sample) gives p ≥ ${sd.alpha}, or the medians differ by less than ${fmtPct(100 * sd.minEffect)} (--time-tolerance).`,
    );
  }
  if (kept.size < ranks.length) {
    notes.push(
      `Ranks: the ${RANK_ROWS} of ${fmtCount(ranks.length)} whose median wall span moved most have a row; all of them are in --format json.`,
    );
  }
  const few = rows.filter((r) => r.judged.reason === 'too-few');
  if (few.length > 0) {
    const f = few[0]!;
    notes.push(
      `Too few steps to tell for ${few.length === rows.length ? 'every row' : plural(few.length, 'row')}: so few samples cannot give a p below ${sd.alpha} (${fmtCount(f.baseSteps)} against ${fmtCount(f.prSteps)} steps: p ≥ ${smallestP(f.baseSteps, f.prSteps).toFixed(3)}); profile at least 4 steps on each side.`,
    );
  }
  for (const [side, gaps] of [
    ['base', sd.gaps.base],
    ['PR', sd.gaps.pr],
  ] as const) {
    // One line per reason and side, whatever the number of ranks.
    const byGap = new Map<StepTimeGap, string[]>();
    for (const g of gaps) {
      const ranks = byGap.get(g.gap);
      if (ranks === undefined) byGap.set(g.gap, [g.rank]);
      else ranks.push(g.rank);
    }
    for (const [gap, ranks] of byGap) notes.push(`${side} ${ranksNamed(ranks, q)}: no step spans: ${gapText(gap)}.`);
  }
  if (sd.withoutStart.base + sd.withoutStart.pr > 0) {
    notes.push(
      `Kernels with a Step Id and no start time (in no span): ${fmtCount(sd.withoutStart.base)} in the base, ${fmtCount(sd.withoutStart.pr)} in the PR.`,
    );
  }
  const align: Align[] = ['left', 'right', 'right', 'right', 'right', 'right', 'right'];
  return { title: `Step time: base vs PR, the wall span of each step on the device and its ${stepTimeFiles()}`, head, align, body, notes };
}

/** A block as terminal text. */
export function blockText(ctx: RenderContext, b: Block): string {
  const table = b.body.length > 0 ? `${textTable(ctx, b.head, b.body, b.align)}\n` : 'No step time: no rank has step spans.\n';
  return `${paint(ctx, 'bold', b.title)}\n\n${table}${b.notes.map((n) => `${n}\n`).join('')}`;
}

/** A block as Markdown. */
export function blockMarkdown(b: Block): string {
  const table = b.body.length > 0 ? `${markdownTable(b.head, b.body, b.align)}\n` : 'No step time: no rank has step spans.\n';
  return `### ${b.title}\n\n${table}${b.notes.length > 0 ? `\n${b.notes.map((n) => `- ${n}`).join('\n')}\n` : ''}`;
}

/** A block as an HTML section (its cells made with clipped(): escaped here). */
export function blockHtml(b: Block): string {
  const cell = (tag: string, s: string, a: Align): string => `<${tag}${a === 'right' ? ' class="num"' : ''}>${esc(s)}</${tag}>`;
  const table =
    b.body.length > 0
      ? `<table><thead><tr>${b.head.map((h, i) => cell('th', h, b.align[i]!)).join('')}</tr></thead><tbody>${b.body
          .map((r) => `<tr>${r.map((c, i) => cell('td', c, b.align[i]!)).join('')}</tr>`)
          .join('')}</tbody></table>`
      : '<p>No step time: no rank has step spans.</p>';
  const notes = b.notes.map((n) => `<p class="note">${esc(n)}</p>`).join('');
  return `<section aria-labelledby="steptime-h"><h2 id="steptime-h">${esc(b.title)}</h2>${table}${notes}</section>`;
}

/** A rank's step time as the summary JSON keeps it (and reads it back). */
export function rankStepTimeJson(r: RankStepTime): StepTimeRankJson {
  const t = r.spans.map((s) => s.ticks);
  return {
    gap: r.gap,
    steps: r.spans.map((s) => ({ step: s.step, spanUs: exactUs(s.ticks), kernels: s.kernels })),
    withoutStart: r.withoutStart,
    medianUs: t.length > 0 ? round4(usOf(median(t))) : null,
    minUs: t.length > 0 ? exactUs(least(t)) : null,
    maxUs: t.length > 0 ? exactUs(most(t)) : null,
    trace: r.trace === null ? null : { file: r.trace.file, columns: r.trace.columns, rows: r.trace.rows, rowsSkipped: r.trace.rowsSkipped },
  };
}

/** The summary JSON's top-level step time: over every step of every rank. */
export function summaryStepTimeJson(st: StepTimeSummary): SummaryStepTimeJson {
  const t = st.ranks.flatMap((r) => r.spans.map((s) => s.ticks));
  return {
    steps: t.length,
    medianUs: t.length > 0 ? round4(usOf(median(t))) : null,
    minUs: t.length > 0 ? exactUs(least(t)) : null,
    maxUs: t.length > 0 ? exactUs(most(t)) : null,
  };
}

/** The diff JSON's step time. */
export function diffStepTimeJson(sd: StepTimeDiff): DiffStepTimeJson {
  return {
    alpha: sd.alpha,
    minEffectPct: round4(100 * sd.minEffect),
    gaps: sd.gaps,
    withoutStart: sd.withoutStart,
    rows: sd.rows.map((r) => {
      const j = r.judged;
      const none = r.baseSteps === 0 || r.prSteps === 0;
      return {
        metric: r.metric,
        rank: r.rank,
        baseSteps: r.baseSteps,
        prSteps: r.prSteps,
        baseMedianUs: r.baseSteps > 0 ? round4(j.baseMedian) : null,
        prMedianUs: r.prSteps > 0 ? round4(j.prMedian) : null,
        deltaUs: none ? null : round4(j.delta),
        deltaPct: none || j.baseMedian === 0 ? null : round4((100 * j.delta) / j.baseMedian),
        p: j.test === null ? null : j.test.p,
        method: j.test === null ? null : j.test.method,
        significant: j.significant,
        reason: j.reason,
      };
    }),
  };
}
