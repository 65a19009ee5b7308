// `kprof summary --format table`: the terminal table. Pure: Summary (+ view) in, string out.

import { summaryPerStep } from '../../aggregate/group.js';
import type { Summary } from '../../model/model.js';
import { fmtCount, fmtUs, ticksToUs } from '../../util/format.js';
import { clippedApart } from '../../util/apart.js';
import { CELL_WIDTH, clipped } from '../../util/inputText.js';
import { fitProse, paint, textTable, type Align, type RenderContext } from '../render.js';
import { blockText, summaryStepTimeBlock } from '../stepTime.js';
import { fmtShare, groupHeading, hasPerStep, perStepHeading, perStepText, rows, share, totalsLine, type SummaryView } from './shared.js';

export function summaryTable(s: Summary, view: SummaryView, ctx: RenderContext): string {
  const withSteps = hasPerStep(s);
  const head = [groupHeading(s.groupBy, s.groups), 'count', 'total', 'avg', 'min', 'max', 'share'];
  if (withSteps) head.push(perStepHeading(s));
  const align: Align[] = ['left', 'right', 'right', 'right', 'right', 'right', 'right', 'right'];
  const shownRows = rows(s, view);
  const names = clippedApart(
    shownRows.map((r) => r.label),
    CELL_WIDTH,
  );
  const body = shownRows.map((r, i) => {
    const c = r.cell;
    const line = [
      r.group ? names[i]! : paint(ctx, 'dim', r.label),
      fmtCount(c.count),
      fmtUs(ticksToUs(c.ticks)),
      c.count > 0 ? fmtUs(ticksToUs(c.ticks) / c.count) : '-',
      Number.isFinite(c.minTicks) ? fmtUs(ticksToUs(c.minTicks)) : '-',
      Number.isFinite(c.maxTicks) ? fmtUs(ticksToUs(c.maxTicks)) : '-',
      fmtShare(share(s, c)),
    ];
    if (withSteps) line.push(perStepText(r.perStep));
    return line;
  });
  const t = s.totals;
  const footer = [
    'total',
    fmtCount(t.count),
    fmtUs(ticksToUs(t.ticks)),
    t.count > 0 ? fmtUs(ticksToUs(t.ticks) / t.count) : '-',
    '',
    '',
    t.count > 0 ? '100.0%' : '-',
  ];
  if (withSteps) footer.push(perStepText(summaryPerStep(s)?.total));
  const stepTime = s.stepTime ? `\n${blockText(ctx, summaryStepTimeBlock(s.stepTime, clipped))}` : '';
  return fitProse(`${textTable(ctx, head, body, align, footer, [4, 5, 3, 7])}\n\n${totalsLine(s)}\n${stepTime}`, ctx.fit);
}
