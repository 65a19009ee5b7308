// Test helpers for the rewrites analysis: kernel_details.csv rows read with csv-parse, in file order, and fed to a
// SequenceRecorder as a reader would.

import { readFileSync } from 'node:fs';
import { parse } from 'csv-parse/sync';
import { SequenceRecorder, startOriginUs, startTicksAfter, tokenKey, type Sequences } from '../src/analysis/rewrites/sequence.js';
import type { GroupBy } from '../src/model/model.js';

export interface Row {
  step: number | null;
  stream: string;
  name: string;
  type: string;
  core: string;
  shapes: string;
  /** Duration in ticks. */
  dur: number;
  /** The start cell as the file wrote it. */
  start: string;
}

const cache = new Map<string, Row[]>();

/** The rows of a kernel_details.csv, in file order. */
export function readRows(path: string): Row[] {
  let rows = cache.get(path);
  if (rows === undefined) {
    const records: Record<string, string>[] = parse(readFileSync(path, 'utf8'), {
      bom: true,
      columns: true,
      skip_empty_lines: true,
      relax_column_count: true,
    });
    rows = records.map((r) => ({
      step: r['Step Id'] === undefined || r['Step Id'].trim() === '' ? null : Number(r['Step Id']),
      stream: (r['Stream ID'] ?? '-').trim() || '-',
      name: r.Name ?? '',
      type: r.Type ?? '',
      core: r['Accelerator Core'] ?? '',
      shapes: r['Input Shapes'] ?? '',
      dur: Math.round(Number(String(r['Duration(us)']).trim()) * 10_000),
      start: String(r['Start Time(us)']),
    }));
    cache.set(path, rows);
  }
  return rows;
}

/** The compute rows of one step, in file order (communication kernels left out). */
export function computeRows(rows: Row[]): Row[] {
  return rows.filter((r) => tokenKey('type', { name: r.name, type: r.type, core: r.core, shapes: r.shapes }) !== null);
}

/** Record ranks of rows (each row's step as it says) into one side's sequences. */
export function record(by: GroupBy, ranks: { rank: string; rows: Row[] }[]): Sequences {
  const rec = new SequenceRecorder(by);
  for (const { rank, rows } of ranks) {
    const r = rec.rank(rank);
    const origin = rows.length > 0 ? startOriginUs(rows[0]!.start) : 0;
    for (const row of rows) {
      const key = tokenKey(by, { name: row.name, type: row.type, core: row.core, shapes: row.shapes });
      if (key === null) {
        rec.skipCommunication();
        continue;
      }
      if (row.step === null) {
        rec.skipWithoutStep();
        continue;
      }
      rec.add(r, rec.stream(row.stream), row.step, rec.table.intern(key), row.dur, startTicksAfter(row.start, origin));
    }
  }
  return rec.finish();
}

/**
 * `steps` copies of one step's rows, with Step Ids `first`, `first + 1` …, start times shifted by whole µs past the
 * previous copy, and `edit(copy, rows)` applied to each copy.
 */
export function repeatSteps(rows: Row[], steps: number, first: number, edit: (copy: number, rows: Row[]) => Row[] = (_, r) => r): Row[] {
  const out: Row[] = [];
  const span = 1_000_000;
  for (let c = 0; c < steps; c++) {
    const copy = rows.map((r) => ({ ...r, step: first + c, start: shift(r.start, c * span) }));
    out.push(...edit(c, copy));
  }
  return out;
}

function shift(cell: string, us: number): string {
  const m = /^(\s*)(\d+)(\.\d*)?(\s*)$/.exec(cell);
  if (m === null) return cell;
  return `${m[1]}${BigInt(m[2]!) + BigInt(us)}${m[3] ?? ''}${m[4]}`;
}

/** A made-up kernel at the place of `at` (same stream, step and start), of duration `dur` ticks. */
export function kernelLike(at: Row, type: string, dur: number): Row {
  return { ...at, name: `aclnn${type}_${type}_${type}`, type, shapes: '', dur };
}

/**
 * A conservation's counts, once its time line is checked to add up: the groups' change is the rewrites' savings plus
 * their time outside the chains plus the steps of one side only (engine ticks or the JSON's µs).
 */
export function countsOf<T extends { time: object }>(c: T): Omit<T, 'time'> {
  const t = c.time as Record<string, number | boolean>;
  const [named, parts] =
    'namedUs' in t
      ? [t.namedUs as number, [t.rewritesUs, t.outsideUs, t.unpairedUs] as number[]]
      : [t.named as number, [t.rewrites, t.outside, t.unpaired] as number[]];
  const sum = parts.reduce((a, b) => a + b, 0);
  if (Math.abs(named - sum) > 1e-6 * Math.max(1, Math.abs(named))) throw new Error(`time line does not add up: ${named} ≠ ${parts.join(' + ')}`);
  const { time: _, ...rest } = c;
  return rest;
}
