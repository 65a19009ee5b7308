// What a rule kind (the check of a rule: absent, count, time-vs-base, …) is: one module in this folder that reads
// it from a rules file, evaluates it on a rank, says its bound in words and names its unit, registered in
// registry.ts. Plain types and the helpers the kinds share; no kind is named here.

import type { Node } from '../../util/yamlLib.js';
import type { Cell, RankData } from '../../model/model.js';
import { TICKS_PER_US } from '../../model/model.js';
import { exactDigits, fmtCount, fmtUs, fmtUsDigits, usOfText } from '../../util/format.js';
import type { KnownValues } from '../unmatched.js';
import type { Bound, Check, CheckKind, FusedFallback, FusedShortStep, Per, Rule, SequenceSite, Unit } from '../model.js';

/** The check of kind K. */
export type CheckOf<K extends CheckKind> = Extract<Check, { kind: K }>;

/** A mapping of a rules file, by key: the key's node and its value's (null when the value is empty). */
export type Entries = Map<string, { key: Node; value: Node | null }>;

/** What a kind's parser may ask of the rules file reader (parse.ts): its messages name file:line:col. */
export interface CheckReader {
  fail(node: Node | null | undefined, message: string): never;
  /** The pairs of a mapping, with keys other than `allowed` rejected; `what` names it in messages. */
  entries(node: Node, allowed: readonly string[], what: string): Entries;
  /** `per:` of a mapping (total when absent). */
  per(e: Entries, what: string): Per;
  /** A whole number of kernels, a duration (µs) or a percentage. */
  count(node: Node, what: string): number;
  duration(node: Node, what: string): number;
  percent(node: Node, what: string): number;
  /** A kernel type or a /regular expression/, as `allow:` lists them. */
  member(node: Node, what: string): string | RegExp;
}

/** How a report shows a text from input (see report/check/shared.ts). */
export type Quote = (text: string, max?: number) => string;

/** What a kind adds up: kernels, their time in µs, or kernel types. */
export type Measure = 'kernels' | 'us' | 'types';

/** One value the rule looked at, and how far it is inside (positive) or outside (negative) a bound. */
export interface Sample {
  rank: string;
  step: number | null;
  value: number | null;
  bound: Bound;
  slack: number;
  compared: { base: number; profile: number } | null;
  /** Where in the step a sequence rule saw (or came nearest to) its chain; absent for other kinds. */
  site?: SequenceSite | null;
}

/** A rank whose number of steps differs from its base rank's (null: no Step Id). */
export interface StepMismatch {
  rank: string;
  base: number | null;
  profile: number | null;
}

/** What a kind is evaluated on: the rule, one rank it applies to, the kernels of the profile and the base. */
export interface RankInput {
  rule: Rule;
  rank: RankData;
  known: KnownValues;
}

/** The same with the base rank compared with it, for the kinds that need a base. */
export interface BaseRankInput extends RankInput {
  baseRank: RankData;
}

/** What a kind found on one rank. */
export interface RankOutcome {
  samples: Sample[];
  /** The rank's steps looked at one by one (per: step), else 0. */
  steps: number;
  /** Kernel types that are new against the base (no-new-types), else empty. */
  newTypes: string[];
  /** Unequal step counts of rank and base rank when totals are compared (said as a warning), else null. */
  mismatch: StepMismatch | null;
  /** A fused rule: where the unfused chain ran on this rank. */
  fallbacks?: FusedFallback[];
  /** A fused rule: steps with fewer of its sites than the other steps of their phase. */
  short?: FusedShortStep[];
  /** A per-step count or time rule over every step: the kernels it selects that have an empty Step Id (in no step). */
  outsideSteps?: number;
}

interface KindCommon<K extends CheckKind> {
  /** The unit of the observed value and its bound. */
  unit: Unit;
  measure: Measure;
  /** The check, from the value of its key in a rule (`node`). */
  parse(node: Node, reader: CheckReader): CheckOf<K>;
  /** The bound in words, without the rule's steps and ranks: "at most 1 per step". */
  describe(check: CheckOf<K>, q: Quote): string;
  /** What a rule of this kind that held observed, when that says more than its value ("none"); else null. */
  held(ranks: number): string | null;
}

/** A kind that looks at the profile only. */
export interface ProfileKind<K extends CheckKind> extends KindCommon<K> {
  needsBase: false;
  evaluate(check: CheckOf<K>, on: RankInput): RankOutcome;
}

/** A kind that compares against `--base`. */
export interface BaseKind<K extends CheckKind> extends KindCommon<K> {
  needsBase: true;
  evaluate(check: CheckOf<K>, on: BaseRankInput): RankOutcome;
}

export type CheckKindModule<K extends CheckKind> = ProfileKind<K> | BaseKind<K>;

export function sampleOf(rank: string, step: number | null, value: number, bound: Bound): Sample {
  const slack = bound.op === '<=' ? bound.value - value : value - bound.value;
  return { rank, step, value, bound, slack, compared: null };
}

/** A cell's kernels or their time in µs (0 without a cell). */
export function metric(measure: Measure, c: Cell | undefined): number {
  if (!c) return 0;
  return measure === 'us' ? c.ticks / TICKS_PER_US : c.count;
}

/** A value of a measure in words: "1.20 ms", "3". */
export function amount(measure: Measure, v: number): string {
  return measure === 'us' ? fmtUs(v) : fmtCount(v);
}

/** A bound of a measure in words, as written: "1.20 ms", "1.001 ms" (not "1.00 ms"), "3". */
export function boundAmount(measure: Measure, v: number): string {
  if (measure !== 'us') return fmtCount(v);
  return fmtUsDigits(
    v,
    exactDigits(v, 2, 10, (d) => fmtUsDigits(v, d), usOfText),
  );
}

/** What a rank found that has samples only. */
export function outcome(samples: Sample[], steps = 0): RankOutcome {
  return { samples, steps, newTypes: [], mismatch: null };
}
