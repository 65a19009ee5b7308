// `kprof summary --format markdown`. Pure: Summary (+ view) in, string out.

import { summaryPerStep } from '../../aggregate/group.js';
import type { Summary } from '../../model/model.js';
import { fmtCount, fmtUs, plural, ticksToUs } from '../../util/format.js';
import { clippedApart } from '../../util/apart.js';
import { CELL_WIDTH, WHOLE } from '../../util/inputText.js';
import { markdownTable, mdCode, mdCodeOf, type Align } from '../render.js';
import { blockMarkdown, summaryStepTimeBlock } from '../stepTime.js';
import { fmtShare, groupHeading, hasPerStep, perStepHeading, perStepText, rows, share, totalsLine, type SummaryView } from './shared.js';

const md = mdCode;

export function summaryMarkdown(s: Summary, view: SummaryView): string {
  const withSteps = hasPerStep(s);
  const head = [groupHeading(s.groupBy, s.groups), 'count', 'total', 'avg', 'share'];
  if (withSteps) head.push(perStepHeading(s));
  const align: Align[] = head.map((_, i): Align => (i === 0 ? 'left' : 'right'));
  const shownRows = rows(s, view);
  const names = clippedApart(
    shownRows.map((r) => r.label),
    CELL_WIDTH,
  );
  const body = shownRows.map((r, i) => {
    const c = r.cell;
    const line = [
      r.group ? mdCodeOf(names[i]!) : r.label,
      fmtCount(c.count),
      fmtUs(ticksToUs(c.ticks)),
      c.count > 0 ? fmtUs(ticksToUs(c.ticks) / c.count) : '-',
      fmtShare(share(s, c)),
    ];
    if (withSteps) line.push(perStepText(r.perStep));
    return line;
  });
  const t = s.totals;
  const total = [
    '**total**',
    `**${fmtCount(t.count)}**`,
    `**${fmtUs(ticksToUs(t.ticks))}**`,
    t.count > 0 ? fmtUs(ticksToUs(t.ticks) / t.count) : '-',
    fmtShare(share(s, t)),
  ];
  if (withSteps) total.push(perStepText(summaryPerStep(s)?.total));
  body.push(total);
  const stepTime = s.stepTime ? `\n${blockMarkdown(summaryStepTimeBlock(s.stepTime, (x) => md(x)))}` : '';
  return `${markdownTable(head, body, align)}\n\n${totalsLine(s, md)}. Source: ${plural(s.files.length, 'file')}, grouped by ${s.groupBy}${s.selection ? `, ${md(s.selection, WHOLE)}` : ''}.\n${stepTime}`;
}
