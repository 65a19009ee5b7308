// Streaming accumulation of kernel rows into fine groups. Memory grows with the number of distinct
// (name, type, core, shapes) combinations and steps, never with the number of rows: names are normalised, and
// the raw names of communication kernels (one per row in a real export) are kept apart only where a pattern of
// the run tells them apart.

import { inputError } from '../util/errors.js';
import { compilePattern } from '../util/regex.js';
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
  type Selection,
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

/**
 * The patterns and names of a run that may select a kernel by the name its file wrote (a communication kernel's
 * `hcom_allReduce__586_0_1`) rather than by its normalised name: --match, --exclude, the members of user groups,
 * and the selectors of a rules file. Plain data, so that it crosses to a worker thread; null when there are none.
 */
export interface RawNameTests {
  patterns: { source: string; flags: string }[];
  exact: string[];
}

/** The tests of these patterns and names, or null when there are none (no raw name is told apart then). */
export function rawNameTests(patterns: Iterable<RegExp | null>, exact: Iterable<string>): RawNameTests | null {
  const p = new Map<string, { source: string; flags: string }>();
  for (const re of patterns) {
    if (re === null) continue;
    // RE2's flags only (a RegExp made in code may carry g or y, which change nothing for a test).
    const flags = [...re.flags].filter((f) => 'imsu'.includes(f)).join('');
    p.set(`/${re.source}/${flags}`, { source: re.source, flags });
  }
  const e = [...new Set(exact)];
  return p.size === 0 && e.length === 0 ? null : { patterns: [...p.values()], exact: e };
}

/** The tests of a selection (--match, --exclude, user groups), with `more` (a rules file's selectors). */
export function selectionRawNames(sel: Selection, more: { patterns: RegExp[]; exact: string[] } = { patterns: [], exact: [] }): RawNameTests | null {
  return rawNameTests(
    [sel.match, sel.exclude, ...sel.groups.flatMap((g) => g.patterns), ...more.patterns],
    [...sel.groups.flatMap((g) => [...g.exact]), ...more.exact],
  );
}

/**
 * Which raw names a run can tell apart. In a real export every communication row has a raw name of its own (the
 * counter counts calls), so a fine group per raw name would be a fine group per row. Instead the raw names of one
 * normalised name are kept apart only by what the run's tests say of them: a name equal to an exact value is a
 * class of its own, the others are classed by which patterns match them. All raw names of one class answer every
 * test of the run alike, so one fine group per class (holding the first raw name read as its `rawName`) selects
 * exactly the kernels one group per raw name would.
 */
class RawNameClasses {
  private readonly patterns: RegExp[];
  private readonly exact: Set<string>;

  constructor(tests: RawNameTests) {
    this.patterns = tests.patterns.map((p) => compilePattern(p.source, p.flags));
    this.exact = new Set(tests.exact);
  }

  /** The class of a raw name: '' when no test tells it from the others of its normalised name. */
  of(raw: string): string {
    if (this.exact.has(raw)) return `=${raw}`;
    let bits = '';
    let any = false;
    for (const re of this.patterns) {
      re.lastIndex = 0;
      const hit = re.test(raw);
      bits += hit ? '1' : '0';
      any ||= hit;
    }
    return any ? bits : '';
  }
}

export class Accumulator {
  readonly groups = new Map<string, FineGroup>();
  private readonly classes: RawNameClasses | null;
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

  /** `rawNames`: what may select kernels by raw name in this run (see RawNameClasses); null: nothing does. */
  constructor(
    readonly fields: Fields,
    readonly rawNames: RawNameTests | null = null,
  ) {
    this.classes = rawNames !== null ? new RawNameClasses(rawNames) : null;
  }

  /**
   * The fine group for these fields, created on first use; `rawName`: the name before normalisation, if other.
   * Called once per distinct row key (the readers cache the group of each), so a raw name is classed once.
   */
  group(name: string | null, type: string | null, core: string | null, shapes: string | null, rawName?: string): FineGroup {
    const raw = rawName !== undefined && rawName !== name ? rawName : undefined;
    const cls = raw !== undefined && this.classes !== null ? this.classes.of(raw) : '';
    const key = cls === '' ? fineKey(name, type, core, shapes) : `${fineKey(name, type, core, shapes)}${SEP}${cls}`;
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
