// The db export as an input format (registry id `db`): one ascend_pytorch_profiler*.db or msprof_*.db into the
// rank's sink, the way readTable reads a CSV export.
//
// Two paths, by what the sinks want:
// - grouped (summary, diff, check, rules: no sink wants start times, none sits beside the rank's own): SQLite
//   groups the kernels per (name, type, core, shapes, device, step) itself (groups.ts) and each group comes to
//   the sink as one aggregated cell of its step. Handing each of 1M kernels to JavaScript would cost several
//   times SQLite's own join.
// - one by one (inspect's span, a sequence view beside the accumulator): every kernel in time order (reader.ts),
//   with its exact start and its stream.
// Either way the figures are the same exact integers (ns × 10 ticks). The rows of several devices (an msprof db
// of a collection) go to one target per device id, as an msprof op_summary's do, each named the rank
// RANK_DEVICE_MAP gives the device (split.rankOf).
//
// What the sink is told of each kernel goes through addOne(), the one place that knows the sink's method.

import { basename } from 'node:path';
import type { SourceFile } from '../../../model/model.js';
import {
  besides,
  MAX_NAME_BYTES,
  NO_STREAM,
  nameTooLong,
  type KernelKind,
  type KernelSink,
  type RankTarget,
  type RowLog,
  type SourceFacts,
} from '../../sink.js';
import { normaliseName } from '../names.js';
import { formatOf, sourceFacts, type KernelReadOptions, type KernelTarget } from '../registry.js';
import { readDbGroups, type DbGroup } from './groups.js';
import { readDbExport, TICKS_PER_NS, type DbInfo, type DbKernel, type RowPlace } from './reader.js';
import type { DbSchema } from './schema.js';

/** The registry id of the db export. */
export const DB_FORMAT = 'db';

/** The column whose device numbers split a db's rows into ranks (readRank names it in a rank's source and the file's traits). */
const DEVICE_COLUMN = 'TASK.deviceId';

/** A rank's target as this reader uses it: told of the file (begin) once, with the kernel ids bound to it. */
interface Target {
  sink: KernelSink;
  log: RowLog;
  begun: boolean;
  bound: Set<number>;
}

/**
 * One kernel to the sink: its start in exact ticks after the origin the sink was told (the file's earliest start,
 * floored to a whole µs), and its stream.
 */
function addOne(sink: KernelSink, id: number, k: DbKernel, origin: Origin): void {
  const startTicks = sink.wantsStarts ? (k.startNs + origin.restNs) * TICKS_PER_NS : Number.NaN;
  const stream = sink.wantsStreams && k.stream !== null && k.stream >= -2147483648 && k.stream <= 2147483647 ? k.stream : NO_STREAM;
  sink.addKernel(id, k.step, k.ticks, startTicks, stream);
}

/** The earliest start as whole µs (the sink's origin) and the ns past them (both exact). */
interface Origin {
  us: number;
  restNs: number;
}

/** Reads the db at `path` into `into` (the rank's record); returns what it found. Input errors name the file. */
export async function readDb(path: string, into: KernelTarget, options: KernelReadOptions): Promise<SourceFile> {
  const answers = formatOf(DB_FORMAT).answers;
  const beside = options.beside ?? [];
  const oneByOne = into.wantsStarts || into.wantsStreams || beside.length > 0;
  const main: Target = { sink: besides(into, beside), log: into, begun: false, bound: new Set() };
  const byLog = new Map<RowLog, Target>([[into, main]]);
  let facts: SourceFacts | null = null;
  let origin: Origin = { us: 0, restNs: 0 };
  let current = main;
  const targetOf = (device: number | null): Target => {
    if (device === null || options.split === undefined) return current;
    // The devices are TASK's (COMMUNICATION_OP.deviceId, from schema 1.2.0, names the same): messages name that column.
    const t: RankTarget = options.split.targetFor(device, DEVICE_COLUMN);
    let mine = byLog.get(t.log);
    if (mine === undefined) {
      mine = { sink: t.sink, log: t.log, begun: false, bound: new Set() };
      byLog.set(t.log, mine);
    }
    current = mine;
    return mine;
  };
  let originKnown = false;
  const begun = (t: Target): Target => {
    if (!t.begun) {
      t.begun = true;
      t.sink.begin(facts!);
      if (originKnown && t.sink.wantsStarts) t.sink.origin(origin.us);
    }
    return t;
  };
  let schema: DbSchema | null = null;
  const onStart = (s: DbSchema, originNs: bigint | null): void => {
    schema = s;
    facts = sourceFacts(
      path,
      answers,
      { name: true, core: s.compute.core !== null, shapes: s.compute.shapes !== null, steps: s.steps, starts: true, streams: s.task.stream !== null },
      options.withShapes,
    );
    // Unix ns floored to whole µs (a negative time floors down too): below 2^53, and the rest is 0–999 ns.
    if (originNs !== null) {
      const us = originNs / 1000n - (originNs < 0n && originNs % 1000n !== 0n ? 1n : 0n);
      origin = { us: Number(us), restNs: Number(originNs - us * 1000n) };
      originKnown = true;
    }
    begun(main);
  };
  // A skipped row is counted where it belongs (RowPlace): on its device's rank, on the file's one rank, or, when
  // its device cannot be told, on no rank (the file's rowsOnNoRank); never on the rank of the row read before it.
  const logOf = (place: RowPlace): RowLog => {
    if (typeof place === 'number') return begun(targetOf(place)).log;
    if (place === 'none' && options.split?.noRank !== undefined) return options.split.noRank;
    return main.log;
  };
  const skip = (where: string, message: string, rows: number, place: RowPlace): void => {
    const log = logOf(place);
    const row = /row (\d+)$/.exec(where);
    log.rowsRead += rows;
    for (let i = 0; i < rows; i++) log.skip(path, row ? Number(row[1]) : 0, `${where}: ${message}`);
  };
  // A name or type over MAX_NAME_BYTES: the message of its skipped rows, else null.
  const tooLong = (name: string, type: string | null): string | null => {
    for (const [what, text] of [
      ['its name', name],
      ['its type', type],
    ] as const) {
      if (text === null || text.length * 3 <= MAX_NAME_BYTES) continue;
      const bytes = Buffer.byteLength(text);
      if (bytes > MAX_NAME_BYTES) return nameTooLong(what, bytes);
    }
    return null;
  };
  const kinds = new Map<string, { id: number; kind: KernelKind }>();
  const kindOf = (name: string, type: string | null, core: string | null, shapes: string | null): { id: number; kind: KernelKind } => {
    // Each field with its length first, so that no text in a field (a NUL, say) can make two kinds one.
    const key = [name, type, core, shapes].map((f) => (f === null ? '-' : `${f.length}:${f}`)).join('|');
    let k = kinds.get(key);
    if (k === undefined) {
      k = { id: kinds.size, kind: { name: normaliseName(name), rawName: name, type, core, shapes } };
      kinds.set(key, k);
    }
    return k;
  };
  const common = { display: path, shapes: options.withShapes, onStart };
  let info: DbInfo;
  if (oneByOne) {
    info = readDbExport(
      path,
      {
        kernel(k) {
          const t = begun(targetOf(k.device));
          const long = tooLong(k.name, k.type);
          if (long !== null) {
            skip('a kernel', long, 1, k.device ?? 'file');
            return;
          }
          const { id, kind } = kindOf(k.name, k.type, k.core, k.shapes);
          if (!t.bound.has(id)) {
            t.bound.add(id);
            t.sink.bind(id, kind);
          }
          t.log.rowsRead++;
          addOne(t.sink, id, k, origin);
        },
        skip: (where, message, place) => skip(where, message, 1, place),
      },
      { ...common, order: 'time' },
    );
  } else {
    info = readDbGroups(
      path,
      {
        group(g: DbGroup) {
          const t = begun(targetOf(g.device));
          const long = tooLong(g.name, g.type);
          if (long !== null) {
            skip(`${g.count === 1 ? 'a kernel' : `${g.count} kernels of one name`}`, long, g.count, g.device ?? 'file');
            return;
          }
          t.log.rowsRead += g.count;
          t.sink.addAggregated(
            kindOf(g.name, g.type, g.core, g.shapes).kind,
            { count: g.count, ticks: g.ticks, minTicks: g.minTicks, maxTicks: g.maxTicks },
            g.step,
          );
        },
        skip,
      },
      common,
    );
  }
  for (const [column, d] of info.dangling) {
    const one = d.rows === 1;
    main.log.warn(
      path,
      0,
      `${d.rows} ${one ? 'row' : 'rows'}: ${one ? 'its' : 'their'} ${column} is an id not in STRING_IDS, read as "${d.first}" (each such id apart)`,
    );
  }
  const mapped = info.devices.length === 1 ? info.devices[0]! : null;
  if (mapped !== null && mapped.rank !== null)
    options.ownRank?.(String(mapped.rank), `RANK_DEVICE_MAP of ${basename(path)} (device ${mapped.device})`);
  // Several devices: each is the rank RANK_DEVICE_MAP gives it (FORMATS.md §12), not the rank of its number.
  if (info.devices.length > 1)
    for (const d of info.devices) if (d.rank !== null) options.split?.rankOf?.(d.device, String(d.rank), `RANK_DEVICE_MAP of ${basename(path)}`);
  // Its size as the byte layer opened it (only for inspect and progress).
  const bytes = info.bytes ?? 0;
  options.onBytes?.(bytes);
  return {
    path,
    format: DB_FORMAT,
    traits: traitsOf(info),
    columns: schema === null ? [] : columnsOf(schema),
    missing: schema === null ? [] : missingOf(info, schema),
    bytes,
    rowsRead: info.compute + info.communication + info.skipped,
    rowsSkipped: info.skipped,
  };
}

function traitsOf(info: DbInfo): string[] {
  const out = [`${info.producer} SQLite export`, ...info.traits];
  if (info.steps.length > 0) out.push(`steps from STEP_TIME (${info.steps.length}): host-side ProfilerStep windows`);
  const ranks = info.devices.filter((d) => d.rank !== null);
  if (ranks.length > 0) out.push(`RANK_DEVICE_MAP: ${ranks.map((d) => `device ${d.device} is rank ${d.rank}`).join(', ')}`);
  out.push(`${info.compute} compute kernels, ${info.communication} communication`);
  return out;
}

/** The tables and columns the reader reads, as `TABLE.column`. */
function columnsOf(s: DbSchema): string[] {
  const of = (table: string, cols: (string | null)[]): string[] => cols.filter((c): c is string => c !== null).map((c) => `${table}.${c}`);
  const t = s.task;
  const c = s.compute;
  const o = s.communication;
  return [
    ...of('TASK', [t.start, t.end, t.key, t.stream, t.device]),
    ...of('COMPUTE_TASK_INFO', [c.name, c.opType, c.core, c.shapes, c.block]),
    ...(o === null ? [] : of(o.table, [o.name, o.opType, o.start, o.end, o.device])),
    ...(s.steps ? ['STEP_TIME.id', 'STEP_TIME.startNs', 'STEP_TIME.endNs'] : []),
    ...(s.rankMap ? ['RANK_DEVICE_MAP.rankId', 'RANK_DEVICE_MAP.deviceId'] : []),
  ];
}

function missingOf(info: DbInfo, schema: DbSchema): string[] {
  const out: string[] = [];
  if (schema.compute.core === null) out.push('COMPUTE_TASK_INFO.taskType (the accelerator core)');
  if (schema.compute.shapes === null) out.push('COMPUTE_TASK_INFO.inputShapes');
  if (info.steps.length === 0) out.push('STEP_TIME (no steps)');
  return out;
}
