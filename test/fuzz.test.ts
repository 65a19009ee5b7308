// Property: whatever damage a profile has, kprof ends with exit 0 or 2, never an internal error or a stack trace,
// and whenever it exits 0 the rows add up. Inputs are real exports (../shared/data/real, when present) and the
// fixtures, cut to a few dozen lines, then damaged at random: cut, duplicated, bytes flipped, cells dropped,
// quotes and line breaks inserted, two files joined, gzipped. Seeded, so a failure reproduces; its counterexample
// (the mutations) is printed by fast-check.

import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { kprof, REAL, ROOT, realData } from './helpers.js';

const HAS_REAL = realData(import.meta.url);

/** Fixed so that a failure reproduces; KPROF_FUZZ_SEED and KPROF_FUZZ_RUNS explore further (e.g. before a release). */
const SEED = Number(process.env.KPROF_FUZZ_SEED ?? 20_240_611);
const RUNS = Number(process.env.KPROF_FUZZ_RUNS ?? 200);
/** Seed files are cut to this many lines so that every run is small and fast. */
const MAX_LINES = 40;

const EXPORT = /(kernel_details\.csv|op_summary_.*\.csv|op_statistic.*\.csv)(\.gz)?$/;

function walk(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((e) => {
      const p = join(dir, e);
      const st = statSync(p, { throwIfNoEntry: false });
      if (!st) return [];
      return st.isDirectory() ? walk(p) : [p];
    });
}

interface Seed {
  name: string;
  /** File name to write the mutated bytes under (decides how kprof resolves it). */
  file: string;
  bytes: Buffer;
}

function firstLines(b: Buffer, n: number): Buffer {
  let at = 0;
  for (let i = 0; i < n; i++) {
    const lf = b.indexOf(10, at);
    if (lf < 0) return b;
    at = lf + 1;
  }
  return b.subarray(0, at);
}

function seeds(): Seed[] {
  const out: Seed[] = [];
  const add = (path: string, base: string): void => {
    if (path.endsWith('.gz')) return; // gzip is one of the mutations
    const name = relative(base, path);
    const file = EXPORT.exec(path)?.[1] ?? (path.endsWith('.json') ? 'summary.json' : 'kernel_details.csv');
    out.push({ name, file, bytes: firstLines(readFileSync(path), MAX_LINES) });
  };
  for (const f of walk(join(ROOT, 'fixtures'))) {
    if (EXPORT.test(f) || /fixtures\/bad-[^/]+\/[^/]+\.(csv|json)$/.test(f)) add(f, ROOT);
  }
  if (HAS_REAL) for (const f of walk(REAL).filter((p) => EXPORT.test(p))) add(f, REAL);
  return out;
}

const SEEDS = seeds();
const tmp = mkdtempSync(join(tmpdir(), 'kprof-fuzz-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** One kind of damage, applied to the bytes of a file (and, for `join`, a second file). */
type Mutation =
  | { kind: 'cut'; at: number }
  | { kind: 'duplicate'; from: number; to: number; at: number }
  | { kind: 'flip'; at: number; byte: number }
  | { kind: 'drop-cell'; at: number }
  | { kind: 'insert'; at: number; text: string }
  | { kind: 'join'; other: number; at: number }
  | { kind: 'crlf'; at: number };

const INSERTS = ['"', '""', '\n', '\r\n', ',', '\r', '\t', '\uFEFF', 'N/A', '-1', '\u0000', '\u001b[31m', ',,,,,,,,,', '"\n"'];

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant('cut' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('duplicate' as const), from: fc.nat(), to: fc.nat(), at: fc.nat() }),
  fc.record({ kind: fc.constant('flip' as const), at: fc.nat(), byte: fc.integer({ min: 0, max: 255 }) }),
  fc.record({ kind: fc.constant('drop-cell' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('insert' as const), at: fc.nat(), text: fc.constantFrom(...INSERTS) }),
  fc.record({ kind: fc.constant('join' as const), other: fc.nat(), at: fc.nat() }),
  fc.record({ kind: fc.constant('crlf' as const), at: fc.nat() }),
);

function apply(b: Buffer, m: Mutation): Buffer {
  const pos = (n: number): number => (b.length === 0 ? 0 : n % (b.length + 1));
  switch (m.kind) {
    case 'cut':
      return b.subarray(0, pos(m.at));
    case 'duplicate': {
      const [s, e] = [pos(m.from), pos(m.to)].sort((x, y) => x - y) as [number, number];
      const at = pos(m.at);
      return Buffer.concat([b.subarray(0, at), b.subarray(s, e), b.subarray(at)]);
    }
    case 'flip': {
      if (b.length === 0) return b;
      const c = Buffer.from(b);
      c[m.at % c.length] = m.byte;
      return c;
    }
    case 'drop-cell': {
      // Remove the text from one comma to the next: a row loses a cell.
      const s = b.indexOf(44, pos(m.at));
      if (s < 0) return b;
      const e = b.indexOf(44, s + 1);
      return Buffer.concat([b.subarray(0, s), e < 0 ? Buffer.alloc(0) : b.subarray(e)]);
    }
    case 'insert': {
      const at = pos(m.at);
      return Buffer.concat([b.subarray(0, at), Buffer.from(m.text, 'utf8'), b.subarray(at)]);
    }
    case 'join': {
      // Two exports joined: the second one whole, or from a random point.
      const other = SEEDS[m.other % SEEDS.length]!.bytes;
      return Buffer.concat([b, other.subarray(other.length === 0 ? 0 : m.at % other.length)]);
    }
    case 'crlf':
      return Buffer.from(
        b.toString('latin1').replace(/\n/g, (s, i: number) => ((i + m.at) % 3 === 0 ? '\r\n' : s)),
        'latin1',
      );
  }
}

interface SummaryJson {
  rowsRead: number;
  skippedRows: number;
  filteredKernels: number;
  totals: { count: number };
}

interface InspectJson {
  ranks: {
    files: { path: string; format: string; rowsRead: number; rowsSkipped: number; rowsOnNoRank?: number }[];
    kernels: number;
    rowsRead: number;
    rowsSkipped: number;
  }[];
}

const KERNEL_TABLES = new Set(['kernel_details', 'op_summary']);

describe('fuzz: damaged exports never crash kprof and the rows always add up', () => {
  it(`${RUNS} damaged files (seed ${SEED}, ${SEEDS.length} seed files)`, async () => {
    expect(SEEDS.length).toBeGreaterThan(10);
    let run = 0;
    let exit0 = 0;
    let exit2 = 0;
    await fc.assert(
      fc.asyncProperty(fc.nat(), fc.array(mutation, { minLength: 1, maxLength: 4 }), fc.boolean(), async (which, mutations, gzip) => {
        const seed = SEEDS[which % SEEDS.length]!;
        let bytes = seed.bytes;
        for (const m of mutations) bytes = apply(bytes, m);
        const dir = join(tmp, String(run++));
        mkdirSync(dir);
        const path = join(dir, gzip ? `${seed.file}.gz` : seed.file);
        writeFileSync(path, gzip ? gzipSync(bytes) : bytes);

        const s = await kprof(['summary', path, '--format', 'json']);
        const i = await kprof(['inspect', path, '--format', 'json']);
        for (const r of [s, i]) {
          expect(r.stderr).not.toMatch(/internal error/);
          expect(r.stderr).not.toMatch(/^\s+at /m);
          expect([0, 2]).toContain(r.code);
          if (r.code === 2) {
            expect(r.stdout).toBe('');
            expect(r.stderr).toMatch(/^kprof: \S/m);
          }
        }
        // summary and inspect read the same way: both fail or neither.
        expect(i.code).toBe(s.code);
        if (s.code === 2) {
          exit2++;
          return;
        }
        exit0++;
        const sj = JSON.parse(s.stdout) as SummaryJson;
        const ij = JSON.parse(i.stdout) as InspectJson;
        expect(sj.skippedRows).toBeLessThanOrEqual(sj.rowsRead);
        const tables = ij.ranks.every((r) => r.files.every((f) => KERNEL_TABLES.has(f.format)));
        if (tables) {
          expect(sj.rowsRead).toBe(sj.totals.count + sj.filteredKernels + sj.skippedRows);
          for (const r of ij.ranks) expect(r.rowsRead).toBe(r.kernels + r.rowsSkipped);
          // A file's rows are its ranks' rows (an msprof op_summary can hold several devices, each a rank), and
          // those on no rank (a row whose device cannot be told: its Device_id unreadable, or another header).
          const byFile = new Map<string, { read: number; skipped: number; noRank: number }>();
          for (const r of ij.ranks) {
            for (const f of r.files) byFile.set(f.path, { read: f.rowsRead, skipped: f.rowsSkipped, noRank: f.rowsOnNoRank ?? 0 });
          }
          const fileRows = [...byFile.values()].reduce((n, f) => n + f.read, 0);
          const noRank = [...byFile.values()].reduce((n, f) => n + f.noRank, 0);
          expect(fileRows).toBe(ij.ranks.reduce((n, r) => n + r.rowsRead, 0) + noRank);
          expect(sj.rowsRead).toBe(fileRows);
        }
        // Every skipped row is said on stderr.
        if (sj.skippedRows > 0) expect(s.stderr).toContain(`kprof: ${sj.skippedRows} row${sj.skippedRows === 1 ? '' : 's'} could not be read`);
      }),
      { seed: SEED, numRuns: RUNS },
    );
    // A fuzz run that only ever fails (or never does) proves little: both outcomes must occur.
    expect(exit0).toBeGreaterThan(RUNS / 10);
    expect(exit2).toBeGreaterThan(RUNS / 20);
  });
});
