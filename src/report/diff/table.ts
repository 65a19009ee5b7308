// `kprof diff --format table`: the terminal table. Pure: Diff (+ view) in, text out (in chunks: see textTableChunks).

import { viewDiff, type Diff, type DiffFigures, type DiffRow, type DiffView } from '../../analysis/diff.js';
import { fmtCount, fmtSignedCount, fmtSignedUs, fmtUs } from '../../util/format.js';
import { clippedApart } from '../../util/apart.js';
import { CELL_WIDTH, clipped } from '../../util/inputText.js';
import { fitProse, paint, textTable, textTableChunks, type Align, type Paint, type RenderContext } from '../render.js';
import { blockText, diffStepTimeBlock } from '../stepTime.js';
import { groupHeading } from '../summary/shared.js';
import { labelled, rewritesTextLines } from './rewrites.js';
import {
  comparedLine,
  disagreementLines,
  differs,
  disagreeTitle,
  label,
  headlineLines,
  othersLine,
  pctText,
  perStep,
  reportWarnings,
  timeFallbackNote,
  timePctText,
  unevenStepLines,
  UNEVEN_TITLE,
} from './shared.js';

const STATUS_PAINT = {
  removed: 'green',
  fewer: 'green',
  added: 'yellow',
  more: 'yellow',
  same: 'dim',
} as const satisfies Record<DiffRow['status'], Paint>;

function timePaint(ctx: RenderContext, text: string, delta: number, noise: boolean): string {
  if (noise || delta === 0) return text;
  return paint(ctx, delta < 0 ? 'green' : 'red', text);
}

/** The report as one string. */
export function diffTable(d: Diff, view: DiffView, ctx: RenderContext): string {
  return [...diffTableChunks(d, view, ctx)].join('');
}

/** The report in chunks, each row of the table made as it is written (a diff by name may have a million rows). */
export function* diffTableChunks(d: Diff, view: DiffView, ctx: RenderContext): Generator<string> {
  const v = viewDiff(d, view);
  const ps = perStep(d) ? ' /step' : '';
  const head = [groupHeading(d.groupBy, d.rows), `base${ps}`, `PR${ps}`, 'Δ', 'Δ%', `base time${ps}`, `PR time${ps}`, 'Δ time', 'Δ% time', 'status'];
  const align: Align[] = ['left', 'right', 'right', 'right', 'right', 'right', 'right', 'right', 'right', 'left'];
  const names = clippedApart(
    v.rows.map((r) => label(d, r)),
    CELL_WIDTH,
  );
  // A row's cells from its figures, its first cell as shown and its status (a row's as rowLine gives them,
  // without a copy of the row for each).
  const cells = (l: DiffFigures, first: string, status: string): string[] => [
    first,
    fmtCount(l.base.count),
    fmtCount(l.pr.count),
    fmtSignedCount(l.deltaCount),
    pctText(l.deltaCountPct, l.pr.count),
    fmtUs(l.base.us),
    fmtUs(l.pr.us),
    fmtSignedUs(l.deltaUs),
    timePaint(ctx, timePctText(l.deltaUsPct, l.pr.us, l.timeNoise), l.deltaUs, l.timeNoise),
    status === '' ? '' : paint(ctx, STATUS_PAINT[status.replace('*', '') as DiffRow['status']], status),
  ];

  const n = v.rows.length;
  const row = (i: number): string[] => {
    if (i >= n) {
      const o = othersLine(v.others!);
      return cells(o, paint(ctx, 'dim', o.label), o.status);
    }
    const r = v.rows[i]!;
    return cells(r, names[i]!, differs(r) ? `${r.status}*` : r.status);
  };
  const count = n + (v.others ? 1 : 0);
  const t = d.totals;
  const footer = cells(t, clipped('total'), '');
  const out: string[] = [...headlineLines(d).map((l, i) => (i === 0 ? paint(ctx, 'bold', l) : l)), ''];
  const warnings = reportWarnings(d);
  if (warnings.length > 0) {
    for (const w of warnings) out.push(paint(ctx, 'yellow', `Warning: ${w}`));
    out.push('');
  }
  // Too narrow a terminal loses the count changes first (the counts say them), then Δ% time, the base time and the PR time (Δ time stays).
  const droppable = [3, 4, 8, 5, 6];
  // The lines after the table, the first of them empty.
  const after: string[] = [''];
  const dis = disagreementLines(d);
  // Loops, not push(...dis): one line per row that ranks disagree on would overflow the stack at ~125k.
  if (dis.length > 0) {
    after.push(paint(ctx, 'yellow', `* ${disagreeTitle(d)}`));
    for (const l of dis) after.push(`  ${l}`);
    after.push('');
  }
  const un = unevenStepLines(d);
  if (un.length > 0) {
    after.push(paint(ctx, 'yellow', `* ${UNEVEN_TITLE}`));
    for (const l of un) after.push(`  ${l}`);
    after.push('');
  }
  if (d.rewrites !== undefined) {
    const rw = rewritesTextLines(labelled(d, d.rewrites), clipped, ctx.fit?.width);
    after.push(paint(ctx, 'bold', rw[0]!));
    for (const l of rw.slice(1)) after.push(l);
    after.push('');
  }
  const note = timeFallbackNote(d);
  if (note !== null) after.push(note, '');
  if (d.stepTime) after.push(blockText(ctx, diffStepTimeBlock(d.stepTime, clipped)));
  after.push(comparedLine(d));
  if (ctx.fit) {
    const body = Array.from({ length: count }, (_, i) => row(i));
    out.push(textTable(ctx, head, body, align, footer, droppable));
    for (const l of after) out.push(l);
    yield `${fitProse(out.join('\n'), ctx.fit)}\n`;
    return;
  }
  yield `${out.join('\n')}\n`;
  yield* textTableChunks(ctx, head, count, row, align, footer, droppable);
  yield `\n${after.join('\n')}\n`;
}
