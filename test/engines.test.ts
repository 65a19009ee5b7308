// The kernel table reader with the SIMD engine (plain rows in batches, simd.wat parsing their numbers and
// looking their keys up) against the JavaScript engine (every row through the JavaScript parsers): the same
// groups, per-step cells, totals, skipped rows and warnings, on every kernel export in the fixtures and in
// ../shared/data/real, on damaged copies of them, and on rows made to hit each way out of a batch.
// KPROF_FUZZ_SEED and KPROF_FUZZ_RUNS explore more damaged copies, as in fuzz.test.ts.

import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { Accumulator } from '../src/aggregate/accumulator.js';
import { readTable } from '../src/input/formats/readTable.js';
import { HAS_REAL, REAL, ROOT } from './helpers.js';

const tmp = mkdtempSync(join(tmpdir(), 'kprof-engines-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** Maps and Sets as sorted entries, so that two accumulators compare with toEqual whatever their insertion order. */
function plain(x: unknown): unknown {
  if (x instanceof Map) {
    const entries = [...x.entries()].map(([k, v]) => [String(k), plain(v)] as const);
    return entries.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  }
  if (x instanceof Set) return [...x].sort();
  if (Array.isArray(x)) return x.map(plain);
  if (x !== null && typeof x === 'object') return Object.fromEntries(Object.entries(x).map(([k, v]) => [k, plain(v)]));
  return x;
}

async function read(path: string, engine: 'simd' | 'js', withShapes: boolean, bufferSize?: number): Promise<unknown> {
  const acc = new Accumulator({ name: true, type: true, core: true, shapes: withShapes, steps: true });
  try {
    const file = await readTable(path, acc, { withShapes, engine, bufferSize });
    return plain({ file, rank: acc.toRankData('r', []) });
  } catch (e) {
    return { error: (e as Error).message };
  }
}

async function expectSameEngines(path: string, bufferSize?: number): Promise<void> {
  for (const withShapes of [false, true]) {
    expect(await read(path, 'simd', withShapes, bufferSize)).toEqual(await read(path, 'js', withShapes, bufferSize));
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
