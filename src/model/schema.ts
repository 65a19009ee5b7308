// Declared, versioned JSON output schemas. Reporters map the model onto these explicitly; the summary schema
// is also read back (formats/summary/snapshot.ts) so a saved summary can stand in for a profile.
//
// Over 400 lines: every declared JSON schema (summary, diff, rewrites, check, audit), each field documented:
// declarations only.

export const SCHEMA_VERSION = 1;

export interface CellJson {
  count: number;
  totalUs: number;
}

export interface StepJson extends CellJson {
  step: number;
}

/** A group's key and the fields it was formed by (those that are single-valued). */
export interface GroupFieldsJson {
  key: string;
  type?: string;
  name?: string;
  core?: string;
  shapes?: string;
  userGroup?: string;
}

export interface SummaryGroupJson extends GroupFieldsJson {
  count: number;
  totalUs: number;
  avgUs: number | null;
  minUs: number | null;
  maxUs: number | null;
  /** Share of the total kernel time, in percent. */
  sharePct: number | null;
  countPerStep: number | null;
  byStep: StepJson[];
}

export interface SummaryRankJson {
  rank: string;
  steps: number[];
  /** The rank's share of the top-level rowsRead, skippedRows and filteredKernels (so one rank reads back alone). */
  rowsRead: number;
  skippedRows: number;
  filteredKernels: number;
  totals: CellJson;
  groups: SummaryGroupJson[];
  /** With --step-time: the rank's step spans and step_trace_time.csv (read back from a snapshot). */
  stepTime?: StepTimeRankJson;
}

/** One rank's step time (summary --step-time). */
export interface StepTimeRankJson {
  /** Why the rank has no step spans: no start times, no Step Id, or a snapshot made without --step-time; null: it has them. */
  gap: 'no-starts' | 'no-steps' | 'not-saved' | null;
  /** Per step (ascending): the wall span, first kernel start to last kernel end (exact µs), and its kernels. */
  steps: { step: number; spanUs: number; kernels: number }[];
  /** Kernels with a Step Id whose start could not be read: in no span. */
  withoutStart: number;
  /** Over the rank's steps; null without any. */
  medianUs: number | null;
  minUs: number | null;
  maxUs: number | null;
  /** The step_trace_time.csv beside the kernel table: its time columns (µs as the file writes them) per step. */
  trace: { file: string; columns: string[]; rows: { step: number; values: (number | null)[] }[]; rowsSkipped: number } | null;
}

/** The summary's step time over every step of every rank. */
export interface SummaryStepTimeJson {
  steps: number;
  medianUs: number | null;
  minUs: number | null;
  maxUs: number | null;
}

/** Base vs PR step time (diff --step-time). */
export interface DiffStepTimeJson {
  /** The test's significance level, and the minimum effect (--time-tolerance) in percent of the base's median. */
  alpha: number;
  minEffectPct: number;
  /** Ranks of each side without step spans, and why. */
  gaps: {
    base: { rank: string; gap: 'no-starts' | 'no-steps' | 'not-saved' }[];
    pr: { rank: string; gap: 'no-starts' | 'no-steps' | 'not-saved' }[];
  };
  withoutStart: { base: number; pr: number };
  /**
   * metric "span" (the wall span) or a step_trace_time.csv column; rank null: all ranks (every step of every rank
   * a sample). Medians over steps in µs; p: the two-sided Mann–Whitney U p-value; significant: the change is real
   * (p < alpha and at least the minimum effect), else shown as `~`; reason: why not.
   */
  rows: {
    metric: string;
    rank: string | null;
    baseSteps: number;
    prSteps: number;
    baseMedianUs: number | null;
    prMedianUs: number | null;
    deltaUs: number | null;
    deltaPct: number | null;
    p: number | null;
    method: 'exact' | 'asymptotic' | 'stratified' | null;
    significant: boolean;
    reason: 'significant' | 'noise' | 'small' | 'too-few' | 'no-samples';
  }[];
}

export interface SummaryJson {
  schemaVersion: 1;
  kind: 'summary';
  groupBy: string;
  /** Canonical text of the filters and user groups (compare before diffing two snapshots). */
  selection: string;
  inputs: string[];
  steps: number | null;
  stepIds: number[];
  ranks: string[];
  /** The sums of perRank's, and the rows on no rank. */
  rowsRead: number;
  skippedRows: number;
  /**
   * Rows read and skipped that are in no rank's figures (a row of a db of several devices whose device cannot be
   * told): in rowsRead and skippedRows above, in no perRank entry. Absent when there are none.
   */
  rowsOnNoRank?: number;
  filteredKernels: number;
  totals: CellJson;
  groups: SummaryGroupJson[];
  perRank: SummaryRankJson[];
  /** With --step-time (each rank's in perRank). */
  stepTime?: SummaryStepTimeJson;
}

/** One side of a diff row or of the diff totals: per step when `normalization` is "per-step". */
export interface DiffCellJson {
  count: number;
  totalUs: number;
}

export interface DiffInputJson {
  /** The argument as given (relative paths). */
  input: string;
  files: string[];
  ranks: string[];
  /** Number of distinct steps; null when the input has no Step Id. */
  steps: number | null;
  skippedRows: number;
  /** Raw totals, never normalised. */
  totals: CellJson;
}

export interface DiffRankJson {
  rank: string;
  status: 'removed' | 'added' | 'fewer' | 'more' | 'same';
  /** The rank's own count on each side (per step of that rank when normalised). */
  base: number;
  pr: number;
  deltaCount: number;
  /** null when the rank's base count is zero. */
  deltaCountPct: number | null;
}

/** One rank of a row whose change was not the same in every step. */
export interface DiffUnevenStepsJson {
  rank: string;
  stepsCompared: number;
  /**
   * The change (PR − base count) the steps are held to, and in how many steps: the one most steps show, or
   * without a majority no change; null when neither.
   */
  reference: { deltaCount: number; steps: number } | null;
  /** The steps whose change differs from the reference (all of them without one). */
  steps: { step: number; baseStep: number | null; base: number; pr: number; deltaCount: number }[];
}

export interface DiffRowJson extends GroupFieldsJson, DiffTotalsJson {
  status: 'removed' | 'added' | 'fewer' | 'more' | 'same';
  /** The status most paired ranks show (null: no majority, or fewer than two paired ranks). */
  rankStatus: 'removed' | 'added' | 'fewer' | 'more' | 'same' | null;
  /** Ranks whose own change differs from the one most ranks show, in status or in size. */
  disagreeingRanks: DiffRankJson[];
  /** Per rank, the steps whose change differs from the one most steps show. */
  unevenSteps: DiffUnevenStepsJson[];
}

/** Both sides of a row or of the totals, and how they differ. */
export interface DiffTotalsJson {
  base: DiffCellJson;
  pr: DiffCellJson;
  deltaCount: number;
  /** null when the base count is zero. */
  deltaCountPct: number | null;
  deltaUs: number;
  /** null when the base time is zero. */
  deltaUsPct: number | null;
  /** The time change is within ±timeTolerancePct (both sides non-zero). */
  timeWithinTolerance: boolean;
  /** The time change is shown as `~`: within the tolerance, or not supported by the per-step samples (timeTest). */
  timeNoise: boolean;
  timeTest: DiffTimeTestJson;
}

/**
 * How a time change was judged. `verdict`: `changed` (p < alpha and beyond the tolerance: shown), `noise`
 * (p ≥ alpha: `~`), `small` (p < alpha, within the tolerance: `~`), `too-few` (too few samples to ever reach
 * p < alpha) and `no-steps` (kernels outside any step, or no per-step cells): judged by the tolerance alone;
 * `zero` (no kernel time on one side: shown). The samples: per rank and step, the kernel time in that step.
 */
export interface DiffTimeTestJson {
  verdict: 'changed' | 'noise' | 'small' | 'too-few' | 'no-steps' | 'zero';
  /** `mann-whitney-u` (two-sided); null when nothing was tested. */
  test: 'mann-whitney-u' | null;
  /**
   * `exact` or `asymptotic` (normal approximation with tie and continuity corrections) for one pair of ranks;
   * `stratified` (van Elteren: one U per pair of ranks, weighted 1/(n+1), normal approximation) for several;
   * null untested.
   */
  method: 'exact' | 'asymptotic' | 'stratified' | null;
  /** Pairs of ranks tested (strata). */
  strata: number;
  /** Samples per side (rank × step) over the strata; 0 untested. */
  n: { base: number; pr: number };
  /** U of the base sample (stratified: the sum of the strata's); null untested. */
  u: number | null;
  /** Two-sided p-value; null untested. */
  p: number | null;
}

/** What the time test did over the whole diff, said once. */
export interface DiffTimeTestSummaryJson {
  test: 'mann-whitney-u';
  alpha: number;
  /** What one sample is. */
  sample: 'kernel time of one rank in one step';
  /** Rows plus the totals line that were tested. */
  tested: number;
  /** Rows plus the totals line that the test made `~` although beyond the tolerance. */
  noise: number;
  /** Rows plus the totals line judged by the tolerance alone: too few samples, or kernels outside any step. */
  tooFew: number;
  noSteps: number;
  /** A note when the fallback applied to any of them (the same text the other formats print); null otherwise. */
  fallback: string | null;
}

/** Rows left out by --only/--top, summed: rows + others add up to totals. */
export interface DiffOthersJson {
  groups: number;
  base: DiffCellJson;
  pr: DiffCellJson;
  deltaCount: number;
  deltaUs: number;
  timeNoise: boolean;
  timeTest: DiffTimeTestJson;
  /**
   * The rows left out whose change differs across ranks or steps (non-empty disagreeingRanks or unevenSteps),
   * whole, in the default order: --only and --top never hide that detail.
   */
  changedDifferently: DiffRowJson[];
}

export interface DiffJson {
  schemaVersion: 1;
  kind: 'diff';
  groupBy: string;
  /** Canonical text of the filters and user groups both sides were read with. */
  selection: string;
  normalization: 'none' | 'per-step';
  timeTolerancePct: number;
  timeTest: DiffTimeTestSummaryJson;
  base: DiffInputJson;
  pr: DiffInputJson;
  /** The two sides have different step counts and the diff is not per step. */
  stepMismatch: boolean;
  /**
   * The per-rank check compared each rank's figure per step (disagreeingRanks hold figures per step of that
   * rank): with --per-step, or when a paired rank's step counts differ.
   */
  ranksComparedPerStep: boolean;
  pairedRanks: string[];
  unpairedRanks: { base: string[]; pr: string[] };
  totals: DiffTotalsJson;
  rows: DiffRowJson[];
  others: DiffOthersJson | null;
  /** The Fusion rewrites section; null with --rewrites off. */
  rewrites: DiffRewritesJson | null;
  /** With --step-time. */
  stepTime?: DiffStepTimeJson;
}

/** The version of the `rewrites` section of a diff: it grows on its own, so it carries its own. */
export const REWRITES_VERSION = 1;

/**
 * Which chains of kernels the PR replaced, where, how often and what it saved (docs/diff.md, "Fusion rewrites"). Times
 * are µs (4 decimals); `status` is `unavailable` when a side has no kernels in order with a Step Id (then lanes
 * and rewrites are empty and conservation null).
 */
export interface DiffRewritesJson {
  version: 1;
  status: 'ok' | 'unavailable';
  /** The grouping the kernels of a chain are named by (--by). */
  groupBy: string;
  /** Each side that cannot be compared: the file that says so, and why. */
  unavailable: {
    side: 'base' | 'pr';
    file: string;
    reason: 'summary-json' | 'totals' | 'no-step-column' | 'no-step-ids' | 'no-compute-kernels' | 'no-types';
  }[];
  /** Each side had one rank, of different ids: compared with each other, shown under the base's id. */
  ranksPaired: { base: string; pr: string } | null;
  /**
   * The selection the section follows: `steps`, the --steps ranges it was read in (`14-20`; null: every step; --rank
   * applies too), and `notApplied`, the options given that it does not follow (--match, --exclude, --core,
   * --groups: it compares every compute kernel of the steps and ranks read). null when unavailable.
   */
  scope: { steps: string | null; notApplied: string[] } | null;
  /** The kernel that marks each layer (auto: found, not given by --layer-marker); null: no layers. */
  /** `equal` (auto only): it splits the step into equal layers; false: no kernel does, the fallback rule chose it. */
  marker: { token: string; auto: boolean; equal?: boolean } | null;
  /** Each rank and compute stream, and how its most frequent steps aligned. */
  lanes: RewriteLaneJson[];
  /** Most kernels removed (chains × chain length) first, then most chains, then by the chains' text. */
  rewrites: RewriteJson[];
  conservation: RewriteConservationJson | null;
  /** Rewrites past the largest 64, not verified: their kernels are in conservation.rest. */
  unverified: { rewrites: number; removed: number; added: number } | null;
  notes: RewriteNoteJson[];
}

export interface RewriteLaneSideJson {
  steps: number;
  /** Steps with the most frequent shape (token sequence), which stands for the lane. */
  repSteps: number;
  /** Distinct shapes among the lane's steps. */
  shapes: number;
  /** Kernels of the most frequent shape. */
  kernels: number;
}

export interface RewriteLaneJson {
  rank: string;
  /** Stream ID; `-` when the export has none; `base/PR` for two streams paired by size. */
  stream: string;
  base: RewriteLaneSideJson | null;
  pr: RewriteLaneSideJson | null;
  /**
   * aligned; too-different (more than maxEdits edits: lowerBound is a lower bound, edits null; or the two steps, of
   * 32 kernels or more, share under a tenth of the longer one's kernels: edits set); one-side.
   */
  status: 'aligned' | 'too-different' | 'one-side';
  /** Insertions + deletions between the two most frequent steps; null unless aligned, or too-different by sharing. */
  edits: number | null;
  lowerBound: number;
  maxEdits: number;
}

/** One chain's time on one side: medians over its occurrences in the sampled steps, the mean over every step. */
export interface RewriteChainTimeJson {
  occurrences: number;
  medianUs: number;
  /** First start to last end. */
  medianSpanUs: number;
  meanUs: number;
}

export interface RewriteNotFusedJson {
  rank: string;
  stream: string;
  /** Step Ids whose steps have the site. */
  steps: number[];
  /** Layer by the marker (0-based); null without one. */
  layer: number | null;
  layers: number;
  /** Kernel index of the site in its step (compute kernels of its stream, 0-based). */
  position: number;
  tokens: string[];
  /** Edits between the site and the removed chain. */
  edits: number;
}

export interface RewriteJson {
  removed: string[];
  added: string[];
  /**
   * Chains replaced in one step (a rank's step both sides profiled), the least and the most over the steps of
   * `ranks` and of `undone.ranks` (a step below zero counts as none); `chains` is their sum, so min × those steps ≤
   * chains ≤ max × those steps.
   */
  perStep: { min: number; max: number };
  /** Ranks with a chain replaced in some step. */
  ranks: string[];
  /**
   * Ranks where the PR ran the chain more often than the base (their steps' chains sum below zero), and how many
   * chains that takes off the other ranks' in `chains`; `{ranks: [], chains: 0}` when there is none.
   */
  undone: { ranks: string[]; chains: number };
  /** Chains replaced over every step of every rank. */
  chains: number;
  /**
   * Kernels of the removed chain the PR still runs right beside the added chain: how many, in how many steps, and
   * of which kernels (in the chain's order). Their time is in `saving.totalUs`, their count in the conservation.
   */
  kept: { kernels: number; steps: number; tokens: { token: string; kernels: number }[] };
  /** Exact non-overlapping occurrences of each chain over every step, per side. */
  removedChains: { base: number; pr: number };
  addedChains: { base: number; pr: number };
  /** Layers of the base where the change is; null without a marker. */
  layers: number[] | null;
  layerCount: number | null;
  base: RewriteChainTimeJson | null;
  pr: RewriteChainTimeJson | null;
  /**
   * PR − base median time of one chain (`perChainUs`), and the measured change of the time of the rewrite's kernels
   * (`totalUs`: the kernels of the exact occurrences of its chains that it counts, rank by rank, each kernel given to one rewrite); `significant`: the per-step samples say it is real
   * (Mann-Whitney U, `p` < 0.05) and it is at least the time tolerance; `reason` says why not.
   */
  saving: {
    perChainUs: number;
    totalUs: number;
    significant: boolean;
    reason: 'significant' | 'noise' | 'small' | 'too-few' | 'no-samples' | 'unplaced';
    p: number | null;
    samples: { base: number; pr: number };
  };
  /** Where the removed chain still runs in the PR, within `notFusedEdits` edits. */
  notFused: RewriteNotFusedJson[];
  notFusedEdits: number;
  /** It removed a copy of the kernels next to it: notFused are where two copies still run side by side, never the copy kept. */
  copy: boolean;
  /** The side whose part of the chain ran on streams of its own, placed by start time; null when on the lane. */
  moved: { side: 'base' | 'pr'; streams: string[] } | null;
  /** Streams of one side only whose kernels could not be placed in the place of a chain that removed (or added) nothing. */
  unplaced: string[];
}

export interface RewriteConservationJson {
  /** Kernels the PR has fewer of / more of than the base, summed over tokens (compute kernels in a step). */
  removed: number;
  added: number;
  /** The part of those the rewrites' chains explain. */
  removedAccounted: number;
  addedAccounted: number;
  /** Of the rest, the part in steps only one side profiled (a rank's Step Id the other side's rank lacks). */
  removedUnpaired: number;
  addedUnpaired: number;
  /** Tokens whose count change the rewrites and the steps of one side only do not explain exactly. */
  rest: { token: string; base: number; pr: number; observed: number; explained: number; unpaired: number }[];
  /**
   * The time change (PR − base, µs) of the kernel groups the rewrites name (their compute kernels in a step):
   * namedUs = rewritesUs (the sum of the rewrites' saving.totalUs) + outsideUs (outside their chains, in steps both
   * sides profiled) + unpairedUs (steps of one side only). `exact`: false when a step shape had steps of both kinds
   * (its time split between them by its mean). `ranksSplit`: true when a step shape run by ranks whose rewrites
   * replaced different chains had more steps of a rank than its samples hold (its time split between the ranks by
   * their share of its steps, so the savings there are that share).
   */
  time: { namedUs: number; rewritesUs: number; outsideUs: number; unpairedUs: number; exact: boolean; ranksSplit: boolean };
}

/** A place where a fused rule's entry ran its unfused chain: rank, phase, decoder layer, steps, and where in the input. */
export interface FusedFallbackJson {
  rank: string;
  phase: 'prefill' | 'decode' | 'step' | 'mtp';
  layer: number | null;
  steps: number[];
  /** Chains and their time over those steps; null when the site also ran outside the rule's steps (not split). */
  chains: number | null;
  timeUs: number | null;
  /** The first kernel of the chain: its row (file, line) in a CSV kernel table, else its step, stream and index. */
  first: { step: number; stream: string; index: number; file: string | null; line: number | null };
}

/** A step of a fused rule's phase with fewer of the entry's sites (fused + unfused) than the most a step of it has. */
export interface FusedShortStepJson {
  rank: string;
  phase: 'prefill' | 'decode' | 'step' | 'mtp';
  step: number;
  sites: number;
  most: number;
}

export type RewriteNoteJson =
  /** Steps whose rows came in more than one run: each run is a step of its own. */
  | { kind: 'split-steps'; side: 'base' | 'pr'; steps: number }
  /** Compute kernels on ranks and streams past the first MAX_LANES: in no step. */
  | { kind: 'past-lane-limit'; side: 'base' | 'pr'; kernels: number; lanes: number }
  /** Compute kernels without a Step Id: in no step. */
  | { kind: 'without-step'; side: 'base' | 'pr'; kernels: number }
  /**
   * Compute kernels in a step whose start time could not be read (an empty cell, or one not read exactly): each is
   * placed where the kernel before it in its stream ended, for the chains' wall spans and the kernels matched by
   * start time (their counts and durations are read).
   */
  | { kind: 'bad-starts'; side: 'base' | 'pr'; kernels: number }
  /** A stream of a rank with no partner of the same id on the other side, compared with one that has none either. */
  | { kind: 'streams-paired'; rank: string; base: string; pr: string }
  /** The --layer-marker token runs on neither side: no layers. `near`: the kernel it most likely meant ("did you mean"), or null. */
  | { kind: 'marker-absent'; marker: string; near: string | null }
  /** Rewrites past MAX_VERIFIED, not verified. */
  | { kind: 'unverified'; rewrites: number; verified: number }
  /**
   * Steps of one side whose (rank, Step Id) the other side does not have: compared with nothing (their kernels are
   * counted apart in the conservation line, and no chain of theirs counts as replaced). `steps`: (rank, step) pairs.
   */
  | { kind: 'unpaired-steps'; side: 'base' | 'pr'; steps: number; kernels: number; ranks: string[]; stepIds: number[] }
  /**
   * Steps `side` profiled in part (the profile starts or ends in the middle of them: a lane's first step is the end
   * of another of its steps, kernel for kernel, or its last the start of one): compared with nothing, nor are the
   * other side's steps they pair with (their kernels are counted apart in the conservation, as those of
   * `unpaired-steps`), so the chains of the layers they never ran count as neither replaced nor saved.
   */
  | { kind: 'cut-steps'; side: 'base' | 'pr'; steps: number; kernels: number; ranks: string[]; stepIds: number[] }
  /**
   * Differences of the most frequent steps that are not listed as rewrites: the PR runs their chain as often as the
   * base over every step (other steps undo it, it lies inside a longer rewrite's chains, or a kernel became itself).
   */
  | { kind: 'no-chains'; changes: number }
  /**
   * The most frequent steps of the two sides do not align, and no rewrite is listed: of `changes` differences, more
   * than half (of 8 or more) are `undone` over the steps, or over three in four (of 16 or more) happen `once` in a
   * step and an eighth or more are undone (`of`: the largest differences, those verified): the runs look unrelated.
   */
  | { kind: 'unaligned'; changes: number; of: number; undone: number; once: number }
  /**
   * A rank of both sides with no Step Id in common and different step counts: its steps are compared in order, the
   * first with the first, and the longer side's steps past the other's last are compared with nothing (their kernels
   * are counted apart in the conservation, as those of `unpaired-steps`, which does not list them).
   */
  | { kind: 'no-common-steps'; rank: string; base: number[]; pr: number[] }
  /**
   * Rewrites listed that were found only in another kind of step than each lane's most frequent (prefill steps beside
   * decode steps): each such kind (a shape that differs by count from the more frequent kinds in over a tenth of its
   * kernels) is aligned by its most frequent shape with its like on the other side. `steps`: the steps of the shapes
   * they were found in (summed over lanes), base and PR.
   */
  | { kind: 'other-classes'; rewrites: number; steps: { base: number; pr: number } }
  /**
   * Rewrites listed that were found only in some of the PR's steps (a kind of step of their own, or steps that run a
   * kernel no base step runs) where the base ran its most frequent kind at the same Step Ids (a fusion made in some
   * steps only): such steps are aligned by their most frequent shape with the base's most frequent step, and only
   * fusions are kept (a chain of two kernels or more replaced by fewer, of kinds no base step runs). `steps`: the
   * steps (a rank's step both sides profiled) where it replaced a chain (for several, the most of any of them), `of`:
   * all the steps both sides profiled, over ranks.
   */
  | { kind: 'some-steps'; rewrites: number; steps: number; of: number }
  /**
   * Other kinds of step whose differences are not listed: `oneOff`, aligned pairs of kinds whose own differences (not
   * those of the most frequent steps) are 4 or more and mostly happen once in a step, as those of unrelated steps
   * (warm-up steps) do, with `differences`, those left out; `unaligned`, pairs too different to align within the
   * work the other kinds share (not compared). Counted as pairs of kernel sequences: the same pair on several lanes
   * (ranks that ran the same warm-up steps) is one.
   */
  | { kind: 'other-classes-apart'; oneOff: number; differences: number; unaligned: number }
  /** A lane whose representative step is the shape of fewer than half of its steps. */
  | {
      kind: 'low-coverage';
      /** `both`: the two sides alike. */
      side: 'base' | 'pr' | 'both';
      /** Lanes compared whose representative step has fewer than half of their steps. */
      lanes: number;
      /** The one of those with the lowest share (the first such, on a tie). */
      rank: string;
      stream: string;
      repSteps: number;
      steps: number;
      shapes: number;
    };

/** One rule's outcome in `kprof check --format json`. Results come in the order of the rules file. */
export interface CheckResultJson {
  /** The rule's `rule:` label, or its selector and bound in words. */
  rule: string;
  /** The rules file as given, and the line of the rule in it. */
  file: string;
  line: number;
  severity: 'error' | 'warn';
  passed: boolean;
  /**
   * The decisive value, in `unit`: where the rule broke, the worst breaking value; where it held, the value
   * closest to the bound. null when there is no number (a change against a base of zero).
   */
  observed: number | null;
  /** The bound the decisive value was held to: `observed op value`. */
  bound: { op: '<=' | '>='; value: number };
  /**
   * kernels (a count), us (kernel time in µs), percent (a change against the base), types (new kernel types),
   * chains (occurrences of a sequence rule's chain).
   */
  unit: 'kernels' | 'us' | 'percent' | 'types' | 'chains';
  /** step: each step on its own (against a base: the mean per step); total: the whole run. */
  per: 'total' | 'step';
  /** Where the rule broke ("-" for a profile of one rank with no rank id); null when it held. */
  rank: string | null;
  step: number | null;
  /** Every rank where the rule broke, and the steps where it broke on `rank` (empty when it held). */
  ranksBroken: string[];
  stepsBroken: number[];
  /**
   * A sequence rule that broke: where in the step `rank`/`step` the chain was seen (edits 0; the first occurrence)
   * or came nearest (edits > 0, where there were too few): the compute stream, the position of its first kernel
   * among the step's compute kernels of that stream (from 0, of `of`), and the layer (from 0) when the rule names
   * a layer marker. null otherwise.
   */
  site: { stream: string; index: number; of: number; layer: number | null; edits: number } | null;
  /**
   * A fused rule only: every place its catalogue entry ran the unfused chain in the rule's phases and steps: rank,
   * phase (prefill, decode, step: no phase told, mtp: the MTP layer), decoder layer (from 0; null without a layer
   * marker), the Step Ids, the chains and their time, and the first kernel (its row in a CSV kernel table, else its
   * step, stream and index among the step's compute kernels of that stream).
   */
  fallbacks?: FusedFallbackJson[];
  /**
   * A fused rule only: steps of its phases with fewer of the entry's sites (fused kernels and unfused chains) than
   * the most a step of the same phase has (`most`): a layer there ran neither the fused kernel nor a known chain.
   */
  short?: FusedShortStepJson[];
  message: string;
  why: string | null;
  /**
   * What the selector names that matched no kernel in the profile nor in the base (type or name values, the
   * group's name, or `/regex/flags`); empty when it matched something.
   */
  unmatched: string[];
  /**
   * The rule's `evidence:` that its kernels ran once (added in 0.2; null when the rule gives none): `baseCount`,
   * how many ran in the base it was written from; `note`, a person's word. With evidence, matching nothing is the
   * steady state of a removal; without, it is a warning (an error under --strict).
   */
  evidence: { baseCount: number | null; note: string | null } | null;
}

/** What one input of a check held, after --rank, --steps and the filters. */
export interface CheckReadJson {
  kernels: number;
  /** Rows that could not be read (see the warnings on stderr); they are in no figure. */
  skippedRows: number;
}

export interface CheckJson {
  schemaVersion: 1;
  kind: 'check';
  /** No error-level rule broke (the exit code is 0). */
  passed: boolean;
  profile: string;
  base: string | null;
  rules: string;
  read: CheckReadJson;
  /** null without --base. */
  baseRead: CheckReadJson | null;
  results: CheckResultJson[];
}

/** One site of `kprof audit --format json`: where a fused kernel or an unfused chain ran. */
export interface AuditSiteJson {
  rank: string;
  /** prefill, decode, step (no phase told) of its steps; mtp: in the MTP layer. */
  phase: 'prefill' | 'decode' | 'step' | 'mtp';
  /** The decoder layer (from 0; the MTP layer is 0 of phase mtp); null for an entry not per layer. */
  layer: number | null;
  /** The chain that ran (0 the main one, 1… the variants); null for the fused kernel. */
  chain: number | null;
  steps: number[];
  /** Fused kernels or unfused chains at this site over those steps. */
  count: number;
  /** Their summed duration (rows' durations), µs. */
  time_us: number;
  /** The chain's kernel types as it ran (its first step), for an unfused site. */
  types?: string[];
  /** Its first kernel: step, stream, index among the step's compute kernels there, and its row when cited. */
  first: { step: number; stream: string; index: number; file: string | null; line: number | null };
}

/** `kprof audit --format json` (schema `kprof.audit/3`). */
export interface AuditJson {
  schema: string;
  profiles: {
    input: string;
    ranks: string[];
    steps: number[];
    /** Step Ids per phase; mtp: the steps with an MTP layer. */
    phases: { phase: 'prefill' | 'decode' | 'step' | 'mtp'; steps: number[] }[];
    /** stage: step_trace_time.csv's Stage words; kernels: attention kernel types; none. */
    phase_source: 'stage' | 'kernels' | 'none';
    /** Layer marker kernel types per rank (null: none found). */
    layer_markers: { rank: string; marker: string | null }[];
    kernels: number;
    /** Rows of the profile that could not be read (skipped, warned of on stderr). */
    skipped_rows: number;
    /** Compute kernels read but not audited: with an empty Step Id (in no step), past the recorder's lane limit. */
    not_audited: { without_step: number; past_lane_limit: number };
    entries: {
      id: string;
      fused_types: string[];
      status: 'fused' | 'fallback' | 'unfused' | 'absent';
      phases: {
        phase: 'prefill' | 'decode' | 'step' | 'mtp';
        fused: { count: number; time_us: number };
        unfused: { count: number; time_us: number };
      }[];
      fused: { count: number; time_us: number; sites: AuditSiteJson[] };
      unfused: { count: number; time_us: number; sites: AuditSiteJson[] };
    }[];
  }[];
}
