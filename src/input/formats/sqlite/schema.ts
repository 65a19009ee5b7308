// Which schema a db export has, probed from its tables and columns (`pragma table_info`), as msprof-analyze and
// MindStudio Insight do: the generations of FORMATS.md §12 differ in table and column names, and a db that
// MindStudio Insight opened carries extra columns (`depth`, `waitNs`) and tables. Only the names known here are
// ever put into SQL, so a hostile file's own names never are.

import { inputError } from '../../../util/errors.js';
import { shown } from '../../../util/inputText.js';
import type { SqliteDatabase } from './library.js';

/** The columns of TASK the reader uses. */
export interface TaskColumns {
  start: string;
  end: string;
  /** The join key with COMPUTE_TASK_INFO: globalTaskId (or correlationId in the early previews). */
  key: string;
  stream: string | null;
  taskType: string | null;
  device: string | null;
}

/** The columns of COMPUTE_TASK_INFO the reader uses. Every string column holds an id into STRING_IDS. */
export interface ComputeColumns {
  key: string;
  name: string;
  opType: string | null;
  /** The accelerator core (`taskType`: AI_CORE, AI_VECTOR_CORE, MIX_AIV …). */
  core: string | null;
  shapes: string | null;
  /** blockNum (schema 1.2.0, where `blockDim` means something else), else blockDim, else block_dim. */
  block: string | null;
}

/** The communication table: COMMUNICATION_OP, or COMMUNICATE_OP in torch_npu 6.0.rc1. */
export interface CommunicationColumns {
  table: 'COMMUNICATION_OP' | 'COMMUNICATE_OP';
  name: string;
  opType: string | null;
  start: string;
  end: string;
  device: string | null;
}

export interface DbSchema {
  producer: 'torch_npu' | 'msprof';
  /** META_DATA's SCHEMA_VERSION; null when there is no META_DATA (before torch_npu 6.0.rc3) or no such row. */
  schemaVersion: string | null;
  task: TaskColumns;
  compute: ComputeColumns;
  communication: CommunicationColumns | null;
  /** STEP_TIME(id, startNs, endNs) is there (torch_npu 6.0.rc2 and later; msprof dbs have none). */
  steps: boolean;
  /** RANK_DEVICE_MAP(rankId, deviceId) is there. */
  rankMap: boolean;
  /** Human-readable traits of the generation, for inspect. */
  traits: string[];
}

/** Tables of `analysis.db` (torch_npu / msprof-analyze statistics, no kernels). */
const ANALYSIS_TABLES = ['StepTraceTime', 'CommAnalyzerTime', 'CommAnalyzerBandwidth', 'CommAnalyzerMatrix'];

/** An identifier quoted for SQL (only names matched against the ones known here reach this). */
export function ident(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/**
 * Table names of the db, by their lower-case spelling (SQLite's names are case-insensitive). Views are left out:
 * an export has none, and a view (a recursive one, say) could produce rows without end.
 */
export function tableNames(db: SqliteDatabase): Map<string, string> {
  const rows = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").raw().all() as [unknown][];
  const out = new Map<string, string>();
  for (const [name] of rows) if (typeof name === 'string') out.set(name.toLowerCase(), name);
  return out;
}

function columnNames(db: SqliteDatabase, table: string): Map<string, string> {
  const rows = db.prepare(`PRAGMA table_info(${ident(table)})`).all() as { name?: unknown }[];
  const out = new Map<string, string>();
  for (const r of rows) if (typeof r.name === 'string') out.set(r.name.toLowerCase(), r.name);
  return out;
}

function pick(cols: Map<string, string>, ...names: string[]): string | null {
  for (const n of names) {
    const c = cols.get(n.toLowerCase());
    if (c !== undefined) return c;
  }
  return null;
}

/** A db is an `analysis.db` (statistics of a run, no kernels) when it has their tables and no TASK. */
export function isAnalysisDb(tables: Map<string, string>): boolean {
  return !tables.has('task') && ANALYSIS_TABLES.some((t) => tables.has(t.toLowerCase()));
}

function listing(names: Iterable<string>): string {
  const all = [...names].sort();
  const head = all.slice(0, 12).map((n) => shown(n));
  return all.length === 0 ? '(none)' : head.join(', ') + (all.length > 12 ? ` … (${all.length} in all)` : '');
}

/** Probes the schema of `db` (shown as `file`): an input error when it is not a kernel export kprof can read. */
export function probeSchema(db: SqliteDatabase, file: string): DbSchema {
  const tables = tableNames(db);
  if (isAnalysisDb(tables)) {
    throw inputError(
      `${file}: is an analysis.db (tables ${listing([...tables.values()])}): it holds step and communication statistics, no kernels. ` +
        'Read the ascend_pytorch_profiler*.db (or msprof_*.db) of the same run, or its folder.',
    );
  }
  const taskTable = tables.get('task');
  const computeTable = tables.get('compute_task_info');
  if (taskTable === undefined || computeTable === undefined) {
    const views = new Set((db.prepare("SELECT lower(name) FROM sqlite_master WHERE type = 'view'").raw().all() as [unknown][]).map(([n]) => n));
    const lacks = [taskTable === undefined ? 'TASK' : '', computeTable === undefined ? 'COMPUTE_TASK_INFO' : '']
      .filter(Boolean)
      .map((t) => (views.has(t.toLowerCase()) ? `${t} (a view here: views are not read)` : t))
      .join(' and ');
    throw inputError(
      `${file}: an SQLite database without ${lacks}, so not a torch_npu or msprof kernel export; found tables: ${listing([...tables.values()])}. ` +
        'Pass an ascend_pytorch_profiler*.db or msprof_*.db.',
    );
  }
  const traits: string[] = [];
  const tc = columnNames(db, taskTable);
  const cc = columnNames(db, computeTable);
  const start = pick(tc, 'startNs', 'start');
  const end = pick(tc, 'endNs', 'end');
  const key = ['globalTaskId', 'correlationId'].find((k) => tc.has(k.toLowerCase()) && cc.has(k.toLowerCase())) ?? null;
  const name = pick(cc, 'name');
  const missingTask = [start === null ? 'startNs' : '', end === null ? 'endNs' : '', key === null ? 'globalTaskId' : ''].filter(Boolean);
  if (missingTask.length > 0 || name === null) {
    const what = [...missingTask.map((c) => `TASK.${c}`), name === null ? 'COMPUTE_TASK_INFO.name' : ''].filter(Boolean).join(', ');
    throw inputError(
      `${file}: the kernel tables lack ${what}; TASK has ${listing(tc.values())}, COMPUTE_TASK_INFO has ${listing(cc.values())}. ` +
        'Expected a torch_npu or msprof SQLite export (FORMATS.md §12): is it from a newer version?',
    );
  }
  if (start === 'start' || end === 'end') traits.push('TASK(start, end): an early preview schema');
  const task: TaskColumns = {
    start: start!,
    end: end!,
    key: tc.get(key!.toLowerCase())!,
    stream: pick(tc, 'streamId'),
    taskType: pick(tc, 'taskType'),
    device: pick(tc, 'deviceId'),
  };
  const block = pick(cc, 'blockNum') ?? pick(cc, 'blockDim', 'block_dim');
  if (block !== null) traits.push(`block column ${block}`);
  const compute: ComputeColumns = {
    key: cc.get(key!.toLowerCase())!,
    name,
    opType: pick(cc, 'opType'),
    core: pick(cc, 'taskType'),
    shapes: pick(cc, 'inputShapes'),
    block,
  };
  let communication: CommunicationColumns | null = null;
  for (const t of ['COMMUNICATION_OP', 'COMMUNICATE_OP'] as const) {
    const actual = tables.get(t.toLowerCase());
    if (actual === undefined) continue;
    const oc = columnNames(db, actual);
    const n = pick(oc, 'opName');
    const s = pick(oc, 'startNs', 'start');
    const e = pick(oc, 'endNs', 'end');
    if (n === null || s === null || e === null) {
      traits.push(`${t} without opName/startNs/endNs: communication not read`);
      break;
    }
    communication = { table: t, name: n, opType: pick(oc, 'opType'), start: s, end: e, device: pick(oc, 'deviceId') };
    if (t === 'COMMUNICATE_OP') traits.push('communication in COMMUNICATE_OP (torch_npu 6.0.rc1)');
    break;
  }
  const stepTable = tables.get('step_time');
  let steps = false;
  if (stepTable !== undefined) {
    const sc = columnNames(db, stepTable);
    steps = sc.has('id') && sc.has('startns') && sc.has('endns');
    if (!steps) traits.push('STEP_TIME without id/startNs/endNs: no steps');
  } else {
    traits.push('no STEP_TIME: no steps');
  }
  const rankTable = tables.get('rank_device_map');
  const rankMap = rankTable !== undefined && ((c) => c.has('rankid') && c.has('deviceid'))(columnNames(db, rankTable));
  let schemaVersion: string | null = null;
  const meta = tables.get('meta_data');
  if (meta !== undefined) {
    const mc = columnNames(db, meta);
    if (mc.has('name') && mc.has('value')) {
      const row = db
        .prepare(`SELECT value FROM ${ident(meta)} WHERE name = 'SCHEMA_VERSION' LIMIT 1`)
        .raw()
        .get() as [unknown] | undefined;
      if (row !== undefined && row[0] !== null && row[0] !== undefined) schemaVersion = String(row[0]);
    }
    traits.unshift(schemaVersion !== null ? `schema version ${schemaVersion}` : 'META_DATA without SCHEMA_VERSION');
  } else {
    traits.unshift('no META_DATA (a schema before torch_npu 6.0.rc3, or msprof)');
  }
  const producer = ['pytorch_api', 'rank_device_map', 'step_time'].some((t) => tables.has(t)) ? 'torch_npu' : 'msprof';
  return { producer, schemaVersion, task, compute, communication, steps, rankMap, traits };
}
