// `kprof summary --format markdown`. Pure: Summary (+ view) in, string out.

import { summaryPerStep } from '../../aggregate/group.js';
import type { Summary } from '../../model/model.js';
import { fmtCount, fmtUs, plural, ticksToUs } from '../../util/format.js';
import { clippedApart } from '../../util/apart.js';
import { CELL_WIDTH, WHOLE } from '../../util/inputText.js';
import { MARKDOWN_LIMIT, markdownTable, markdownRow, mdCode, mdCodeOf, type Align } from '../render.js';
import { blockMarkdown, summaryStepTimeBlock } from '../stepTime.js';
import { fmtShare, groupHeading, hasPerStep, perStepHeading, perStepText, rows, share, totalsLine, type SummaryView } from './shared.js';

const md = mdCode;

/** Room kept for the row of the groups that do not fit, the totals line and the step-time block's margin. */
const MARKDOWN_RESERVE = 2_000;

/**
 * The Markdown summary, under MARKDOWN_LIMIT characters (it is pasted into pull requests): the groups that do not
 * fit are summed in one row, `(K more groups: all of them in --format json, csv or html)`, so the rows still add
 * up to the totals. `--top` folds the rest as in every format.
 */
export function summaryMarkdown(s: Summary, view: SummaryView): string {
  const withSteps = hasPerStep(s);
  const head = [groupHeading(s.groupBy, s.groups), 'count', 'total', 'avg', 'share'];
  if (withSteps) head.push(perStepHeading(s));
  const align: Align[] = head.map((_, i): Align => (i === 0 ? 'left' : 'right'));
  const lines = (v: SummaryView, moreLabel?: string): string[][] => {
    const shownRows = rows(s, v);
    const names = clippedApart(
      shownRows.map((r) => r.label),
      CELL_WIDTH,
    );
    return shownRows.map((r, i) => {
      const c = r.cell;
      const line = [
        r.group ? mdCodeOf(names[i]!) : (moreLabel ?? r.label),
        fmtCount(c.count),
        fmtUs(ticksToUs(c.ticks)),
        c.count > 0 ? fmtUs(ticksToUs(c.ticks) / c.count) : '-',
        fmtShare(share(s, c)),
      ];
      if (withSteps) line.push(perStepText(r.perStep));
      return line;
    });
  };
  const t = s.totals;
  const total = [
    '**total**',
    `**${fmtCount(t.count)}**`,
    `**${fmtUs(ticksToUs(t.ticks))}**`,
    t.count > 0 ? fmtUs(ticksToUs(t.ticks) / t.count) : '-',
    fmtShare(share(s, t)),
  ];
  if (withSteps) total.push(perStepText(summaryPerStep(s)?.total));
  const stepTime = s.stepTime ? `\n${blockMarkdown(summaryStepTimeBlock(s.stepTime, (x) => md(x)))}` : '';
  const end = `\n\n${totalsLine(s, md)}. Source: ${plural(s.files.length, 'file')}, grouped by ${s.groupBy}${s.selection ? `, ${md(s.selection, WHOLE)}` : ''}.\n${stepTime}`;
  let body = lines(view);
  // Each row is one line of the table: it grows by the line and its break.
  const rowLength = (cells: string[]): number => markdownRow(cells).length + 1;
  const fixed = markdownTable(head, [total], align).length + end.length;
  let size = fixed;
  for (const b of body) size += rowLength(b);
  if (size > MARKDOWN_LIMIT) {
    const budget = MARKDOWN_LIMIT - MARKDOWN_RESERVE - fixed;
    let used = 0;
    let fit = 0;
    for (const b of body) {
      const n = rowLength(b);
      if (used + n > budget) break;
      used += n;
      fit++;
    }
    const groups = view.top !== null ? Math.min(view.top, s.groups.length) : s.groups.length;
    const shown = Math.min(fit, groups);
    body = lines({ ...view, top: shown }, `(${plural(s.groups.length - shown, 'more group')}: all of them in --format json, csv or html)`);
  }
  body.push(total);
  return `${markdownTable(head, body, align)}${end}`;
}
