// `kprof check --format html`: the verdict and every rule's result on one self-contained page (a CI artifact).
// Pure: Verdict and context in, text out. Results in the order of the rules file.

import type { RuleResult, Verdict } from '../../rules/model.js';
import { checkJsonObject } from '../check/json.js';
import {
  boundText,
  location,
  observedPart,
  readLine,
  ruleName,
  spreadPart,
  statusWord,
  unmatchedPart,
  verdictLine,
  whyText,
  type CheckContext,
} from '../check/shared.js';
import { esc } from './markup.js';
import { page } from './page.js';
import { sentence } from './sentence.js';

const q = sentence.code;
const STATUS = { pass: 'status-pass', FAIL: 'status-fail', warn: 'status-warn' } as const;

function row(r: RuleResult, hasBase: boolean, i: number): string {
  const word = statusWord(r);
  const observed = [observedPart(r, q), spreadPart(r, q), unmatchedPart(r, hasBase, q)].filter(Boolean).join('; ');
  const cells = [
    `<td class="l ${STATUS[word]}"><strong>${word}</strong></td>`,
    `<th scope="row" class="l">${sentence.html(ruleName(r.rule, q))}</th>`,
    `<td class="l">${sentence.html(observed)}</td>`,
    `<td class="l">${sentence.html(boundText(r.rule, q))}</td>`,
    `<td class="l">${sentence.html(location(r, q))}</td>`,
    `<td class="l">${r.passed || r.rule.why === null ? '' : sentence.html(whyText(r.rule.why, q))}</td>`,
  ];
  return `<tr data-i="${i}">${cells.join('')}</tr>`;
}

export function checkHtml(v: Verdict, ctx: CheckContext): string {
  const word = v.passed ? 'passed' : 'failed';
  const what = `${q(ctx.profile, Infinity)}${ctx.base !== null ? ` against base ${q(ctx.base, Infinity)}` : ''}, rules ${q(ctx.rules, Infinity)}`;
  const heads = ['', 'rule', 'observed', 'bound', 'rule file', 'why'];
  const body = [
    '<header>',
    `<h1>kprof check: <span class="verdict ${word}">${word}</span></h1>`,
    `<p>${sentence.html(what)}</p>`,
    `<p class="note">${esc(readLine(ctx))}</p>`,
    '</header>',
    '<section aria-labelledby="rules-h"><h2 id="rules-h">Rules</h2><div class="scroll"><table id="check-table">',
    `<caption class="note">${esc(`One row per rule, in the order of the rules file: pass, FAIL (an error-level rule broke) or warn (a warn-level rule broke).`)}</caption>`,
    `<thead><tr>${heads.map((h, i) => `<th scope="col" class="l">${i === 0 ? '<span class="muted">status</span>' : esc(h)}</th>`).join('')}</tr></thead>`,
    `<tbody>${v.results.map((r, i) => row(r, ctx.base !== null, i)).join('\n')}</tbody>`,
    '</table></div></section>',
    `<footer><p class="verdict ${word}">${esc(verdictLine(v))}</p><p class="note">Made by kprof. The results are in this file as JSON (the element <code>kprof-check</code>), as <code>kprof check --format json</code> writes them.</p></footer>`,
  ];
  return page({ title: esc(`kprof ${verdictLine(v)}`), body, data: { 'kprof-check': checkJsonObject(v, ctx) } });
}
