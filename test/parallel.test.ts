// Reading in worker threads gives exactly what reading in this thread gives: the same groups, counts, tick
// totals, steps, warnings and errors. Merging partial results is exact (integer ticks), whatever the split.

import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error: the benchmark's generator is plain JavaScript
import { generate } from '../bench/generate.mjs';
import { Accumulator } from '../src/input/accumulator.js';
import { mergeGroups } from '../src/model/model.js';
import { inputError, KprofError } from '../src/util/errors.js';
import { WorkerPool } from '../src/input/pool.js';
import { readTable } from '../src/input/formats/ascend/readTable.js';
import type { Cell, FineGroup, Profile } from '../src/model/model.js';
import { TICKS_PER_US } from '../src/model/model.js';
import { holdReadWorkers, PARALLEL_MIN_BYTES, readProfile, runJob, sharedPool, workerScript, type ReadOptions } from '../src/input/read.js';
import { profileSequences, SEQUENCE_RECORDER, type RecordedRank } from '../src/analysis/rewrites/recorderSink.js';
import { REWRITES_SECTION_JOB, type SectionInput } from '../src/analysis/rewrites/sectionJob.js';
import { packRanks, unpackRanks } from '../src/input/workers/pack.js';
import { resolveInput } from '../src/input/formats/resolve.js';
import type { ReadTask } from '../src/input/workers/protocol.js';
import { REAL, ROOT, realData } from './helpers.js';

const HAS_REAL = realData(import.meta.url);

const base: ReadOptions = { withShapes: false, ranks: null };

async function both(input: string, options: Partial<ReadOptions> = {}): Promise<{ off: Profile; on: Profile }> {
  const before = sharedPool()!.completed;
  const off = await readProfile(input, { ...base, ...options, threads: 'off' });
  const on = await readProfile(input, { ...base, ...options, threads: 'on' });
  // At least one task really ran in a worker (a snapshot input is read in this thread).
  expect(sharedPool()!.completed).toBeGreaterThan(before);
  return { off, on };
}

async function errorOf(p: Promise<unknown>): Promise<{ kind: string; message: string } | null> {
  try {
    await p;
    return null;
  } catch (e) {
    expect(e).toBeInstanceOf(KprofError);
    const k = e as KprofError;
    return { kind: k.kind, message: k.message };
  }
}

describe('worker threads', () => {
  it("have a worker script to run (the tests' global setup bundles it)", () => {
    expect(workerScript()).not.toBeNull();
    expect(sharedPool()).not.toBeNull();
  });

  const fixtures = [
    'fixtures/formats/multi-rank',
    'fixtures/formats/msprof-sliced',
    'fixtures/formats/msprof-cann5',
    'fixtures/formats/gzip/kernel_details.csv.gz',
    'fixtures/formats/torch-level0-shapes/kernel_details.csv',
    'fixtures/formats/op-statistic-no-device/op_statistic.csv',
    'fixtures/bad-empty-step-id/kernel_details.csv',
    'fixtures/bad-ragged-rows/kernel_details.csv',
    'fixtures/bad-truncated-last-row/kernel_details.csv',
  ];
  for (const f of fixtures) {
    it(`read the same profile as this thread: ${f}`, async () => {
      const { off, on } = await both(join(ROOT, f));
      expect(on).toEqual(off);
      const shapes = await both(join(ROOT, f), { withShapes: true });
      expect(shapes.on).toEqual(shapes.off);
    });
  }

  it('read the same profile with a rank selection', async () => {
    const { off, on } = await both(join(ROOT, 'fixtures/formats/multi-rank'), { ranks: ['1'] });
    expect(on).toEqual(off);
    expect(on.ranks.map((r) => r.rank)).toEqual(['1']);
  });

  it.skipIf(!HAS_REAL)('read the same profile from every real multi-rank folder', async () => {
    for (const dir of ['msinsight-torchnpu/level0', 'msinsight-torchnpu/level2', 'msinsight-st-level2', 'msinsight-server']) {
      const { off, on } = await both(join(REAL, dir));
      expect(on).toEqual(off);
    }
  });

  const bad = ['fixtures/bad-empty-file/kernel_details.csv', 'fixtures/bad-binary/kernel_details.csv', 'fixtures/bad-corrupt-gz'];
  for (const f of bad) {
    it(`throw the same error as this thread: ${f}`, async () => {
      const input = join(ROOT, f);
      const off = await errorOf(readProfile(input, { ...base, threads: 'off' }));
      const on = await errorOf(readProfile(input, { ...base, threads: 'on' }));
      expect(off).not.toBeNull();
      expect(on).toEqual(off);
    });
  }

  it('throw the same error as this thread for one bad rank of several, with the rank and the --rank of the others', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kprof-bad-rank-'));
    try {
      for (const rank of [0, 1]) {
        const out = join(dir, `rank${rank}_ascend_pt`, 'ASCEND_PROFILER_OUTPUT');
        mkdirSync(out, { recursive: true });
        writeFileSync(
          join(out, 'kernel_details.csv'),
          rank === 1 ? '' : 'Step Id,Name,Type,Accelerator Core,Start Time(us),Duration(us)\n1,a_Add,Add,AI_CORE,1,2\n',
        );
      }
      const off = await errorOf(readProfile(dir, { ...base, threads: 'off' }));
      const on = await errorOf(readProfile(dir, { ...base, threads: 'on' }));
      expect(off?.message).toMatch(/the file is empty \(0 bytes\).* It is rank 1, one of 2 ranks read: --rank 0 reads the other without it\.$/);
      expect(on).toEqual(off);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

/** A fine group as plain data (one read from a table is a view of its columns: model/fineGroups.ts). */
function plainGroup(g: FineGroup): FineGroup {
  const out: FineGroup = { name: g.name, type: g.type, core: g.core, shapes: g.shapes, total: { ...cellOf(g.total) }, steps: g.steps };
  if (g.rawName !== undefined) out.rawName = g.rawName;
  return out;
}

function cellOf(c: Cell): Cell {
  return { count: c.count, ticks: c.ticks, minTicks: c.minTicks, maxTicks: c.maxTicks };
}

describe('results cross threads packed', () => {
  it('per-step cells come back the same, large step ids and tick sums included', async () => {
    const p = await readProfile(join(ROOT, 'fixtures/formats/multi-rank'), { ...base, threads: 'off' });
    const g = p.ranks[0]!.groups.values().next().value!;
    g.steps.set(2 ** 40, { count: 3, ticks: 2 ** 52 + 1, minTicks: 1, maxTicks: 2 ** 52 - 1 });
    g.steps.set(-7, { count: 1, ticks: 5, minTicks: 5, maxTicks: 5 });
    // Step cells as Maps (the readers' StepCells is a Map in behaviour, not in class, and clones as a plain object).
    const asMaps = (ranks: typeof p.ranks) =>
      ranks.map((r) => ({ ...r, groups: new Map([...r.groups].map(([k, x]) => [k, { ...plainGroup(x), steps: new Map(x.steps) }])) }));
    const want = structuredClone(asMaps(p.ranks));
    const packed = packRanks(structuredClone(asMaps(p.ranks)));
    expect(packed.cells.length).toBeGreaterThan(0);
    expect(asMaps(unpackRanks(structuredClone(packed)))).toEqual(want);
  });
});

describe("a read's step cells cross threads packed", () => {
  it("come back the same: a table's groups of several steps, their cells copied as the read holds them", async () => {
    const p = await readProfile(join(ROOT, 'fixtures/fusion-example/base'), { ...base, threads: 'off' });
    const cells = (ranks: Profile['ranks']) =>
      ranks.map((r) =>
        [...r.groups].map(([k, g]) => [
          k,
          [g.total.count, g.total.ticks],
          [...g.steps].map(([st, c]) => [st, c.count, c.ticks, c.minTicks, c.maxTicks]),
        ]),
      );
    const want = cells(p.ranks);
    const packed = structuredClone(packRanks(p.ranks));
    const cols = packed.groups[0]!;
    if (!('table' in cols)) throw new Error('expected the columns of a table');
    // Groups of several steps (their cells in a GrowingSteps), each with the cells of its steps.
    expect(cols.table.many.length).toBeGreaterThan(10);
    expect(packed.cells.length).toBe(5 * packed.sizes.reduce((a, b) => a + b, 0));
    expect(cells(unpackRanks(packed))).toEqual(want);
  });
});

describe('a large input', () => {
  let dir = '';
  let big = '';
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'kprof-parallel-'));
    big = join(dir, 'kernel_details.csv');
    const src = HAS_REAL
      ? join(REAL, 'msinsight-st-level2/rank_0_ascend_pt/ASCEND_PROFILER_OUTPUT/kernel_details.csv')
      : join(ROOT, 'fixtures/formats/torch-2025-pipe/kernel_details.csv');
    generate(src, big, (PARALLEL_MIN_BYTES * 1.2) / 1e6);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('goes to a worker by default and reads the same as this thread, with progress adding up', async () => {
    const size = statSync(big).size;
    expect(size).toBeGreaterThanOrEqual(PARALLEL_MIN_BYTES);
    let total = -1;
    let seen = 0;
    let ended = 0;
    const counter = Object.assign((n: number) => void (seen += n), {
      total: (b: number) => void (total = b),
      end: () => void ended++,
    });
    const before = sharedPool()!.completed;
    const auto = await readProfile(big, { ...base, onBytes: counter });
    expect(sharedPool()!.completed).toBe(before + 1);
    expect(total).toBe(size);
    expect(seen).toBe(size);
    expect(ended).toBe(1);
    const off = await readProfile(big, { ...base, threads: 'off' });
    expect(auto).toEqual(off);
    expect(auto.ranks[0]!.kernels).toBeGreaterThan(20_000);
  });

  it('with no progress bar to draw, one input is read in this thread: no worker is started', async () => {
    const before = sharedPool()!.completed;
    const auto = await readProfile(big, base);
    expect(sharedPool()!.completed).toBe(before);
    expect(auto).toEqual(await readProfile(big, { ...base, threads: 'off' }));
  });

  it('two inputs read at once (as diff does) give what each gives alone: one in a worker, one in this thread', async () => {
    const before = sharedPool()!.completed;
    const [a, b] = await Promise.all([readProfile(big, base), readProfile(big, { ...base, withShapes: true })]);
    expect(sharedPool()!.completed).toBe(before + 1);
    expect(a).toEqual(await readProfile(big, { ...base, threads: 'off' }));
    expect(b).toEqual(await readProfile(big, { ...base, withShapes: true, threads: 'off' }));
  });

  // A job after the reads, as diff runs the Fusion rewrites.
  const recorded: ReadOptions = { ...base, beside: { kind: SEQUENCE_RECORDER, options: { by: 'type', steps: null } } };
  const input = (a: Profile, b: Profile): SectionInput => ({
    by: 'type',
    base: profileSequences(a, 'type'),
    pr: profileSequences(b, 'type'),
    options: {},
  });

  it('a job after the reads runs in the worker kept after its read, gives what it gives here, and moves the samples there', async () => {
    const pool = sharedPool()!;
    const release = holdReadWorkers();
    try {
      const before = pool.completed;
      const tidies = pool.tidies;
      const [a, b] = await Promise.all([readProfile(big, recorded), readProfile(big, recorded)]);
      expect(pool.completed).toBe(before + 1);
      // Held: the worker that read is still there, idle, and told to let go of its read's memory.
      expect(pool.hasIdle()).toBe(true);
      expect(pool.tidies).toBe(tidies + 1);
      const here = REWRITES_SECTION_JOB.run(input(a, b));
      expect(here.status).toBe('ok');
      const there = await runJob(REWRITES_SECTION_JOB, input(a, b));
      expect(pool.completed).toBe(before + 2);
      expect(there).toStrictEqual(here);
      // The sampled steps' arrays went to the worker (moved, not copied): empty here now, on both sides (one
      // read in the worker, its samples views of one buffer; one read here, each its own).
      for (const side of [a, b]) expect((side.ranks[0]!.beside as RecordedRank[])[0]!.seq.shapes[0]!.sampleDurTicks[0]!.length).toBe(0);
      // A worker that let go of its scanners reads again as before (a command may read again after a job).
      const again = await readProfile(big, { ...base, threads: 'on' });
      expect(pool.completed).toBe(before + 3);
      expect(again).toEqual(await readProfile(big, { ...base, threads: 'off' }));
    } finally {
      release();
    }
    // Released: the idle worker is stopped.
    expect(pool.hasIdle()).toBe(false);
  });

  it('a job runs in this thread when no worker is there (inputs read here), moving nothing', async () => {
    const a = await readProfile(big, { ...recorded, threads: 'off' });
    const before = sharedPool()!.completed;
    const section = await runJob(REWRITES_SECTION_JOB, input(a, a));
    expect(sharedPool()!.completed).toBe(before);
    expect(section).toStrictEqual(REWRITES_SECTION_JOB.run(input(a, a)));
    expect((a.ranks[0]!.beside as RecordedRank[])[0]!.seq.shapes[0]!.sampleDurTicks[0]!.length).toBeGreaterThan(0);
  });

  it('a job the worker does not know fails as an internal error that names it', async () => {
    const release = holdReadWorkers();
    try {
      await readProfile(big, { ...base, threads: 'on' });
      expect(sharedPool()!.hasIdle()).toBe(true);
      const unknown = { name: 'kprof.noSuchJob', run: () => 1 };
      await expect(runJob(unknown, null)).rejects.toThrow(/no worker job named kprof\.noSuchJob/);
    } finally {
      release();
    }
  });
});

describe('the main thread as one of the pool', () => {
  it('runs the one task of a batch inline, and reports its failure as a worker would', async () => {
    let ran = 0;
    const pool = new WorkerPool(workerScript()!, 2, async (payload) => {
      ran++;
      if (payload === 'bad') throw inputError('x.csv: bad input');
      return payload;
    });
    await expect(pool.run<string>('good', undefined, true)).resolves.toBe('good');
    await expect(pool.run('bad', undefined, true)).rejects.toEqual(expect.objectContaining({ kind: 'input', message: 'x.csv: bad input' }));
    expect(ran).toBe(2);
    expect(pool.completed).toBe(0);
    await pool.close();
  });

  it('says when only workers are busy: the main thread, done with its own task, would wait for them (it tidies then)', async () => {
    const seen: boolean[] = [];
    const pool: WorkerPool = new WorkerPool(workerScript()!, 2, async (payload) => {
      seen.push(pool.onlyWorkersBusy());
      return payload;
    });
    expect(pool.onlyWorkersBusy()).toBe(false);
    const plan = resolveInput(join(ROOT, 'fixtures/formats/multi-rank')).ranks[0]!;
    const read = { plan, cwd: undefined, withShapes: false, withSpan: false, rawNames: null, beside: null } satisfies ReadTask;
    // The worker's read is dispatched first; the main thread's task runs while it starts and reads.
    await Promise.all([pool.run(read), pool.run('here', undefined, true)]);
    expect(seen).toEqual([true]);
    expect(pool.onlyWorkersBusy()).toBe(false);
    await pool.close();
  });
});

describe('merging partial results is exact', () => {
  const HEADER = 'Step Id,Name,Type,Accelerator Core,Start Time(us),Duration(us)';
  const row = fc.record({
    step: fc.integer({ min: 1, max: 4 }),
    type: fc.constantFrom('MatMulV3', 'Add', 'hcom_allReduce_'),
    core: fc.constantFrom('AI_CORE', 'AI_VECTOR_CORE'),
    us: fc.integer({ min: 0, max: 5_000_000 }),
    frac: fc.integer({ min: 0, max: 9999 }),
    decimals: fc.integer({ min: 0, max: 4 }),
  });
  const text = (r: { us: number; frac: number; decimals: number }): string =>
    r.decimals === 0 ? String(r.us) : `${r.us}.${String(r.frac).padStart(4, '0').slice(0, r.decimals)}`;
  const csv = (rows: (typeof row extends fc.Arbitrary<infer T> ? T : never)[]): string =>
    [HEADER, ...rows.map((r, i) => `${r.step},k_${r.type},${r.type},${r.core},${1_000_000 + i}.5,${text(r)}`)].join('\n') + '\n';

  let dir = '';
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'kprof-merge-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  async function read(path: string): Promise<Accumulator> {
    const acc = new Accumulator({ name: true, type: true, core: true, shapes: false, steps: true });
    await readTable(path, acc, { withShapes: false });
    return acc;
  }

  it('any split of the rows, merged, equals the whole; totals are the exact decimal sums', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(row, { minLength: 2, maxLength: 60 }), fc.array(fc.nat(), { maxLength: 4 }), async (rows, cuts) => {
        const d = join(dir, String(run++));
        mkdirSync(d);
        const whole = join(d, 'whole.csv');
        writeFileSync(whole, csv(rows));
        const points = [...new Set(cuts.map((c) => c % rows.length))].sort((a, b) => a - b);
        const parts: (typeof rows)[] = [];
        let from = 0;
        for (const p of [...points, rows.length]) {
          if (p > from) parts.push(rows.slice(from, p));
          from = p;
        }
        const one = await read(whole);
        const merged = new Accumulator(one.fields).groups;
        // Merge in reverse order: the order partial results arrive in must not matter.
        for (const [i, part] of parts.entries()) {
          const f = join(d, `part${i}.csv`);
          writeFileSync(f, csv(part));
        }
        for (let i = parts.length - 1; i >= 0; i--) mergeGroups(merged, (await read(join(d, `part${i}.csv`))).groups);
        const norm = (m: Map<string, { total: unknown; steps: Map<number, unknown> }>) =>
          [...m.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, g]) => [k, g.total, [...g.steps.entries()].sort((x, y) => x[0] - y[0])]);
        expect(norm(merged)).toEqual(norm(one.groups));
        // Exact: the total in ticks is the decimal sum, computed with integers.
        const want = rows.reduce(
          (s, r) =>
            s +
            BigInt(r.us) * BigInt(TICKS_PER_US) +
            BigInt(r.decimals === 0 ? 0 : Number(String(r.frac).padStart(4, '0').slice(0, r.decimals).padEnd(4, '0'))),
          0n,
        );
        const got = [...merged.values()].reduce((s, g) => s + BigInt(g.total.ticks), 0n);
        expect(got).toBe(want);
      }),
      { numRuns: 60 },
    );
  });
});
