// `kprof check --format markdown`: a table for a pull request comment or a job summary, under GitHub's limit on a
// comment (CHECK_MARKDOWN_LIMIT). Pure: Verdict in, string out.

import type { RuleResult, Verdict } from '../../rules/model.js';
import { fmtCount, plural } from '../../util/format.js';
import { WHOLE } from '../../util/inputText.js';
import { markdownTable, markdownRow, type Align } from '../render.js';
import {
  boundText,
  exact,
  location,
  md,
  observedPart,
  readLine,
  ruleName,
  spreadPart,
  unmatchedPart,
  verdictLine,
  whyText,
  type CheckContext,
} from './shared.js';

const HEAD = ['', 'rule', 'observed', 'bound', 'rule file', 'why'];
const ALIGN: Align[] = ['left', 'left', 'left', 'left', 'left', 'left'];

/**
 * The longest report: GitHub refuses a comment of more than 65,536 characters, and the GitHub Action posts the
 * report with a line before it and a link after it, cut at 60,000 (scripts/action.mjs): a report within it is
 * posted whole, its verdict line included.
 */
export const CHECK_MARKDOWN_LIMIT = 60_000;

/** Room kept for the line of the rules not shown. */
const MARKDOWN_RESERVE = 1_000;

/**
 * The report. When every rule's row does not fit under CHECK_MARKDOWN_LIMIT, the rules broken (errors, then warnings)
 * are shown before those that held, as many as fit, in the rules file's order, and a line counts the others by
 * how they came out: every rule is in --format text, json and junit.
 */
export function checkMarkdown(v: Verdict, ctx: CheckContext): string {
  const icon = (r: RuleResult): string => (r.passed ? '✅' : r.rule.severity === 'warn' ? '⚠️' : '❌');
  const rows = v.results.map((r) => [
    icon(r),
    ruleName(r.rule, md),
    [observedPart(r, md), spreadPart(r, md), unmatchedPart(r, ctx.base !== null, md)].filter(Boolean).join('; '),
    boundText(r.rule, md),
    md(location(r, exact)),
    r.passed || r.rule.why === null ? '' : whyText(r.rule.why, md),
  ]);
  const head = `### kprof check: ${v.passed ? 'passed' : 'failed'}`;
  const what = `${md(ctx.profile, WHOLE)}${ctx.base !== null ? ` against base ${md(ctx.base, WHOLE)}` : ''}, rules ${md(ctx.rules, WHOLE)}`;
  const top = `${head}\n\n${what}\n\n${readLine(ctx)}\n\n`;
  const end = `\n\n**${verdictLine(v)}**\n`;
  // Each row is one line of the table: it grows by the line and its break.
  const rowLength = (cells: string[]): number => markdownRow(cells).length + 1;
  const fixed = top.length + markdownTable(HEAD, [], ALIGN).length + end.length;
  const lengths = rows.map(rowLength);
  if (fixed + lengths.reduce((n, x) => n + x, 0) <= CHECK_MARKDOWN_LIMIT) return `${top}${markdownTable(HEAD, rows, ALIGN)}${end}`;
  const rank = (r: RuleResult): number => (r.passed ? 2 : r.rule.severity === 'warn' ? 1 : 0);
  const order = v.results.map((_, i) => i).sort((a, b) => rank(v.results[a]!) - rank(v.results[b]!) || a - b);
  const budget = CHECK_MARKDOWN_LIMIT - MARKDOWN_RESERVE - fixed;
  const kept = new Set<number>();
  let used = 0;
  for (const i of order) {
    if (used + lengths[i]! > budget) break;
    used += lengths[i]!;
    kept.add(i);
  }
  const left = v.results.filter((_, i) => !kept.has(i));
  const count = (k: number): number => left.filter((r) => rank(r) === k).length;
  const parts = (
    [
      [count(0), 'broken'],
      [count(1), 'warnings'],
      [count(2), 'held'],
    ] as const
  )
    .filter(([n]) => n > 0)
    .map(([n, t]) => `${fmtCount(n)} ${t}`);
  const more = `\n\n${plural(left.length, 'more rule')} not shown, to keep this under ${fmtCount(CHECK_MARKDOWN_LIMIT)} characters for a comment (${parts.join(', ')}): every rule is in --format text, json or junit.`;
  return `${top}${markdownTable(
    HEAD,
    rows.filter((_, i) => kept.has(i)),
    ALIGN,
  )}${more}${end}`;
}
