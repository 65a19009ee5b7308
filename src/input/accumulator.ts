// Streaming accumulation of kernel rows into fine groups. Memory grows with the number of distinct
// (name, type, core, shapes) combinations and steps, never with the number of rows: names are normalised, and
// the raw names of communication kernels (one per row in a real export) are kept apart only where a pattern of
// the run tells them apart. The accumulator is the KernelSink (input/sink.ts) that makes a rank's RankData, and
// the RowLog of its rows.

import { inputError } from '../util/errors.js';
import { collectGarbage, collectGrown, holdYoungGeneration } from '../util/heap.js';
import { RawNameClasses } from './rawNames.js';
import { StepSpanTable } from './stepSpans.js';
import { NO_STEP, type KernelBatch, type KernelKind, type KernelSink, type RowLog, type SourceFacts } from './sink.js';
import { FineGroupTable, fineKey, TOTAL_STRIDE } from '../model/fineGroups.js';
import type { GrowingSteps } from '../model/growingSteps.js';
import {
  MAX_EXACT_TEXT,
  MAX_EXACT_TICKS,
  TICKS_PER_US,
  cloneCell,
  mergeCell,
  type Cell,
  type RawNameTests,
  type Fields,
  type FineGroup,
  type RankData,
  type RowWarning,
  type SourceFile,
  type SnapshotInfo,
} from '../model/model.js';

/**
 * A fine group as the hot loop holds it: its index in the table, and the cell of the step it last counted into
 * when the group keeps its cells in a Map (the rows of one step are contiguous, and a Map lookup per row is a
 * tenth of the reading time); a group of one step counts into the table's columns.
 */
export interface GroupCursor {
  index: number;
  /** The step of the cell found last (NaN: none), and where in `steps` it is (slot). */
  step: number;
  steps: GrowingSteps | null;
  slot: number;
}

/** A cursor of group `index` that has found no cell yet. */
export function groupCursor(index: number): GroupCursor {
  return { index, step: Number.NaN, steps: null, slot: -1 };
}

export { MAX_EXACT_TEXT, MAX_EXACT_TICKS };

/**
 * Refuse totals that are not exact any more: kernel time at or past MAX_EXACT_TICKS, or a count past 2^53. Every
 * group and rank figure is a part of the totals (times and counts are never negative), so they are exact too.
 * `totalsFiles`: the formats of totals the profile was read from, as messages name them (the caller asks the
 * registry: this layer names no format), whose Count column a count that large comes from; null for none.
 */
export function exactTotals(input: string, totals: Cell, filteredKernels: number, totalsFiles: string | null = null): void {
  if (totals.ticks >= MAX_EXACT_TICKS || !Number.isFinite(totals.ticks)) {
    throw inputError(
      `${input}: the kernels kept add up to ${totals.ticks / 10_000} µs, at or past ${MAX_EXACT_TEXT}, beyond which ` +
        'kprof cannot sum and save kernel time exactly. Read fewer ranks or steps (--rank, --steps).',
    );
  }
  if (!Number.isSafeInteger(totals.count + filteredKernels)) {
    throw inputError(
      `${input}: the kernels add up to ${totals.count + filteredKernels}, past 2^53, beyond which kprof cannot count exactly. ` +
        `Read fewer ranks (--rank)${totalsFiles === null ? '' : `, or check the Count column of the ${totalsFiles} files`}.`,
    );
  }
}

/** How many warnings are kept with their text; the rest are counted. */
export const MAX_WARNINGS_KEPT = 50;

export { fineKey };

/**
 * A read that folds many kinds into few groups (its names not kept, or a counter in every name folded) checks its
 * garbage at each multiple of this many kinds looked up (groupIndex), when they made fewer than half as many groups:
 * the readers' caches of kinds (cleared past 64 k) leave their kinds behind as promoted garbage.
 */
const KINDS_CHECKED_EVERY = 1 << 16;
/** …and collects it when the heap grew by this much since its last collection. */
const KINDS_GARBAGE_BYTES = 32 << 20;

/** A read collects its garbage at each multiple of this many groups (groupIndex). */
const GROUPS_COLLECT_FROM = 1 << 17;
/** …when its heap holds at least this much. */
const COLLECT_MIN_BYTES = 64 << 20;
/**
 * A read whose kinds are each a group (a million distinct names) checks its garbage at each multiple of this many
 * groups past GROUPS_CHECKED_FROM (each new group leaves ~300 bytes of it, promoted: its kind, its decoded texts,
 * the reader's cache entry)…
 */
const GROUPS_CHECKED_EVERY = 1 << 14;
const GROUPS_CHECKED_FROM = 1 << 16;
/**
 * …and collects it when the heap grew by this much since its last collection: between the collections at each
 * 128 k groups it grew by ~55 MB, in each thread of a diff's two reads at once.
 */
const GROUPS_GARBAGE_BYTES = 24 << 20;
/** A read of this many groups keeps the process's young generations as large as they are (holdYoungGeneration). */
const HOLD_YOUNG_FROM = 1 << 12;

export class Accumulator implements KernelSink, RowLog {
  /** The fine groups, as columns (model/fineGroups.ts). */
  readonly groups = new FineGroupTable();
  private readonly classes: RawNameClasses | null;
  rowsRead = 0;
  rowsSkipped = 0;
  kernels = 0;
  rowsWithoutStep = 0;
  readonly stepIds = new Set<number>();
  private lastStep = Number.NaN;
  /**
   * The earliest start and the latest end seen (with span), in ticks after the first origin a reader gave
   * (firstOriginUs); the starts of later files are rebased onto it (originTicks).
   */
  firstStart: number | null = null;
  lastEnd: number | null = null;
  /** Kernels of files with start times whose start says nothing of the span (RankData.spanWithoutStart). */
  startless = 0;
  /** The file being read has start times (SourceFacts.starts). */
  private fileStarts = false;
  private firstOriginUs = Number.NaN;
  private originUs = 0;
  private originTicks = 0;
  readonly warnings: RowWarning[] = [];
  warningCount = 0;
  /** Of warningCount, those of rows on no rank (warnOnNoRank). */
  warningsOnNoRank = 0;

  /** The group cursor of each kernel id a reader bound (see KernelSink). */
  private readonly cursors: GroupCursor[] = [];
  /** Kinds looked up (groupIndex), and the groups there were at the last check of the garbage (KINDS_CHECKED_EVERY). */
  private kindsLooked = 0;
  private groupsAtCheck = 0;
  private readonly collectGrown: (slackBytes: number) => void;
  private readonly holdYoung: () => void;
  /** Start times make the time span (inspect) and the step spans (--step-time): an exact decimal parse per row. */
  readonly wantsStarts: boolean;
  readonly wantsStreams = false;
  private readonly wantsSpan: boolean;
  /** The wall span of each step (--step-time), else null. */
  readonly stepSpans: StepSpanTable | null;

  /** `rawNames`: what may select kernels by raw name in this run (see RawNameClasses); null: nothing does. */
  readonly rawNames: RawNameTests | null;
  /**
   * Keep kernel names in the fine groups. When nothing of the run reads a name (`names: false`: grouped by type,
   * core or shapes, with no pattern or user group), a kernel that has a type is kept per (type, core, shapes) with
   * no name: a profile of a million distinct names is then a few hundred fine groups, not a million. Kernels
   * without a type (a trace's) keep their names, whatever the option.
   */
  readonly names: boolean;

  constructor(
    readonly fields: Fields,
    options: {
      span?: boolean;
      stepTime?: boolean;
      rawNames?: RawNameTests | null;
      names?: boolean;
      /** How the read collects the garbage of kinds folded into few groups (tests watch it): collectGrown. */
      collectGrown?: (slackBytes: number) => void;
      /** How a read of many groups keeps the young generations as they are (tests watch it): holdYoungGeneration. */
      holdYoung?: () => void;
    } = {},
  ) {
    this.collectGrown = options.collectGrown ?? collectGrown;
    this.holdYoung = options.holdYoung ?? holdYoungGeneration;
    this.names = options.names !== false;
    this.wantsSpan = options.span === true;
    this.stepSpans = options.stepTime === true ? new StepSpanTable() : null;
    this.wantsStarts = this.wantsSpan || this.stepSpans !== null;
    this.rawNames = options.rawNames ?? null;
    this.classes = this.rawNames !== null ? new RawNameClasses(this.rawNames) : null;
  }

  /** The fields of this rank are those every one of its files answers. */
  begin(facts: SourceFacts): void {
    const f = this.fields;
    if (!facts.name) f.name = false;
    if (!facts.core) f.core = false;
    if (!facts.shapes) f.shapes = false;
    if (!facts.steps) f.steps = false;
    this.stepSpans?.beginFile(facts.starts && facts.ordered);
    this.fileStarts = facts.starts;
  }

  origin(us: number): void {
    if (Number.isNaN(this.firstOriginUs)) this.firstOriginUs = us;
    this.originUs = us;
    this.originTicks = (us - this.firstOriginUs) * TICKS_PER_US;
    this.stepSpans?.origin(us);
  }

  bind(id: number, kind: KernelKind): void {
    this.cursors[id] = groupCursor(this.kindGroup(kind));
  }

  addBatch(batch: KernelBatch): void {
    const cursors = this.cursors;
    const { ids, steps, ticks, n } = batch;
    for (let i = 0; i < n; i++) {
      const step = steps[i]!;
      this.addVia(cursors[ids[i]!]!, step === NO_STEP ? null : step, ticks[i]!);
    }
    const starts = batch.starts;
    if (starts !== null && this.wantsSpan) for (let i = 0; i < n; i++) this.span(starts[i]!, ticks[i]!);
    const spans = this.stepSpans;
    if (spans !== null) {
      if (starts === null) spans.available = false;
      else
        for (let i = 0; i < n; i++) {
          const step = steps[i]!;
          if (step !== NO_STEP) spans.add(step, starts[i]!, ticks[i]!);
        }
    }
  }

  addKernel(id: number, step: number | null, ticks: number, startTicks: number): void {
    this.addVia(this.cursors[id]!, step, ticks);
    if (this.wantsSpan) this.span(startTicks, ticks);
    this.stepSpans?.add(step, startTicks, ticks);
  }

  addAggregated(kind: KernelKind, cell: Cell, step?: number | null): void {
    const g = this.groups.at(this.kindGroup(kind));
    this.addCell(g, cell);
    if (this.stepSpans !== null) this.stepSpans.available = false;
    if (step === undefined) return;
    if (step === null) {
      this.rowsWithoutStep += cell.count;
      return;
    }
    this.stepIds.add(step);
    const c = g.steps.get(step);
    if (c) mergeCell(c, cell);
    else g.steps.set(step, cloneCell(cell));
  }

  private kindGroup(k: KernelKind): number {
    return this.groupIndex(k.name, k.type, k.core, k.shapes, k.rawName ?? undefined);
  }

  /**
   * The index of the fine group for these fields, created on first use; `rawName`: the name before
   * normalisation, if other. Called once per distinct row key (the readers cache the group of each), so a raw
   * name is classed once. (Type, core and shapes texts are held once each by the table.)
   */
  groupIndex(name: string | null, type: string | null, core: string | null, shapes: string | null, rawName?: string): number {
    if (!this.names && type !== null) {
      name = null;
      rawName = undefined;
    }
    const raw = rawName !== undefined && rawName !== name ? rawName : undefined;
    const cls = raw !== undefined && this.classes !== null ? this.classes.of(raw) : '';
    const before = this.groups.size;
    if (++this.kindsLooked % KINDS_CHECKED_EVERY === 0) {
      if (before - this.groupsAtCheck < KINDS_CHECKED_EVERY / 2) this.collectGrown(KINDS_GARBAGE_BYTES);
      this.groupsAtCheck = before;
    }
    const i = this.groups.index(name, type, core, shapes, cls, raw);
    // Each new group leaves garbage behind (the texts its kind was decoded from, the reader's kind): collected at
    // each 128 k groups, so also before the columns double (at each power of two from there).
    if (before !== this.groups.size && before >= GROUPS_COLLECT_FROM && before % GROUPS_COLLECT_FROM === 0) collectGarbage(COLLECT_MIN_BYTES);
    else if (before !== this.groups.size && before >= GROUPS_CHECKED_FROM && before % GROUPS_CHECKED_EVERY === 0)
      this.collectGrown(GROUPS_GARBAGE_BYTES);
    else if (before === HOLD_YOUNG_FROM && before !== this.groups.size) this.holdYoung();
    return i;
  }

  /** The fine group for these fields (see groupIndex): a view of its row of the table. */
  group(name: string | null, type: string | null, core: string | null, shapes: string | null, rawName?: string): FineGroup {
    return this.groups.at(this.groupIndex(name, type, core, shapes, rawName));
  }

  /** Count one kernel of the cursor's group. */
  addVia(k: GroupCursor, step: number | null, ticks: number): void {
    const i = k.index;
    const groups = this.groups;
    const tot = groups.totals;
    const t = i * TOTAL_STRIDE;
    this.kernels++;
    // The group's one step (its cell is the total: fineGroups.ts MANY) while all its kernels are of it, else its
    // Map of cells through the cursor; the Map is made before the total takes the kernel (it starts as a copy of it).
    const st = groups.inlineSteps;
    const s = st[i]!;
    if (step === null) {
      this.rowsWithoutStep++;
      // Its one step's cell parts from the total now (the total takes a kernel of no step).
      if (Number.isFinite(s)) groups.growingSteps(i);
      addAt(tot, t, ticks);
      return;
    }
    if (step !== this.lastStep) {
      this.stepIds.add(step);
      this.lastStep = step;
    }
    if (s === step || (Number.isNaN(s) && tot[t] === 0)) {
      st[i] = step;
      addAt(tot, t, ticks);
      return;
    }
    if (k.step !== step) {
      // The group's cells, packed (GrowingSteps): its cell of the step found once, then each kernel added in place.
      k.steps = groups.growingSteps(i);
      k.slot = k.steps.slot(step);
      k.step = step;
    }
    addAt(tot, t, ticks);
    k.steps!.addTicks(k.slot, ticks);
  }

  /** Count an already aggregated cell (op_statistic rows). */
  addCell(g: FineGroup, cell: Cell): void {
    mergeCell(g.total, cell);
    this.kernels += cell.count;
  }

  /** A kernel of `ticks` that starts `startTicks` after the current origin (NaN: no time). */
  span(startTicks: number, ticks: number): void {
    // A start that is not a time (NaN) or is time 0 (a profiler's placeholder) says nothing about the span.
    if (!(this.originUs * TICKS_PER_US + startTicks > 0)) {
      // A file without start times has no start to miss (its kernels come with NaN, one by one or in no batch).
      if (this.fileStarts) this.startless++;
      return;
    }
    const start = this.originTicks + startTicks;
    if (this.firstStart === null || start < this.firstStart) this.firstStart = start;
    const end = start + ticks;
    if (this.lastEnd === null || end > this.lastEnd) this.lastEnd = end;
  }

  /** A row that cannot be read: counted, and its warning kept while there are few. */
  skip(file: string, line: number, message: string): void {
    this.rowsSkipped++;
    this.warn(file, line, message);
  }

  warn(file: string, line: number, message: string): void {
    this.warningCount++;
    if (this.warnings.length < MAX_WARNINGS_KEPT) this.warnings.push({ file, line, message });
  }

  /** A warning of a row on no rank (its device cannot be told): said with this rank's, but marked as no rank's. */
  warnOnNoRank(file: string, line: number, message: string): void {
    this.warningCount++;
    this.warningsOnNoRank++;
    if (this.warnings.length < MAX_WARNINGS_KEPT) this.warnings.push({ file, line, message, noRank: true });
  }

  toRankData(rank: string, files: SourceFile[], snapshot: SnapshotInfo | null = null): RankData {
    this.groups.trim();
    return {
      rank,
      files,
      fields: this.fields,
      groups: this.groups,
      rowsRead: this.rowsRead,
      rowsSkipped: this.rowsSkipped,
      kernels: this.kernels,
      rowsWithoutStep: this.rowsWithoutStep,
      stepIds: [...this.stepIds].sort((a, b) => a - b),
      spanTicks: this.firstStart !== null && this.lastEnd !== null ? this.lastEnd - this.firstStart : null,
      ...(this.startless > 0 ? { spanWithoutStart: this.startless } : {}),
      warnings: this.warnings,
      warningCount: this.warningCount,
      ...(this.warningsOnNoRank > 0 ? { warningsOnNoRank: this.warningsOnNoRank } : {}),
      snapshot,
      ...(this.stepSpans !== null ? { stepSpans: this.stepSpans.result() } : {}),
    };
  }
}

/** Count a kernel of `ticks` into the cell at `o` of a column (count, ticks, minTicks, maxTicks). */
function addAt(b: Float64Array, o: number, ticks: number): void {
  b[o]! += 1;
  b[o + 1]! += ticks;
  if (ticks < b[o + 2]!) b[o + 2] = ticks;
  if (ticks > b[o + 3]!) b[o + 3] = ticks;
}
