// The reader of torch_npu / msprof SQLite exports (FORMATS.md §12): kernels from TASK ⋈ COMPUTE_TASK_INFO,
// communication from COMMUNICATION_OP (or COMMUNICATE_OP), steps from STEP_TIME, ranks from RANK_DEVICE_MAP,
// pushed one by one into a sink, in file order or in time order. Communication rows without a deviceId (before
// schema 1.2.0) are on the db's one device; where its kernels ran on several, they are skipped (communicationDevice).
//
// - Times are Unix nanoseconds past 2^53, which a double cannot hold: SQL subtracts before JavaScript sees them
//   (durations as endNs − startNs, starts as offsets from the earliest start, which the reader holds as a BigInt),
//   so every figure is exact.
// - Strings are ids into STRING_IDS. They are looked up once per id, on a second connection (a connection cannot
//   run a statement while it iterates another), as bytes: text that is not UTF-8 keeps its bytes as U+DC80–U+DCFF,
//   as the CSV readers do. Memory grows with distinct strings, not rows.
// - A row that cannot be read (no integer times, an end before its start, a name that is not in STRING_IDS) is
//   handed to the sink's skip() and counted; nothing is dropped silently.
//
// Over 400 lines: one reader of one format: its queries per export version and their row order, each next to the
// quirk it handles.

import { decodeKeepingBytes } from '../../csv/scan.js';
import { TICKS_PER_US } from '../../../model/model.js';
import { sqliteLibrary, type SqliteDatabase, type SqliteOpen, type SqliteStatement } from './library.js';
import { openDb, sqliteFailure, type OpenOptions } from './open.js';
import { ident, probeSchema, type DbSchema } from './schema.js';

/** Ticks of 0.1 ns per nanosecond. */
export const TICKS_PER_NS = TICKS_PER_US / 1000;

/** The largest duration in ticks the reader hands on; longer ones are skipped (the accumulator's exact limit). */
export const MAX_TICKS = 2 ** 51;

/** A row whose start is not within 2^53 ns after the kernels' first start (earliestStart). */
export const OUT_OF_RANGE = 'its times are out of range (2^53 ns or more from the other kernels, or before them); row skipped';

/** The accelerator core of communication kernels, as kernel_details.csv names it. */
export const COMMUNICATION_CORE = 'HCCL';

/** One kernel of a db export. */
export interface DbKernel {
  kind: 'compute' | 'communication';
  /** Kernel name as the file holds it (communication instance counters are not normalised here). */
  name: string;
  /** Op type (`opType`: `N/A` at Level0, as in kernel_details.csv); null when the file has none. */
  type: string | null;
  /** Accelerator core (COMPUTE_TASK_INFO.taskType: AI_CORE, AI_VECTOR_CORE, MIX_AIV …); `HCCL` for communication. */
  core: string | null;
  /** Hardware task type (TASK.taskType: KERNEL_AICORE, KERNEL_AIVEC …); null for communication. */
  taskType: string | null;
  stream: number | null;
  /** The STEP_TIME id whose (host-side) window holds the start; null without STEP_TIME or outside every window. */
  step: number | null;
  /** Start in ns after DbInfo.originNs (exact). */
  startNs: number;
  /** Duration in ticks of 0.1 ns (TICKS_PER_US per µs), exact. */
  ticks: number;
  /** Input shapes (`;`-joined tensors of `,`-joined dims, quotes stripped); null when not asked for or absent. */
  shapes: string | null;
  /** Block dim (blockNum in schema 1.2.0); null when the file has none. */
  blockDim: number | null;
  /** TASK.deviceId (COMMUNICATION_OP.deviceId, or the db's only device, for communication); null when unknown. */
  device: number | null;
}

/**
 * Whose a skipped row is: its device's (TASK.deviceId, or COMMUNICATION_OP's), the file's own rank (`file`: the db
 * says no device, so all its rows are one rank's), or no rank's (`none`: its device is no device, one
 * RANK_DEVICE_MAP leaves out, or, without a deviceId, one of several). Never the rank of the row before it.
 */
export type RowPlace = number | 'file' | 'none';

/** Where the reader pushes what it reads. */
export interface DbSink {
  kernel(k: DbKernel): void;
  /** A row that was not read: `where` names it (`TASK row 12`), `message` says why, `place` whose row it is. */
  skip(where: string, message: string, place: RowPlace): void;
}

export interface ReadOptions extends OpenOptions {
  /** 'file': rows as the tables hold them, compute kernels then communication; 'time': all by start (then kind). */
  order?: 'file' | 'time';
  /** Read input shapes (only grouping by shapes needs them: they multiply the distinct strings). */
  shapes?: boolean;
  /** The db as messages show it (default: the path). */
  display?: string;
  /** For tests: the SQLite library (default: better-sqlite3, loaded on first use). */
  library?: SqliteOpen;
  /**
   * Called once the schema is known and before any kernel, with the earliest start (Unix ns; null when the db
   * holds no kernel): what the file can answer is told to a sink before its kernels.
   */
  onStart?: (schema: DbSchema, originNs: bigint | null) => void;
}

/** A step window of STEP_TIME (host-side ProfilerStep#N), in ns after originNs. */
export interface DbStep {
  id: number;
  startNs: number;
  endNs: number;
}

/** What a db holds and what it can answer. */
export interface DbInfo {
  file: string;
  producer: 'torch_npu' | 'msprof';
  schemaVersion: string | null;
  /** Human-readable traits: schema generation, block column, WAL view … */
  traits: string[];
  /** The file's size in bytes, as the byte layer opened it (for inspect). */
  bytes?: number;
  /** Which questions the rows read can answer. */
  answers: {
    names: boolean;
    /** Some compute kernel has an op type other than N/A (Level0 exports have none). */
    types: boolean;
    cores: boolean;
    shapes: boolean;
    /** STEP_TIME holds at least one step (host-side windows: a kernel at a step's edge may fall in another). */
    steps: boolean;
    /** Kernels have start times, so an order per stream. */
    order: boolean;
    /** RANK_DEVICE_MAP says the rank of a device read. */
    ranks: boolean;
  };
  /** The earliest start of a kernel, Unix ns; null when there is no kernel. */
  originNs: bigint | null;
  steps: DbStep[];
  /** The earliest start and latest end of the kernels read, in ns after originNs; null when none was read. */
  spanNs: { first: number; last: number } | null;
  /** Devices the kernels ran on, ascending, each with its rank from RANK_DEVICE_MAP (null when it says none). */
  devices: { device: number; rank: number | null }[];
  compute: number;
  communication: number;
  skipped: number;
  /**
   * Rows read whose type, core or shapes is an id not in STRING_IDS, by column
   * (`COMPUTE_TASK_INFO.opType`): each such field reads `(unknown id N)` (StringTable.field), so the rows count,
   * apart, and the reader says how many there were.
   */
  dangling: Map<string, { rows: number; first: string }>;
}

/**
 * Reads the db at `path` into `sink`; returns what it held. Input errors (not a db, cut short, an analysis.db,
 * no kernel tables, SQLite failing on a damaged file, the library missing) name the file.
 */
export function readDbExport(path: string, sink: DbSink, options: ReadOptions = {}): DbInfo {
  const file = options.display ?? path;
  const open = options.library ?? lazyLibrary(file);
  const db = openDb(path, file, open, options);
  try {
    const schema = probeSchema(db.rows, file);
    return { ...readRows(db.rows, db.lookups, schema, file, sink, options, [...schema.traits, ...db.traits]), bytes: db.header.bytes };
  } catch (e) {
    throw sqliteFailure(file, e);
  } finally {
    db.close();
  }
}

/** What a db holds, from its schema only (no row is read): for detection and inspect. */
export function probeDbExport(path: string, options: Pick<ReadOptions, 'display' | 'library' | 'tmpRoot'> = {}): DbSchema {
  const file = options.display ?? path;
  const db = openDb(path, file, options.library ?? lazyLibrary(file), options);
  try {
    return probeSchema(db.rows, file);
  } catch (e) {
    throw sqliteFailure(file, e);
  } finally {
    db.close();
  }
}

export function lazyLibrary(file: string): SqliteOpen {
  // The header is checked before the library is loaded (openDb), so a file that is not a db says so first.
  let open: SqliteOpen | null = null;
  return (p) => {
    open ??= sqliteLibrary(file);
    return open(p);
  };
}

/** Column positions of the kernel query. */
const K = {
  kind: 0,
  name: 1,
  type: 2,
  core: 3,
  taskType: 4,
  stream: 5,
  start: 6,
  dur: 7,
  shapes: 8,
  block: 9,
  device: 10,
  row: 11,
  ints: 12,
} as const;

function kernelQuery(s: DbSchema, withShapes: boolean, order: 'file' | 'time'): string {
  const t = s.task;
  const c = s.compute;
  const col = (alias: string, name: string | null): string => (name === null ? 'NULL' : `${alias}.${ident(name)}`);
  const ts = col('t', t.start);
  const te = col('t', t.end);
  const compute =
    `SELECT 0, ${col('c', c.name)}, ${col('c', c.opType)}, ${col('c', c.core)}, ${col('t', t.taskType)}, ${col('t', t.stream)}, ` +
    `${ts} - @origin, ${te} - ${ts}, ${withShapes ? col('c', c.shapes) : 'NULL'}, ${col('c', c.block)}, ${col('t', t.device)}, t.rowid, ` +
    `(typeof(${ts}) = 'integer') + 2 * (typeof(${te}) = 'integer') ` +
    `FROM TASK t JOIN COMPUTE_TASK_INFO c ON c.${ident(c.key)} = t.${ident(t.key)}`;
  const o = s.communication;
  let sql = compute;
  if (o !== null) {
    const os = col('o', o.start);
    const oe = col('o', o.end);
    sql +=
      ` UNION ALL SELECT 1, ${col('o', o.name)}, ${col('o', o.opType)}, NULL, NULL, NULL, ${os} - @origin, ${oe} - ${os}, NULL, NULL, ` +
      `${col('o', o.device)}, o.rowid, (typeof(${os}) = 'integer') + 2 * (typeof(${oe}) = 'integer') FROM ${ident(o.table)} o`;
  }
  return order === 'time' ? `${sql} ORDER BY 7, 1, 12` : sql;
}

/** What both reads (kernels one by one, and groups) start from: the origin, the steps, the rank map, the file's facts. */
export function startRead(
  rows: SqliteDatabase,
  lookups: SqliteDatabase,
  schema: DbSchema,
  file: string,
  options: Pick<ReadOptions, 'shapes' | 'onStart'>,
  traits: string[],
): {
  withShapes: boolean;
  originNs: bigint | null;
  steps: DbStep[];
  rankOf: Map<number, number>;
  /** RANK_DEVICE_MAP where it maps a device of the db's kernels (which then places every kernel), else empty. */
  placing: ReadonlyMap<number, number>;
  strings: StringTable;
  devices: Set<number>;
  info: DbInfo;
} {
  const withShapes = options.shapes === true && schema.compute.shapes !== null;
  const originNs = earliestStart(rows, schema);
  const windows = originNs === null ? [] : readSteps(rows, schema, originNs);
  // Steps are numbered from 0 (ProfilerStep#N), as a kernel table's Step Id: a window of a negative id is no step
  // (no --steps range selects one), left out and said; its kernels are in no step.
  const steps = windows.filter((w) => w.id >= 0);
  const negative = windows.length - steps.length;
  if (negative > 0)
    traits.push(
      `${negative} STEP_TIME window${negative === 1 ? '' : 's'} of a negative id left out (steps are numbered from 0): ${negative === 1 ? 'its' : 'their'} kernels in no step`,
    );
  const rankOf = readRankMap(rows, schema);
  options.onStart?.(schema, originNs);
  const strings = new StringTable(lookups);
  const devices = new Set<number>();
  const info: DbInfo = {
    file,
    producer: schema.producer,
    schemaVersion: schema.schemaVersion,
    traits,
    answers: { names: false, types: false, cores: false, shapes: false, steps: steps.length > 0, order: false, ranks: false },
    originNs,
    steps,
    spanNs: null,
    devices: [],
    compute: 0,
    communication: 0,
    skipped: 0,
    dangling: strings.dangling,
  };
  // A db with no kernel start has nothing more to read: its facts are final.
  if (originNs === null) finish(info, devices, rankOf);
  const placing = mapsItsDevices(rows, schema, rankOf) ? rankOf : new Map<number, number>();
  return { withShapes, originNs, steps, rankOf, placing, strings, devices, info };
}

function readRows(
  rows: SqliteDatabase,
  lookups: SqliteDatabase,
  schema: DbSchema,
  file: string,
  sink: DbSink,
  options: ReadOptions,
  traits: string[],
): DbInfo {
  const order = options.order ?? 'file';
  const { withShapes, originNs, steps, rankOf, placing, strings, devices, info } = startRead(rows, lookups, schema, file, options, traits);
  if (originNs === null) return info;
  const stmt: SqliteStatement = rows.prepare(kernelQuery(schema, withShapes, order)).raw();
  const columns = fieldColumns(schema);
  // Communication rows have no device of their own before schema 1.2.0: asked when the first one comes.
  let commDevice: CommunicationDevice | null = null;
  const placeOf = (r: unknown[], communication: boolean): RowPlace => {
    const column = communication ? schema.communication!.device : schema.task.device;
    if (column !== null) return deviceProblem(r[K.device], column, placing) === null ? intOrNull(r[K.device])! : 'none';
    if (!communication) return 'file';
    commDevice ??= communicationDevice(rows, schema, placing);
    return 'several' in commDevice ? 'none' : (commDevice.device ?? 'file');
  };
  let row: unknown[] = [];
  let communication = false;
  const skip = (where: string, message: string): void => {
    info.skipped++;
    const place = placeOf(row, communication);
    // A device of skipped rows only is a device of the db all the same (its rank holds them).
    if (typeof place === 'number') devices.add(place);
    sink.skip(where, message, place);
  };
  for (const r of stmt.iterate({ origin: originNs }) as IterableIterator<unknown[]>) {
    row = r;
    communication = r[K.kind] === 1;
    const where = `${communication ? schema.communication!.table : 'TASK'} row ${String(r[K.row])}`;
    if (r[K.ints] !== 3) {
      skip(where, `its start or end ${r[K.ints] === 0 ? 'are' : 'is'} not integer nanoseconds; row skipped`);
      continue;
    }
    const rel = r[K.start];
    const dur = r[K.dur];
    if (typeof rel !== 'number' || !Number.isSafeInteger(rel) || rel < 0 || typeof dur !== 'number' || Number.isNaN(dur)) {
      skip(where, OUT_OF_RANGE);
      continue;
    }
    if (dur < 0) {
      skip(where, `it ends ${-dur} ns before it starts; row skipped`);
      continue;
    }
    const ticks = dur * TICKS_PER_NS;
    if (!(ticks < MAX_TICKS)) {
      skip(where, `its duration (${dur} ns) is more than kprof sums exactly (2^51 ticks of 0.1 ns); row skipped`);
      continue;
    }
    const name = strings.get(r[K.name]);
    if (name === null) {
      skip(where, `its name (${shownId(r[K.name])}) is not in STRING_IDS; row skipped`);
      continue;
    }
    const noRank = deviceProblem(r[K.device], communication ? schema.communication!.device : schema.task.device, placing);
    if (noRank !== null) {
      skip(where, `${noRank}; row skipped`);
      continue;
    }
    if (communication && schema.communication!.device === null) {
      commDevice ??= communicationDevice(rows, schema, placing);
      if ('several' in commDevice) {
        skip(where, `${noDeviceOf(schema, commDevice.several)}; row skipped`);
        continue;
      }
    }
    const k: DbKernel = {
      kind: communication ? 'communication' : 'compute',
      name,
      type: strings.field(r[K.type], communication ? columns.commType : columns.type),
      core: communication ? COMMUNICATION_CORE : strings.field(r[K.core], columns.core),
      taskType: communication ? null : strings.get(r[K.taskType]),
      stream: intOrNull(r[K.stream]),
      step: stepOf(steps, rel),
      startNs: rel,
      ticks,
      shapes: withShapes && !communication ? unquoted(strings.field(r[K.shapes], columns.shapes)) : null,
      blockDim: intOrNull(r[K.block]),
      device: intOrNull(r[K.device]) ?? (communication && commDevice !== null && 'device' in commDevice ? commDevice.device : null),
    };
    if (communication) info.communication++;
    else info.compute++;
    const end = rel + dur;
    if (info.spanNs === null) info.spanNs = { first: rel, last: end };
    else {
      if (rel < info.spanNs.first) info.spanNs.first = rel;
      if (end > info.spanNs.last) info.spanNs.last = end;
    }
    note(info, k, devices);
    sink.kernel(k);
  }
  finish(info, devices, rankOf);
  return info;
}

function note(info: DbInfo, k: DbKernel, devices: Set<number>): void {
  if (k.device !== null) devices.add(k.device);
  info.answers.names = true;
  info.answers.order = true;
  if (k.kind === 'compute') {
    if (k.type !== null && k.type !== 'N/A') info.answers.types = true;
    if (k.core !== null && k.core !== 'N/A') info.answers.cores = true;
    if (k.shapes !== null && k.shapes !== 'N/A') info.answers.shapes = true;
  }
}

export function finish(info: DbInfo, devices: Set<number>, rankOf: Map<number, number>): void {
  info.devices = [...devices].sort((a, b) => a - b).map((device) => ({ device, rank: rankOf.get(device) ?? null }));
  info.answers.ranks = info.devices.length > 0 && info.devices.every((d) => d.rank !== null);
}

/**
 * Does RANK_DEVICE_MAP map a device of TASK's rows? Then a device it leaves out is on no rank. (A map of another
 * device only, or none, says nothing of these kernels: their devices are ranks as a Device_id column's are, and
 * the one device of a db takes the rank its folder says.)
 */
function mapsItsDevices(db: SqliteDatabase, s: DbSchema, rankOf: ReadonlyMap<number, number>): boolean {
  if (rankOf.size === 0 || s.task.device === null) return false;
  const d = ident(s.task.device);
  const devices = [...rankOf.keys()].filter((x) => Number.isSafeInteger(x)).join(', ');
  return db.prepare(`SELECT 1 FROM TASK WHERE ${d} IN (${devices}) LIMIT 1`).raw().get() !== undefined;
}

/** Where communication rows without a deviceId ran (see communicationDevice). */
export type CommunicationDevice = { device: number | null } | { several: number[] };

/**
 * Where the rows of a communication table without a deviceId column (before schema 1.2.0) ran. FORMATS.md §12
 * links them to no device or task, so they ran on the db's device when its compute kernels ran on one (TASK.deviceId:
 * the device numbers that put a kernel on a rank, see deviceProblem), or on the file's own rank when TASK says no
 * device (`device: null`). Kernels on several devices (an msprof db of a collection): `several` (up to 5 of them),
 * and such a row is on no rank that can be told. Put on the device of the row before, it would count where
 * nothing says it ran. (The grouped read, groups.ts, reads the compute kernels first and tells the same from the
 * devices it read, with no query.)
 */
export function communicationDevice(db: SqliteDatabase, s: DbSchema, placing: ReadonlyMap<number, number>): CommunicationDevice {
  if (s.task.device === null) return { device: null };
  const d = `t.${ident(s.task.device)}`;
  const mapped = [...placing.keys()].filter((x) => Number.isSafeInteger(x));
  const onRank = `typeof(${d}) = 'integer' AND ${d} >= 0${placing.size > 0 ? ` AND ${d} IN (${mapped.join(', ')})` : ''}`;
  // TASK alone first (one device: no join to make); the kernels' own devices where TASK holds several.
  const [lo, hi] = db.prepare(`SELECT min(${d}), max(${d}) FROM TASK t WHERE ${onRank}`).raw().get() as [unknown, unknown];
  if (lo === hi) return { device: intOrNull(lo) };
  const c = s.compute;
  const found = db
    .prepare(`SELECT DISTINCT ${d} FROM TASK t JOIN COMPUTE_TASK_INFO c ON c.${ident(c.key)} = t.${ident(s.task.key)} WHERE ${onRank} LIMIT 5`)
    .raw()
    .all()
    .map((r) => (r as [unknown])[0])
    .filter((x): x is number => intOrNull(x) !== null)
    .sort((a, b) => a - b);
  return found.length > 1 ? { several: found } : { device: found[0] ?? null };
}

/** Why a communication row of a table without deviceId is on no rank, where the kernels ran on `several` devices (the start of its skip message). */
export function noDeviceOf(s: DbSchema, several: number[]): string {
  const shown = several.length > 4 ? `${several.slice(0, 4).join(', ')}, …` : several.join(', ');
  return `it has no deviceId (${s.communication!.table} has none before schema 1.2.0) and the db's kernels ran on ${several.length > 4 ? 'several' : several.length} devices (${shown}): nothing says which one it ran on, so it is on no rank`;
}

/**
 * The time the kernels' starts are counted from (BigInt: Unix ns are past 2^53): the earliest start; null when
 * there is none. Offsets from it must stay below 2^53 ns (104 days) to be exact, so where the starts spread wider
 * (a row with a start of 0 or a start near 2^63: damage, never a run) the earliest start within 2^52 ns before
 * the median one is taken: a few such rows are then skipped as out of range, not every other kernel.
 */
export function earliestStart(db: SqliteDatabase, s: DbSchema): bigint | null {
  const starts = [`SELECT ${ident(s.task.start)} AS t FROM TASK WHERE typeof(${ident(s.task.start)}) = 'integer'`];
  if (s.communication !== null) {
    const c = ident(s.communication.start);
    starts.push(`SELECT ${c} FROM ${ident(s.communication.table)} WHERE typeof(${c}) = 'integer'`);
  }
  const all = starts.join(' UNION ALL ');
  const one = (sql: string, params: Record<string, unknown> = {}): unknown[] => db.prepare(sql).raw().safeIntegers(true).get(params) as unknown[];
  const [lo, hi, n] = one(`SELECT min(t), max(t), count(*) FROM (${all})`);
  if (typeof lo !== 'bigint' || typeof hi !== 'bigint' || typeof n !== 'bigint') return null;
  if (hi - lo < 2n ** 53n) return lo;
  const [median] = one(`SELECT t FROM (${all}) ORDER BY t LIMIT 1 OFFSET @k`, { k: n / 2n });
  if (typeof median !== 'bigint') return lo;
  const floor = median - 2n ** 52n;
  const [from] = one(`SELECT min(t) FROM (${all}) WHERE t >= @floor`, { floor: floor < -(2n ** 63n) ? -(2n ** 63n) : floor });
  return typeof from === 'bigint' ? from : lo;
}

export function readSteps(db: SqliteDatabase, s: DbSchema, origin: bigint): DbStep[] {
  if (!s.steps) return [];
  const rows = db
    .prepare(
      "SELECT id, startNs - @origin, endNs - @origin FROM STEP_TIME WHERE typeof(id) = 'integer' AND typeof(startNs) = 'integer' AND typeof(endNs) = 'integer' ORDER BY startNs, id",
    )
    .raw()
    .all({ origin }) as [unknown, unknown, unknown][];
  const out: DbStep[] = [];
  for (const [id, start, end] of rows) {
    if (
      typeof id === 'number' &&
      Number.isSafeInteger(id) &&
      typeof start === 'number' &&
      typeof end === 'number' &&
      Number.isSafeInteger(start) &&
      Number.isSafeInteger(end) &&
      end >= start
    ) {
      out.push({ id, startNs: start, endNs: end });
    }
  }
  return out;
}

export function readRankMap(db: SqliteDatabase, s: DbSchema): Map<number, number> {
  const out = new Map<number, number>();
  if (!s.rankMap) return out;
  for (const [rank, device] of db.prepare('SELECT rankId, deviceId FROM RANK_DEVICE_MAP').raw().all() as [unknown, unknown][]) {
    // A run that is not distributed writes rank -1 (or UINT32_MAX): no rank.
    if (
      typeof rank === 'number' &&
      typeof device === 'number' &&
      Number.isSafeInteger(device) &&
      Number.isSafeInteger(rank) &&
      rank >= 0 &&
      rank < 0xffffffff
    ) {
      out.set(device, rank);
    }
  }
  return out;
}

/** The step whose window [start, end] holds `t` (the last one starting at or before it), or null. */
function stepOf(steps: DbStep[], t: number): number | null {
  let lo = 0;
  let hi = steps.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (steps[mid]!.startNs <= t) {
      found = mid;
      lo = mid + 1;
    } else {
      hi = mid - 1;
    }
  }
  if (found < 0) return null;
  const s = steps[found]!;
  return t <= s.endNs ? s.id : null;
}

export function intOrNull(v: unknown): number | null {
  return typeof v === 'number' && Number.isSafeInteger(v) ? v : null;
}

/**
 * Why a kernel's deviceId puts it on no rank (the start of its skip message), or null. `column`: its table's deviceId
 * column, null when it has none (then the kernel is on the db's own device). A value that is no device number (-1,
 * NULL, text, 1.5) is on no device; a device that `placing` (RANK_DEVICE_MAP, where it maps a device of the db's
 * kernels) leaves out is on no rank (its number is a device's, not a rank's). Put on the device of the row before, or made a rank of its number, the
 * kernel would count where nothing says it ran (FORMATS.md §12: the rank is RANK_DEVICE_MAP's for TASK.deviceId).
 */
export function deviceProblem(raw: unknown, column: string | null, placing: ReadonlyMap<number, number>): string | null {
  if (column === null) return null;
  const d = intOrNull(raw);
  if (d === null || d < 0) {
    const value =
      typeof raw === 'number' ? String(raw) : raw === null ? 'NULL' : typeof raw === 'string' ? JSON.stringify(raw.slice(0, 20)) : 'not a number';
    return `its ${column} is ${value}, not a device number (0, 1, …)`;
  }
  if (placing.size === 0 || placing.has(d)) return null;
  const mapped = [...placing].slice(0, 4).map(([device, rank]) => `device ${device} to rank ${rank}`);
  return `its ${column} ${d} is not in RANK_DEVICE_MAP, which maps ${mapped.join(', ')}${placing.size > 4 ? ', …' : ''}: it is on no rank`;
}

/** The columns of the fields read through StringTable.field, as `TABLE.column` (for the reader's warning). */
export function fieldColumns(s: DbSchema): { type: string; commType: string; core: string; shapes: string } {
  const of = (table: string, c: string | null): string => `${table}.${c ?? '?'}`;
  return {
    type: of('COMPUTE_TASK_INFO', s.compute.opType),
    commType: of(s.communication?.table ?? 'COMMUNICATION_OP', s.communication?.opType ?? null),
    core: of('COMPUTE_TASK_INFO', s.compute.core),
    shapes: of('COMPUTE_TASK_INFO', s.compute.shapes),
  };
}

export function shownId(v: unknown): string {
  return typeof v === 'number' || typeof v === 'bigint' ? `id ${String(v)}` : v === null ? 'NULL' : 'a value that is not an id';
}

/** Shapes cells hold a value wrapped in literal quotes (`"32,3,224,224"`), as in the text export: strip them. */
export function unquoted(s: string | null): string | null {
  if (s === null) return null;
  const t = s.trim();
  return t.length >= 2 && t.startsWith('"') && t.endsWith('"') ? t.slice(1, -1) : t;
}

/** STRING_IDS, looked up once per id. */
export class StringTable {
  private readonly cache = new Map<number, string | null>();
  private readonly stmt: SqliteStatement | null;

  constructor(db: SqliteDatabase) {
    let stmt: SqliteStatement | null = null;
    try {
      stmt = db.prepare('SELECT CAST(value AS BLOB) FROM STRING_IDS WHERE id = ?').raw();
    } catch {
      // No STRING_IDS: every id is unknown (a name then skips its row, with a warning).
    }
    this.stmt = stmt;
  }

  /** Rows by column whose id was not there (see field). */
  readonly dangling = new Map<string, { rows: number; first: string }>();

  /**
   * The string of a field other than the name (whose rows are skipped instead): an id that is not there reads
   * `(unknown id N)`, and `rows` rows are counted under `column` in `dangling`. Null for NULL only.
   */
  field(v: unknown, column: string, rows = 1): string | null {
    const s = this.get(v);
    if (s !== null || v === null || v === undefined) return s;
    const shown = `(unknown ${shownId(v)})`;
    const d = this.dangling.get(column);
    if (d === undefined) this.dangling.set(column, { rows, first: shown });
    else d.rows += rows;
    return shown;
  }

  /** The string of an id; a value stored as text is its own string; null for NULL, a negative id or one not there. */
  get(v: unknown): string | null {
    if (typeof v === 'string') return v;
    if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) return null;
    const hit = this.cache.get(v);
    if (hit !== undefined) return hit;
    let s: string | null = null;
    if (this.stmt !== null) {
      const row = this.stmt.get(v) as [unknown] | undefined;
      const b = row?.[0];
      if (b instanceof Uint8Array) s = decodeKeepingBytes(b, 0, b.length);
    }
    this.cache.set(v, s);
    return s;
  }
}
