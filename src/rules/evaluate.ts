// Rules × profile (× base) → Verdict. Pure: no I/O. Every rule is evaluated on every rank it applies to (by
// default all of them) and must hold on each; `per: step` rules must hold in each step on its own. A rule that
// cannot be answered from the input (names asked of a summary JSON grouped by type, steps asked of a source
// without Step Id, a rank the profile does not have) is an input error, never a silent pass.

import { inputError } from '../util/errors.js';
import { groupText, inSteps, kernelMatches, kernelNamed, stepsLabel, userGroupOf } from '../aggregate/group.js';
import {
  emptyCell,
  mergeCell,
  perStepCount,
  perStepUs,
  rankPerStep,
  steppedCell,
  TICKS_PER_US,
  type Cell,
  type FineGroup,
  type Profile,
  type RankData,
  type Selection,
  type UserGroup,
} from '../model/model.js';
import { fmtSteps } from '../util/format.js';
import { passKernelTable } from '../input/formats/registry.js';
import { knownValues, unmatchedOf, type KnownValues } from './unmatched.js';
import { NEEDS_BASE, type Bound, type Check, type Per, type Rule, type RuleResult, type RuleSet, type Selector, type Unit, type Verdict } from './model.js';

/** The gate: 1 when an error-level rule failed, else 0. */
export function exitCodeOf(verdict: Verdict): 0 | 1 {
  return verdict.passed ? 0 : 1;
}

/** Where a rule is in the rules file, for messages: `kprof.rules.yaml:12`. */
export function ruleAt(rule: Rule): string {
  return `${rule.file}:${rule.line}`;
}

/** Rules that compare against a base; the command requires --base when there is one. */
export function rulesNeedingBase(set: RuleSet): Rule[] {
  return set.rules.filter((r) => NEEDS_BASE[r.check.kind]);
}

const EMPTY_SELECTION: Selection = { ranks: null, steps: null, cores: null, match: null, exclude: null, groups: [] };

/** Why a rank cannot say which kernels a rule selects: the source keeps no kernel `missing` (types or names). */
function unanswerable(rule: Rule, rank: RankData, g: FineGroup, asked: string, missing: 'type' | 'name'): never {
  const file = rank.files[0];
  const path = file?.path ?? rank.rank;
  const head = `${ruleAt(rule)}: the rule selects kernels by ${asked}, but ${path}`;
  const fields = missing === 'type' ? 'types' : 'names';
  // A selector tested on name and type (match:, a group) cannot be answered by the one field the source kept:
  // a kernel the kept field does not select may be selected by the other.
  const both = asked !== 'type' && asked !== 'name';
  const kept = missing === 'type' ? 'name' : 'type';
  const unsure = both ? `: a kernel whose ${kept} is not selected may be selected by its ${missing}` : '';
  if (rank.snapshot && g.savedUserGroup !== undefined) {
    throw inputError(
      `${head} holds "${g.savedUserGroup}" as a user group, so the kernels in it are unknown. ` +
        `Regenerate the summary JSON without --groups, or pass the profile itself.`,
    );
  }
  if (rank.snapshot) {
    const fix = both
      ? `Select by ${kept} (${kept}: or a group of the ${kept}s it keeps), or pass the profile itself.`
      : `Regenerate it with kprof summary <profile> --by ${missing} --format json, or pass the profile itself.`;
    throw inputError(`${head} is a summary JSON grouped by ${rank.snapshot.groupBy}, which keeps no kernel ${fields}${unsure}. ${fix}`);
  }
  throw inputError(
    `${head} is ${file?.format ?? 'an export'} with no kernel ${fields} (aggregated per OP Type)${unsure}. ` +
      `Pass the same run's ${passKernelTable()}, or select by type.`,
  );
}

/**
 * Is every member of the group a value of the field the source kept (a kernel type of the profile or the base,
 * where names are missing)? Then the group is answered by that field; a pattern, or a member that is no such
 * value, might select kernels by the field the source lacks.
 */
function decidedBy(group: UserGroup, kept: ReadonlySet<string>): boolean {
  return group.patterns.length === 0 && [...group.exact].every((m) => kept.has(m));
}

/** Does a summary JSON hold the rule's group as it was saved: the same name and members, and no other group? */
function savedAsIs(rank: RankData, group: UserGroup): boolean {
  const saved = rank.snapshot?.selection.split('; ').filter((p) => p.startsWith('group ')) ?? [];
  return saved.length === 1 && saved[0] === groupText(group);
}

const savedGroups = new WeakMap<RankData, Set<string>>();

/** The user groups a summary JSON rank was saved with. */
function savedGroupsOf(rank: RankData): Set<string> {
  let out = savedGroups.get(rank);
  if (!out) {
    out = new Set();
    for (const g of rank.groups.values()) if (g.savedUserGroup !== undefined) out.add(g.savedUserGroup);
    savedGroups.set(rank, out);
  }
  return out;
}

function matches(rule: Rule, sel: Selector, rank: RankData, g: FineGroup, known: KnownValues): boolean {
  switch (sel.kind) {
    case 'all':
      return true;
    case 'type':
      if (g.type === null) unanswerable(rule, rank, g, 'type', 'type');
      return sel.values.includes(g.type);
    case 'name':
      if (g.name === null) unanswerable(rule, rank, g, 'name', 'name');
      return kernelNamed(g, sel.values);
    case 'match': {
      if (kernelMatches(sel.re, g)) return true;
      if (g.name !== null && g.type !== null) return false;
      return unanswerable(rule, rank, g, `a regular expression (/${sel.re.source}/), tested on name and type`, g.name === null ? 'name' : 'type');
    }
    case 'group': {
      const asked = `group "${sel.group.name}" (matched on type or name)`;
      if (rank.snapshot) {
        // Saved with user groups: answered when the snapshot holds this group as the rules file defines it, and
        // no other (a kernel saved in another group could match this one's members too; the kernels saved under
        // their own key matched none).
        if (savedAsIs(rank, sel.group)) return g.savedUserGroup === sel.group.name;
        if (savedGroupsOf(rank).has(sel.group.name)) {
          throw inputError(
            `${ruleAt(rule)}: the rule selects kernels by group "${sel.group.name}", but ${rank.snapshot.path} holds a user group of that name made with other members or beside other groups (${rank.snapshot.selection}), so which of its kernels are in the rules file's group is unknown. ` +
              `Regenerate the summary JSON with the rules file's groups only, or pass the profile itself.`,
          );
        }
      }
      if (g.savedUserGroup !== undefined) unanswerable(rule, rank, g, asked, 'name');
      if (userGroupOf(g, { ...EMPTY_SELECTION, groups: [sel.group] }) !== null) return true;
      if (g.name !== null && g.type !== null) return false;
      const missing = g.name === null ? 'name' : 'type';
      if (decidedBy(sel.group, missing === 'name' ? known.types : known.names)) return false;
      return unanswerable(rule, rank, g, asked, missing);
    }
  }
}

/** The kernels a rule selects on one rank, in the rule's step range. */
interface Slice {
  total: Cell;
  steps: Map<number, Cell>;
  /** The rank's steps in the rule's range (a step counts even where the selected kernels are absent). */
  stepIds: number[];
}

function inRange(rule: Rule, step: number): boolean {
  return rule.steps === null || inSteps(rule.steps, step);
}

function slice(rule: Rule, rank: RankData, sel: Selector | null, known: KnownValues): Slice {
  const total = emptyCell();
  const steps = new Map<number, Cell>();
  for (const g of rank.groups.values()) {
    if (sel !== null && !matches(rule, sel, rank, g, known)) continue;
    if (rule.steps === null) mergeCell(total, g.total);
    for (const [s, c] of g.steps) {
      if (!inRange(rule, s)) continue;
      if (rule.steps !== null) mergeCell(total, c);
      let t = steps.get(s);
      if (!t) {
        t = emptyCell();
        steps.set(s, t);
      }
      mergeCell(t, c);
    }
  }
  return { total, steps, stepIds: rank.stepIds.filter((s) => inRange(rule, s)) };
}

/** A per-step rule (or a step range) needs a Step Id. */
function requireSteps(rule: Rule, rank: RankData, why: string): void {
  const path = rank.files[0]?.path ?? `rank ${rank.rank}`;
  if (!rank.fields.steps) {
    throw inputError(`${ruleAt(rule)}: the rule ${why}, but ${path} (rank ${rank.rank}) has no Step Id. Use per: total and drop steps:, or profile with a step schedule.`);
  }
  if (rank.stepIds.filter((s) => inRange(rule, s)).length === 0) {
    const range = rule.steps ? ` in ${stepsLabel(rule.steps)}` : '';
    throw inputError(
      `${ruleAt(rule)}: the rule ${why}, but ${path} (rank ${rank.rank}) has no steps${range}` +
        ` (${rank.stepIds.length ? `it has Step Id ${fmtSteps(rank.stepIds[0]!, rank.stepIds[rank.stepIds.length - 1]!)}` : noStepWhy(rank)}). ` +
        `Fix steps: or use per: total.`,
    );
  }
}

/** Why a rank with a Step Id column has no step: its rows had none, or those that had one were skipped. */
function noStepWhy(rank: RankData): string {
  if (rank.rowsSkipped === 0) return 'every Step Id cell is empty';
  const kept = rank.rowsWithoutStep;
  return `no row with a Step Id was read: ${rank.rowsSkipped} row${rank.rowsSkipped === 1 ? '' : 's'} could not be read` + (kept > 0 ? ` and the ${kept} read have an empty Step Id` : '');
}

function needsSteps(rule: Rule): string | null {
  const per = 'per' in rule.check ? rule.check.per : 'total';
  if (per === 'step') return 'checks each step';
  if (rule.steps !== null) return `is limited to steps ${stepsLabel(rule.steps)}`;
  return null;
}

/** The ranks a rule applies to. */
function ranksOf(rule: Rule, profile: Profile): RankData[] {
  if (rule.ranks === null) return profile.ranks;
  const missing = rule.ranks.filter((r) => !profile.ranks.some((x) => x.rank === r));
  if (missing.length > 0) {
    throw inputError(
      `${ruleAt(rule)}: the rule applies to rank ${missing.join(', ')}, but ${profile.input} has rank${profile.ranks.length === 1 ? '' : 's'} ` +
        `${profile.ranks.map((r) => r.rank).join(', ')}. Fix ranks: in the rule, or pass the profile of every rank.`,
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
      `${ruleAt(rule)}: the base ${base.input} has no rank ${rank.rank} to compare with (it has ${base.ranks.map((r) => r.rank).join(', ')}). ` +
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
  const list = (ids: string[]): string => `${ids.slice(0, 8).join(', ')}${ids.length > 8 ? ', …' : ''}`;
  throw inputError(
    `the base ${base.input} has rank${lost.length === 1 ? '' : 's'} ${list(lost)}, which the profile ${profile.input} lacks ` +
      `(it has ${list([...have])}): a rank that was not profiled cannot be checked. ` +
      `Pass the profile of every rank, or --rank ${[...have].join(',')} to check only the ranks it has.`,
  );
}

/** One value the rule looked at, and how far it is inside (positive) or outside (negative) a bound. */
interface Sample {
  rank: string;
  step: number | null;
  value: number | null;
  bound: Bound;
  slack: number;
  compared: { base: number; profile: number } | null;
}

function sampleOf(rank: string, step: number | null, value: number, bound: Bound): Sample {
  const slack = bound.op === '<=' ? bound.value - value : value - bound.value;
  return { rank, step, value, bound, slack, compared: null };
}

function boundsOf(check: Check): Bound[] {
  switch (check.kind) {
    case 'absent':
      return [{ op: '<=', value: 0 }];
    case 'present':
      return [{ op: '>=', value: 1 }];
    case 'count':
    case 'time': {
      const out: Bound[] = [];
      if (check.bounds.max !== null) out.push({ op: '<=', value: check.bounds.max });
      if (check.bounds.min !== null) out.push({ op: '>=', value: check.bounds.min });
      return out;
    }
    default:
      return [];
  }
}

function metric(check: Check, c: Cell | undefined): number {
  if (!c) return 0;
  return check.kind === 'time' || check.kind === 'time-vs-base' ? c.ticks / TICKS_PER_US : c.count;
}

function unitOf(check: Check): Unit {
  switch (check.kind) {
    case 'time':
      return 'us';
    case 'count-vs-base':
    case 'time-vs-base':
      return 'percent';
    case 'no-new-types':
      return 'types';
    default:
      return 'kernels';
  }
}

function perOf(check: Check): Per {
  return 'per' in check ? check.per : 'total';
}

/** Samples of a bounds rule (absent, present, count, time) on one rank. */
function boundSamples(rule: Rule, rank: RankData, known: KnownValues): { samples: Sample[]; steps: number } {
  const s = slice(rule, rank, rule.selector, known);
  const bounds = boundsOf(rule.check);
  if (perOf(rule.check) === 'total') {
    return { samples: bounds.map((b) => sampleOf(rank.rank, null, metric(rule.check, s.total), b)), steps: 0 };
  }
  const samples: Sample[] = [];
  for (const step of s.stepIds) {
    const v = metric(rule.check, s.steps.get(step));
    for (const b of bounds) samples.push(sampleOf(rank.rank, step, v, b));
  }
  return { samples, steps: s.stepIds.length };
}

/**
 * The value compared against the base: the total, or the rank's figure per step as defined in model.ts ("Per
 * step", as diff --per-step): its kernels with a Step Id over its own number of steps.
 */
function comparable(rule: Rule, s: Slice): number {
  if (perOf(rule.check) === 'total') return metric(rule.check, s.total);
  const f = rankPerStep(steppedCell(s.steps), s.stepIds.length);
  return rule.check.kind === 'time-vs-base' ? perStepUs(f) : perStepCount(f);
}

/** A rank whose number of steps differs from its base rank's (null: no Step Id). */
interface StepMismatch {
  rank: string;
  base: number | null;
  profile: number | null;
}

/** The step counts of a rank and its base rank, when they differ and the rule compares totals. */
function stepMismatch(rule: Rule, rank: RankData, baseRank: RankData): StepMismatch | null {
  if (perOf(rule.check) === 'step') return null;
  const steps = (r: RankData): number | null => (r.fields.steps ? r.stepIds.filter((s) => inRange(rule, s)).length : null);
  const p = steps(rank);
  const b = steps(baseRank);
  return p === b ? null : { rank: rank.rank, base: b, profile: p };
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
  const where = ranks.length === 1 && ranks[0] === '-' ? '' : ` on rank${ranks.length === 1 ? '' : 's'} ${ranks.slice(0, 8).join(', ')}${ranks.length > 8 ? ', …' : ''}`;
  const what = alike
    ? `the base has ${text(first.base)}, the profile has ${text(first.profile)}`
    : m.slice(0, 8).map((x) => `rank ${x.rank}: ${text(x.base)} in the base, ${text(x.profile)} in the profile`).join('; ');
  const fix = m.every((x) => x.base !== null && x.profile !== null) ? 'use per: step.' : 'compare runs profiled alike.';
  return `${ruleAt(rule)}: step counts differ${where}: ${what}. The rule compares totals, so different amounts of work; ${fix}`;
}

function changeSamples(rule: Rule, rank: RankData, baseRank: RankData, known: KnownValues): Sample[] {
  const check = rule.check;
  if (check.kind !== 'count-vs-base' && check.kind !== 'time-vs-base') return [];
  const p = comparable(rule, slice(rule, rank, rule.selector, known));
  const b = comparable(rule, slice(rule, baseRank, rule.selector, known));
  // Against a base of zero there is no percentage: no kernels at all is no rise (0%), any kernel is an unbounded
  // rise, and nothing can fall.
  const pct = b === 0 ? (p === 0 ? 0 : null) : (100 * (p - b)) / b;
  const compared = { base: b, profile: p };
  const out: Sample[] = [];
  if (check.change.roseByAtMostPct !== null) {
    const bound: Bound = { op: '<=', value: check.change.roseByAtMostPct };
    out.push({ rank: rank.rank, step: null, value: pct, bound, slack: pct === null ? Number.NEGATIVE_INFINITY : bound.value - pct, compared });
  }
  if (check.change.fellByAtLeastPct !== null) {
    const bound: Bound = { op: '<=', value: -check.change.fellByAtLeastPct };
    const value = b === 0 ? null : pct;
    out.push({ rank: rank.rank, step: null, value, bound, slack: value === null ? Number.NEGATIVE_INFINITY : bound.value - value, compared });
  }
  return out;
}

function typesOf(rule: Rule, rank: RankData): Set<string> {
  const out = new Set<string>();
  for (const g of rank.groups.values()) {
    if (g.type === null) unanswerable(rule, rank, g, 'type', 'type');
    const count = rule.steps === null ? g.total.count : [...g.steps].filter(([st]) => inRange(rule, st)).reduce((n, [, c]) => n + c.count, 0);
    if (count > 0) out.add(g.type);
  }
  return out;
}

function allowed(type: string, allow: (string | RegExp)[]): boolean {
  return allow.some((a) => {
    if (typeof a === 'string') return a === type;
    a.lastIndex = 0;
    return a.test(type);
  });
}

function newTypes(rule: Rule, rank: RankData, baseRank: RankData): string[] {
  if (rule.check.kind !== 'no-new-types') return [];
  const allow = rule.check.allow;
  const before = typesOf(rule, baseRank);
  return [...typesOf(rule, rank)].filter((t) => !before.has(t) && !allowed(t, allow)).sort();
}

function evaluateRule(rule: Rule, profile: Profile, base: Profile | null, warnings: string[]): RuleResult {
  const ranks = ranksOf(rule, profile);
  const known = knownValues(profile, base);
  const why = needsSteps(rule);
  const samples: Sample[] = [];
  const stepsOn = new Map<string, number>();
  const typesOn = new Map<string, string[]>();
  const mismatched: StepMismatch[] = [];
  for (const rank of ranks) {
    if (why) requireSteps(rule, rank, why);
    if (NEEDS_BASE[rule.check.kind]) {
      if (base === null) throw inputError(`${ruleAt(rule)}: the rule compares against a base; pass --base <profile or summary.json>.`);
      const baseRank = baseRankOf(rule, rank, profile, base);
      if (why) requireSteps(rule, baseRank, why);
      if (rule.check.kind === 'no-new-types') {
        const added = newTypes(rule, rank, baseRank);
        typesOn.set(rank.rank, added);
        samples.push(sampleOf(rank.rank, null, added.length, { op: '<=', value: 0 }));
      } else {
        for (const s of changeSamples(rule, rank, baseRank, known)) samples.push(s);
        const m = stepMismatch(rule, rank, baseRank);
        if (m !== null) mismatched.push(m);
      }
    } else {
      const r = boundSamples(rule, rank, known);
      stepsOn.set(rank.rank, r.steps);
      // A loop, not push(...r.samples): one sample per step overflows the stack at ~65k steps.
      for (const s of r.samples) samples.push(s);
    }
  }
  if (mismatched.length > 0) warnings.push(stepMismatchWarning(rule, mismatched));
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
    unit: unitOf(rule.check),
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
    unmatched: unmatchedOf(rule, profile, base),
  };
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
