// `kprof summary --format table`: the terminal table. Pure: Summary (+ view) in, text out (in chunks: see
// textTableChunks).

import { summaryPerStep } from '../../aggregate/group.js';
import type { Summary } from '../../model/model.js';
import { fmtCount, fmtUs, ticksToUs } from '../../util/format.js';
import { clippedApart } from '../../util/apart.js';
import { CELL_WIDTH, clipped } from '../../util/inputText.js';
import { fitProse, paint, textTable, textTableChunks, type Align, type RenderContext } from '../render.js';
import { blockText, summaryStepTimeBlock } from '../stepTime.js';
import { fmtShare, groupHeading, hasPerStep, perStepHeading, perStepText, share, shownRows, totalsLine, type SummaryView } from './shared.js';

/** The table as one string. */
export function summaryTable(s: Summary, view: SummaryView, ctx: RenderContext): string {
  return [...summaryTableChunks(s, view, ctx)].join('');
}

/** The table in chunks, each row made as it is written (a summary by name may have a million rows). */
export function* summaryTableChunks(s: Summary, view: SummaryView, ctx: RenderContext): Generator<string> {
  const withSteps = hasPerStep(s);
  const head = [groupHeading(s.groupBy, s.groups), 'count', 'total', 'avg', 'min', 'max', 'share'];
  if (withSteps) head.push(perStepHeading(s));
  const align: Align[] = ['left', 'right', 'right', 'right', 'right', 'right', 'right', 'right'];
  const v = shownRows(s, view);
  const names = clippedApart(v.labels(), CELL_WIDTH);
  const line = (i: number): string[] => {
    const r = v.at(i);
    const c = r.cell;
    const cells = [
      r.group ? names[i]! : paint(ctx, 'dim', r.label),
      fmtCount(c.count),
      fmtUs(ticksToUs(c.ticks)),
      c.count > 0 ? fmtUs(ticksToUs(c.ticks) / c.count) : '-',
      Number.isFinite(c.minTicks) ? fmtUs(ticksToUs(c.minTicks)) : '-',
      Number.isFinite(c.maxTicks) ? fmtUs(ticksToUs(c.maxTicks)) : '-',
      fmtShare(share(s, c)),
    ];
    if (withSteps) cells.push(perStepText(r.perStep));
    return cells;
  };
  const t = s.totals;
  const footer = [
    'total',
    fmtCount(t.count),
    fmtUs(ticksToUs(t.ticks)),
    t.count > 0 ? fmtUs(ticksToUs(t.ticks) / t.count) : '-',
    '',
    '',
    // No share when the kernel time is 0 (every group's is '-' then, as in Markdown, CSV and JSON).
    fmtShare(share(s, t)),
  ];
  if (withSteps) footer.push(perStepText(summaryPerStep(s)?.total));
  const stepTime = s.stepTime ? `\n${blockText(ctx, summaryStepTimeBlock(s.stepTime, clipped))}` : '';
  const droppable = [4, 5, 3, 7];
  if (ctx.fit) {
    const body = Array.from({ length: v.count }, (_, i) => line(i));
    yield fitProse(`${textTable(ctx, head, body, align, footer, droppable)}\n\n${totalsLine(s)}\n${stepTime}`, ctx.fit);
    return;
  }
  yield* textTableChunks(ctx, head, v.count, line, align, footer, droppable);
  yield `\n\n${totalsLine(s)}\n${stepTime}`;
}
