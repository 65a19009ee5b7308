// A kernel name (or type) longer than 64 KiB is a row that cannot be read: skipped, counted and reported with its
// file and line, by either scan engine; a name of exactly 64 KiB is read. (Memory: bench/RESULTS.md.)

import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MAX_NAME_BYTES } from '../src/input/sink.js';
import { kprof, sqliteInstalled, TestDatabase } from './helpers.js';

const HAS_SQLITE = sqliteInstalled(import.meta.url);

const dir = mkdtempSync(join(tmpdir(), 'kprof-cap-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const HEAD = 'Step Id,Name,Type,Accelerator Core,Start Time(us),Duration(us)';

describe('a kernel name over 64 KiB', () => {
  const f = join(dir, 'kernel_details.csv');
  writeFileSync(
    f,
    `${[
      HEAD,
      `1,A${'x'.repeat(MAX_NAME_BYTES)},Op1,AI_CORE,100.0,1.5`, // line 2: 64 KiB + 1
      `1,${'B'.repeat(MAX_NAME_BYTES)},Op2,AI_CORE,101.0,2.5`, // exactly 64 KiB: read
      '1,MatMul,MatMul,AI_CORE,102.0,3.0',
      `2,Cast,T${'t'.repeat(MAX_NAME_BYTES)},AI_CORE,103.0,1.0`, // line 5: the type is too long
      `2,"Q""${'z'.repeat(MAX_NAME_BYTES)}",Op3,AI_CORE,104.0,4.0`, // line 6, quoted
    ].join('\n')}\n`,
  );

  for (const engine of ['simd', 'js']) {
    it(`is a skipped row, counted and reported with file and line (${engine} engine)`, async () => {
      const r = await kprof(['summary', f, '--by', 'type', '--format', 'json'], { KPROF_ENGINE: engine });
      expect(r.code, r.stderr).toBe(0);
      const s = JSON.parse(r.stdout);
      expect(s.skippedRows).toBe(3);
      expect(s.totals.count).toBe(2);
      expect(Object.fromEntries(s.groups.map((g: { key: string; count: number }) => [g.key, g.count]))).toEqual({ MatMul: 1, Op2: 1 });
      expect(r.stderr).toContain(
        `kernel_details.csv:2: Name is 65,537 bytes long, more than the 64 KiB kprof takes of a kernel name or type; row skipped`,
      );
      expect(r.stderr).toContain(`kernel_details.csv:5: Type is 65,537 bytes long`);
      expect(r.stderr).toContain(`kernel_details.csv:6: Name is 65,539 bytes long`);
      const strict = await kprof(['summary', f, '--strict'], { KPROF_ENGINE: engine });
      expect(strict.code).toBe(2);
    });
  }
});

describe('a kernel name over 64 KiB in a trace', () => {
  it('is a skipped kernel, counted and reported with the file and its start', async () => {
    const f = join(dir, 'trace.json');
    const kernel = (name: string, ts: number, correlation: number) => ({
      ph: 'X',
      cat: 'kernel',
      name,
      pid: 1,
      tid: 7,
      ts,
      dur: 3,
      args: { stream: 7, correlation },
    });
    writeFileSync(f, JSON.stringify({ traceEvents: [kernel(`k${'x'.repeat(MAX_NAME_BYTES)}`, 1000.5, 1), kernel('short', 1010, 2)] }));
    const r = await kprof(['summary', f, '--format', 'json']);
    expect(r.code, r.stderr).toBe(0);
    const s = JSON.parse(r.stdout);
    expect(s.skippedRows).toBe(1);
    expect(s.groups.map((g: { key: string }) => g.key)).toEqual(['short']);
    expect(r.stderr).toContain('trace.json: the kernel at 1000.5 µs: its name is 65,537 bytes long, more than the 64 KiB');
  });
});

describe.skipIf(!HAS_SQLITE)('a kernel name over 64 KiB in an SQLite export', () => {
  it('skips the kernels of that name, counted and warned of', async () => {
    const f = join(dir, 'ascend_pytorch_profiler_0.db');
    copyFileSync('fixtures/sqlite/layouts/base/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_0.db', f);
    const Database = TestDatabase;
    const db = new Database(f);
    // STRING_IDS 12 is the name of the one aclnnReduceSum_ReduceSum kernel.
    db.prepare('UPDATE STRING_IDS SET value = ? WHERE id = 12').run(`R${'r'.repeat(MAX_NAME_BYTES)}`);
    db.close();
    const r = await kprof(['summary', f, '--by', 'name', '--format', 'json']);
    expect(r.code, r.stderr).toBe(0);
    const s = JSON.parse(r.stdout);
    expect(s.skippedRows).toBe(1);
    expect(s.groups.some((g: { key: string }) => g.key.startsWith('Rrrr'))).toBe(false);
    expect(r.stderr).toContain('ascend_pytorch_profiler_0.db: a kernel: its name is 65,537 bytes long, more than the 64 KiB');
  });
});
