// Plain data shared by every stage: formats → aggregate → group → summary/diff → rules → reporters.

/**
 * Durations are summed as integer ticks of 0.1 ns (1e-4 µs) so that totals are exact and do not depend on the
 * order rows were added in (two worker threads, one thread: the same sum). Real exports carry at most 3
 * (torch_npu/msprof since 2024) or 4 (2023) decimals of a microsecond; a value with more is rounded to 0.1 ns.
 */
export const TICKS_PER_US = 10_000;

/** Count and time of a set of kernels. */
export interface Cell {
  count: number;
  /** Sum of durations, in ticks (see TICKS_PER_US). */
  ticks: number;
  minTicks: number;
  maxTicks: number;
}

export function emptyCell(): Cell {
  return { count: 0, ticks: 0, minTicks: Number.POSITIVE_INFINITY, maxTicks: Number.NEGATIVE_INFINITY };
}

export function addToCell(c: Cell, ticks: number): void {
  c.count++;
  c.ticks += ticks;
  if (ticks < c.minTicks) c.minTicks = ticks;
  if (ticks > c.maxTicks) c.maxTicks = ticks;
}

export function mergeCell(into: Cell, from: Cell): void {
  into.count += from.count;
  into.ticks += from.ticks;
  if (from.minTicks < into.minTicks) into.minTicks = from.minTicks;
  if (from.maxTicks > into.maxTicks) into.maxTicks = from.maxTicks;
}

export function cloneCell(c: Cell): Cell {
  return { count: c.count, ticks: c.ticks, minTicks: c.minTicks, maxTicks: c.maxTicks };
}

/**
 * `obj` with a property `key` that `compute` gives when it is first read, and that is a plain property from then
 * on (as it is when written first). For per-step cells, which many commands never read: nothing that reads the
 * property can tell it from one set at once, provided what `compute` reads does not change in between.
 */
export function lazyProperty<T extends object, K extends string, V>(obj: T, key: K, compute: () => V): T & Record<K, V> {
  const settle = (value: V): V => {
    Object.defineProperty(obj, key, { value, writable: true, enumerable: true, configurable: true });
    return value;
  };
  Object.defineProperty(obj, key, { get: () => settle(compute()), set: settle, enumerable: true, configurable: true });
  return obj as T & Record<K, V>;
}

/** The finest unit kprof keeps: one (name, type, core, shapes) combination of one rank. */
export interface FineGroup {
  /** Kernel name, with communication instance counters normalised; null when the source has none. */
  name: string | null;
  /**
   * The name as the file wrote it, when normalising changed it (`hcom_allReduce__586_0_1`). Fine groups are kept
   * per raw name, so that --match and --exclude can select by it; grouping merges them under `name`.
   */
  rawName?: string;
  type: string | null;
  core: string | null;
  /** Input shapes (`;`-joined tensors of `,`-joined dims), null when not read. */
  shapes: string | null;
  total: Cell;
  /** Per Step Id. Rows with an empty Step Id are in `total` only. Made when first read after a worker read it. */
  steps: Map<number, Cell>;
  /** Set for groups read back from a summary JSON: the group key it was saved with. */
  savedKey?: string;
  /** Set for groups read back from a summary JSON that were a user-defined group. */
  savedUserGroup?: string;
}

/** Which kernel fields a source can answer questions about. */
export interface Fields {
  name: boolean;
  type: boolean;
  core: boolean;
  shapes: boolean;
  steps: boolean;
}

/** A row-level problem: counted, and reported as `file:line: message`. */
export interface RowWarning {
  file: string;
  line: number;
  message: string;
}

export type FormatId = 'kernel_details' | 'op_summary' | 'op_statistic' | 'summary_json';

/** One file that was read, and what was found in it. */
export interface SourceFile {
  /** Path as given or found (relative to the working directory when possible). */
  path: string;
  format: FormatId;
  /** Human-readable traits: producer, header variant, block column spelling, metric set … */
  traits: string[];
  columns: string[];
  missing: string[];
  bytes: number;
  rowsRead: number;
  rowsSkipped: number;
}

/** Everything read for one rank. */
export interface RankData {
  /** Rank id as a string ("0", "3"); "-" when the input does not say. */
  rank: string;
  files: SourceFile[];
  fields: Fields;
  /** Fine groups keyed by an internal key. */
  groups: Map<string, FineGroup>;
  /** Data rows read (for op_statistic: statistic rows). */
  rowsRead: number;
  rowsSkipped: number;
  /** Kernels counted: for kernel tables equal to rows grouped; for op_statistic the sum of `Count`. */
  kernels: number;
  /** Rows with an empty Step Id (when the source has a step column). */
  rowsWithoutStep: number;
  /** Distinct Step Ids of all rows read, sorted (a step counts even when a filter keeps none of its kernels). */
  stepIds: number[];
  /** Earliest start and latest end seen, in µs (for display; float precision ~0.25 µs). */
  firstStartUs: number | null;
  lastEndUs: number | null;
  /** The first warnings (capped), and how many there were in all. */
  warnings: RowWarning[];
  warningCount: number;
  /** Where the data came from when it was a saved summary JSON. */
  snapshot: SnapshotInfo | null;
  /** Where the rank id came from (profiler_info, folder name, folder path, Device_id …), for inspect. */
  rankSource?: string;
}

/** Grouping and filters a saved summary JSON was made with. */
export interface SnapshotInfo {
  path: string;
  groupBy: GroupBy;
  /** Canonical text of the filters and user groups the snapshot was made with. */
  selection: string;
}

/** The ranks read from one `<profile>` argument. */
export interface Profile {
  /** The argument as given. */
  input: string;
  ranks: RankData[];
  /** What was found and not used (e.g. a rank folder with no kernel data), for inspect and warnings. */
  notes: string[];
}

export const GROUP_BYS = ['type', 'name', 'core', 'type+core', 'type+shapes'] as const;
export type GroupBy = (typeof GROUP_BYS)[number];

/** Which fields a grouping needs. */
export const GROUP_BY_FIELDS = {
  type: ['type'],
  name: ['name'],
  core: ['core'],
  'type+core': ['type', 'core'],
  'type+shapes': ['type', 'shapes'],
} as const satisfies Record<GroupBy, readonly (keyof Fields)[]>;

/** A user-defined group: a name and the kernels it gathers. */
export interface UserGroup {
  name: string;
  /** Exact type or name matches. */
  exact: Set<string>;
  /** Regular expressions tested on name and type. */
  patterns: RegExp[];
  /** Where the group was defined (`file:line:col`), for errors about it. */
  at?: string;
}

/** An inclusive range of Step Ids; `to` is Infinity for an open range (`--steps 14-`). */
export interface StepRange {
  from: number;
  to: number;
}

/** Which rows and ranks to keep. */
export interface Selection {
  /** null: all ranks. */
  ranks: string[] | null;
  /** Inclusive Step Id ranges (sorted, disjoint; `to` may be Infinity); null: all rows (with or without a step). */
  steps: StepRange[] | null;
  cores: string[] | null;
  match: RegExp | null;
  exclude: RegExp | null;
  groups: UserGroup[];
}

/** A group's key and the fields it was formed by, where they are single-valued. */
export interface GroupFields {
  key: string;
  type?: string;
  name?: string;
  core?: string;
  shapes?: string;
  /** Set when the group is a user-defined group. */
  userGroup?: string;
}

/** One row of a summary: a group of kernels. */
export interface Group extends GroupFields {
  total: Cell;
  /**
   * Per Step Id, merged when first read. Of a group of one fine group it is that group's own Map: read it, never
   * write to it.
   */
  steps: Map<number, Cell>;
}

/** Per-rank grouped data. */
export interface RankSummary {
  rank: string;
  totals: Cell;
  groups: Group[];
  steps: number[];
}

/** The result of grouping one profile. */
export interface Summary {
  input: string;
  groupBy: GroupBy;
  /** Canonical text of the selection (filters + user groups), to compare snapshots. */
  selection: string;
  ranks: string[];
  /** Distinct Step Ids among the kept rows, sorted; empty when the source has no steps. */
  stepIds: number[];
  hasSteps: boolean;
  files: SourceFile[];
  rowsRead: number;
  skippedRows: number;
  /** Kernels left out by --rank/--steps/--core/--match/--exclude. */
  filteredKernels: number;
  totals: Cell;
  groups: Group[];
  /** One entry per rank, always (also for a single rank). */
  perRank: RankSummary[];
  warnings: RowWarning[];
  warningCount: number;
}

/** Numeric ranks in numeric order, then others by name. */
export function compareRanks(a: string, b: string): number {
  const na = Number(a);
  const nb = Number(b);
  const ia = a !== '' && Number.isInteger(na);
  const ib = b !== '' && Number.isInteger(nb);
  if (ia && ib) return na - nb;
  if (ia) return -1;
  if (ib) return 1;
  return a < b ? -1 : a > b ? 1 : 0;
}
