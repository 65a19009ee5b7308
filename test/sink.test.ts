// The kernel sink seam: a second sink, a recorder of every kernel, sits beside the accumulator. It must see every
// kernel of a real export in file order with its start time (with batches, with either engine, across buffer
// and batch boundaries), while the accumulator's figures stay what they are without it.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { Accumulator } from '../src/aggregate/accumulator.js';
import { readTable } from '../src/input/formats/readTable.js';
import { resolveInput } from '../src/input/formats/resolve.js';
import type { BesideKind, BesideRequest } from '../src/input/beside.js';
import { readRank } from '../src/input/readRank.js';
import { NO_STEP, type KernelBatch, type KernelKind, type KernelSink, type SourceFacts } from '../src/input/sink.js';
import type { Cell } from '../src/model/model.js';
import { HAS_REAL, REAL, ROOT } from './helpers.js';

interface Recorded {
  name: string | null;
  type: string | null;
  step: number | null;
  ticks: number;
  start: number;
}

/** Keeps every kernel it is given, in order, by the kind its id was bound to then. */
class Recorder implements KernelSink {
  readonly kernels: Recorded[] = [];
  readonly files: SourceFacts[] = [];
  readonly cells: { kind: KernelKind; cell: Cell }[] = [];
  batches = 0;
  private readonly kinds: KernelKind[] = [];

  constructor(readonly wantsStarts: boolean) {}

  begin(facts: SourceFacts): void {
    this.files.push(facts);
  }
  bind(id: number, kind: KernelKind): void {
    this.kinds[id] = kind;
  }
  addBatch(b: KernelBatch): void {
    this.batches++;
    for (let i = 0; i < b.n; i++)
      this.addKernel(b.ids[i]!, b.steps[i] === NO_STEP ? null : b.steps[i]!, b.ticks[i]!, b.starts === null ? Number.NaN : b.starts[i]!);
  }
  addKernel(id: number, step: number | null, ticks: number, start: number): void {
    const k = this.kinds[id]!;
    this.kernels.push({ name: k.rawName, type: k.type, step, ticks, start });
  }
  addAggregated(kind: KernelKind, cell: Cell): void {
    this.cells.push({ kind, cell });
  }
}

/** A beside-sink request that makes a Recorder (kept in `into`) for each accumulator; its result is its kernel count. */
function recorderKind(into: Recorder[]): BesideRequest<null, number> {
  const kind: BesideKind<null, number> = {
    name: 'test-recorder',
    make: () => {
      const r = Object.assign(new Recorder(false), { finish: () => r.kernels.length });
      into.push(r);
      return r;
    },
    pack: (n) => ({ value: n, transfer: [] }),
    unpack: (v) => v as number,
  };
  return { kind, options: null };
}

/** The kernel rows of a file as csv-parse reads them, in file order. */
function reference(path: string): Recorded[] {
  const rows = parse(readFileSync(path), { bom: true, columns: true, skip_empty_lines: true, relax_column_count: true }) as Record<string, string>[];
  return rows.map((r) => ({
    name: r['Name']!.trim(),
    type: r['Type']!.trim(),
    step: r['Step Id']!.trim() === '' ? null : Number(r['Step Id']),
    ticks: Math.round(Number(r['Duration(us)']) * 10_000),
    start: Number(r['Start Time(us)']!.trim()),
  }));
}

function fields(): { name: boolean; type: boolean; core: boolean; shapes: boolean; steps: boolean } {
  return { name: true, type: true, core: true, shapes: false, steps: true };
}

const REAL_FILE = join(REAL, 'msinsight-st-level2/rank_0_ascend_pt/ASCEND_PROFILER_OUTPUT/kernel_details.csv');

describe.skipIf(!HAS_REAL)('a recording sink beside the accumulator', () => {
  const expected = HAS_REAL ? reference(REAL_FILE) : [];

  for (const engine of ['simd', 'js'] as const) {
    for (const bufferSize of [undefined, 4096]) {
      it(`sees every kernel of a real export in file order, with its start (${engine} engine, buffer ${bufferSize ?? 'default'})`, async () => {
        const alone = new Accumulator(fields());
        const fileAlone = await readTable(REAL_FILE, alone, { withShapes: false, engine, bufferSize });
        const acc = new Accumulator(fields());
        const rec = new Recorder(true);
        const file = await readTable(REAL_FILE, acc, { withShapes: false, engine, bufferSize, beside: [rec] });

        expect(expected.length).toBeGreaterThan(2000);
        expect(rec.kernels.map((k) => ({ ...k, start: 0 }))).toEqual(expected.map((k) => ({ ...k, start: 0 })));
        // Start times are parsed to within a quarter of a µs (16 integer digits in a double).
        for (let i = 0; i < expected.length; i++) expect(Math.abs(rec.kernels[i]!.start - expected[i]!.start)).toBeLessThanOrEqual(0.25);
        // The SIMD engine hands the kernels over in batches, starts and all.
        if (engine === 'simd') expect(rec.batches).toBeGreaterThan(0);
        else expect(rec.batches).toBe(0);
        expect(rec.files).toEqual([{ file: REAL_FILE, name: true, core: true, shapes: false, steps: true, ordered: true, starts: true }]);

        // The accumulator's figures are those it has alone; it did not ask for starts, so it has no span.
        expect(file).toEqual(fileAlone);
        expect(acc.toRankData('0', [])).toEqual(alone.toRankData('0', []));
        expect(acc.firstStartUs).toBeNull();
      });
    }
  }

  it('gives the accumulator its span from the same batches when it asks for starts', async () => {
    const starts = expected.map((k) => k.start);
    const ends = expected.map((k) => k.start + k.ticks / 10_000);
    for (const engine of ['simd', 'js'] as const) {
      const acc = new Accumulator(fields(), { span: true });
      await readTable(REAL_FILE, acc, { withShapes: false, engine });
      expect(Math.abs(acc.firstStartUs! - Math.min(...starts))).toBeLessThanOrEqual(0.25);
      expect(Math.abs(acc.lastEndUs! - Math.max(...ends))).toBeLessThanOrEqual(0.25);
    }
  });

  it('through the per-rank job: the rank read with a recorder beside it is the rank read alone', async () => {
    const plan = resolveInput(join(REAL, 'msinsight-st-level2/rank_0_ascend_pt')).ranks[0]!;
    const recorders: Recorder[] = [];
    const withRecorder = await readRank(plan, {
      withShapes: false,
      beside: recorderKind(recorders),
    });
    const alone = await readRank(plan, { withShapes: false });
    expect(withRecorder.map(({ beside, ...r }) => r)).toEqual(alone);
    // What the recorder gave after the rank's last file is the rank's `beside`.
    expect(withRecorder.map((r) => r.beside)).toEqual([[expected.length]]);
    expect(recorders).toHaveLength(1);
    expect(recorders[0]!.kernels.map((k) => [k.name, k.step, k.ticks])).toEqual(expected.map((k) => [k.name, k.step, k.ticks]));
    // It did not ask for starts: none were parsed for it.
    expect(recorders[0]!.kernels.every((k) => Number.isNaN(k.start))).toBe(true);
  });
});

describe('what a sink is told of a file without order', () => {
  it('op_statistic: cells of kernels, no order, no steps, no names', async () => {
    const stat = join(ROOT, 'fixtures/formats/op-statistic-no-device/op_statistic.csv');
    const acc = new Accumulator(fields());
    const rec = new Recorder(true);
    await readTable(stat, acc, { withShapes: false, beside: [rec] });
    expect(rec.files).toEqual([{ file: stat, name: false, core: true, shapes: false, steps: false, ordered: false, starts: false }]);
    expect(rec.kernels).toEqual([]);
    expect(rec.cells.length).toBe(acc.groups.size);
    expect(rec.cells.reduce((n, c) => n + c.cell.count, 0)).toBe(acc.kernels);
  });

  it('several devices in one op_summary: one recorder per rank, each told of the file', async () => {
    const plan = resolveInput(join(ROOT, 'fixtures/formats/msprof-multi-device')).ranks[0]!;
    const recorders: Recorder[] = [];
    const ranks = await readRank(plan, {
      withShapes: false,
      beside: recorderKind(recorders),
    });
    expect(ranks.map((r) => r.kernels)).toEqual([12, 10]);
    expect(ranks.map((r) => r.beside)).toEqual([[12], [10]]);
    expect(recorders.map((r) => r.kernels.length)).toEqual([12, 10]);
    expect(recorders.map((r) => r.files.length)).toEqual([1, 1]);
  });
});
