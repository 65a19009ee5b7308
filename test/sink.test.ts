// The kernel sink seam: a second sink, a recorder of every kernel, sits beside the accumulator. It must see every
// kernel of a real export in file order with its exact start time and its stream (with batches, with either
// engine, across buffer and batch boundaries), while the accumulator's figures stay what they are without it.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { Accumulator } from '../src/input/accumulator.js';
import { readTable } from '../src/input/formats/ascend/readTable.js';
import { resolveInput } from '../src/input/formats/resolve.js';
import type { BesideKind, BesideRequest } from '../src/input/beside.js';
import { readRank } from '../src/input/readRank.js';
import { NO_STEP, NO_STREAM, type KernelBatch, type KernelKind, type KernelSink, type SourceFacts } from '../src/input/sink.js';
import type { Cell } from '../src/model/model.js';
import { REAL, ROOT, realData } from './helpers.js';

const HAS_REAL = realData(import.meta.url);

interface Recorded {
  name: string | null;
  type: string | null;
  step: number | null;
  ticks: number;
  /** The absolute start in ticks (origin and start ticks added exactly); null: none given. */
  start: bigint | null;
  stream: number;
}

/** Keeps every kernel it is given, in order, by the kind its id was bound to then. */
class Recorder implements KernelSink {
  readonly kernels: Recorded[] = [];
  readonly files: SourceFacts[] = [];
  readonly cells: { kind: KernelKind; cell: Cell }[] = [];
  readonly origins: number[] = [];
  batches = 0;
  private readonly kinds: KernelKind[] = [];

  constructor(
    readonly wantsStarts: boolean,
    readonly wantsStreams = wantsStarts,
  ) {}

  begin(facts: SourceFacts): void {
    this.files.push(facts);
  }
  origin(us: number): void {
    // A whole number of µs, exact.
    expect(Number.isSafeInteger(us)).toBe(true);
    this.origins.push(us);
  }
  bind(id: number, kind: KernelKind): void {
    this.kinds[id] = kind;
  }
  addBatch(b: KernelBatch): void {
    this.batches++;
    if (!this.wantsStarts) expect(b.starts).toBeNull();
    if (!this.wantsStreams) expect(b.streams).toBeNull();
    for (let i = 0; i < b.n; i++)
      this.addKernel(
        b.ids[i]!,
        b.steps[i] === NO_STEP ? null : b.steps[i]!,
        b.ticks[i]!,
        b.starts === null ? Number.NaN : b.starts[i]!,
        b.streams === null ? NO_STREAM : b.streams[i]!,
      );
  }
  addKernel(id: number, step: number | null, ticks: number, startTicks: number, stream: number): void {
    const k = this.kinds[id]!;
    let start: bigint | null = null;
    if (!Number.isNaN(startTicks)) {
      // Start ticks are integers after an origin told before them.
      expect(Number.isSafeInteger(startTicks)).toBe(true);
      start = BigInt(this.origins.at(-1)!) * 10_000n + BigInt(startTicks);
    }
    this.kernels.push({ name: k.rawName, type: k.type, step, ticks, start, stream });
  }
  addAggregated(kind: KernelKind, cell: Cell): void {
    this.cells.push({ kind, cell });
  }
}

/** A start cell's exact value in ticks of 1e-4 µs, from its digits (four decimals, half up on the fifth). */
function exactTicks(cell: string): bigint | null {
  const m = /^(\d+)(?:\.(\d*))?$/.exec(cell.trim());
  if (m === null) return null;
  const frac = (m[2] ?? '').padEnd(5, '0');
  return BigInt(m[1]!) * 10_000n + BigInt(frac.slice(0, 4)) + (frac[4]! >= '5' ? 1n : 0n);
}

/** A beside-sink request that makes a Recorder (kept in `into`) for each accumulator; its result is its kernel count. */
function recorderKind(into: Recorder[], wants = false): BesideRequest<null, number> {
  const kind: BesideKind<null, number> = {
    name: 'test-recorder',
    make: () => {
      const r = Object.assign(new Recorder(wants), { finish: () => r.kernels.length });
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
  return rows.map((r) => {
    const stream = r['Stream ID']!.trim();
    return {
      name: r['Name']!.trim(),
      type: r['Type']!.trim(),
      step: r['Step Id']!.trim() === '' ? null : Number(r['Step Id']),
      ticks: Math.round(Number(r['Duration(us)']) * 10_000),
      start: exactTicks(r['Start Time(us)']!),
      stream: /^\d{1,9}$/.test(stream) ? Number(stream) : NO_STREAM,
    };
  });
}

function fields(): { name: boolean; type: boolean; core: boolean; shapes: boolean; steps: boolean } {
  return { name: true, type: true, core: true, shapes: false, steps: true };
}

const REAL_FILE = join(REAL, 'msinsight-st-level2/rank_0_ascend_pt/ASCEND_PROFILER_OUTPUT/kernel_details.csv');

describe.skipIf(!HAS_REAL)('a recording sink beside the accumulator', () => {
  const expected = HAS_REAL ? reference(REAL_FILE) : [];

  for (const engine of ['simd', 'js'] as const) {
    for (const bufferSize of [undefined, 4096]) {
      it(`sees every kernel of a real export in file order, with its exact start and stream (${engine} engine, buffer ${bufferSize ?? 'default'})`, async () => {
        const alone = new Accumulator(fields());
        const fileAlone = await readTable(REAL_FILE, alone, { withShapes: false, engine, bufferSize });
        const acc = new Accumulator(fields());
        const rec = new Recorder(true);
        const file = await readTable(REAL_FILE, acc, { withShapes: false, engine, bufferSize, beside: [rec] });

        expect(expected.length).toBeGreaterThan(2000);
        // Every start to the tick (16 integer digits and 3 decimals: more than a double holds), every stream
        // (N/A for the communication kernels: none).
        expect(rec.kernels).toEqual(expected);
        expect(expected.every((k) => k.start !== null)).toBe(true);
        expect(new Set(expected.map((k) => k.stream))).toEqual(new Set([2, NO_STREAM]));
        // One origin for the file, the whole µs of its first start.
        expect(rec.origins).toEqual([Number(expected[0]!.start! / 10_000n)]);
        // The SIMD engine hands the kernels over in batches, starts, streams and all.
        if (engine === 'simd') expect(rec.batches).toBeGreaterThan(0);
        else expect(rec.batches).toBe(0);
        expect(rec.files).toEqual([
          { file: REAL_FILE, name: true, core: true, shapes: false, steps: true, ordered: true, starts: true, streams: true },
        ]);

        // The accumulator's figures are those it has alone; it did not ask for starts, so it has no span.
        expect(file).toEqual(fileAlone);
        expect(acc.toRankData('0', [])).toEqual(alone.toRankData('0', []));
        expect(acc.firstStart).toBeNull();
      });
    }
  }

  it('gives the accumulator its exact span from the same batches when it asks for starts', async () => {
    const starts = expected.map((k) => k.start!);
    const ends = expected.map((k) => k.start! + BigInt(k.ticks));
    let first = starts[0]!;
    let last = ends[0]!;
    for (const s of starts) if (s < first) first = s;
    for (const e of ends) if (e > last) last = e;
    const span = last - first;
    for (const engine of ['simd', 'js'] as const) {
      const acc = new Accumulator(fields(), { span: true });
      await readTable(REAL_FILE, acc, { withShapes: false, engine });
      expect(BigInt(acc.toRankData('0', []).spanTicks!)).toBe(span);
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
    // It did not ask for starts or streams: none were read for it, and it was told no origin.
    expect(recorders[0]!.kernels.every((k) => k.start === null && k.stream === NO_STREAM)).toBe(true);
    expect(recorders[0]!.origins).toEqual([]);
  });
});

describe('what a sink is told of a file without order', () => {
  it('op_statistic: cells of kernels, no order, no steps, no names', async () => {
    const stat = join(ROOT, 'fixtures/formats/op-statistic-no-device/op_statistic.csv');
    const acc = new Accumulator(fields());
    const rec = new Recorder(true);
    await readTable(stat, acc, { withShapes: false, beside: [rec] });
    expect(rec.files).toEqual([{ file: stat, name: false, core: true, shapes: false, steps: false, ordered: false, starts: false, streams: false }]);
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

describe('exact starts across files and devices', () => {
  it('the accumulator rebases the starts of a later file onto the first origin, to the tick', () => {
    const acc = new Accumulator(fields(), { span: true });
    const kind = { name: 'k', rawName: 'k', type: 't', core: null, shapes: null };
    acc.bind(0, kind);
    // 1764246877073569.0005 µs for 10 ticks, then in a file whose origin is 1 µs later: 1764246877073570 for 3.
    acc.origin(1764246877073569);
    acc.addKernel(0, null, 10, 5);
    acc.origin(1764246877073570);
    acc.addKernel(0, null, 3, 0);
    // A start of time 0 and no start say nothing of the span.
    acc.addKernel(0, null, 7, Number.NaN);
    expect(acc.toRankData('0', []).spanTicks).toBe(10_000 + 3 - 5);
  });

  it('several devices in one op_summary: each rank is told the origin before its first start', async () => {
    const plan = resolveInput(join(ROOT, 'fixtures/formats/msprof-multi-device')).ranks[0]!;
    const recorders: Recorder[] = [];
    await readRank(plan, {
      withShapes: false,
      beside: recorderKind(recorders, true),
    });
    expect(recorders.map((r) => r.kernels.length)).toEqual([12, 10]);
    for (const r of recorders) {
      expect(r.origins).toHaveLength(1);
      expect(r.kernels.every((k) => k.start !== null && k.start > 0n)).toBe(true);
      expect(r.files[0]!.streams).toBe(true);
    }
  });
});
