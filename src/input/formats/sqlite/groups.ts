// The db reader for questions that need no order (summary, diff, check, rules): SQLite groups the kernels itself
// and hands over one cell per (kind, name, type, core, shapes, device, step) with its count, time, min and max,
// so JavaScript sees a few rows per group rather than one per kernel (handing each of 1M rows to JavaScript
// costs several times SQLite's own join). The figures are those of readDbExport's kernels, summed exactly:
// SQLite sums the integer nanoseconds; the step is the same STEP_TIME window (the last one starting at or before
// the kernel's start, when it has not ended by then).
//
// The checks that a row can be read are made on each group's aggregates (integer times in every row, no negative
// or overlong duration, offsets within 2^53): a group that fails one is read again row by row, so that each
// unreadable row is named in a warning and the others still count. The steps are a tree of CASEs over the
// STEP_TIME windows (stepExpression), not a subquery per row.

import {
  MAX_TICKS,
  OUT_OF_RANGE,
  TICKS_PER_NS,
  COMMUNICATION_CORE,
  deviceProblem,
  fieldColumns,
  finish,
  intOrNull,
  lazyLibrary,
  noDeviceOf,
  shownId,
  startRead,
  unquoted,
  type CommunicationDevice,
  type DbInfo,
  type DbStep,
  type ReadOptions,
  type RowPlace,
} from './reader.js';
import type { SqliteDatabase, SqliteStatement } from './library.js';
import { openDb, sqliteFailure } from './open.js';
import { ident, probeSchema, type DbSchema } from './schema.js';

/** The kernels of one (kind, name, type, core, shapes, device, step). */
export interface DbGroup {
  kind: 'compute' | 'communication';
  /** As in DbKernel. */
  name: string;
  type: string | null;
  core: string | null;
  shapes: string | null;
  device: number | null;
  step: number | null;
  count: number;
  /** Sum of durations, ticks of 0.1 ns (exact). */
  ticks: number;
  minTicks: number;
  maxTicks: number;
}

export interface DbGroupSink {
  group(g: DbGroup): void;
  /** `rows` rows were not read: `where` names them (`TASK row 12`), `message` says why, `place` whose rows they are. */
  skip(where: string, message: string, rows: number, place: RowPlace): void;
}

/** Durations longer than this many ns are past the exact sums of 2^51 ticks. */
const MAX_DUR_NS = Math.floor(MAX_TICKS / TICKS_PER_NS) - 1;
/** Offsets from the earliest start from this on are not exact doubles. */
const MAX_REL_NS = 2 ** 53;

const G = { name: 0, type: 1, core: 2, shapes: 3, device: 4, step: 5, count: 6, sum: 7, min: 8, max: 9, first: 10, last: 11, ints: 12 } as const;

/**
 * The step of a start `s` (an SQL expression) as SQL: the last window starting at or before it, when it has not
 * ended by then (DbStep order: by start, then id). A tree of CASEs over the windows' own numbers, so that each
 * row costs log2(steps) comparisons and no subquery.
 */
export function stepExpression(s: string, steps: DbStep[], origin: bigint): string {
  if (steps.length === 0) return 'NULL';
  const at = (i: number): { start: string; end: string; id: number } => ({
    start: String(origin + BigInt(steps[i]!.startNs)),
    end: String(origin + BigInt(steps[i]!.endNs)),
    id: steps[i]!.id,
  });
  const node = (lo: number, hi: number): string => {
    if (lo === hi) {
      const w = at(lo);
      return `CASE WHEN ${s} >= ${w.start} AND ${s} <= ${w.end} THEN ${w.id} END`;
    }
    const mid = (lo + hi + 1) >> 1;
    return `CASE WHEN ${s} >= ${at(mid).start} THEN (${node(mid, hi)}) ELSE (${node(lo, mid - 1)}) END`;
  };
  return node(0, steps.length - 1);
}

/** The kernel rows of one table as (name, type, core, shapes, device, start, end, rowid) for a FROM clause. */
function source(s: DbSchema, kind: 'compute' | 'communication', withShapes: boolean): { sql: string; start: string; end: string } | null {
  const col = (alias: string, name: string | null): string => (name === null ? 'NULL' : `${alias}.${ident(name)}`);
  if (kind === 'compute') {
    const t = s.task;
    const c = s.compute;
    return {
      sql:
        `${col('c', c.name)}, ${col('c', c.opType)}, ${col('c', c.core)}, ${withShapes ? col('c', c.shapes) : 'NULL'}, ${col('t', t.device)} ` +
        `FROM TASK t JOIN COMPUTE_TASK_INFO c ON c.${ident(c.key)} = t.${ident(t.key)}`,
      start: col('t', t.start),
      end: col('t', t.end),
    };
  }
  const o = s.communication;
  if (o === null) return null;
  return {
    sql: `${col('o', o.name)}, ${col('o', o.opType)}, NULL, NULL, ${col('o', o.device)} FROM ${ident(o.table)} o`,
    start: col('o', o.start),
    end: col('o', o.end),
  };
}

function groupQuery(src: { sql: string; start: string; end: string }, step: string): string {
  const { start: s, end: e } = src;
  const [cols, from] = splitFrom(src.sql);
  return (
    // The sum takes the durations a clean group can hold only (a group with another is read row by row), so that
    // no hostile duration makes SQLite's integer sum overflow and fail the whole read.
    `SELECT ${cols}, ${step}, count(*), sum(CASE WHEN ${e} - ${s} BETWEEN 0 AND ${MAX_DUR_NS} THEN ${e} - ${s} ELSE 0 END), ` +
    `min(${e} - ${s}), max(${e} - ${s}), min(${s} - @origin), max(${e} - @origin), ` +
    `sum(typeof(${s}) = 'integer' AND typeof(${e}) = 'integer') ${from} GROUP BY 1, 2, 3, 4, 5, 6`
  );
}

/** The rows of one group, one by one: for a group that holds a row that cannot be read. */
function rowsQuery(src: { sql: string; start: string; end: string }, step: string, alias: string): string {
  const { start: s, end: e } = src;
  const [cols, from] = splitFrom(src.sql);
  const keys = cols.split(', ');
  const where = keys.map((k, i) => `${k} IS @k${i}`).join(' AND ');
  return (
    `SELECT ${alias}.rowid, typeof(${s}) = 'integer' AND typeof(${e}) = 'integer', ${e} - ${s}, ${s} - @origin, ${e} - @origin ` +
    `${from} WHERE ${where} AND ${step} IS @step ORDER BY ${alias}.rowid`
  );
}

function splitFrom(sql: string): [string, string] {
  const i = sql.indexOf(' FROM ');
  return [sql.slice(0, i), sql.slice(i + 1)];
}

/**
 * Reads the db at `path` into `sink` as groups (see the top of this file); returns what it held, as
 * readDbExport does. The order of the groups is not defined.
 */
export function readDbGroups(path: string, sink: DbGroupSink, options: Omit<ReadOptions, 'order'> = {}): DbInfo {
  const file = options.display ?? path;
  const db = openDb(path, file, options.library ?? lazyLibrary(file), options);
  try {
    const schema = probeSchema(db.rows, file);
    return { ...readGroups(db.rows, db.lookups, schema, file, sink, options, [...schema.traits, ...db.traits]), bytes: db.header.bytes };
  } catch (e) {
    throw sqliteFailure(file, e);
  } finally {
    db.close();
  }
}

function readGroups(
  rows: SqliteDatabase,
  lookups: SqliteDatabase,
  schema: DbSchema,
  file: string,
  sink: DbGroupSink,
  options: Omit<ReadOptions, 'order'>,
  traits: string[],
): DbInfo {
  const { withShapes, originNs, steps, rankOf, placing, strings, devices, info } = startRead(rows, lookups, schema, file, options, traits);
  if (originNs === null) return info;
  const communicationGroups: DbGroup[] = [];
  let commDevice: CommunicationDevice | null = null;
  // Communication rows without a deviceId ran on the db's device, when its compute kernels ran on one: they are
  // read first, so their devices are known (no scan of TASK, as communicationDevice makes).
  const ranOn = (): CommunicationDevice => {
    commDevice ??=
      devices.size > 1 ? { several: [...devices].sort((a, b) => a - b).slice(0, 5) } : { device: devices.size === 1 ? [...devices][0]! : null };
    return commDevice;
  };
  /** Whose the rows of a group are (RowPlace): its device's, the file's, or no rank's. */
  const placeOf = (r: unknown[], communication: boolean): RowPlace => {
    const column = communication ? schema.communication!.device : schema.task.device;
    if (column !== null) return deviceProblem(r[G.device], column, placing) === null ? intOrNull(r[G.device])! : 'none';
    if (!communication) return 'file';
    const on = ranOn();
    return 'several' in on ? 'none' : (on.device ?? 'file');
  };
  let group: unknown[] = [];
  let kind: 'compute' | 'communication' = 'compute';
  const skip = (where: string, message: string, count: number): void => {
    info.skipped += count;
    const place = placeOf(group, kind === 'communication');
    // A device of skipped rows only is a device of the db all the same (its rank holds them), as readDbExport counts it.
    if (typeof place === 'number') devices.add(place);
    sink.skip(where, message, count, place);
  };
  const columns = fieldColumns(schema);
  for (kind of ['compute', 'communication'] as const) {
    const src = source(schema, kind, withShapes);
    if (src === null) continue;
    const table = kind === 'compute' ? 'TASK' : schema.communication!.table;
    const step = stepExpression(src.start, steps, originNs);
    const result = rows.prepare(groupQuery(src, step)).raw().all({ origin: originNs }) as unknown[][];
    let split: SqliteStatement | null = null;
    for (const r of result) {
      group = r;
      const count = r[G.count] as number;
      const clean =
        r[G.ints] === count &&
        (r[G.min] as number) >= 0 &&
        (r[G.max] as number) <= MAX_DUR_NS &&
        (r[G.first] as number) >= 0 &&
        Math.abs(r[G.first] as number) < MAX_REL_NS &&
        Math.abs(r[G.last] as number) < MAX_REL_NS;
      if (clean) {
        emit(r, count, r[G.sum] as number, r[G.min] as number, r[G.max] as number, r[G.first] as number, r[G.last] as number);
        continue;
      }
      // A group with a row that cannot be read: its rows one by one (only damaged or hostile files come here).
      split ??= rows.prepare(rowsQuery(src, step, kind === 'compute' ? 't' : 'o')).raw();
      const params: Record<string, unknown> = { origin: originNs, step: r[G.step] };
      for (let i = 0; i < 5; i++) params[`k${i}`] = r[i];
      let n = 0;
      let sum = 0;
      let min = Infinity;
      let max = -Infinity;
      let first = Infinity;
      let last = -Infinity;
      for (const [rowid, ints, dur, rel, end] of split.all(params) as [unknown, unknown, number, number, number][]) {
        const where = `${table} row ${String(rowid)}`;
        if (ints !== 1) skip(where, 'its start or end is not integer nanoseconds; row skipped', 1);
        else if (dur < 0) skip(where, `it ends ${-dur} ns before it starts; row skipped`, 1);
        else if (dur > MAX_DUR_NS) skip(where, `its duration (${dur} ns) is more than kprof sums exactly (2^51 ticks of 0.1 ns); row skipped`, 1);
        else if (!(rel >= 0 && Math.abs(rel) < MAX_REL_NS && Math.abs(end) < MAX_REL_NS)) skip(where, OUT_OF_RANGE, 1);
        else {
          n++;
          sum += dur;
          if (dur < min) min = dur;
          if (dur > max) max = dur;
          if (rel < first) first = rel;
          if (end > last) last = end;
        }
      }
      if (n > 0) emit(r, n, sum, min, max, first, last);
    }

    function emit(r: unknown[], count: number, sum: number, min: number, max: number, first: number, last: number): void {
      const communication = kind === 'communication';
      const name = strings.get(r[G.name]);
      if (name === null) {
        const one = count === 1;
        skip(
          `${table} (${count} ${one ? 'row' : 'rows'})`,
          `${one ? 'its' : 'their'} name (${shownId(r[G.name])}) is not in STRING_IDS; ${one ? 'row' : 'rows'} skipped`,
          count,
        );
        return;
      }
      if (!Number.isSafeInteger(sum * TICKS_PER_NS)) {
        skip(`${table} (${count} rows of ${name})`, 'their durations add up past what kprof sums exactly; rows skipped', count);
        return;
      }
      const noRank = deviceProblem(r[G.device], communication ? schema.communication!.device : schema.task.device, placing);
      if (noRank !== null) {
        const one = count === 1;
        skip(`${table} (${count} ${one ? 'row' : 'rows'} of ${name})`, `${noRank}; ${one ? 'row' : 'rows'} skipped`, count);
        return;
      }
      if (communication && schema.communication!.device === null) {
        const on = ranOn();
        if ('several' in on) {
          const one = count === 1;
          skip(`${table} (${count} ${one ? 'row' : 'rows'} of ${name})`, `${noDeviceOf(schema, on.several)}; ${one ? 'row' : 'rows'} skipped`, count);
          return;
        }
      }
      const device = intOrNull(r[G.device]);
      const g: DbGroup = {
        kind,
        name,
        type: strings.field(r[G.type], communication ? columns.commType : columns.type, count),
        core: communication ? COMMUNICATION_CORE : strings.field(r[G.core], columns.core, count),
        shapes: withShapes && !communication ? unquoted(strings.field(r[G.shapes], columns.shapes, count)) : null,
        device,
        step: intOrNull(r[G.step]),
        count,
        ticks: sum * TICKS_PER_NS,
        minTicks: min * TICKS_PER_NS,
        maxTicks: max * TICKS_PER_NS,
      };
      if (communication) info.communication += count;
      else info.compute += count;
      info.answers.names = true;
      info.answers.order = true;
      if (!communication) {
        if (device !== null) devices.add(device);
        if (g.type !== null && g.type !== 'N/A') info.answers.types = true;
        if (g.core !== null && g.core !== 'N/A') info.answers.cores = true;
        if (g.shapes !== null && g.shapes !== 'N/A') info.answers.shapes = true;
      }
      info.spanNs = info.spanNs === null ? { first, last } : { first: Math.min(info.spanNs.first, first), last: Math.max(info.spanNs.last, last) };
      if (communication) communicationGroups.push(g);
      else sink.group(g);
    }
  }
  // Communication rows have no device of their own before schema 1.2.0: they ran on the db's device, when the
  // compute kernels ran on one (on several, emit skipped them, as readDbExport does: communicationDevice).
  // (Set in emit: the compiler cannot tell that a closure assigned it.)
  const settled = commDevice as CommunicationDevice | null;
  for (const g of communicationGroups) {
    if (settled !== null && 'device' in settled) g.device ??= settled.device;
    if (g.device !== null) devices.add(g.device);
    sink.group(g);
  }
  finish(info, devices, rankOf);
  return info;
}
