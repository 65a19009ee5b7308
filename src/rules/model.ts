// Plain data of the rules gate: a rule as read from a rules file, and the verdict of evaluating the rules.

import type { StepRange, UserGroup } from '../model/model.js';
import type { FusedFallbackJson, FusedShortStepJson } from '../model/schema.js';

export const SEVERITIES = ['error', 'warn'] as const;
export type Severity = (typeof SEVERITIES)[number];

/** `per: total` looks at a rank's whole run; `per: step` at each step on its own (or, against a base, the mean per step). */
export const PERS = ['total', 'step'] as const;
export type Per = (typeof PERS)[number];

/** Which kernels a rule is about. */
export type Selector =
  | { kind: 'all' }
  | { kind: 'type'; values: string[] }
  | { kind: 'name'; values: string[] }
  | { kind: 'group'; group: UserGroup }
  | { kind: 'match'; re: RegExp };

/** A lower and/or upper bound; at least one is set. */
export interface Bounds {
  min: number | null;
  max: number | null;
}

/** A change against the base, in percent of the base value. */
export interface ChangeBounds {
  /** The value must have fallen by at least this many percent. */
  fellByAtLeastPct: number | null;
  /** The value may have risen by at most this many percent (negative: it must have fallen). */
  roseByAtMostPct: number | null;
}

/** What a rule asserts. Exactly one per rule, so that each rule is one line of the report. */
export type Check =
  | { kind: 'absent' }
  | { kind: 'present' }
  | { kind: 'count'; per: Per; bounds: Bounds }
  /** Bounds in µs. */
  | { kind: 'time'; per: Per; bounds: Bounds }
  | { kind: 'count-vs-base'; per: Per; change: ChangeBounds }
  | { kind: 'time-vs-base'; per: Per; change: ChangeBounds }
  /** No kernel type absent from the base may appear, except these (exact types or regular expressions). */
  | { kind: 'no-new-types'; allow: (string | RegExp)[] }
  /**
   * The chain of kernels the rule's `type:` or `name:` lists, in that order and back to back on one compute stream:
   * how often it runs (non-overlapping occurrences), in total or in each step. `layerMarker`: a kernel type or name
   * that runs once per layer, to say in which layer a chain was found.
   */
  | { kind: 'sequence'; per: Per; bounds: Bounds; layerMarker: string | null }
  /**
   * The fusion catalogue's entry `entry` (its id) is fused wherever it runs in the phases of `phase` (`decoder`:
   * the decoder layers of every prefill, decode or unphased step; `prefill`, `decode`, `mtp` (the MTP layer), or
   * `all`): no step may run its unfused chain there, and the fused kernel must run there at least once.
   */
  | { kind: 'fused'; entry: string; phase: FusedPhase };

export const FUSED_PHASES = ['decoder', 'prefill', 'decode', 'mtp', 'all'] as const;
export type FusedPhase = (typeof FUSED_PHASES)[number];

/** A fused rule's steps short of sites, and its fallbacks: the shapes its JSON report declares (schema.ts). */
export type FusedShortStep = FusedShortStepJson;
export type FusedFallback = FusedFallbackJson;

/** The kinds of check; each has its module in checks/ (parse, evaluate, describe, unit), registered in checks/registry.ts. */
export type CheckKind = Check['kind'];

/** One rule of a rules file. */
export interface Rule {
  /** The `rule:` label; null when the file gives none (reporters then describe the selector and the check). */
  label: string | null;
  /** The rules file as given on the command line. */
  file: string;
  /** 1-based position of the rule in the file. */
  line: number;
  col: number;
  /** null only for no-new-types, which looks at every kernel type. */
  selector: Selector | null;
  check: Check;
  /** Ranks the rule applies to; null: every rank. */
  ranks: string[] | null;
  /** Inclusive Step Id range; null: the whole run (rows without a Step Id included). */
  /** Step ranges the rule looks at (as --steps takes them); null: all steps. */
  steps: StepRange[] | null;
  severity: Severity;
  why: string | null;
  /**
   * `evidence:` what shows that the rule's kernels ran once, so that matching none of them now is the steady state
   * of a change that removed them, not a misspelt name (docs/check.md, "Evidence"). Absent or null: none given.
   */
  evidence?: Evidence | null;
}

/**
 * A rule's evidence: `base-count`, how many of its kernels (or chains, for a sequence rule) ran in the base it was
 * written from (`kprof rules` writes it); `note`, a person's word for it (a hand-written rule).
 */
export interface Evidence {
  baseCount: number | null;
  note: string | null;
}

/** A rules file: its groups and its rules, in file order. */
export interface RuleSet {
  file: string;
  groups: UserGroup[];
  rules: Rule[];
  /** The durations written as a bare number (read as µs), in file order; `kprof check` says so in a note. */
  bareDurations?: BareDuration[];
  /** The percentages written as a bare number below 1 (read as that many %, not as a fraction), in file order. */
  bareFractions?: BareFraction[];
}

/**
 * A duration of a rules file written without a unit: its line, the key (`time: max`), the number as the file
 * writes it (`0x10`, `1e3`; escaped) and the µs it was read as.
 */
export interface BareDuration {
  line: number;
  what: string;
  written: string;
  us: number;
}

/** A percentage of a rules file written as a bare number below 1 (`0.2`): its line, the key, the number as written. */
export interface BareFraction {
  line: number;
  what: string;
  written: string;
  /** The percentage it was read as. */
  pct: number;
}

/** The unit of an observed value and its bound. */
export type Unit = 'kernels' | 'us' | 'percent' | 'types' | 'chains';

/** `observed op value`, e.g. `<= 1`. */
export interface Bound {
  op: '<=' | '>=';
  value: number;
}

/**
 * Where in a step a sequence rule saw its chain (the first occurrence of the step, where the rule broke by having
 * too many), or came nearest to it (where it broke by having too few): the compute stream, the position of the
 * chain's first kernel among the step's compute kernels of that stream (from 0), the layer when a layer marker is
 * known, and the edits from the chain (0: the chain itself).
 */
export interface SequenceSite {
  stream: string;
  index: number;
  /** The step's compute kernels on that stream. */
  of: number;
  layer: number | null;
  edits: number;
}

/** The outcome of one rule. */
export interface RuleResult {
  rule: Rule;
  passed: boolean;
  /**
   * The decisive value: where the rule failed, the worst breaking value; where it held, the value closest to the
   * bound. null when there is no number to show (a change against a base of zero).
   */
  observed: number | null;
  bound: Bound;
  unit: Unit;
  per: Per;
  /** Where the decisive value was seen. */
  rank: string | null;
  step: number | null;
  /** Ranks the rule was evaluated on, and those where it broke. */
  ranksChecked: string[];
  ranksBroken: string[];
  /** With per: step, the steps checked and broken on the decisive rank. */
  stepsChecked: number;
  stepsBroken: number;
  /** The Step Ids where it broke on the decisive rank, in order. */
  brokenSteps: number[];
  /** For rules against the base: the values compared at the decisive point (kernels or µs, per step or in total). */
  compared: { base: number; profile: number } | null;
  /** Kernel types that appeared and are not in the base (no-new-types), on the decisive rank. */
  newTypes: string[];
  /** A sequence rule that broke: where in the decisive step (null or absent when it held, for other kinds, or nowhere near). */
  site?: SequenceSite | null;
  /**
   * What the selector names that matches no kernel in the profile nor in the base: type or name values, the
   * group's name, or the regular expression (`/re/flags`). Empty when it matched (or selects every kernel).
   */
  unmatched: string[];
  /**
   * A sequence rule whose kernels all run but whose chain runs nowhere, in that order, in the profile (nor in the
   * base, when there is one that holds kernels in order): `unmatched` then holds the chain, ` · ` between kernels.
   */
  chainNowhere?: boolean;
  /** A fused rule: where the unfused chain ran instead (every rank, in rank, phase and layer order). */
  fallbacks?: FusedFallback[];
  /** A fused rule: steps with fewer of its sites than the other steps of their phase. */
  short?: FusedShortStep[];
  /** With chainNowhere: a base rank held no kernel order (a summary JSON …), so the base could not show the chain ran. */
  chainBaseUnordered?: boolean;
  /** A rule that matched nothing but is close to a kernel that runs: what it most likely meant ("did you mean …?"). */
  hint?: Said;
}

/**
 * A sentence of kprof's words with texts from the input among them, which each format quotes its own way; `bare`:
 * a text to write as it is meant to be written (a YAML list, a quoted pattern), never in quotes of a message's own.
 */
export type Said = (string | { input: string; bare?: true })[];

/** `said` as text, each text from the input through `q` (`bare` ones through `asIs`). */
export function saidText(said: Said, q: (text: string) => string, asIs: (text: string) => string = q): string {
  return said.map((p) => (typeof p === 'string' ? p : p.bare === true ? asIs(p.input) : q(p.input))).join('');
}

export interface Verdict {
  results: RuleResult[];
  /** No error-level rule failed. */
  passed: boolean;
  failedErrors: number;
  failedWarnings: number;
  /** What the verdict should be read with (rules that compare totals of unequal step counts), for stderr. */
  warnings: string[];
  /** Rules whose selector matched no kernel (they are evaluated as written, and say so). */
  unmatched: number;
}
