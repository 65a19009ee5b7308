// What the formats of `kprof check` share: each rule and result in words, the verdict line, what was read.
// Pure. Results are listed in the order of the rules file.

import { stepsLabel } from '../../aggregate/group.js';
import { fallbackText } from '../../rules/checks/fused.js';
import { describeCheck, kindOf } from '../../rules/checks/registry.js';
import { amount, type Quote } from '../../rules/checks/kind.js';
import { saidText, type Evidence, type RuleResult, type SequenceSite, type Verdict } from '../../rules/model.js';
import { keyLabel } from '../../model/model.js';
import { fmtCount, fmtPctDigits, fmtUsDigits, listed, plural, rankIdsText, ranksNamed, sideDigits, usOfText } from '../../util/format.js';
import { clipped, escaped, WHOLE } from '../../util/inputText.js';
import { mdCode } from '../render.js';

/** What was checked, as shown to the user (paths relative to the working directory). */
export interface CheckContext {
  profile: string;
  base: string | null;
  rules: string;
  /** Kernels the rules looked at (after --rank/--steps and the filters) and rows that could not be read. */
  read: ReadCounts;
  baseRead: ReadCounts | null;
  /** GITHUB_WORKSPACE, when set: --format github names files relative to it. */
  workspace?: string | undefined;
}

export interface ReadCounts {
  kernels: number;
  skippedRows: number;
}

export type Rule = RuleResult['rule'];

/**
 * How a report shows a text from input (rule names, `why`, kernel names, ranks, patterns): clipped() in the
 * terminal, JUnit and GitHub formats, a code span in Markdown, as it is in JSON (which jsonSafe escapes).
 */
export type { Quote };

export const exact: Quote = (s) => s;
export const md: Quote = mdCode;

/** A rule's `why`, whole, without the line break a YAML block scalar ends with (JSON keeps it exactly). */
export function whyText(why: string, q: Quote): string {
  return q(why.replace(/\s+$/, ''), WHOLE);
}

export function selectorText(rule: Rule, q: Quote): string {
  const s = rule.selector;
  if (rule.check.kind === 'fused') return `fusion ${q(rule.check.entry)}${rule.check.phase === 'decoder' ? '' : ` (${rule.check.phase})`}`;
  if (s === null) return 'kernel types';
  // A sequence rule's type: or name: list is a chain, in order.
  if (rule.check.kind === 'sequence' && (s.kind === 'type' || s.kind === 'name')) return `${s.kind}s ${s.values.map((x) => q(x)).join(' → ')}`;
  switch (s.kind) {
    case 'all':
      return 'all kernels';
    case 'type':
      return `type ${valuesText(s.values, q)}`;
    case 'name':
      return `name ${valuesText(s.values, q)}`;
    case 'group':
      return `group ${q(s.group.name)}`;
    case 'match':
      return q(`/${s.re.source}/${s.re.flags}`);
  }
}

/** The bound of a rule in words: "exactly 1 per step", "fell by at least 20% against the base". */
export function boundText(rule: Rule, q: Quote = clipped): string {
  return `${describeCheck(rule.check, q)}${scopeText(rule, q)}`;
}

/** The steps and ranks a rule is limited to: " in steps 2-9 on ranks 0, 1". */
export function scopeText(rule: Rule, q: Quote): string {
  const parts: string[] = [];
  if (rule.steps !== null)
    parts.push(
      rule.steps.length === 1 && rule.steps[0]!.from === rule.steps[0]!.to
        ? ` in step ${rule.steps[0]!.from}`
        : ` in steps ${stepsLabel(rule.steps)}`,
    );
  if (rule.ranks !== null) parts.push(` on ${ranksNamed(rule.ranks, q)}`);
  return parts.join('');
}

/** The rule's label, or its selector and bound (a name that tells two rules on one kernel apart). */
export function ruleTitle(rule: Rule, q: Quote = clipped): string {
  return rule.label !== null ? q(rule.label) : `${selectorText(rule, q)}: ${boundText(rule, q)}`;
}

/** The rule's label, or its selector: for reports that show the bound beside it. */
export function ruleName(rule: Rule, q: Quote = clipped): string {
  return rule.label !== null ? q(rule.label) : rule.selector === null && rule.check.kind !== 'fused' ? 'new kernel types' : selectorText(rule, q);
}

export function valueText(r: RuleResult, v: number | null, q: Quote): string {
  if (v === null) return 'n/a';
  switch (r.unit) {
    case 'kernels':
      return plural(v, 'kernel');
    case 'us':
      return usBeside(r, v);
    case 'percent':
      return pctBeside(r, v);
    case 'chains':
      return plural(v, 'chain');
    case 'types':
      return r.newTypes.length > 0 ? `${plural(v, 'new type')}: ${r.newTypes.map((x) => q(keyLabel(x))).join(', ')}` : plural(v, 'new type');
  }
}

/**
 * A time beside the rule's bound: with the decimals that show it on its side of the bound (the rank's or step's
 * value is the rule's observed one, the one measured against the bound).
 */
function usBeside(r: RuleResult, v: number): string {
  return fmtUsDigits(
    v,
    sideDigits(v, r.bound.op, r.bound.value, 2, 10, (d) => fmtUsDigits(v, d), usOfText),
  );
}

/** A change in percent beside the rule's bound, as usBeside: "+10.02%" against at most 10%, not "+10.0%". */
function pctBeside(r: RuleResult, v: number): string {
  const read = (t: string): number => Number(t.replace(/[,%+]/g, ''));
  return fmtPctDigits(
    v,
    sideDigits(v, r.bound.op, r.bound.value, 1, 8, (d) => fmtPctDigits(v, d, true), read),
    true,
  );
}

export function where(rank: string | null, step: number | null, q: Quote): string {
  const parts: string[] = [];
  if (rank !== null && rank !== '-') parts.push(`rank ${q(rank)}`);
  if (step !== null) parts.push(`step ${step}`);
  return parts.join(', ');
}

/** The base and profile values of a rule against the base: "count 122 → 0 (-100.0%)". */
export function comparedText(r: RuleResult): string {
  if (!r.compared) return '';
  const measure = kindOf(r.rule.check).measure;
  const f = (v: number): string => amount(measure, v);
  // No time in the base need not be no kernel in it: kernels of 0 µs are there (a time of 0 is no percentage).
  const none = measure === 'us' ? 'no time in the base' : 'not in the base';
  const pct = r.observed === null ? (r.compared.base === 0 ? none : 'n/a') : pctBeside(r, r.observed);
  return `${f(r.compared.base)} → ${f(r.compared.profile)} (${pct})`;
}

export function observedText(r: RuleResult, q: Quote): string {
  return r.compared ? comparedText(r) : valueText(r, r.observed, q);
}

/** What was observed: where it held, the value closest to the bound; where it broke, the worst value and where. */
export function observedPart(r: RuleResult, q: Quote = clipped): string {
  const ranks = r.ranksChecked.length;
  if (r.passed) {
    const held = kindOf(r.rule.check).held(ranks);
    if (held !== null) return held;
    if (r.compared) return `${ranks > 1 ? `closest of ${fmtCount(ranks)} ranks: ` : ''}${comparedText(r)}`;
    const closest = r.per === 'step' || ranks > 1 ? (r.bound.op === '<=' ? 'highest ' : 'lowest ') : '';
    const scope = ranks > 1 ? ` on each of ${fmtCount(ranks)} ranks` : '';
    return `${closest}${valueText(r, r.observed, q)}${r.per === 'step' ? ' per step' : ''}${scope}`;
  }
  const at = where(r.rank, r.step, q);
  return `${at ? `${at}: ` : ''}${observedText(r, q)}${r.site ? `; ${siteText(r.site, q)}` : ''}${fallbackPart(r, q)}`;
}

/** Most fallback sites a fused rule names in a message (JSON lists them all in `fallbacks`). */
export const MAX_FALLBACKS_SHOWN = 8;

/** A fused rule that broke: where the unfused chain ran instead. */
function fallbackPart(r: RuleResult, q: Quote): string {
  if (r.rule.check.kind !== 'fused' || r.passed) return '';
  const f = r.fallbacks ?? [];
  const short = r.short ?? [];
  if (f.length === 0 && short.length === 0)
    return '; its fused kernel ran nowhere in these steps and phases, nor its unfused chain: a gate that saw nothing does not pass';
  let out = '';
  if (f.length > 0) {
    const shown = f.slice(0, MAX_FALLBACKS_SHOWN).map((x) => fallbackText(x, q));
    const more = f.length > shown.length ? ` and ${plural(f.length - shown.length, 'site')} more` : '';
    out += `; unfused chain at ${shown.join(', ')}${more}`;
  }
  if (short.length > 0) {
    const shown = short
      .slice(0, MAX_FALLBACKS_SHOWN)
      .map(
        (x) =>
          `${x.rank === '-' ? '' : `rank ${q(x.rank)} `}${x.phase === 'mtp' ? 'MTP layer of ' : x.phase === 'step' ? '' : `${x.phase} `}step ${x.step} (${x.sites} of ${x.most})`,
      );
    const more = short.length > shown.length ? ` and ${plural(short.length - shown.length, 'step')} more` : '';
    out += `; fewer sites than the other steps of their phase (a layer ran neither the fused kernel nor a known chain): ${shown.join(', ')}${more}`;
  }
  return out;
}

/** Where a sequence rule saw its chain in the step: "first at position 12 of 96 (from 0) on stream 2, layer 0". */
export function siteText(s: SequenceSite, q: Quote): string {
  const stream = s.stream === '-' ? '' : ` on stream ${q(s.stream)}`;
  const layer = s.layer === null ? '' : `, layer ${s.layer}`;
  const what = s.edits === 0 ? 'first at' : `nearest: ${plural(s.edits, 'edit')} from the chain at`;
  return `${what} position ${fmtCount(s.index)} of ${fmtCount(s.of)} (from 0)${stream}${layer}`;
}

/** Where else the rule broke, for a broken rule. */
export function spreadPart(r: RuleResult, q: Quote): string {
  if (r.passed) return '';
  const parts: string[] = [];
  if (r.step !== null && r.stepsChecked > 0) {
    // Which steps, when it is neither the one step named already nor every step.
    const ids = listed(r.brokenSteps.map(String), 8);
    const which = r.stepsBroken > 1 && r.stepsBroken < r.stepsChecked ? ` (steps ${ids})` : '';
    parts.push(
      `broken in ${fmtCount(r.stepsBroken)} of ${plural(r.stepsChecked, 'step')}${r.rank !== null && r.rank !== '-' ? ` of rank ${q(r.rank)}` : ''}${which}`,
    );
  }
  if (r.ranksChecked.length > 1)
    parts.push(`broken on ${fmtCount(r.ranksBroken.length)} of ${fmtCount(r.ranksChecked.length)} ranks (${rankIdsText(r.ranksBroken, q)})`);
  return parts.join('; ');
}

/**
 * What the selector names that matched no kernel: "type InterleaveRop matches no kernel in the profile or the
 * base" ("… no kernel in the profile in step 3 on rank 1" for a rule limited to those). Empty when it matched.
 */
export function unmatchedPart(r: RuleResult, hasBase: boolean, q: Quote = clipped): string {
  if (r.unmatched.length === 0) return '';
  if (r.chainNowhere) {
    const base = !hasBase ? '' : r.chainBaseUnordered === true ? ', and the base holds no kernel order to show it ever ran' : ' or the base';
    const ev = r.rule.evidence;
    const said = ev === undefined || ev === null || !r.passed ? '' : `; evidence that it ran: ${evidenceText(ev, q)}`;
    return `the chain runs nowhere in this order in the profile${base}${scopeText(r.rule, q)}${said}`;
  }
  const s = r.rule.selector;
  const what =
    s?.kind === 'type' || s?.kind === 'name'
      ? `${s.kind} ${valuesText(r.unmatched, q)}`
      : s?.kind === 'group'
        ? `group ${q(s.group.name)}`
        : `match ${valuesText(r.unmatched, q)}`;
  const verb = r.unmatched.length > 1 ? 'match' : 'matches';
  // Limited to steps or ranks, the rule sees only those (a kernel that runs elsewhere is not there for it).
  const nowhere = `${what} ${verb} no kernel in the profile${hasBase ? ' or the base' : ''}${scopeText(r.rule, q)}`;
  // A rule that held on a kernel that runs nowhere holds on its evidence, or says it has none (a misspelt name
  // would hold as well); one that broke is broken whatever the evidence.
  const ev = r.rule.evidence;
  // Close to a kernel that runs: what the rule most likely meant (rules with evidence are taken as meant).
  const hint = r.hint !== undefined ? `; ${saidText(r.hint, (x) => q(x))}` : '';
  if (!r.passed) return `${nowhere}${hint}`;
  if (ev === undefined || ev === null) return `${nowhere}, and the rule gives no evidence that it ever ran${hint}`;
  return `${nowhere}; evidence that it ran: ${evidenceText(ev, q)}`;
}

/** The most values of a selector a rule's line names (the rules file and JSON's `unmatched` have every one). */
export const MAX_VALUES_SHOWN = 8;

/** A selector's values (or those that matched no kernel), the first MAX_VALUES_SHOWN and how many more: one line stays short. */
function valuesText(values: readonly string[], q: Quote): string {
  const shown = values.slice(0, MAX_VALUES_SHOWN).map((x) => q(x));
  const more = values.length - shown.length;
  return more > 0 ? `${shown.join(', ')} and ${fmtCount(more)} more` : shown.join(', ');
}

/** A rule's evidence in words: "32 in the base the rule was written from", and a person's note. */
export function evidenceText(ev: Evidence, q: Quote = clipped): string {
  const parts: string[] = [];
  if (ev.baseCount !== null) parts.push(`${fmtCount(ev.baseCount)} in the base the rule was written from`);
  if (ev.note !== null) parts.push(`note: ${q(ev.note)}`);
  return parts.join('; ');
}

/** One sentence on what was observed, against the bound, and whether the selector matched anything. */
export function resultMessage(r: RuleResult, hasBase = false, q: Quote = clipped): string {
  const spread = spreadPart(r, q);
  const unmatched = unmatchedPart(r, hasBase, q);
  return `${observedPart(r, q)}; bound: ${boundText(r.rule, q)}${spread ? `; ${spread}` : ''}${unmatched ? `; ${unmatched}` : ''}`;
}

export function location(r: RuleResult, q: Quote = clipped): string {
  return `${q(r.rule.file, WHOLE)}:${r.rule.line}`;
}

export function statusWord(r: RuleResult): 'pass' | 'FAIL' | 'warn' {
  return r.passed ? 'pass' : r.rule.severity === 'warn' ? 'warn' : 'FAIL';
}

/** The one-line verdict. */
export function verdictLine(v: Verdict): string {
  const n = v.results.length;
  const held = v.results.filter((r) => r.passed).length;
  const warn = v.failedWarnings > 0 ? `; ${plural(v.failedWarnings, 'warning')}` : '';
  const unmatched = v.unmatched > 0 ? `; ${fmtCount(v.unmatched)} matched no kernel` : '';
  if (v.passed) return `check passed: ${fmtCount(held)} of ${plural(n, 'rule')} held${warn}${unmatched}.`;
  return `check failed: ${fmtCount(v.failedErrors)} of ${plural(n, 'rule')} broken${warn}; ${fmtCount(held)} held${unmatched}.`;
}

export function headerLine(ctx: CheckContext): string {
  return `kprof check ${escaped(ctx.profile)}${ctx.base !== null ? ` against base ${escaped(ctx.base)}` : ''} with ${escaped(ctx.rules)}`;
}

export function readText(c: ReadCounts): string {
  return `${plural(c.kernels, 'kernel')}, ${plural(c.skippedRows, 'row')} skipped`;
}

/** What the rules looked at: "read: 18 kernels, 0 rows skipped; base: 20 kernels, 0 rows skipped". */
export function readLine(ctx: CheckContext): string {
  return `read: ${readText(ctx.read)}${ctx.baseRead !== null ? `; base: ${readText(ctx.baseRead)}` : ''}`;
}
