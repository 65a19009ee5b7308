// `kprof check --format text`: one line per rule, then the verdict. Pure: Verdict in, string out.

import type { Verdict } from '../../rules/model.js';
import { clipped } from '../../util/inputText.js';
import { paint, wrapWords, type RenderContext } from '../render.js';
import { headerLine, location, readLine, resultMessage, ruleName, statusWord, verdictLine, whyText, type CheckContext } from './shared.js';

export function checkText(v: Verdict, ctx: CheckContext, rc: RenderContext): string {
  const out = [headerLine(ctx), readLine(ctx), ''];
  let width = 0;
  for (const r of v.results) width = Math.max(width, location(r).length);
  for (const r of v.results) {
    const word = statusWord(r);
    const painted = paint(rc, word === 'pass' ? 'green' : word === 'warn' ? 'yellow' : 'red', word);
    const line = `${word}  ${location(r).padEnd(width)}  ${ruleName(r.rule)}: ${resultMessage(r, ctx.base !== null)}`;
    // On a terminal too narrow for the line: the same words, wrapped under the status (nothing is left out).
    if (rc.fit && line.length > rc.fit.width - 1) {
      const [first, ...more] = wrapWords(line.slice(word.length + 2), rc.fit.width - 1 - 6);
      out.push(`${painted}  ${first}`);
      for (const l of more) out.push(`      ${l}`);
    } else out.push(`${painted}  ${location(r).padEnd(width)}  ${ruleName(r.rule)}: ${resultMessage(r, ctx.base !== null)}`);
    if (!r.passed && r.rule.why !== null) out.push(`      ${' '.repeat(width)}why: ${whyText(r.rule.why, clipped)}`);
  }
  out.push('');
  out.push(paint(rc, 'bold', verdictLine(v)));
  return `${out.join('\n')}\n`;
}
