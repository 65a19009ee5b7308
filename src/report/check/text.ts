// `kprof check --format text`: one line per rule, then the verdict. Pure: Verdict in, string out.

import type { Verdict } from '../../rules/model.js';
import { clipped } from '../../util/inputText.js';
import { paint, type RenderContext } from '../render.js';
import { headerLine, location, readLine, resultMessage, ruleName, statusWord, verdictLine, whyText, type CheckContext } from './shared.js';

export function checkText(v: Verdict, ctx: CheckContext, rc: RenderContext): string {
  const out = [headerLine(ctx), readLine(ctx), ''];
  let width = 0;
  for (const r of v.results) width = Math.max(width, location(r).length);
  for (const r of v.results) {
    const word = statusWord(r);
    const painted = paint(rc, word === 'pass' ? 'green' : word === 'warn' ? 'yellow' : 'red', word);
    out.push(`${painted}  ${location(r).padEnd(width)}  ${ruleName(r.rule)}: ${resultMessage(r, ctx.base !== null)}`);
    if (!r.passed && r.rule.why !== null) out.push(`      ${' '.repeat(width)}why: ${whyText(r.rule.why, clipped)}`);
  }
  out.push('');
  out.push(paint(rc, 'bold', verdictLine(v)));
  return `${out.join('\n')}\n`;
}
