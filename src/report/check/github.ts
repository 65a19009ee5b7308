// `kprof check --format github`: GitHub Actions annotations. Pure: Verdict in, string out.

import type { Verdict } from '../../rules/model.js';
import { hasEvidence } from '../../rules/unmatched.js';
import { clipped } from '../../util/inputText.js';
import { workspacePath } from '../../util/paths.js';
import { ghData, ghFile, ghProperty } from '../failure.js';
import { readLine, resultMessage, ruleTitle, verdictLine, whyText, type CheckContext } from './shared.js';

/** GitHub Actions annotations on the rules file: ::error for broken error-level rules, ::warning for warn-level. */
export function checkGithub(v: Verdict, ctx: CheckContext): string {
  const out: string[] = [];
  for (const r of v.results) {
    // A rule that held but matched nothing is marked too: it may be a selector that no longer names anything. Not
    // one whose evidence says its kernels ran once: matching nothing is then the steady state it asks for.
    if (r.passed && (r.unmatched.length === 0 || hasEvidence(r.rule))) continue;
    const cmd = r.passed ? 'warning' : r.rule.severity === 'warn' ? 'warning' : 'error';
    const props = `file=${ghFile(workspacePath(r.rule.file, ctx.workspace))},line=${r.rule.line},col=${r.rule.col},title=${ghProperty(`kprof check: ${ruleTitle(r.rule)}`)}`;
    const text = `${resultMessage(r, ctx.base !== null)}${!r.passed && r.rule.why !== null ? `\nwhy: ${whyText(r.rule.why, clipped)}` : ''}`;
    out.push(`::${cmd} ${props}::${ghData(text)}`);
  }
  const skipped = ctx.read.skippedRows + (ctx.baseRead?.skippedRows ?? 0);
  if (skipped > 0)
    out.push(
      `::warning title=${ghProperty('kprof check: skipped rows')}::${ghData(`${readLine(ctx)} (rows that could not be read are not in the figures)`)}`,
    );
  out.push(readLine(ctx));
  out.push(verdictLine(v));
  return `${out.join('\n')}\n`;
}
