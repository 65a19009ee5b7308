// Streaming accumulation of kernel rows into fine groups. Memory grows with the number of distinct
// (name, type, core, shapes) combinations and steps, never with the number of rows.

import { inputError } from '../util/errors.js';
import {
  addToCell,
  cloneCell,
  emptyCell,
  mergeCell,
  type Cell,
  type Fields,
  type FineGroup,
  type RankData,
  type RowWarning,
  type SourceFile,
  type SnapshotInfo,
} from '../model/model.js';

/**
 * A fine group as the hot loop holds it: with the cell of the step it last counted into, since the rows of one
 * step are contiguous and a Map lookup per row is a tenth of the reading time.
 */
export interface GroupCursor {
  group: FineGroup;
  step: number;
  cell: Cell | null;
}

/**
 * Kernel time is summed exactly below 2^51 ticks of 0.1 ns (225,179,981,368.5248 µs, about 62.5 hours): there a sum
 * of integer ticks in a double is exact whatever the order, and a summary JSON's µs (ticks / 10^4, the nearest
 * double) reads back to the same ticks. A duration at or past it is an unreadable row; a profile whose kept
 * kernels add up to it is refused (exactTotals) rather than shown with figures that are no longer exact.
 */
export const MAX_EXACT_TICKS = 2 ** 51;

/** The limit in words, for messages. */
export const MAX_EXACT_TEXT = '2^51 ticks of 0.1 ns (225,179,981,368 µs, about 62 hours)';

/**
 * Refuse totals that are not exact any more: kernel time at or past MAX_EXACT_TICKS, or a count past 2^53. Every
 * group and rank figure is a part of the totals (times and counts are never negative), so they are exact too.
 */
export function exactTotals(input: string, totals: Cell, filteredKernels: number): void {
  if (totals.ticks >= MAX_EXACT_TICKS || !Number.isFinite(totals.ticks)) {
    throw inputError(
      `${input}: the kernels kept add up to ${totals.ticks / 10_000} µs, at or past ${MAX_EXACT_TEXT}, beyond which ` +
        'kprof cannot sum and save kernel time exactly. Read fewer ranks or steps (--rank, --steps).',
    );
  }
  if (!Number.isSafeInteger(totals.count + filteredKernels)) {
    throw inputError(
      `${input}: the kernels add up to ${totals.count + filteredKernels}, past 2^53, beyond which kprof cannot count exactly. ` +
        'Read fewer ranks (--rank), or check the Count column of the op_statistic files.',
    );
  }
}

/** How many warnings are kept with their text; the rest are counted. */
export const MAX_WARNINGS_KEPT = 50;

const SEP = '\u001f';

export function fineKey(name: string | null, type: string | null, core: string | null, shapes: string | null): string {
  return `${name ?? ''}${SEP}${type ?? ''}${SEP}${core ?? ''}${SEP}${shapes ?? ''}`;
}

export class Accumulator {
  readonly groups = new Map<string, FineGroup>();
  rowsRead = 0;
  rowsSkipped = 0;
  kernels = 0;
  rowsWithoutStep = 0;
  readonly stepIds = new Set<number>();
  private lastStep = Number.NaN;
  firstStartUs: number | null = null;
  lastEndUs: number | null = null;
  readonly warnings: RowWarning[] = [];
  warningCount = 0;

  constructor(readonly fields: Fields) {}

  /** The fine group for these fields, created on first use; `rawName`: the name before normalisation, if other. */
  group(name: string | null, type: string | null, core: string | null, shapes: string | null, rawName?: string): FineGroup {
    const raw = rawName !== undefined && rawName !== name ? rawName : undefined;
    const key = fineKey(raw ?? name, type, core, shapes);
    let g = this.groups.get(key);
    if (!g) {
      g = { name, type, core, shapes, total: emptyCell(), steps: new Map() };
      if (raw !== undefined) g.rawName = raw;
      this.groups.set(key, g);
    }
    return g;
  }

  /** Count one kernel of the cursor's group. */
  addVia(k: GroupCursor, step: number | null, ticks: number): void {
    const g = k.group;
    addToCell(g.total, ticks);
    this.kernels++;
    if (step === null) {
      this.rowsWithoutStep++;
      return;
    }
    if (step !== this.lastStep) {
      this.stepIds.add(step);
      this.lastStep = step;
    }
    let c = k.cell;
    if (c === null || k.step !== step) {
      c = g.steps.get(step) ?? null;
      if (c === null) {
        c = emptyCell();
        g.steps.set(step, c);
      }
      k.step = step;
      k.cell = c;
    }
    addToCell(c, ticks);
  }

  /** Count an already aggregated cell (op_statistic rows). */
  addCell(g: FineGroup, cell: Cell): void {
    mergeCell(g.total, cell);
    this.kernels += cell.count;
  }

  span(startUs: number, durationUs: number): void {
    // A start that is not a finite time (`1e400`) says nothing about the span.
    if (!(startUs > 0) || !Number.isFinite(startUs)) return;
    if (this.firstStartUs === null || startUs < this.firstStartUs) this.firstStartUs = startUs;
    const end = startUs + durationUs;
    if (this.lastEndUs === null || end > this.lastEndUs) this.lastEndUs = end;
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

  toRankData(rank: string, files: SourceFile[], snapshot: SnapshotInfo | null = null): RankData {
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
      firstStartUs: this.firstStartUs,
      lastEndUs: this.lastEndUs,
      warnings: this.warnings,
      warningCount: this.warningCount,
      snapshot,
    };
  }
}

/** Merge one rank's fine groups into another map (for reading one rank from several files in parallel). */
export function mergeGroups(into: Map<string, FineGroup>, from: Map<string, FineGroup>): void {
  for (const [key, g] of from) {
    const t = into.get(key);
    if (!t) {
      into.set(key, g);
      continue;
    }
    mergeCell(t.total, g.total);
    for (const [step, c] of g.steps) {
      const tc = t.steps.get(step);
      if (tc) mergeCell(tc, c);
      else t.steps.set(step, cloneCell(c));
    }
  }
}
