// The kernel table reader with the SIMD engine (plain rows in batches, simd.wat parsing their numbers and
// looking their keys up) against the JavaScript engine (every row through the JavaScript parsers): the same
// groups, per-step cells, totals, skipped rows and warnings, and for a sink beside that wants them the same
// exact starts and streams, kernel by kernel, on every kernel export in the fixtures and in ../shared/data/real,
// on damaged copies of them, and on rows made to hit each way out of a batch.
// KPROF_FUZZ_SEED and KPROF_FUZZ_RUNS explore more damaged copies, as in fuzz.test.ts.

import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { Accumulator } from '../src/input/accumulator.js';
import { readTable } from '../src/input/formats/ascend/readTable.js';
import { NO_STEP, NO_STREAM, type KernelBatch, type KernelKind, type KernelSink, type SourceFacts } from '../src/input/sink.js';
import { REAL, ROOT, realData } from './helpers.js';

const HAS_REAL = realData(import.meta.url);

const tmp = mkdtempSync(join(tmpdir(), 'kprof-engines-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** Maps and Sets as sorted entries, so that two accumulators compare with toEqual whatever their insertion order. */
function plain(x: unknown): unknown {
  // Fine groups read from columns (a table, its views and their step cells: model/fineGroups.ts) as the data they stand for.
  const tag = Object.prototype.toString.call(x);
  if (tag === '[object FineGroupView]' || tag === '[object CellView]') return plain((x as { toJSON(): unknown }).toJSON());
  if (x instanceof Map || tag === '[object FineGroupTable]' || tag === '[object GroupSteps]' || tag === '[object StepCells]') {
    x = new Map(x as Map<unknown, unknown>);
  }
  if (x instanceof Map) {
    const entries = [...x.entries()].map(([k, v]) => [String(k), plain(v)] as const);
    return entries.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  }
  if (x instanceof Set) return [...x].sort();
  if (Array.isArray(x)) return x.map(plain);
  if (x !== null && typeof x === 'object') return Object.fromEntries(Object.entries(x).map(([k, v]) => [k, plain(v)]));
  return x;
}

/** Every kernel with its exact start (origin µs and ticks after it, as text) and its stream, in order. */
class Kernels implements KernelSink {
  readonly wantsStarts = true;
  readonly wantsStreams = true;
  readonly seen: string[] = [];
  private origin_ = 'none';
  private readonly kinds: KernelKind[] = [];
  begin(facts: SourceFacts): void {
    this.seen.push(JSON.stringify(facts));
  }
  origin(us: number): void {
    this.origin_ = String(us);
  }
  bind(id: number, kind: KernelKind): void {
    this.kinds[id] = kind;
  }
  addBatch(b: KernelBatch): void {
    const { starts, streams } = b;
    for (let i = 0; i < b.n; i++) {
      const step = b.steps[i] === NO_STEP ? null : b.steps[i]!;
      this.addKernel(b.ids[i]!, step, b.ticks[i]!, starts === null ? Number.NaN : starts[i]!, streams === null ? NO_STREAM : streams[i]!);
    }
  }
  addKernel(id: number, step: number | null, ticks: number, startTicks: number, stream: number): void {
    const k = this.kinds[id]!;
    const start = Number.isNaN(startTicks) ? 'none' : `${this.origin_}+${startTicks}`;
    this.seen.push(`${k.rawName}|${k.type}|${k.shapes}|${step}|${ticks}|${start}|${stream}`);
  }
  addAggregated(): void {}
}

async function read(path: string, engine: 'simd' | 'js', withShapes: boolean, bufferSize?: number, record = false): Promise<unknown> {
  const acc = new Accumulator({ name: true, type: true, core: true, shapes: withShapes, steps: true }, { span: record });
  const kernels = new Kernels();
  try {
    const file = await readTable(path, acc, { withShapes, engine, bufferSize, beside: record ? [kernels] : [] });
    return plain({ file, rank: acc.toRankData('r', []), kernels: kernels.seen });
  } catch (e) {
    return { error: (e as Error).message };
  }
}

async function expectSameEngines(path: string, bufferSize?: number): Promise<void> {
  for (const [withShapes, record] of [
    [false, false],
    [true, false],
    [false, true],
  ] as const) {
    expect(await read(path, 'simd', withShapes, bufferSize, record)).toEqual(await read(path, 'js', withShapes, bufferSize, record));
  }
}

function exports(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const e of readdirSync(d).sort()) {
      const p = join(d, e);
      if (statSync(p).isDirectory()) walk(p);
      else if (/(kernel_details|op_summary_[^/]*)\.csv$/.test(e)) out.push(p);
    }
  };
  walk(dir);
  return out;
}

describe('SIMD engine = JavaScript engine, reading kernel tables', () => {
  const files = [...exports(join(ROOT, 'fixtures')), ...(HAS_REAL ? exports(REAL) : [])];
  it('finds kernel exports', () => {
    expect(files.length).toBeGreaterThan(HAS_REAL ? 20 : 5);
  });
  for (const f of files) {
    it(relative(f.startsWith(REAL) ? REAL : ROOT, f), async () => {
      await expectSameEngines(f);
      await expectSameEngines(f, 64);
    });
  }

  it('rows made to leave a batch: odd numbers, long kernels, steps, quotes, short and long rows, CRLF', async () => {
    const header = 'Step Id,Name,Type,Accelerator Core,Start Time(us),Duration(us),Input Shapes';
    const rows = [
      '1,MatMul_1,MatMul,AI_CORE,10.5\t,12.25,"""1,2"""',
      '1,MatMul_1,MatMul,AI_CORE,11\t,12.25\t,"""1,2"""',
      '1,MatMul_1,MatMul,AI_CORE,12, 7 ,"""1,2"""',
      '1,MatMul_1,MatMul,AI_CORE,13,+3.5,"""1,2"""',
      '1,MatMul_1,MatMul,AI_CORE,14,1e3,"""1,2"""',
      '1,MatMul_1,MatMul,AI_CORE,15,-2,"""1,2"""',
      '1,MatMul_1,MatMul,AI_CORE,16,N/A,"""1,2"""',
      '1,MatMul_1,MatMul,AI_CORE,17,,"""1,2"""',
      '1,MatMul_1,MatMul,AI_CORE,18,300000.5,"""1,2"""',
      '1,MatMul_1,MatMul,AI_CORE,19,214748.3647,"""1,2"""',
      '1,MatMul_1,MatMul,AI_CORE,19,214748.3648,"""1,2"""',
      '1,MatMul_1,MatMul,AI_CORE,20,0.123456,"""1,2"""',
      '1,MatMul_1,MatMul,AI_CORE,20,0.12345,"""1,2"""',
      '1,MatMul_1,MatMul,AI_CORE,20,0.12344999,"""1,2"""',
      '1,MatMul_1,MatMul,AI_CORE,21,123456789012.5,"""1,2"""',
      '1,MatMul_1,MatMul,AI_CORE,21,.5,"""1,2"""',
      '1,MatMul_1,MatMul,AI_CORE,21,5.,"""1,2"""',
      '1,MatMul_1,MatMul,AI_CORE,21,.,"""1,2"""',
      '"1",MatMul_1,MatMul,AI_CORE,22,"4.5","""1,2"""',
      ' 2 ,MatMul_1,MatMul,AI_CORE,23,1,"""1,3"""',
      '\t2\t,MatMul_1,MatMul,AI_CORE,23,1,"""1,3"""',
      ',MatMul_1,MatMul,AI_CORE,24,1,"""1,3"""',
      '-1,MatMul_1,MatMul,AI_CORE,25,1,"""1,3"""',
      '1234567890,MatMul_1,MatMul,AI_CORE,25,1,"""1,3"""',
      '12345678901,MatMul_1,MatMul,AI_CORE,25,1,"""1,3"""',
      'x,MatMul_1,MatMul,AI_CORE,25,1,"""1,3"""',
      '3,"Mat""Mul",MatMul,AI_CORE,26,2,"""1,2"""',
      '3,"MatMul_1",MatMul,AI_CORE,26,2,"""1,2"""',
      '3,MatMul_1,MatMul,AI_CORE,26,2,"""1,2"""junk',
      '3,MatMul_1,MatMul,AI_CORE,26,2',
      '3,MatMul_1,MatMul,AI_CORE,26,2,"""1,2""",extra',
      '3,hcom_allReduce__123_0_1,HCCL,N/A,27,9,N/A',
      '3,hcom_allReduce__456_0_1,HCCL,N/A,27,9,N/A\r',
      '',
      '\r',
      '4,MatMul_1,MatMul,AI_CORE,28,1.5,"""1,2"""\r',
      header,
      '4,Cast_2,Cast,AI_VECTOR_CORE,29,0.02,"""8"""',
      '4,MatMul_1,MatMul,AI_CORE,30,1.5,"""1,2',
      '4,MatMul_1,MatMul,AI_CORE,31,1.5,"""1,2"""',
    ];
    const path = join(tmp, 'kernel_details.csv');
    for (const last of ['\n', '']) {
      writeFileSync(path, `${header}\n${rows.join('\n')}${last}`);
      await expectSameEngines(path);
      await expectSameEngines(path, 16);
    }
  });

  it('a negative Step Id is a skipped row, warned of, in both engines (no --steps range could select it)', async () => {
    const header = 'Step Id,Name,Type,Accelerator Core,Start Time(us),Duration(us)';
    const path = join(tmp, 'kernel_details.csv');
    writeFileSync(path, `${header}\n1,a,Add,AI_CORE,1,2\n-5,a,Add,AI_CORE,2,2\n -1 ,a,Add,AI_CORE,3,2\n-0,a,Add,AI_CORE,4,2\n2,a,Add,AI_CORE,5,2\n`);
    for (const engine of ['simd', 'js'] as const) {
      const acc = new Accumulator({ name: true, type: true, core: true, shapes: false, steps: true });
      const file = await readTable(path, acc, { withShapes: false, engine });
      const rank = acc.toRankData('r', [file]);
      expect([file.rowsRead, file.rowsSkipped, rank.kernels, rank.stepIds], engine).toEqual([5, 2, 3, [0, 1, 2]]);
      expect(
        rank.warnings.map((w) => `${w.line}: ${w.message}`),
        engine,
      ).toEqual([
        '3: Step Id is -5, expected a step number (0 or more); row skipped',
        '4: Step Id is -1, expected a step number (0 or more); row skipped',
      ]);
    }
    await expectSameEngines(path);
  });

  it('start and Stream ID cells of every kind: both engines read the same exact starts and streams', async () => {
    const header = 'Step Id,Stream ID,Name,Type,Accelerator Core,Start Time(us),Duration(us)';
    const starts = ['N/A', '', '1764246877073569.640\t', '1764246877073569.64049', '1764246877073570.00005', ' 17 ', '0', '.5', '5.'];
    const more = ['1e3', '-5', '+5', '1764246877073571', '"1764246877073572.5"', '99999999999999999', '1764246877073569.6\t\t', '12x'];
    // Whole µs at and past 2^53 - 1, leading zeros, a fifth decimal that rounds up to the next µs, two dots.
    more.push('9007199254740991', '9007199254740992.5', '00001764246877073573.25', '1764246877073569.99995', '1764246877073569.5.5', '\t.\t');
    const streams = ['2', ' 3 ', 'N/A', '', '-1', '1234567890', '007', '12a', '"5"', '999999999', '\t4\t', '0'];
    const rows: string[] = [];
    for (const [i, start] of [...starts, ...more].entries())
      for (const [j, stream] of streams.entries()) rows.push(`${i % 3},${stream},Op_${j % 4},Op,AI_CORE,${start},${(i + j) % 5}.25`);
    const path = join(tmp, 'streams.csv');
    writeFileSync(path, `${header}\n${rows.join('\n')}\n`);
    const simd = (await read(path, 'simd', false, undefined, true)) as { kernels: string[] };
    expect(simd.kernels.length).toBe(rows.length + 1);
    // The first start read is the origin (its whole µs); starts are exact ticks after it, or none.
    expect(simd.kernels[1]).toBe('Op_0|Op|null|0|2500|none|2');
    expect(simd.kernels[1 + 2 * 12]).toBe('Op_0|Op|null|2|22500|1764246877073569+6400|2');
    expect(simd.kernels[1 + 3 * 12]).toBe('Op_0|Op|null|0|32500|1764246877073569+6405|2');
    expect(simd.kernels[1 + 4 * 12]).toBe('Op_0|Op|null|1|42500|1764246877073569+10001|2');
    // ' 17 ', '0', '.5': more than 2^53 ticks before the origin, not a time of this file.
    for (const i of [5, 6, 7]) expect(simd.kernels[1 + i * 12]!.split('|')[5]).toBe('none');
    // Streams: a plain integer of at most 9 digits (spaces around, quoted), else none (-1).
    expect(simd.kernels.slice(1, 13).map((k) => Number(k.split('|')[6]))).toEqual([2, 3, -1, -1, -1, -1, 7, -1, 5, 999999999, 4, 0]);
    expect(simd).toEqual(await read(path, 'js', false, undefined, true));
    await expectSameEngines(path, 64);
  });

  it('start cells of runs of digits of any length (read eight at a time): both engines read the same starts', async () => {
    // Whole µs of 0 to 24 digits (eight-digit words and the digits left, past 2^53 - 1 and past 10^10), near the
    // origin (a start more than 2^53 ticks from it is none whatever its digits), with a byte that is no digit
    // anywhere in them, decimals, spaces.
    const ORIGIN = '1764246877073569';
    const whole = fc.oneof(
      fc
        .record({ keep: fc.integer({ min: 4, max: 16 }), more: fc.stringMatching(/^[0-9]{0,8}$/) })
        .map(({ keep, more }) => ORIGIN.slice(0, keep) + more.slice(0, 16 - keep + (more.length % 3))),
      fc.stringMatching(/^0{0,12}[0-9]{0,12}$/),
    );
    const odd = fc.constantFrom('', '', '', '.', ':', '/', '@', 'a', ' ', '\t', '\x7f', '-');
    const cell = fc
      .record({ whole, cut: fc.nat(24), odd, frac: fc.stringMatching(/^(\.[0-9]{0,6})?$/), pad: fc.constantFrom('', ' ', '\t') })
      .map(({ whole, cut, odd, frac, pad }) => {
        const at = Math.min(cut, whole.length);
        return `${pad}${whole.slice(0, at)}${odd}${whole.slice(at)}${frac}${pad}`;
      });
    const header = 'Step Id,Name,Type,Accelerator Core,Start Time(us),Duration(us)';
    let run = 0;
    let times = 0;
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(`${ORIGIN}.5`, '0'), fc.array(cell, { minLength: 1, maxLength: 40 }), async (origin, cells) => {
        // The first row's start is the origin, which the others are read against.
        const rows = [`1,Op,Op,AI_CORE,${origin},1`, ...cells.map((c, i) => `1,Op_${i % 3},Op,AI_CORE,${c},1`)];
        const path = join(tmp, `starts-${run++}.csv`);
        writeFileSync(path, `${header}\n${rows.join('\n')}\n`);
        const simd = (await read(path, 'simd', false, undefined, true)) as { kernels: string[] };
        times += simd.kernels.filter((k) => !k.includes('|none|')).length;
        expect(simd).toEqual(await read(path, 'js', false, undefined, true));
      }),
      { seed: 20_261_205, numRuns: 80 },
    );
    // Hundreds of starts are times (the test is not only of cells that read as none).
    expect(times).toBeGreaterThan(200);
  });

  it('cells at the edges of the fast paths (one-load Step Id, start times of sixteen digits, keys hashed 64 bytes at once): both engines read the same', async () => {
    // simd.wat reads the common cells without a call (kernelCells.wat's fragments) and hands every other to the
    // parsers of old: digit counts either side of each fragment's bounds, leading zeros, no fraction, exponents,
    // signs, values near 2^31 ticks and 2^53, a TAB or space after, empty cells; keys either side of 16, 32 and 64
    // bytes that differ in one byte anywhere (the same length, so only the bytes tell them apart).
    const digits = (min: number, max: number): fc.Arbitrary<string> => fc.stringMatching(new RegExp(`^[0-9]{${min},${max}}$`));
    const ORIGIN = '1764246877073569';
    const pad = fc.constantFrom('', '', '', ' ', '\t', '\t\t', ' \t', '\r');
    const odd = fc.constantFrom('-', '+', 'e3', 'E-2', '.', '..', 'x', ' ', '');
    const duration = fc.oneof(
      { weight: 4, arbitrary: fc.record({ i: digits(1, 8), f: fc.option(digits(0, 4)) }).map(({ i, f }) => `${i}${f === null ? '' : `.${f}`}`) },
      fc.record({ i: digits(0, 12), f: fc.option(digits(0, 6)), p: pad }).map(({ i, f, p }) => `${i}${f === null ? '' : `.${f}`}${p}`),
      fc.record({ a: digits(0, 9), o: odd, b: digits(0, 5) }).map(({ a, o, b }) => `${a}${o}${b}`),
      fc.constantFrom('214748.3647', '214748.3648', '214748.36474', '214748.36475', '99999999.9999', '0', '00000001.5', '', 'N/A'),
    );
    const step = fc.oneof(
      { weight: 4, arbitrary: digits(1, 9) },
      fc.record({ d: digits(0, 10), p: pad, q: pad }).map(({ d, p, q }) => `${p}${d}${q}`),
      fc.constantFrom('-1', '+2', '1e2', '3.0', 'N/A', '', '"7"', '2147483647', '99999999', '00000000'),
    );
    const start = fc.oneof(
      // Near the origin (a start more than 2^53 ticks from it is none whatever its digits).
      {
        weight: 4,
        arbitrary: fc
          .record({ w: digits(0, 9), f: fc.option(digits(0, 8)), p: fc.constantFrom('', '\t', ' ') })
          .map(({ w, f, p }) => `${ORIGIN.slice(0, 16 - w.length)}${w}${f === null ? '' : `.${f}`}${p}`),
      },
      fc
        .record({ w: digits(14, 18), f: fc.option(digits(0, 9)), p: pad, q: pad })
        .map(({ w, f, p, q }) => `${p}${w}${f === null ? '' : `.${f}`}${q}`),
      fc
        .record({ w: fc.constantFrom('1764246877073569', '9007199254740991', '9007199254740992', '0000000000000001', '9999999999999999') })
        .chain(({ w }) => fc.record({ f: fc.option(digits(0, 9)), p: pad, o: odd }).map(({ f, p, o }) => `${w}${f === null ? o : `.${f}`}${p}`)),
      // A fifth decimal that rounds (up to the next µs), or that does not.
      fc.constantFrom('', 'N/A', '.12345', '.99995\t', '.00004999', '.0000500 ', '.5', '.', '.640\t\n').map((c) => (c.length > 3 ? ORIGIN + c : c)),
    );
    const base = 'aclnnInplaceZero_ZerosLikeAiCore_ZerosLike_aclnnEmbedding_GatherV2AiCore_GatherV2_MatMulV3_'.repeat(2);
    // The key is the name and `,Op,AI_CORE` (11 bytes more): keys of 12 to 150 bytes, 15-17, 31-33 and 63-65 among them.
    const name = fc
      .record({
        len: fc.constantFrom(1, 4, 5, 6, 20, 21, 22, 36, 37, 52, 53, 54, 69, 70, 85, 86, 139),
        at: fc.nat(),
        to: fc.constantFrom('X', 'Y', '0'),
      })
      .map(({ len, at, to }) => {
        const n = base.slice(0, len);
        const i = at % (len + 1);
        return i === len ? n : n.slice(0, i) + to + n.slice(i + 1);
      });
    const row = fc.record({ step, stream: step, name, start, duration });
    const header = 'Step Id,Stream ID,Name,Type,Accelerator Core,Start Time(us),Duration(us)';
    let run = 0;
    let batched = 0;
    let times = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(row, { minLength: 20, maxLength: 60 }), async (rows) => {
        // Plain rows first, so that the first start (the origin) is a time and later ones are read against it.
        const lines = [
          `1,2,Op,Op,AI_CORE,${ORIGIN}.640\t,1.5`,
          ...rows.map((r) => `${r.step},${r.stream},${r.name},Op,AI_CORE,${r.start},${r.duration}`),
        ];
        const path = join(tmp, `edges-${run++}.csv`);
        writeFileSync(path, `${header}\n${lines.join('\n')}\n`);
        const simd = (await read(path, 'simd', false, undefined, true)) as { kernels: string[] };
        batched += simd.kernels.length;
        times += simd.kernels.filter((k) => !k.includes('|none|')).length;
        expect(simd).toEqual(await read(path, 'js', false, undefined, true));
      }),
      { seed: Number(process.env.KPROF_FUZZ_SEED ?? 20_261_207), numRuns: Number(process.env.KPROF_FUZZ_RUNS ?? 120) },
    );
    // Most rows are plain (read in batches), the rest cover the ways out.
    expect(batched).toBeGreaterThan(3000);
    expect(times).toBeGreaterThan(1000);
  });

  it('more key bytes than the key table holds (it starts again and every row still counts)', async () => {
    // 4,400 keys of ~1 KB: past the table's 4 MiB of key bytes, so it is emptied once and filled again.
    const lines = ['Step Id,Name,Type,Accelerator Core,Duration(us)'];
    const name = (i: number): string => `Op_${i}_${'x'.repeat(1000 + (i % 17))}`;
    for (let i = 0; i < 4400; i++) lines.push(`${i % 7},${name(i)},Op${i % 13},AI_CORE,${i % 1000}.5`);
    for (let i = 0; i < 4400; i += 3) lines.push(`7,${name(i)},Op${i % 13},AI_CORE,1`);
    const path = join(tmp, 'many.csv');
    writeFileSync(path, `${lines.join('\n')}\n`);
    const simd = (await read(path, 'simd', false)) as { rank: { groups: unknown[]; kernels: number } };
    expect(simd.rank.kernels).toBe(4400 + 1467);
    expect(simd.rank.groups.length).toBe(4400);
    expect(simd).toEqual(await read(path, 'js', false));
  });

  it('damaged copies of the fixtures', async () => {
    const seeds = exports(join(ROOT, 'fixtures')).map((f) => readFileSync(f).subarray(0, 6000));
    const edit = fc.record({ at: fc.nat(), what: fc.constantFrom('"', ',', '\n', '\r\n', '""', 'x', '', '-', '.', ' ', '9'), cut: fc.nat(3) });
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.nat(), fc.array(edit, { minLength: 1, maxLength: 6 }), async (which, edits) => {
        let b = Buffer.from(seeds[which % seeds.length]!);
        for (const e of edits) {
          const at = b.length === 0 ? 0 : e.at % b.length;
          b = Buffer.concat([b.subarray(0, at), Buffer.from(e.what), b.subarray(Math.min(b.length, at + e.cut))]);
        }
        const path = join(tmp, `damaged-${run++}.csv`);
        writeFileSync(path, b);
        await expectSameEngines(path);
      }),
      { seed: Number(process.env.KPROF_FUZZ_SEED ?? 20_261_130), numRuns: Number(process.env.KPROF_FUZZ_RUNS ?? 150) },
    );
  });
});
