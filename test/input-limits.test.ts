// Size limits on hostile input that hold to the byte: a trace event over the scanner's item limit is refused
// whatever the chunks, before any of its fields is handed on, with the window never past the limit and a chunk.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { EventScanner, JsonTraceError, type EventView } from '../src/input/json/eventScanner.js';
import { kprof } from './helpers.js';

const KEYS = { eventKeys: ['ph', 'name', 'ts', 'dur', 'args'], argKeys: ['stream'] };
const LIMIT = 1 << 20;
const CHUNK = 1 << 16;

/** Feed `bytes` in chunks of `chunk` bytes: the names handed on, the error, and the bytes fed when it came. */
function feed(bytes: Buffer, engine: 'js' | 'simd', chunk = CHUNK): { names: number[]; error: unknown; fed: number } {
  const names: number[] = [];
  const s = new EventScanner({ ...KEYS, maxItemBytes: LIMIT, engine }, { event: (v: EventView) => names.push((v.str(1) ?? '').length) });
  let fed = 0;
  try {
    for (; fed < bytes.length; fed += chunk) s.push(Buffer.from(bytes.subarray(fed, fed + chunk)));
    s.finish();
  } catch (e) {
    return { names, error: e, fed };
  }
  return { names, error: null, fed };
}

/** A trace whose second event is exactly `size` bytes (a long name), then a short event and the end. */
function trace(size: number): Buffer {
  const head = '[{"ph": "X", "name": "ok"}, ';
  const open = '{"ph": "X", "name": "';
  const close = '"}';
  const name = 'a'.repeat(size - open.length - close.length);
  return Buffer.from(`${head}${open}${name}${close}, {"ph": "X", "name": "k"}]`);
}

describe('the trace scanner item limit', () => {
  for (const engine of ['js', 'simd'] as const) {
    it(`refuses an event one byte over the limit, complete in the window, before handing it on (${engine})`, () => {
      // 1.5 times the limit: the window doubles past it before the event ends, which used to let it through.
      for (const size of [LIMIT + 1, LIMIT + (LIMIT >> 1), 3 * LIMIT]) {
        const r = feed(trace(size), engine);
        expect(r.error, `an event of ${size} bytes`).toBeInstanceOf(JsonTraceError);
        const e = r.error as JsonTraceError;
        expect(e.what).toMatch(/^trace event 1 is longer than 1 MiB/);
        expect(e.offset).toBe(28);
        // Only the first event was handed on, and no more than the limit and two chunks were read.
        expect(r.names).toEqual([2]);
        expect(r.fed).toBeLessThanOrEqual(28 + LIMIT + 2 * CHUNK);
      }
    });

    it(`reads an event of exactly the limit, whatever the chunk size (${engine})`, () => {
      for (const chunk of [CHUNK, 100_000, LIMIT, 3 * LIMIT]) {
        const r = feed(trace(LIMIT), engine, chunk);
        expect(r.error).toBeNull();
        expect(r.names).toEqual([2, LIMIT - 23, 1]);
      }
    });
  }
});

describe('the CLI on a trace event over 64 MiB', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kprof-limits-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('exits 2 naming the file, the byte, the limit and what to do', async () => {
    const file = join(dir, 'big.pt.trace.json');
    const name = Buffer.alloc(65 << 20, 0x41);
    writeFileSync(
      file,
      Buffer.concat([Buffer.from('{"traceEvents": [{"ph": "X", "cat": "kernel", "name": "'), name, Buffer.from('", "ts": 1, "dur": 2}]}')]),
    );
    const r = await kprof(['summary', file]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`${file}: byte 17: trace event 0 is longer than 64 MiB, the limit (no real trace has one that long). Expected`);
    expect(r.stderr).toMatch(/export it again/);
  });
});

describe('the size of a rules or groups file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kprof-limits-rules-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** A rules file of `n` bare rules (some 35 bytes each). */
  function rules(n: number): string {
    const file = join(dir, `rules-${n}.yaml`);
    writeFileSync(file, `version: 1\nrules:\n${Array.from({ length: n }, (_, i) => `  - type: T${i}\n    present: true\n`).join('')}`);
    return file;
  }

  it('a file past 256 KiB is refused before it is parsed (the YAML library takes seconds a MB), one within is read', async () => {
    const profile = join(dir, 'kernel_details.csv');
    writeFileSync(profile, 'Step Id,Name,Type,Accelerator Core,Start Time(us),Duration(us)\n1,a,MatMulV2AiCoreFusion,AI_CORE,1,2.5\n');
    const big = rules(9_000);
    const r = await kprof(['check', profile, '--rules', big]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`rules-9000.yaml: more than 256 KiB; a rules or groups file is at most 256 KiB. Is this the right file?`);
    // And what to do when it is.
    expect(r.stderr).toMatch(
      /If it is: select many kernels in one rule .*or split the rules into several files and run kprof check once for each\.\n$/,
    );
    // 5,000 rules fit: the gate runs (and fails, as the other types are absent).
    const within = await kprof(['check', profile, '--rules', rules(5_000), '--format', 'json']);
    expect(within.code, within.stderr).toBe(1);
    expect(JSON.parse(within.stdout).results).toHaveLength(5_000);
  });
});

describe('the ranks of summary JSONs', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kprof-limits-ranks-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** A summary JSON of ranks `from` … `from + n - 1`, one kernel of one group each (some 270 bytes a rank). */
  function snapshot(file: string, from: number, n: number): string {
    const group = (count: number, us: number, share: number) => ({
      key: 'Add',
      type: 'Add',
      count,
      totalUs: us,
      avgUs: us / count,
      minUs: 1.5,
      maxUs: 1.5,
      sharePct: share,
      countPerStep: null,
      byStep: [],
    });
    const ranks = Array.from({ length: n }, (_, i) => String(from + i));
    const json = {
      schemaVersion: 1,
      kind: 'summary',
      groupBy: 'type',
      selection: '',
      inputs: ['cluster'],
      steps: null,
      stepIds: [],
      ranks,
      rowsRead: n,
      skippedRows: 0,
      filteredKernels: 0,
      totals: { count: n, totalUs: 1.5 * n },
      groups: [group(n, 1.5 * n, 100)],
      perRank: ranks.map((rank) => ({
        rank,
        steps: [],
        rowsRead: 1,
        skippedRows: 0,
        filteredKernels: 0,
        totals: { count: 1, totalUs: 1.5 },
        groups: [group(1, 1.5, Math.round(1e6 / n) / 1e4)],
      })),
    };
    const path = join(dir, file);
    writeFileSync(path, JSON.stringify(json));
    return path;
  }

  it('a file of more than 65,536 ranks is refused before they are held (a million of them would exhaust memory)', async () => {
    const r = await kprof(['summary', snapshot('big.json', 0, 65_537)]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `kprof: ${join(dir, 'big.json')}: holds 65,537 ranks; kprof reads at most 65,536 ranks of summary JSONs (each rank held costs kilobytes of memory). Summarise and compare the cluster in parts of fewer ranks (--rank 0-32767, …).\n`,
    );
  });

  it('so is a folder of summary JSONs that hold more in all; 65,536 are read', async () => {
    const folder = join(dir, 'parts');
    mkdirSync(folder);
    snapshot('parts/a.json', 0, 32_768);
    snapshot('parts/b.json', 32_768, 32_768);
    const within = await kprof(['summary', folder, '--format', 'json']);
    expect(within.code, within.stderr).toBe(0);
    expect(JSON.parse(within.stdout).ranks).toHaveLength(65_536);
    snapshot('parts/c.json', 65_536, 1);
    const over = await kprof(['summary', folder]);
    expect(over.code).toBe(2);
    expect(over.stderr).toMatch(/c\.json and the files read before it: holds 65,537 ranks; kprof reads at most 65,536 ranks of summary JSONs/);
  });
});
