// Row citations of kprof audit (src/analysis/audit/rows.ts): the line of a site's first kernel in a CSV kernel
// table, counted as the recorder counts kernels (per step and stream, communication kernels and rows without a Step
// Id left out), across quoted cells that hold commas and line breaks; a row of another type is not cited.

import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { citeRows, type Wanted } from '../src/analysis/audit/rows.js';
import { kprof } from './helpers.js';

const tmp = mkdtempSync(join(tmpdir(), 'kprof-rows-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const want = (step: number, stream: string, index: number, type: string): Wanted => ({ step, stream, index, type, file: null, line: null });

describe('citeRows', () => {
  const path = join(tmp, 'kernel_details.csv');
  writeFileSync(
    path,
    [
      'Step Id,Stream ID,Name,Type,Accelerator Core,Input Shapes',
      '1,2,a,RmsNorm,AI_VECTOR_CORE,"4,8"', // line 2: step 1 stream 2 #0
      '1,2,h,hcom_allReduce_,COMMUNICATION,""', // line 3: communication, not counted
      '1,7,c,Cast,AI_VECTOR_CORE,"1"', // line 4: step 1 stream 7 #0
      ',2,x,Mul,AI_VECTOR_CORE,"1"', // line 5: no Step Id, not counted
      '1,2,q,QuantBatchMatmulV3,AI_CORE,"a,', // line 6-7: a cell with a line break
      'b"',
      '2,2,r,RmsNorm,AI_VECTOR_CORE,"1"', // line 8: step 2 stream 2 #0
      '1,2,d,DynamicQuant,AI_VECTOR_CORE,"1"', // line 9: step 1 stream 2 #2 (steps interleaved)
    ].join('\r\n'),
  );

  test('lines of the n-th compute kernel of a step and stream', () => {
    const w = [
      want(1, '2', 1, 'QuantBatchMatmulV3'),
      want(1, '7', 0, 'Cast'),
      want(2, '2', 0, 'RmsNorm'),
      want(1, '2', 2, 'DynamicQuant'),
      want(1, '2', 0, 'RmsNorm'),
    ];
    citeRows([{ path, shown: 'k.csv', format: 'kernel_details' }], w);
    expect(w.map((x) => [x.file, x.line])).toEqual([
      ['k.csv', 6],
      ['k.csv', 4],
      ['k.csv', 8],
      ['k.csv', 9],
      ['k.csv', 2],
    ]);
  });

  test('a row of another type than the site says is not cited; nor is a table other than kernel_details or op_summary', () => {
    const w = [want(1, '2', 1, 'Cast')];
    citeRows([{ path, shown: 'k.csv', format: 'kernel_details' }], w);
    expect(w[0]!.line).toBeNull();
    const other = join(tmp, 'trace_view.json');
    writeFileSync(other, '[]');
    const v = [want(1, '2', 0, 'RmsNorm')];
    citeRows([{ path: other, shown: 'x', format: 'trace_view' }], v);
    expect(v[0]!.line).toBeNull();
  });

  test('a gzipped table, a missing file: nothing cited, nothing thrown (the byte layer opens the file)', () => {
    const gz = join(tmp, 'kernel_details.csv.gz');
    writeFileSync(gz, gzipSync(readFileSync(path)));
    const w = [want(1, '2', 0, 'RmsNorm')];
    citeRows([{ path: gz, shown: 'k.csv.gz', format: 'kernel_details' }], w);
    expect(w[0]!.line).toBeNull();
    citeRows([{ path: join(tmp, 'none.csv'), shown: 'none.csv', format: 'kernel_details' }], w);
    expect(w[0]!.line).toBeNull();
  });

  test('rows the scanner gives: a BOM, a quoted header, a row not as wide as the header not counted', () => {
    const p = join(tmp, 'op_summary_0.csv');
    writeFileSync(
      p,
      '\uFEFF"Step Id","Stream ID","Op Name","OP Type","Task Type"\n1,2,a,Cast,AI_VECTOR_CORE\n1,2,short,Cast\n1,2,b,Mul,AI_VECTOR_CORE\n',
    );
    const w = [want(1, '2', 1, 'Mul')];
    citeRows([{ path: p, shown: 'o.csv', format: 'op_summary' }], w);
    expect(w.map((x) => [x.file, x.line])).toEqual([['o.csv', 4]]);
  });
});

describe('kprof audit names a site as the other reports name ranks and steps', () => {
  test('the rank of no id is `rank (no id)`, one step is `step 13`', async () => {
    const file = join(tmp, 'one-rank', 'kernel_details.csv');
    mkdirSync(join(tmp, 'one-rank'));
    writeFileSync(
      file,
      ['Step Id,Name,Type,Accelerator Core,Start Time(us),Duration(us)', '13,a,Add,AI_VECTOR_CORE,1,5', '13,b,RmsNorm,AI_VECTOR_CORE,10,5', ''].join(
        '\n',
      ),
    );
    for (const [format, site] of [
      ['table', 'rank (no id) step 13: 1 chain'],
      ['markdown', 'rank (no id) step 13: 1 chain'],
    ] as const) {
      const r = await kprof(['audit', file, '--only', 'add-rms-norm', '--format', format]);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain(site);
      expect(r.stdout).not.toMatch(/rank `?-`? steps/);
    }
  });
});
