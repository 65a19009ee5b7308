// `kprof check --format markdown`: a table for a pull request comment or a job summary. Pure: Verdict in, string out.

import type { RuleResult, Verdict } from '../../rules/model.js';
import { WHOLE } from '../../util/inputText.js';
import { markdownTable } from '../render.js';
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
  const table = markdownTable(['', 'rule', 'observed', 'bound', 'rule file', 'why'], rows, ['left', 'left', 'left', 'left', 'left', 'left']);
  const head = `### kprof check: ${v.passed ? 'passed' : 'failed'}`;
  const what = `${md(ctx.profile, WHOLE)}${ctx.base !== null ? ` against base ${md(ctx.base, WHOLE)}` : ''}, rules ${md(ctx.rules, WHOLE)}`;
  return `${head}\n\n${what}\n\n${readLine(ctx)}\n\n${table}\n\n**${verdictLine(v)}**\n`;
}
