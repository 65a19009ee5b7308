// The SQLite export reader (src/input/formats/sqlite/): real torch_npu / msprof dbs against the text export of
// the same script, every schema generation of FORMATS.md §12 (fixtures/sqlite/, written by generate.mjs), WAL
// mode and read-only folders, and bad input.

import { parse } from 'csv-parse/sync';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { isKprofError, type KprofError } from '../src/util/errors.js';
import { readDbGroups, stepExpression } from '../src/input/formats/sqlite/groups.js';
import { sqliteLibrary } from '../src/input/formats/sqlite/library.js';
import { looksLikeSqlite, readHeader } from '../src/input/formats/sqlite/open.js';
import { probeDbExport, readDbExport, type DbInfo, type DbKernel, type ReadOptions } from '../src/input/formats/sqlite/reader.js';
import { REAL, ROOT, realData, sqliteInstalled, TestDatabase } from './helpers.js';

const HAS_SQLITE = sqliteInstalled(import.meta.url);

const HAS_REAL = realData(import.meta.url);

const FIX = join(ROOT, 'fixtures/sqlite');
const T0 = 1736410576375315901n;

const temps: string[] = [];
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'kprof-sqlite-test-'));
  temps.push(d);
  return d;
}
afterAll(() => {
  for (const d of temps) {
    chmodSync(d, 0o755);
    for (const e of readdirSync(d)) {
      const p = join(d, e);
      if (statSync(p).isDirectory()) chmodSync(p, 0o755);
    }
    rmSync(d, { recursive: true, force: true });
  }
});

interface Read {
  kernels: DbKernel[];
  skips: string[];
  info: DbInfo;
}

function read(path: string, options: ReadOptions = {}): Read {
  const kernels: DbKernel[] = [];
  const skips: string[] = [];
  const info = readDbExport(path, { kernel: (k) => kernels.push(k), skip: (w, m) => skips.push(`${w}: ${m}`) }, options);
  return { kernels, skips, info };
}

/** Counts per `type|core` of the compute kernels. */
function perTypeCore(kernels: DbKernel[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const k of kernels) if (k.kind === 'compute') out[`${k.type}|${k.core}`] = (out[`${k.type}|${k.core}`] ?? 0) + 1;
  return out;
}

function failure(f: () => unknown): KprofError {
  try {
    f();
  } catch (e) {
    if (isKprofError(e)) return e;
    throw e;
  }
  throw new Error('expected an input error');
}

/** A folder's entries with their sizes and modification times. */
function snapshotDir(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .map((e) => {
      const st = statSync(join(dir, e));
      return `${e} ${st.size} ${st.mtimeMs}`;
    });
}

describe.skipIf(!HAS_REAL || !HAS_SQLITE)('real db exports', () => {
  const runs = ['level0/rank0_ascend_pt', 'level0/rank1_ascend_pt', 'level1/rank0_ascend_pt', 'level1/rank1_ascend_pt'];
  for (const run of runs) {
    const rank = run.includes('rank0') ? '0' : '1';
    it(`${run}: compute kernels per (type, core) equal the text export of the same script`, () => {
      // Reading a real export links nothing to it (noLink: a WAL-mode sample is copied, not linked).
      const db = join(REAL, 'msinsight-torchnpu-db', run, 'ASCEND_PROFILER_OUTPUT', `ascend_pytorch_profiler_${rank}.db`);
      const r = read(db, { noLink: true, tmpRoot: tempDir() });
      const rows = parse(readFileSync(join(REAL, 'msinsight-torchnpu', run, 'ASCEND_PROFILER_OUTPUT', 'kernel_details.csv')), {
        columns: true,
        bom: true,
      }) as Record<string, string>[];
      const text: Record<string, number> = {};
      let hccl = 0;
      for (const row of rows) {
        if (row['Accelerator Core'] === 'HCCL') hccl++;
        else text[`${row.Type}|${row['Accelerator Core']}`] = (text[`${row.Type}|${row['Accelerator Core']}`] ?? 0) + 1;
      }
      expect(r.skips).toEqual([]);
      expect(perTypeCore(r.kernels)).toEqual(text);
      expect(r.info.compute).toBe(187);
      expect(r.info.communication).toBe(hccl);
      expect(r.kernels.filter((k) => k.kind === 'communication').every((k) => k.core === 'HCCL' && k.name.startsWith('hcom_allReduce_'))).toBe(true);
      expect(r.info.devices).toEqual([{ device: Number(rank), rank: Number(rank) }]);
      expect(r.info.answers.ranks).toBe(true);
      expect(r.info.steps.map((s) => s.id)).toEqual([50]);
      expect(r.info.answers.types).toBe(run.startsWith('level1'));
    });
  }

  it('durations are exact: the sum of endNs - startNs, as sqlite3 computes it, in ticks of 0.1 ns', () => {
    const db = join(REAL, 'msinsight-torchnpu-db/level1/rank1_ascend_pt/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_1.db');
    const r = read(db);
    // Times such as 1736410576376650902 are past 2^53: as doubles, their differences would be off by up to 256 ns.
    const sum = r.kernels.filter((k) => k.kind === 'compute').reduce((n, k) => n + k.ticks, 0);
    // sqlite3 -readonly: SELECT sum(t.endNs - t.startNs) FROM TASK t JOIN COMPUTE_TASK_INFO c USING (globalTaskId) = 8915634
    expect(sum).toBe(8915634 * 10);
    expect(r.info.originNs).toBe(1736410576376650902n);
  });

  it('the WAL-mode sample in its read-only folder reads, and its folder is left as it was', () => {
    const dir = join(REAL, 'msinsight-torchnpu-db/level1/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT');
    const before = snapshotDir(dir);
    expect(readHeader(join(dir, 'ascend_pytorch_profiler_0.db'), 'x').wal).toBe(true);
    const r = read(join(dir, 'ascend_pytorch_profiler_0.db'), { noLink: true, tmpRoot: tempDir() });
    expect(r.info.compute).toBe(187);
    expect(r.info.traits.some((t) => t.startsWith('WAL mode: read through a private view (a copy)'))).toBe(true);
    expect(snapshotDir(dir)).toEqual(before);
  });

  it('the msprof db of MindStudio Insight (WAL, no STEP_TIME, no RANK_DEVICE_MAP, no META_DATA)', () => {
    const r = read(join(REAL, 'msinsight-server-db/msprof_0.db'), { noLink: true, tmpRoot: tempDir() });
    expect(r.info.producer).toBe('msprof');
    expect(r.info.compute).toBe(11);
    expect(r.info.communication).toBe(0);
    expect(perTypeCore(r.kernels)).toEqual({
      'ZerosLike|AI_VECTOR_CORE': 1,
      'Cast|AI_VECTOR_CORE': 2,
      'OnesLike|AI_VECTOR_CORE': 2,
      'MemSet|AI_VECTOR_CORE': 1,
      'Tril|AI_VECTOR_CORE': 1,
      'Range|AI_VECTOR_CORE': 1,
      'Equal|AI_VECTOR_CORE': 1,
      'Less|AI_VECTOR_CORE': 2,
    });
    expect(r.info.devices).toEqual([{ device: 2, rank: null }]);
    expect(r.info.answers).toMatchObject({ steps: false, ranks: false, types: true });
    expect(r.info.schemaVersion).toBeNull();
  });

  it('analysis.db is recognised: it holds no kernels', () => {
    const e = failure(() =>
      read(join(REAL, 'msinsight-torchnpu-db/level1/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/analysis.db'), { display: 'x/analysis.db' }),
    );
    expect(e.kind).toBe('input');
    expect(e.message).toMatch(
      /^x\/analysis\.db: is an analysis\.db \(tables CommAnalyzerBandwidth, CommAnalyzerMatrix, CommAnalyzerTime, StepTraceTime\): it holds step and communication statistics, no kernels/,
    );
  });
});

const EXPECTED = { 'MatMulV2|AI_CORE': 3, 'Add|AI_VECTOR_CORE': 2, 'ReduceSum|MIX_AIV': 1 };
const MATMUL_TICKS = (20 + 123457 + 99999) * 10;

describe.skipIf(!HAS_SQLITE)('every schema generation', () => {
  const generations: [string, { comm: number; steps: boolean; trait?: string }][] = [
    ['preview-2024', { comm: 0, steps: false, trait: 'TASK(start, end): an early preview schema' }],
    ['torch_npu-6.0.rc1', { comm: 2, steps: false, trait: 'communication in COMMUNICATE_OP (torch_npu 6.0.rc1)' }],
    ['torch_npu-6.0.rc2', { comm: 2, steps: true, trait: 'communication in COMMUNICATE_OP (torch_npu 6.0.rc1)' }],
    ['torch_npu-6.0.rc3', { comm: 2, steps: true, trait: 'META_DATA without SCHEMA_VERSION' }],
    ['schema-1.0.0', { comm: 2, steps: true, trait: 'schema version 1.0.0' }],
    ['schema-1.2.0', { comm: 2, steps: true, trait: 'block column blockNum' }],
  ];
  for (const [name, want] of generations) {
    it(`${name}: the same kernels, communication and steps`, () => {
      const r = read(join(FIX, `${name}.db`), { shapes: true });
      expect(r.skips).toEqual([]);
      expect(perTypeCore(r.kernels)).toEqual(EXPECTED);
      expect(r.info.communication).toBe(want.comm);
      expect(r.kernels.filter((k) => k.type === 'MatMulV2').reduce((n, k) => n + k.ticks, 0)).toBe(MATMUL_TICKS);
      // The first MatMulV2: 1736410576375315901 → …921, 20 ns (as doubles: 0).
      expect(r.kernels[0]).toMatchObject({
        name: 'aclnnMm_MatMulV2',
        type: 'MatMulV2',
        core: 'AI_CORE',
        taskType: 'KERNEL_AICORE',
        stream: 2,
        startNs: 0,
        ticks: 200,
      });
      expect(r.info.originNs).toBe(T0);
      expect(r.kernels.find((k) => k.type === 'Add')?.shapes).toBe('8,1024;8,1024');
      expect(r.info.traits).toContain(want.trait);
      expect(r.info.answers.steps).toBe(want.steps);
      const steps = r.kernels.map((k) => k.step);
      if (want.steps) {
        // Windows 7: [-10, 199999] and 8: [200000, 500000] ns after the first start; the last Add is in neither.
        expect(r.kernels.filter((k) => k.kind === 'compute').map((k) => k.step)).toEqual([7, 7, 7, 8, 8, null]);
        expect(r.kernels.filter((k) => k.kind === 'communication').map((k) => k.step)).toEqual([7, 8]);
      } else {
        expect(steps.every((s) => s === null)).toBe(true);
      }
      expect(r.kernels.filter((k) => k.type === 'MatMulV2').map((k) => k.blockDim)).toEqual([24, 24, 24]);
    });
  }

  it('schema 1.2.0: the block dim is blockNum, not the new column that reuses the name blockDim', () => {
    const r = read(join(FIX, 'schema-1.2.0.db'));
    expect(r.kernels.filter((k) => k.kind === 'compute').map((k) => k.blockDim)).toEqual([24, 48, 24, 8, 24, 48]);
    // COMMUNICATION_OP has its own deviceId there; RANK_DEVICE_MAP says device 5 is rank 3.
    expect(r.kernels.filter((k) => k.kind === 'communication').map((k) => k.device)).toEqual([5, 5]);
    expect(r.info.devices).toEqual([{ device: 5, rank: 3 }]);
    expect(r.info.answers.ranks).toBe(true);
  });

  it("communication without a deviceId column ran on the db's one device", () => {
    const r = read(join(FIX, 'schema-1.0.0.db'));
    expect(r.kernels.filter((k) => k.kind === 'communication').map((k) => [k.name, k.type, k.core, k.device, k.ticks])).toEqual([
      ['hcom_allReduce__12_0_1', 'hcom_allReduce_', 'HCCL', 5, 500010],
      ['hcom_allReduce__12_1_1', 'hcom_allReduce_', 'HCCL', 5, 123450],
    ]);
  });

  it('file order: compute kernels as TASK holds them, then communication; time order: all by start', () => {
    const file = read(join(FIX, 'schema-1.0.0.db'));
    expect(file.kernels.map((k) => k.kind)).toEqual([
      'compute',
      'compute',
      'compute',
      'compute',
      'compute',
      'compute',
      'communication',
      'communication',
    ]);
    const time = read(join(FIX, 'schema-1.0.0.db'), { order: 'time' });
    expect(time.kernels.map((k) => k.startNs)).toEqual([0, 1000, 5000, 100000, 200000, 300000, 400000, 900000]);
    expect(time.kernels.map((k) => k.kind)).toEqual([
      'compute',
      'compute',
      'compute',
      'communication',
      'compute',
      'compute',
      'communication',
      'compute',
    ]);
  });

  it('msprof: no steps, two devices (each its own, no rank map), an empty COMMUNICATION_OP', () => {
    const r = read(join(FIX, 'msprof.db'));
    expect(r.info.producer).toBe('msprof');
    expect(r.info.devices).toEqual([
      { device: 0, rank: null },
      { device: 1, rank: null },
    ]);
    expect(r.info.answers.ranks).toBe(false);
    expect(r.info.traits).toContain('no STEP_TIME: no steps');
    expect(r.info.compute).toBe(12);
    for (const d of [0, 1]) expect(perTypeCore(r.kernels.filter((k) => k.device === d))).toEqual(EXPECTED);
  });

  it('shapes are read only when asked for', () => {
    expect(read(join(FIX, 'schema-1.0.0.db')).kernels.every((k) => k.shapes === null)).toBe(true);
    expect(read(join(FIX, 'schema-1.0.0.db')).info.answers.shapes).toBe(false);
    expect(read(join(FIX, 'schema-1.0.0.db'), { shapes: true }).info.answers.shapes).toBe(true);
  });

  it('probeDbExport tells the schema without reading a row', () => {
    const s = probeDbExport(join(FIX, 'torch_npu-6.0.rc2.db'));
    expect(s).toMatchObject({ producer: 'torch_npu', schemaVersion: null, steps: true, rankMap: false });
    expect(s.communication?.table).toBe('COMMUNICATE_OP');
    expect(s.compute.block).toBe('blockDim');
  });
});

describe.skipIf(!HAS_SQLITE)('WAL mode and read-only folders', () => {
  function readOnlyCopy(files: string[]): string {
    const dir = tempDir();
    const inner = join(dir, 'ro');
    mkdirSync(inner);
    for (const f of files) copyFileSync(join(FIX, f), join(inner, f));
    chmodSync(inner, 0o555);
    return inner;
  }

  for (const noLink of [false, true]) {
    it(`a WAL-mode db in a read-only folder reads, through a private ${noLink ? 'copy' : 'link'}; nothing is written beside it`, () => {
      const dir = readOnlyCopy(['wal.db']);
      const views = tempDir();
      const before = snapshotDir(dir);
      const r = read(join(dir, 'wal.db'), { tmpRoot: views, noLink });
      expect(perTypeCore(r.kernels)).toEqual(EXPECTED);
      expect(r.info.traits).toContain(
        `WAL mode: read through a private view (${noLink ? 'a copy' : 'a hard link'}) in a temporary folder, never beside the file`,
      );
      // As root a read-only mode does not stop a write: the listing is what proves nothing was written.
      expect(snapshotDir(dir)).toEqual(before);
      expect(readdirSync(views)).toEqual([]);
    });
  }

  it('a WAL-mode db whose -wal holds kernels: those are read too', () => {
    const dir = readOnlyCopy(['wal-pending.db', 'wal-pending.db-wal']);
    const before = snapshotDir(dir);
    const r = read(join(dir, 'wal-pending.db'), { tmpRoot: tempDir() });
    expect(perTypeCore(r.kernels)).toEqual({ ...EXPECTED, 'MatMulV2|AI_CORE': 5 });
    expect(r.info.traits.some((t) => /and a copy of its \d+-byte -wal/.test(t))).toBe(true);
    expect(snapshotDir(dir)).toEqual(before);
  });

  it('a WAL-mode db reached through a symbolic link: its own -wal is read, and nothing is written beside it', () => {
    // A read-only folder stops no one running as root: what keeps the folder as it was is that kprof never opens
    // the db where it lies. A link in another folder must not lead SQLite back there.
    const dir = readOnlyCopy(['wal-pending.db', 'wal-pending.db-wal']);
    const links = tempDir();
    symlinkSync(join(dir, 'wal-pending.db'), join(links, 'export.db'));
    const before = snapshotDir(dir);
    const r = read(join(links, 'export.db'), { tmpRoot: tempDir() });
    expect(perTypeCore(r.kernels)).toEqual({ ...EXPECTED, 'MatMulV2|AI_CORE': 5 });
    expect(r.info.traits.some((t) => /and a copy of its \d+-byte -wal/.test(t))).toBe(true);
    expect(snapshotDir(dir)).toEqual(before);
    expect(readdirSync(links)).toEqual(['export.db']);
    rmSync(join(links, 'export.db')); // a dangling link once the folders go
  });

  it('a rollback-journal db in a read-only folder opens in place, and nothing is written beside it', () => {
    const dir = readOnlyCopy(['schema-1.0.0.db']);
    const views = tempDir();
    const before = snapshotDir(dir);
    const r = read(join(dir, 'schema-1.0.0.db'), { tmpRoot: views });
    expect(r.info.compute).toBe(6);
    expect(r.info.traits.some((t) => t.startsWith('WAL'))).toBe(false);
    expect(snapshotDir(dir)).toEqual(before);
    expect(readdirSync(views)).toEqual([]);
  });

  it('the private view is removed when reading fails', () => {
    const dir = tempDir();
    copyFileSync(join(FIX, 'wal.db'), join(dir, 'wal.db'));
    const views = tempDir();
    const e = failure(() =>
      readDbExport(
        join(dir, 'wal.db'),
        {
          kernel: () => {
            throw Object.assign(new Error('disk full'), { code: 'SQLITE_FULL' });
          },
          skip: () => {},
        },
        { tmpRoot: views },
      ),
    );
    expect(e.message).toMatch(/SQLITE_FULL/);
    expect(readdirSync(views)).toEqual([]);
  });
});

describe.skipIf(!HAS_SQLITE)('bad input', () => {
  it('a db with unreadable rows: each is skipped, named and counted; the others are read', () => {
    const r = read(join(FIX, 'bad-rows.db'));
    expect(r.kernels.map((k) => [k.startNs, k.ticks])).toEqual([
      [0, 50],
      [70, 10],
    ]);
    expect(r.skips).toEqual([
      'TASK row 2: its start or end is not integer nanoseconds; row skipped',
      'TASK row 3: it ends 5 ns before it starts; row skipped',
      'TASK row 4: its start or end is not integer nanoseconds; row skipped',
      'TASK row 5: its name (id 999) is not in STRING_IDS; row skipped',
    ]);
    expect(r.info.skipped).toBe(4);
    expect(r.info.compute).toBe(2);
  });

  const cases: [string, RegExp][] = [
    [
      'truncated.db',
      /^in\/truncated\.db: the SQLite database is cut short: its header says 9 pages of 4096 bytes \(36864 bytes\); the file has 16384\. Copy the export again/,
    ],
    ['not-a-db.db', /^in\/not-a-db\.db: not an SQLite database: it starts with "Step Id,Name,Type,Accele", expected "SQLite format 3"/],
    [
      'other.db',
      /^in\/other\.db: an SQLite database without TASK and COMPUTE_TASK_INFO, so not a torch_npu or msprof kernel export; found tables: notes\./,
    ],
    [
      'endless-view.db',
      /^in\/endless-view\.db: an SQLite database without TASK \(a view here: views are not read\), so not a torch_npu or msprof kernel export; found tables: COMMUNICATION_OP, COMPUTE_TASK_INFO, /,
    ],
    [
      'analysis.db',
      /^in\/analysis\.db: is an analysis\.db \(tables CommAnalyzerTime, StepTraceTime\): it holds step and communication statistics, no kernels\./,
    ],
  ];
  for (const [f, message] of cases) {
    it(`${f}: an input error that names the file`, () => {
      const e = failure(() => read(join(FIX, f), { display: `in/${f}` }));
      expect(e.kind).toBe('input');
      expect(e.message).toMatch(message);
    });
  }

  it('an empty file, a file cut inside its header and one cut inside a page', () => {
    const dir = tempDir();
    const whole = readFileSync(join(FIX, 'schema-1.0.0.db'));
    writeFileSync(join(dir, 'empty.db'), '');
    writeFileSync(join(dir, 'head.db'), whole.subarray(0, 50));
    writeFileSync(join(dir, 'page.db'), whole.subarray(0, 5000));
    writeFileSync(join(dir, 'packed.db.gz'), gzipSync(whole));
    // A gzipped export is said for what it is (it was "not an SQLite database: it starts with "\x1f\u008b\x08…").
    expect(failure(() => read(join(dir, 'packed.db.gz'), { display: 'p.db.gz' })).message).toBe(
      'p.db.gz: gzip data, not an SQLite database: SQLite reads a db unpacked only. Unpack it first (gunzip -k p.db.gz) and pass the .db it writes.',
    );
    expect(failure(() => read(join(dir, 'empty.db'), { display: 'empty.db' })).message).toMatch(/^empty\.db: empty file; expected an SQLite export/);
    expect(failure(() => read(join(dir, 'head.db'), { display: 'head.db' })).message).toMatch(
      /^head\.db: the SQLite database is cut short: the file has 50 bytes, less than the 100 of an SQLite header/,
    );
    expect(failure(() => read(join(dir, 'page.db'), { display: 'page.db' })).message).toMatch(
      /^page\.db: the SQLite database is cut short: the file has 5000 bytes, not a whole number of its 4096-byte pages/,
    );
  });

  it('a file that is not SQLite: its first bytes quoted as text shows bytes, each that is not UTF-8 as \\xNN', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'noise.db'), Buffer.from([0xd8, 0xac, 0x35, 0x9f, 0x41, 0xc3, 0xa9, 0x0a, 0x42, 0xff]));
    // 0xd8 0xac is UTF-8 (U+062C), 0x9f alone and 0xff are not; é (0xc3 0xa9) is; the line feed is escaped.
    expect(failure(() => read(join(dir, 'noise.db'), { display: 'noise.db' })).message).toMatch(
      /^noise\.db: not an SQLite database: it starts with "\u062c5\\x9FAé\\x0aB\\xFF", expected "SQLite format 3"/,
    );
  });

  it("a db damaged inside (its header intact): SQLite's error, naming the file", () => {
    const dir = tempDir();
    const bytes = Buffer.from(readFileSync(join(FIX, 'schema-1.0.0.db')));
    // Pages 2 and later (the schema's tables and their rows) overwritten with noise.
    for (let i = 4096; i < bytes.length; i++) bytes[i] = (i * 7919) & 0xff;
    writeFileSync(join(dir, 'damaged.db'), bytes);
    const e = failure(() => read(join(dir, 'damaged.db'), { display: 'damaged.db' }));
    expect(e.kind).toBe('input');
    expect(e.message).toMatch(
      /^damaged\.db: SQLite could not read it \(SQLITE_(CORRUPT|NOTADB)[^)]*\)\. The file is damaged or not a complete export/,
    );
  });

  it('a folder, or a missing file, named .db: the byte layer opens it, and says what it is, naming the path', () => {
    const dir = tempDir();
    expect(failure(() => read(dir, { display: 'x.db' })).message).toBe(
      `${dir}: is a folder, expected a file. Pass the export file itself, or the profile folder that holds it.`,
    );
    expect(failure(() => read(join(dir, 'none.db'), { display: 'none.db' })).message).toBe(
      `${join(dir, 'none.db')}: no such file or folder. Check the path.`,
    );
  });

  it('a FIFO named .db is refused at once, not opened by SQLite (where mkfifo exists)', () => {
    const dir = tempDir();
    const fifo = join(dir, 'pipe.db');
    if (spawnSync('mkfifo', [fifo]).status !== 0) return;
    expect(failure(() => read(fifo, { display: 'pipe.db' })).message).toMatch(/pipe\.db: a FIFO \(named pipe\), not a regular file/);
  });

  it('a better-sqlite3 built for another Node.js: an input error saying to rebuild, not an internal error', () => {
    const load = (id: string): unknown => {
      if (id !== 'better-sqlite3') throw Object.assign(new Error(`No such built-in module: ${id}`), { code: 'ERR_UNKNOWN_BUILTIN_MODULE' });
      return class {
        constructor() {
          throw Object.assign(new Error("The module '/x/better_sqlite3.node'\nwas compiled against a different Node.js version"), {
            code: 'ERR_DLOPEN_FAILED',
          });
        }
      };
    };
    const e = failure(() => sqliteLibrary('in/a.db', load)('in/a.db'));
    expect(e.kind).toBe('input');
    expect(e.message).toMatch(/^in\/a\.db: the installed better-sqlite3 was built for another Node\.js version .*Run `npm rebuild better-sqlite3`/);
  });

  it('without node:sqlite or better-sqlite3: an input error saying what to do', () => {
    const missing = (): never => {
      throw Object.assign(new Error("Cannot find module 'better-sqlite3'"), { code: 'MODULE_NOT_FOUND' });
    };
    const e = failure(() => sqliteLibrary('in/a.db', missing));
    expect(e.kind).toBe('input');
    expect(e.message).toMatch(
      /^in\/a\.db: reading an SQLite export needs Node\.js 22\.16 or later \(its built-in node:sqlite\) or the better-sqlite3 package \(version 12\), which is not installed\. Run kprof with Node\.js 22\.16\+ or 24, or install the package where kprof is installed \(`npm install better-sqlite3@12`/,
    );
    const broken = (): never => {
      throw new Error('/x/better_sqlite3.node: invalid ELF header\nRequire stack:\n- a.js');
    };
    expect(failure(() => sqliteLibrary('in/a.db', broken)).message).toMatch(
      /which could not be loaded \(\/x\/better_sqlite3\.node: invalid ELF header\)\. Run kprof/,
    );
  });

  it('a file that is not a db is refused before the library is asked for', () => {
    let asked = false;
    const library = (): never => {
      asked = true;
      throw new Error('not to be called');
    };
    expect(failure(() => read(join(FIX, 'not-a-db.db'), { library })).kind).toBe('input');
    expect(asked).toBe(false);
  });

  it('looksLikeSqlite: the header magic, whatever the name', () => {
    expect(looksLikeSqlite(readFileSync(join(FIX, 'msprof.db')).subarray(0, 16))).toBe(true);
    expect(looksLikeSqlite(readFileSync(join(FIX, 'not-a-db.db')))).toBe(false);
    expect(looksLikeSqlite(Buffer.from('SQLite format'))).toBe(false);
  });
});

describe.skipIf(!HAS_SQLITE)('readDbGroups: the kernels of readDbExport, grouped by SQLite', () => {
  function viaKernels(path: string, options: ReadOptions = {}): Record<string, number[]> {
    const out: Record<string, number[]> = {};
    for (const k of read(path, options).kernels) {
      const key = [k.kind, k.name, k.type, k.core, k.shapes, k.device, k.step].join('|');
      const c = (out[key] ??= [0, 0, Infinity, -Infinity]);
      c[0]! += 1;
      c[1]! += k.ticks;
      c[2] = Math.min(c[2]!, k.ticks);
      c[3] = Math.max(c[3]!, k.ticks);
    }
    return out;
  }
  function viaGroups(path: string, options: ReadOptions = {}): { groups: Record<string, number[]>; skips: string[]; info: DbInfo } {
    const groups: Record<string, number[]> = {};
    const skips: string[] = [];
    const info = readDbGroups(
      path,
      {
        group: (g) => {
          const key = [g.kind, g.name, g.type, g.core, g.shapes, g.device, g.step].join('|');
          expect(groups[key]).toBeUndefined();
          groups[key] = [g.count, g.ticks, g.minTicks, g.maxTicks];
        },
        skip: (w, m, n) => skips.push(`${w}: ${m} (${n})`),
      },
      options,
    );
    return { groups, skips, info };
  }
  const files = ['preview-2024', 'torch_npu-6.0.rc1', 'torch_npu-6.0.rc2', 'torch_npu-6.0.rc3', 'schema-1.0.0', 'schema-1.2.0', 'msprof', 'wal'].map(
    (f) => join(FIX, `${f}.db`),
  );
  if (HAS_REAL) {
    for (const run of ['level0/rank0_ascend_pt', 'level1/rank1_ascend_pt']) {
      files.push(join(REAL, 'msinsight-torchnpu-db', run, 'ASCEND_PROFILER_OUTPUT', `ascend_pytorch_profiler_${run.includes('rank0') ? 0 : 1}.db`));
    }
    files.push(join(REAL, 'msinsight-server-db/msprof_0.db'));
  }
  for (const f of files) {
    it(`${f.replace(`${ROOT}/`, '').replace(REAL, 'real')}: the same cells, with and without shapes`, () => {
      for (const shapes of [false, true]) {
        const options = { shapes, noLink: true, tmpRoot: tempDir() };
        const g = viaGroups(f, options);
        expect(g.skips).toEqual([]);
        expect(g.groups).toEqual(viaKernels(f, options));
        const k = read(f, options).info;
        expect({ ...g.info, traits: [] }).toEqual({ ...k, traits: [] });
      }
    });
  }

  it('unreadable rows: each named, the others counted', () => {
    const g = viaGroups(join(FIX, 'bad-rows.db'));
    expect(g.groups).toEqual({ 'compute|aclnnMm_MatMulV2|MatMulV2|AI_CORE||0|': [2, 60, 10, 50] });
    expect(g.skips).toEqual([
      'TASK row 2: its start or end is not integer nanoseconds; row skipped (1)',
      'TASK row 3: it ends 5 ns before it starts; row skipped (1)',
      'TASK row 4: its start or end is not integer nanoseconds; row skipped (1)',
      'TASK (1 row): its name (id 999) is not in STRING_IDS; row skipped (1)',
    ]);
    expect(g.info).toMatchObject({ compute: 2, skipped: 4 });
  });

  it('a row whose start is far from the others (0, or near 2^63) is skipped alone, and huge durations do not fail the read', () => {
    // schema-1.0.0.db (6 compute kernels, 2 communication ops) and three damaged MatMulV2 rows: one starting at
    // 0 ns (every other start is 2^60 ns after it), two lasting 2^62 ns (their sum is past SQLite's integers).
    const f = join(tempDir(), 'far.db');
    copyFileSync(join(FIX, 'schema-1.0.0.db'), f);
    const Database = TestDatabase;
    const db = new Database(f);
    const task = db.prepare('INSERT INTO TASK (startNs, endNs, deviceId, globalTaskId, taskType, streamId) VALUES (?, ?, 5, ?, 2, 2)');
    const info = db.prepare('INSERT INTO COMPUTE_TASK_INFO (name, globalTaskId, blockDim, taskType, opType) VALUES (10, ?, 24, 2, 1)');
    for (const [id, start, end] of [
      [201, 0n, 10n],
      [202, T0 + 7n, T0 + 7n + 2n ** 62n],
      [203, T0 + 8n, T0 + 8n + 2n ** 62n],
    ] as const) {
      task.run(start, end, id);
      info.run(id);
    }
    db.close();
    const one = read(f);
    expect(one.skips).toEqual([
      'TASK row 9: its times are out of range (2^53 ns or more from the other kernels, or before them); row skipped',
      'TASK row 10: its duration (4611686018427388000 ns) is more than kprof sums exactly (2^51 ticks of 0.1 ns); row skipped',
      'TASK row 11: its duration (4611686018427388000 ns) is more than kprof sums exactly (2^51 ticks of 0.1 ns); row skipped',
    ]);
    expect(one.info).toMatchObject({ compute: 6, communication: 2, skipped: 3 });
    const g = viaGroups(f);
    expect(g.info).toMatchObject({ compute: 6, communication: 2, skipped: 3 });
    expect(g.skips.map((m) => m.replace(/: .*/, ''))).toEqual(['TASK row 9', 'TASK row 10', 'TASK row 11']);
    // The kernels read are those of the file without the damaged rows, whichever read.
    expect(g.groups).toEqual(viaGroups(join(FIX, 'schema-1.0.0.db')).groups);
  });

  it('stepExpression: the last window starting at or before, while it lasts; overlapping and touching windows', () => {
    const steps = [
      { id: 1, startNs: 0, endNs: 10 },
      { id: 2, startNs: 10, endNs: 20 },
      { id: 3, startNs: 15, endNs: 16 },
      { id: 4, startNs: 30, endNs: 40 },
    ];
    const Database = TestDatabase;
    const db = new Database(':memory:');
    for (const [t, want] of [
      [-1, null],
      [0, 1],
      [9, 1],
      [10, 2],
      [14, 2],
      [15, 3],
      [16, 3],
      [17, null],
      [25, null],
      [30, 4],
      [40, 4],
      [41, null],
    ] as const) {
      const expr = stepExpression(String(BigInt(t) + T0), steps, T0);
      expect([t, db.prepare(`SELECT ${expr}`).raw().get()[0]]).toEqual([t, want]);
    }
    db.close();
  });
});

describe.skipIf(!HAS_SQLITE)('text from the db', () => {
  it('names that are not UTF-8 keep their bytes (U+DC80–U+DCFF), as the CSV readers do; control characters are kept for the reporters to escape', () => {
    const dir = tempDir();
    const path = join(dir, 'bytes.db');
    copyFileSync(join(FIX, 'torch_npu-6.0.rc1.db'), path);
    const Database = TestDatabase;
    const db = new Database(path);
    // The first kernel's name id (aclnnMm_MatMulV2 is id 10) now holds the bytes "Mm\x85\x1b[31m".
    db.prepare('UPDATE STRING_IDS SET value = CAST(? AS TEXT) WHERE id = 10').run(Buffer.from([0x4d, 0x6d, 0x85, 0x1b, 0x5b, 0x33, 0x31, 0x6d]));
    db.close();
    const r = read(path);
    expect(r.kernels[0]!.name).toBe('Mm\udc85\u001b[31m');
  });
});
