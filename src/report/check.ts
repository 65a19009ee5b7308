// `kprof check` in every output format: text, json, junit, github, markdown. Pure: Verdict in, string out.
// Results are listed in the order of the rules file.

import type { CheckFormat } from './choices.js';
import { stepsLabel } from '../aggregate/group.js';
import type { Check, RuleResult, Verdict } from '../rules/model.js';
import { SCHEMA_VERSION, type CheckJson, type CheckResultJson } from '../model/schema.js';
import { fmtCount, fmtPct, fmtSignedPct, fmtUs } from '../util/format.js';
import { workspacePath } from '../util/paths.js';
import { ghData, ghProperty } from './failure.js';
import { WHOLE, clipped, mdCode, shown, jsonSafe, markdownTable, paint, xmlEscape, type RenderContext } from './render.js';
import { arrays, jsonChunks, lazyLists, mapped, type ListOf } from './json.js';

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

type Rule = RuleResult['rule'];

/**
 * How a report shows a text from input (rule names, `why`, kernel names, ranks, patterns): clipped() in the
 * terminal, JUnit and GitHub formats, a code span in Markdown, as it is in JSON (which jsonSafe escapes).
 */
export type Quote = (text: string, max?: number) => string;

const exact: Quote = (s) => s;
const md: Quote = mdCode;

/** A rule's `why`, whole, without the line break a YAML block scalar ends with (JSON keeps it exactly). */
export function whyText(why: string, q: Quote): string {
  return q(why.replace(/\s+$/, ''), WHOLE);
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${fmtCount(n)} ${n === 1 ? one : many}`;
}

function selectorText(rule: Rule, q: Quote): string {
  const s = rule.selector;
  if (s === null) return 'kernel types';
  switch (s.kind) {
    case 'all':
      return 'all kernels';
    case 'type':
      return `type ${s.values.map((x) => q(x)).join(', ')}`;
    case 'name':
      return `name ${s.values.map((x) => q(x)).join(', ')}`;
    case 'group':
      return `group ${q(s.group.name)}`;
    case 'match':
      return q(`/${s.re.source}/${s.re.flags}`);
  }
}

function amount(check: Check, v: number): string {
  return check.kind === 'time' ? fmtUs(v) : fmtCount(v);
}

function perText(check: Check): string {
  if (!('per' in check)) return '';
  return check.per === 'step' ? ' per step' : ' in total';
}

/** The bound of a rule in words: "exactly 1 per step", "fell by at least 20% against the base". */
export function boundText(rule: Rule, q: Quote = clipped): string {
  return `${assertionText(rule.check, q)}${scopeText(rule, q)}`;
}

function assertionText(c: Check, q: Quote): string {
  switch (c.kind) {
    case 'absent':
      return 'absent';
    case 'present':
      return 'present';
    case 'count':
    case 'time': {
      const { min, max } = c.bounds;
      const what = c.kind === 'time' ? 'time ' : '';
      const b =
        min !== null && max !== null
          ? min === max
            ? `exactly ${amount(c, min)}`
            : `between ${amount(c, min)} and ${amount(c, max)}`
          : min !== null
            ? `at least ${amount(c, min)}`
            : `at most ${amount(c, max!)}`;
      return `${what}${b}${perText(c)}`;
    }
    case 'count-vs-base':
    case 'time-vs-base': {
      const what = c.kind === 'time-vs-base' ? 'time' : 'count';
      const parts: string[] = [];
      if (c.change.fellByAtLeastPct !== null) parts.push(`fell by at least ${fmtPct(c.change.fellByAtLeastPct)}`);
      if (c.change.roseByAtMostPct !== null) parts.push(`rose by at most ${fmtPct(c.change.roseByAtMostPct)}`);
      return `${c.per === 'step' ? `mean ${what} per step` : what} ${parts.join(' and ')} against the base`;
    }
    case 'no-new-types': {
      const allow = c.allow.map((a) => q(typeof a === 'string' ? a : `/${a.source}/${a.flags}`));
      return `no kernel type that the base lacks${allow.length ? ` (allowed: ${allow.join(', ')})` : ''}`;
    }
  }
}

/** The steps and ranks a rule is limited to: " in steps 2-9 on ranks 0, 1". */
function scopeText(rule: Rule, q: Quote): string {
  const parts: string[] = [];
  if (rule.steps !== null) parts.push(rule.steps.length === 1 && rule.steps[0]!.from === rule.steps[0]!.to ? ` in step ${rule.steps[0]!.from}` : ` in steps ${stepsLabel(rule.steps)}`);
  if (rule.ranks !== null) parts.push(` on rank${rule.ranks.length === 1 ? '' : 's'} ${rule.ranks.map((x) => q(x)).join(', ')}`);
  return parts.join('');
}

/** The rule's label, or its selector and bound (a name that tells two rules on one kernel apart). */
export function ruleTitle(rule: Rule, q: Quote = clipped): string {
  return rule.label !== null ? q(rule.label) : `${selectorText(rule, q)}: ${boundText(rule, q)}`;
}

/** The rule's label, or its selector: for reports that show the bound beside it. */
export function ruleName(rule: Rule, q: Quote = clipped): string {
  return rule.label !== null ? q(rule.label) : rule.selector === null ? 'new kernel types' : selectorText(rule, q);
}

function valueText(r: RuleResult, v: number | null, q: Quote): string {
  const c = r.rule.check;
  if (v === null) return 'n/a';
  switch (r.unit) {
    case 'kernels':
      return plural(v, 'kernel');
    case 'us':
      return fmtUs(v);
    case 'percent':
      return fmtSignedPct(v);
    case 'types':
      return c.kind === 'no-new-types' && r.newTypes.length > 0 ? `${plural(v, 'new type')}: ${r.newTypes.map((x) => q(x)).join(', ')}` : plural(v, 'new type');
  }
}

function where(rank: string | null, step: number | null, q: Quote): string {
  const parts: string[] = [];
  if (rank !== null && rank !== '-') parts.push(`rank ${q(rank)}`);
  if (step !== null) parts.push(`step ${step}`);
  return parts.join(', ');
}

/** The base and profile values of a rule against the base: "count 122 → 0 (-100.0%)". */
function comparedText(r: RuleResult): string {
  if (!r.compared) return '';
  const c = r.rule.check;
  const f = (v: number): string => (c.kind === 'time-vs-base' ? fmtUs(v) : fmtCount(v));
  const pct = r.observed === null ? (r.compared.base === 0 ? 'not in the base' : 'n/a') : fmtSignedPct(r.observed);
  return `${f(r.compared.base)} → ${f(r.compared.profile)} (${pct})`;
}

function observedText(r: RuleResult, q: Quote): string {
  return r.compared ? comparedText(r) : valueText(r, r.observed, q);
}

/** What was observed: where it held, the value closest to the bound; where it broke, the worst value and where. */
export function observedPart(r: RuleResult, q: Quote = clipped): string {
  const ranks = r.ranksChecked.length;
  if (r.passed) {
    if (r.rule.check.kind === 'absent') return ranks > 1 ? `none on any of ${fmtCount(ranks)} ranks` : 'none';
    if (r.rule.check.kind === 'no-new-types') return ranks > 1 ? `no new type on any of ${fmtCount(ranks)} ranks` : 'no new type';
    if (r.compared) return `${ranks > 1 ? `closest of ${fmtCount(ranks)} ranks: ` : ''}${comparedText(r)}`;
    const closest = r.per === 'step' || ranks > 1 ? (r.bound.op === '<=' ? 'highest ' : 'lowest ') : '';
    const scope = ranks > 1 ? ` on each of ${fmtCount(ranks)} ranks` : '';
    return `${closest}${valueText(r, r.observed, q)}${r.per === 'step' ? ' per step' : ''}${scope}`;
  }
  const at = where(r.rank, r.step, q);
  return `${at ? `${at}: ` : ''}${observedText(r, q)}`;
}

/** Where else the rule broke, for a broken rule. */
export function spreadPart(r: RuleResult, q: Quote): string {
  if (r.passed) return '';
  const parts: string[] = [];
  if (r.step !== null && r.stepsChecked > 0) {
    // Which steps, when it is neither the one step named already nor every step.
    const ids = r.brokenSteps.length > 8 ? `${r.brokenSteps.slice(0, 8).join(', ')}, …` : r.brokenSteps.join(', ');
    const which = r.stepsBroken > 1 && r.stepsBroken < r.stepsChecked ? ` (steps ${ids})` : '';
    parts.push(`broken in ${fmtCount(r.stepsBroken)} of ${plural(r.stepsChecked, 'step')}${r.rank !== null && r.rank !== '-' ? ` of rank ${q(r.rank)}` : ''}${which}`);
  }
  if (r.ranksChecked.length > 1) parts.push(`broken on ${fmtCount(r.ranksBroken.length)} of ${fmtCount(r.ranksChecked.length)} ranks (${r.ranksBroken.map((x) => q(x)).join(', ')})`);
  return parts.join('; ');
}

/**
 * What the selector names that matched no kernel: "type InterleaveRop matches no kernel in the profile or the
 * base" ("… no kernel in the profile in step 3 on rank 1" for a rule limited to those). Empty when it matched.
 */
export function unmatchedPart(r: RuleResult, hasBase: boolean, q: Quote = clipped): string {
  if (r.unmatched.length === 0) return '';
  const s = r.rule.selector;
  const what =
    s?.kind === 'type' || s?.kind === 'name'
      ? `${s.kind} ${r.unmatched.map((x) => q(x)).join(', ')}`
      : s?.kind === 'group'
        ? `group ${q(s.group.name)}`
        : `match ${r.unmatched.map((x) => q(x)).join(', ')}`;
  const verb = r.unmatched.length > 1 ? 'match' : 'matches';
  // Limited to steps or ranks, the rule sees only those (a kernel that runs elsewhere is not there for it).
  return `${what} ${verb} no kernel in the profile${hasBase ? ' or the base' : ''}${scopeText(r.rule, q)}`;
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

function headerLine(ctx: CheckContext): string {
  return `kprof check ${shown(ctx.profile)}${ctx.base !== null ? ` against base ${shown(ctx.base)}` : ''} with ${shown(ctx.rules)}`;
}

function readText(c: ReadCounts): string {
  return `${plural(c.kernels, 'kernel')}, ${plural(c.skippedRows, 'row')} skipped`;
}

/** What the rules looked at: "read: 18 kernels, 0 rows skipped; base: 20 kernels, 0 rows skipped". */
export function readLine(ctx: CheckContext): string {
  return `read: ${readText(ctx.read)}${ctx.baseRead !== null ? `; base: ${readText(ctx.baseRead)}` : ''}`;
}

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

function round4(x: number): number {
  return Math.round(x * 10_000) / 10_000;
}

export function checkJsonObject(v: Verdict, ctx: CheckContext): CheckJson {
  return checkJsonWith(v, ctx, arrays);
}

/** The check's JSON, its results made by `list` (see ListOf). */
function checkJsonWith(v: Verdict, ctx: CheckContext, list: ListOf): CheckJson {
  const results: CheckResultJson[] = list(mapped(v.results, (r) => ({
    rule: ruleTitle(r.rule, exact),
    file: r.rule.file,
    line: r.rule.line,
    severity: r.rule.severity,
    passed: r.passed,
    observed: r.observed === null ? null : round4(r.observed),
    bound: { op: r.bound.op, value: round4(r.bound.value) },
    unit: r.unit,
    per: r.per,
    rank: r.rank,
    step: r.step,
    ranksBroken: r.ranksBroken,
    stepsBroken: r.brokenSteps,
    message: resultMessage(r, ctx.base !== null, exact),
    why: r.rule.why,
    unmatched: r.unmatched,
  })));
  return {
    schemaVersion: SCHEMA_VERSION,
    kind: 'check',
    passed: v.passed,
    profile: ctx.profile,
    base: ctx.base,
    rules: ctx.rules,
    read: ctx.read,
    baseRead: ctx.baseRead,
    results,
  };
}

/** The JSON report, in chunks: each result is made as it is written (see json.ts). */
export function checkJson(v: Verdict, ctx: CheckContext): Iterable<string> {
  return mapped(jsonChunks(checkJsonWith(v, ctx, lazyLists)), jsonSafe);
}

/**
 * JUnit XML: one test case per rule. A broken error-level rule is a <failure>; a broken warn-level rule passes
 * with its message in <system-out>, so that dashboards do not turn red for a warning.
 */
export function checkJunit(v: Verdict, ctx: CheckContext): string {
  const n = v.results.length;
  const attrs = `name="kprof check" tests="${n}" failures="${v.failedErrors}" errors="0" skipped="0"`;
  const rules = xmlEscape(shown(ctx.rules));
  const lines = ['<?xml version="1.0" encoding="UTF-8"?>', `<testsuites ${attrs}>`, `  <testsuite ${attrs.replace('kprof check', rules)}>`];
  const props: [string, number][] = [
    ['kernels', ctx.read.kernels],
    ['skippedRows', ctx.read.skippedRows],
  ];
  if (ctx.baseRead !== null) props.push(['baseKernels', ctx.baseRead.kernels], ['baseSkippedRows', ctx.baseRead.skippedRows]);
  lines.push('    <properties>', ...props.map(([k, n]) => `      <property name="${k}" value="${n}" />`), '    </properties>');
  for (const r of v.results) {
    const head = `    <testcase name="${xmlEscape(ruleTitle(r.rule))}" classname="${rules}" file="${xmlEscape(shown(r.rule.file))}" line="${r.rule.line}"`;
    const msg = resultMessage(r, ctx.base !== null);
    const body = `${msg}\n${location(r)}${r.rule.why !== null ? `\nwhy: ${whyText(r.rule.why, clipped)}` : ''}`;
    if (r.passed && r.unmatched.length > 0) {
      lines.push(`${head}>`, `      <system-out>${xmlEscape(`note: ${body}`)}</system-out>`, '    </testcase>');
    } else if (r.passed) {
      lines.push(`${head} />`);
    } else if (r.rule.severity === 'warn') {
      lines.push(`${head}>`, `      <system-out>${xmlEscape(`warning: ${body}`)}</system-out>`, '    </testcase>');
    } else {
      lines.push(`${head}>`, `      <failure message="${xmlEscape(msg)}" type="kprof.rule">${xmlEscape(body)}</failure>`, '    </testcase>');
    }
  }
  lines.push('  </testsuite>', '</testsuites>');
  return `${lines.join('\n')}\n`;
}

/** GitHub Actions annotations on the rules file: ::error for broken error-level rules, ::warning for warn-level. */
export function checkGithub(v: Verdict, ctx: CheckContext): string {
  const out: string[] = [];
  for (const r of v.results) {
    // A rule that held but matched nothing is marked too: it may be a selector that no longer names anything.
    if (r.passed && r.unmatched.length === 0) continue;
    const cmd = r.passed ? 'warning' : r.rule.severity === 'warn' ? 'warning' : 'error';
    const file = shown(workspacePath(r.rule.file, ctx.workspace));
    const props = `file=${ghProperty(file)},line=${r.rule.line},col=${r.rule.col},title=${ghProperty(`kprof check: ${ruleTitle(r.rule)}`)}`;
    const text = `${resultMessage(r, ctx.base !== null)}${!r.passed && r.rule.why !== null ? `\nwhy: ${whyText(r.rule.why, clipped)}` : ''}`;
    out.push(`::${cmd} ${props}::${ghData(text)}`);
  }
  const skipped = ctx.read.skippedRows + (ctx.baseRead?.skippedRows ?? 0);
  if (skipped > 0) out.push(`::warning title=${ghProperty('kprof check: skipped rows')}::${ghData(`${readLine(ctx)} (rows that could not be read are not in the figures)`)}`);
  out.push(readLine(ctx));
  out.push(verdictLine(v));
  return `${out.join('\n')}\n`;
}

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

/** Render a verdict in one of the formats (`html` is report/html/check.ts, which imports these). */
export function renderCheck(format: Exclude<CheckFormat, 'html'>, v: Verdict, ctx: CheckContext, rc: RenderContext): string | Iterable<string> {
  switch (format) {
    case 'text':
      return checkText(v, ctx, rc);
    case 'json':
      return checkJson(v, ctx);
    case 'junit':
      return checkJunit(v, ctx);
    case 'github':
      return checkGithub(v, ctx);
    case 'markdown':
      return checkMarkdown(v, ctx);
  }
}
