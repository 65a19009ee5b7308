// Rules × profile (× base) → Verdict. Pure: no I/O. Every rule is evaluated on every rank it applies to (by
// default all of them) and must hold on each; `per: step` rules must hold in each step on its own. A rule that
// cannot be answered from the input (names asked of a summary JSON grouped by type, steps asked of a source
// without Step Id, a rank the profile does not have) is an input error, never a silent pass.

import { inputError } from '../util/errors.js';
import { stepsNamingNone, stepsSaid } from '../analysis/emptySelection.js';
import type { Profile, RankData } from '../model/model.js';
import { fmtSteps, NO_RANK_ID, plural, rankIdsText, rankOption, ranksNamed } from '../util/format.js';
import { shellWord, shown } from '../util/inputText.js';
import { kindOf } from './checks/registry.js';
import { chainCounts, chainOf, requireSequence, unavailable } from './checks/sequence.js';
import type { RankOutcome, Sample, StepMismatch } from './checks/kind.js';
import { inRange, ruleAt } from './slice.js';
import { countIn, knownValues, unmatchedOf, type KnownValues } from './unmatched.js';
import type { Check, CheckKind, FusedFallback, FusedShortStep, Per, Rule, RuleResult, RuleSet, Verdict } from './model.js';

export { ruleAt } from './slice.js';

/** The gate: 1 when an error-level rule failed, else 0. */
export function exitCodeOf(verdict: Verdict): 0 | 1 {
  return verdict.passed ? 0 : 1;
}

/** Rules that compare against a base; the command requires --base when there is one. */
export function rulesNeedingBase(set: RuleSet): Rule[] {
  return set.rules.filter((r) => kindOf(r.check).needsBase);
}

/** What ranks a profile has: `ranks 0, 1`, `one rank, of no id`. */
function ranksHad(ranks: string[]): string {
  return ranks.length === 1 && ranks[0] === NO_RANK_ID ? 'one rank, of no id' : ranksNamed(ranks, shown);
}

/** ` (rank 3)` after a file's path; nothing for the one rank of no id. */
function rankOf(rank: RankData): string {
  return rank.rank === NO_RANK_ID ? '' : ` (${ranksNamed([rank.rank], shown)})`;
}

/** A per-step rule (or a step range) needs a Step Id. */
function requireSteps(rule: Rule, rank: RankData, why: string): void {
  const path = rank.files[0]?.path ?? `rank ${rank.rank}`;
  if (!rank.fields.steps) {
    throw inputError(
      `${ruleAt(rule)}: the rule ${why}, but ${path}${rankOf(rank)} has no Step Id. Use per: total and drop steps:, or profile with a step schedule.`,
    );
  }
  if (rank.stepIds.filter((s) => inRange(rule, s)).length === 0) {
    const range = rule.steps ? ` in ${stepsSaid(rule.steps)}` : '';
    throw inputError(
      `${ruleAt(rule)}: the rule ${why}, but ${path}${rankOf(rank)} has no steps${range}` +
        ` (${rank.stepIds.length ? `it has Step Id ${fmtSteps(rank.stepIds[0]!, rank.stepIds[rank.stepIds.length - 1]!)}` : noStepWhy(rank)}). ` +
        // per: total is the way out only for a per-step rule of no steps: (a step range needs steps either way).
        (rule.steps !== null ? 'Fix steps: in the rule, or leave it out for every step.' : 'Use per: total, or profile with a step schedule.'),
    );
  }
}

/**
 * A rule's steps: naming a step that none of its ranks has (`steps: 21,99` on steps 21-24) is an input error, as
 * `--steps 21,99` is a usage error: the rule would hold on the steps that are there, the typo unseen. Ranks of no
 * Step Id are left to requireSteps, which says why.
 */
function requireRuleSteps(rule: Rule, ranks: RankData[]): void {
  if (rule.steps === null || ranks.length === 0 || ranks.some((r) => !r.fields.steps)) return;
  const ids = [...new Set(ranks.flatMap((r) => r.stepIds))].sort((a, b) => a - b);
  const one = ranks.length === 1;
  const gap = stepsNamingNone(rule.steps, ids, one ? 'its' : 'their');
  if (gap === null) return;
  const where = ranksNamed(
    ranks.map((r) => r.rank),
    shown,
  );
  throw inputError(`${ruleAt(rule)}: steps: ${stepsSaid(rule.steps)}: ${where} ${one ? 'has' : 'have'} ${gap}. Fix steps: in the rule.`);
}

/** Why a rank with a Step Id column has no step: its rows had none, or those that had one were skipped. */
function noStepWhy(rank: RankData): string {
  if (rank.rowsSkipped === 0) return 'every Step Id cell is empty';
  const kept = rank.rowsWithoutStep;
  return (
    `no row with a Step Id was read: ${rank.rowsSkipped} row${rank.rowsSkipped === 1 ? '' : 's'} could not be read` +
    (kept > 0 ? ` and the ${kept} read have an empty Step Id` : '')
  );
}

function needsSteps(rule: Rule): string | null {
  const per = 'per' in rule.check ? rule.check.per : 'total';
  if (per === 'step') return 'checks each step';
  if (rule.steps !== null) return `is limited to steps ${stepsSaid(rule.steps)}`;
  return null;
}

/** The ranks a rule applies to. */
function ranksOf(rule: Rule, profile: Profile): RankData[] {
  if (rule.ranks === null) return profile.ranks;
  const missing = rule.ranks.filter((r) => !profile.ranks.some((x) => x.rank === r));
  if (missing.length > 0) {
    throw inputError(
      `${ruleAt(rule)}: the rule applies to ${ranksNamed(missing, shown)}, but ${profile.input} has ` +
        `${ranksHad(profile.ranks.map((r) => r.rank))}. Fix ranks: in the rule, or pass the profile of every rank.`,
    );
  }
  return profile.ranks.filter((r) => rule.ranks!.includes(r.rank));
}

/** The base rank compared with a profile rank: the same id, or the only rank when both sides have one. */
function baseRankOf(rule: Rule, rank: RankData, profile: Profile, base: Profile): RankData {
  if (profile.ranks.length === 1 && base.ranks.length === 1) return base.ranks[0]!;
  const b = base.ranks.find((r) => r.rank === rank.rank);
  if (!b) {
    throw inputError(
      `${ruleAt(rule)}: the base ${base.input} has no ${ranksNamed([rank.rank], shown)} to compare with (it has ${ranksHad(base.ranks.map((r) => r.rank))}). ` +
        `Compare profiles of the same ranks, or limit the rule with ranks:.`,
    );
  }
  return b;
}

/**
 * Stop (exit 2) when the base has ranks the profile lacks: the rules would be checked on the ranks left and the
 * lost ranks pass unseen (diff says "Ranks on one side only"). One rank against one rank is a pair whatever
 * their ids, as in diff.
 */
export function rejectUnpairedBase(profile: Profile, base: Profile): void {
  if (profile.ranks.length === 1 && base.ranks.length === 1) return;
  const have = new Set(profile.ranks.map((r) => r.rank));
  const lost = base.ranks.map((r) => r.rank).filter((r) => !have.has(r));
  if (lost.length === 0) return;
  const list = (ids: string[]): string => rankIdsText(ids, shown);
  // --rank selects on both sides: only the ranks both have read on each (a rank of the profile alone would be
  // "not found" in the base).
  const both = base.ranks.map((r) => r.rank).filter((r) => have.has(r));
  const option = rankOption(both);
  const only =
    both.length > 0
      ? option !== null
        ? `or --rank ${shellWord(option)} to check only the rank${both.length === 1 ? '' : 's'} both have`
        : 'or --rank with the ranks both have, to check only those'
      : 'or a base of the same ranks (the two share none)';
  throw inputError(
    `the base ${base.input} has rank${lost.length === 1 ? '' : 's'} ${list(lost)}, which the profile ${profile.input} lacks ` +
      `(it has ${list([...have])}): a rank that was not profiled cannot be checked. Pass the profile of every rank, ${only}.`,
  );
}

/**
 * A rule that compares totals with the base, on ranks with different numbers of steps, compares different
 * amounts of work: said as diff says it (the verdict still stands).
 */
function stepMismatchWarning(rule: Rule, m: StepMismatch[]): string {
  const text = (n: number | null): string => (n === null ? 'no Step Id' : `${n} step${n === 1 ? '' : 's'}`);
  const first = m[0]!;
  const alike = m.every((x) => x.base === first.base && x.profile === first.profile);
  const ranks = m.map((x) => x.rank);
  const where = ranks.length === 1 && ranks[0] === '-' ? '' : ` on ${ranksNamed(ranks, shown)}`;
  const what = alike
    ? `the base has ${text(first.base)}, the profile has ${text(first.profile)}`
    : m
        .slice(0, 8)
        .map((x) => `${ranksNamed([x.rank], shown)}: ${text(x.base)} in the base, ${text(x.profile)} in the profile`)
        .join('; ');
  const fix = m.every((x) => x.base !== null && x.profile !== null) ? 'use per: step.' : 'compare runs profiled alike.';
  return `${ruleAt(rule)}: step counts differ${where}: ${what}. The rule compares totals, so different amounts of work; ${fix}`;
}

/**
 * A per-step rule counts the kernels of each step: those it selects with an empty Step Id are in none, so a rule
 * such as `max: 0` per step holds while they run. Said, as diff says it (the verdict stands).
 */
function outsideStepsWarning(rule: Rule, outside: { rank: string; kernels: number }[]): string {
  const n = outside.reduce((a, o) => a + o.kernels, 0);
  const ranks = outside.map((o) => o.rank);
  const where = ranks.length === 1 && ranks[0] === NO_RANK_ID ? '' : ` (on ${ranksNamed(ranks, shown)})`;
  return (
    `${ruleAt(rule)}: ${plural(n, 'kernel')} the rule selects ${n === 1 ? 'has' : 'have'} an empty Step Id${where}: in no step, ` +
    `so the rule, per step, did not count ${n === 1 ? 'it' : 'them'}. per: total counts every kernel.`
  );
}

function perOf(check: Check): Per {
  // A fused rule looks at each step (an unfused chain in any step breaks it).
  if (check.kind === 'fused') return 'step';
  return 'per' in check ? check.per : 'total';
}

/** What the rule's kind finds on one rank (and its base rank, for a kind that needs one). */
function evaluateOn<K extends CheckKind>(
  check: Extract<Check, { kind: K }>,
  rule: Rule,
  rank: RankData,
  profile: Profile,
  base: Profile | null,
  known: KnownValues,
  why: string | null,
): RankOutcome {
  const kind = kindOf<K>(check);
  if (!kind.needsBase) return kind.evaluate(check, { rule, rank, known });
  if (base === null) throw inputError(`${ruleAt(rule)}: the rule compares against a base; pass --base <profile or summary.json>.`);
  const baseRank = baseRankOf(rule, rank, profile, base);
  if (why) requireSteps(rule, baseRank, why);
  return kind.evaluate(check, { rule, rank, baseRank, known });
}

function evaluateRule(rule: Rule, profile: Profile, base: Profile | null, warnings: string[]): RuleResult {
  const ranks = ranksOf(rule, profile);
  const known = knownValues(profile, base);
  const why = needsSteps(rule);
  const samples: Sample[] = [];
  const stepsOn = new Map<string, number>();
  const typesOn = new Map<string, string[]>();
  const mismatched: StepMismatch[] = [];
  const fallbacks: FusedFallback[] = [];
  const short: FusedShortStep[] = [];
  const outside: { rank: string; kernels: number }[] = [];
  for (const rank of ranks) {
    // A sequence or fused rule asks for kernels in order first: "no Step Id" would be the lesser half of the answer
    // (and its way out, per: total, is none for them).
    if (rule.check.kind === 'sequence' || rule.check.kind === 'fused') requireSequence(rule, rank);
    if (why) requireSteps(rule, rank, why);
    const r = evaluateOn(rule.check, rule, rank, profile, base, known, why);
    stepsOn.set(rank.rank, r.steps);
    typesOn.set(rank.rank, r.newTypes);
    if (r.mismatch !== null) mismatched.push(r.mismatch);
    if (r.fallbacks !== undefined) for (const f of r.fallbacks) fallbacks.push(f);
    if (r.short !== undefined) for (const f of r.short) short.push(f);
    if (r.outsideSteps !== undefined) outside.push({ rank: rank.rank, kernels: r.outsideSteps });
    // A loop, not push(...r.samples): one sample per step overflows the stack at ~65k steps.
    for (const s of r.samples) samples.push(s);
  }
  requireRuleSteps(rule, ranks);
  if (mismatched.length > 0) warnings.push(stepMismatchWarning(rule, mismatched));
  if (outside.length > 0) warnings.push(outsideStepsWarning(rule, outside));
  // The decisive sample: the smallest slack (the worst break, or the closest call); ties go to the first
  // rank, then the first step, in file order of the bounds.
  let decisive = samples[0];
  if (decisive === undefined) throw new Error(`${ruleAt(rule)}: no rank to evaluate the rule on (a bug in kprof)`);
  for (const s of samples) if (s.slack < decisive.slack) decisive = s;
  const broken = samples.filter((s) => s.slack < 0);
  const passed = broken.length === 0;
  const ranksBroken = [...new Set(broken.map((s) => s.rank))];
  const brokenSteps = new Set(broken.filter((s) => s.rank === decisive.rank && s.step !== null).map((s) => s.step!));
  return {
    rule,
    passed,
    observed: decisive.value,
    bound: decisive.bound,
    unit: kindOf(rule.check).unit,
    per: perOf(rule.check),
    rank: passed ? null : decisive.rank,
    step: passed ? null : decisive.step,
    ranksChecked: ranks.map((r) => r.rank),
    ranksBroken,
    stepsChecked: stepsOn.get(decisive.rank) ?? 0,
    stepsBroken: brokenSteps.size,
    brokenSteps: [...brokenSteps].sort((a, b) => a - b),
    compared: decisive.compared,
    newTypes: typesOn.get(decisive.rank) ?? [],
    site: passed ? null : (decisive.site ?? null),
    ...(rule.check.kind === 'fused' ? { fallbacks, short } : {}),
    ...unmatchedChain(rule, samples, profile, base, unmatchedOf(rule, profile, base)),
  };
}

/**
 * What a rule matched nothing of. For a sequence rule whose kernels all run: the chain itself, when it runs in
 * none of the rule's steps of the profile, nor of the base (every base rank read in order): `max: 0` of a chain
 * that never ran, in that order, holds whatever runs, as `absent:` of a type that never ran does. A base rank that
 * holds no kernel order (a summary JSON, op_statistic, no Step Id) cannot show the chain ran: it is passed over,
 * unless the chain is one kernel, which its counts show.
 */
function unmatchedChain(
  rule: Rule,
  samples: Sample[],
  profile: Profile,
  base: Profile | null,
  unmatched: string[],
): { unmatched: string[]; chainNowhere: boolean; chainBaseUnordered?: boolean } {
  if (rule.check.kind !== 'sequence' || unmatched.length > 0 || samples.some((s) => (s.value ?? 0) > 0)) return { unmatched, chainNowhere: false };
  let baseUnordered = false;
  if (base !== null) {
    const { by, chain } = chainOf(rule);
    const ranks =
      rule.ranks === null || (base.ranks.length === 1 && profile.ranks.length === 1)
        ? base.ranks
        : base.ranks.filter((r) => rule.ranks!.includes(r.rank));
    for (const rank of ranks) {
      // A base that holds no kernel order (a summary JSON …) cannot say the chain ever ran: it matched nothing;
      // but a chain of one kernel needs no order, and ran when the base counts that kernel in the rule's steps.
      if (unavailable(rule, rank) !== null) {
        if (chain.length === 1 && [...rank.groups.values()].some((g) => (by === 'type' ? g.type : g.name) === chain[0] && countIn(rule, g) > 0))
          return { unmatched, chainNowhere: false };
        baseUnordered = true;
        continue;
      }
      for (const n of chainCounts(rank, by, chain, (s) => inRange(rule, s)).values()) if (n > 0) return { unmatched, chainNowhere: false };
    }
  }
  return { unmatched: [chainOf(rule).chain.join(' · ')], chainNowhere: true, ...(baseUnordered ? { chainBaseUnordered: true } : {}) };
}

/** Evaluate every rule, in file order. */
export function evaluate(profile: Profile, base: Profile | null, set: RuleSet): Verdict {
  const warnings: string[] = [];
  const results = set.rules.map((r) => evaluateRule(r, profile, base, warnings));
  const failedErrors = results.filter((r) => !r.passed && r.rule.severity === 'error').length;
  const failedWarnings = results.filter((r) => !r.passed && r.rule.severity === 'warn').length;
  const unmatched = results.filter((r) => r.unmatched.length > 0).length;
  return { results, passed: failedErrors === 0, failedErrors, failedWarnings, warnings, unmatched };
}
