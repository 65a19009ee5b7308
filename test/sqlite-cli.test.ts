// The db export (registry id `db`) through the command line: found in profile folders and given directly,
// summary / inspect / diff / check / rules on it, the text and the db export of one run side by side (--prefer),
// read-only folders, a missing SQLite library and bad input.

import { chmodSync, copyFileSync, cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { resolveInput } from '../src/input/formats/resolve.js';
import { readProfile } from '../src/input/read.js';
import { NO_STREAM, type KernelKind } from '../src/input/sink.js';
import { readDb } from '../src/input/formats/sqlite/source.js';
import type { Profile } from '../src/model/model.js';
import { injectSqliteLoader } from '../src/input/formats/sqlite/library.js';
import { expectTranscript, kprof, REAL, REAL_REL, realData, sqliteInstalled, TestDatabase } from './helpers.js';

const HAS_SQLITE = sqliteInstalled(import.meta.url);

const HAS_REAL = realData(import.meta.url);

const FIX = 'fixtures/sqlite';
const L = `${FIX}/layouts`;

const temps: string[] = [];
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'kprof-sqlite-cli-'));
  temps.push(d);
  return d;
}
afterAll(() => {
  for (const d of temps) {
    chmodSync(d, 0o755);
    for (const e of readdirSync(d)) if (statSync(join(d, e)).isDirectory()) chmodSync(join(d, e), 0o755);
    rmSync(d, { recursive: true, force: true });
  }
});

describe.skipIf(!HAS_SQLITE)('transcripts on db fixtures', () => {
  const cases: [string, string[]][] = [
    ['db-summary', ['summary', `${L}/base`, '--by', 'type+core']],
    ['db-inspect', ['inspect', `${L}/base`]],
    ['db-diff', ['diff', `${L}/base`, `${L}/pr`, '--by', 'name']],
    ['db-inspect-both', ['inspect', `${L}/both`]],
    ['db-inspect-msprof', ['inspect', `${L}/msprof`]],
    ['db-summary-no-steps', ['summary', `${FIX}/torch_npu-6.0.rc1.db`, '--by', 'name']],
    ['db-bad-analysis', ['summary', `${L}/base/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/analysis.db`]],
    ['db-bad-truncated', ['summary', `${FIX}/truncated.db`]],
    ['db-bad-not-a-db', ['summary', `${FIX}/not-a-db.db`]],
    ['db-bad-no-task', ['summary', `${FIX}/other.db`]],
  ];
  for (const [name, args] of cases) {
    it(name, async () => {
      const r = await expectTranscript(name, args);
      expect(r.code).toBe(name.includes('-bad-') ? 2 : 0);
    });
  }
});

describe.skipIf(!HAS_SQLITE)('where db exports are found', () => {
  const plan = (input: string, prefer?: 'db' | 'text') => resolveInput(input, { prefer: prefer ?? null });

  it('a framework folder, a folder of ranks, an msprof PROF_ folder, a loose folder and a file given directly', () => {
    const ranks = plan(`${L}/base`).ranks;
    expect(ranks.map((p) => [p.rank, p.format, p.rankSource])).toEqual([
      ['0', 'db', 'profiler_info_0.json rank_id'],
      ['1', 'db', 'profiler_info_1.json rank_id'],
    ]);
    expect(plan(`${L}/base/rank1_ascend_pt`).ranks.map((p) => [p.rank, p.format])).toEqual([['1', 'db']]);
    expect(plan(`${L}/base/rank1_ascend_pt/ASCEND_PROFILER_OUTPUT`).ranks.map((p) => [p.rank, p.format])).toEqual([['1', 'db']]);
    const prof = plan(`${L}/msprof`).ranks;
    expect(prof.map((p) => [p.format, p.files.map((f) => f.split('/').pop())])).toEqual([['db', ['msprof_20260101000000.db']]]);
    expect(plan(`${L}/loose`).ranks.map((p) => [p.rank, p.rankSource])).toEqual([['2', 'file name ascend_pytorch_profiler_2.db']]);
  });

  it("the rank: profiler_info, else the file name, else the db's RANK_DEVICE_MAP; a map that disagrees is warned of", async () => {
    const given = await kprof(['summary', `${FIX}/schema-1.0.0.db`, '--rank', '3', '--format', 'json']);
    expect(given.code, given.stderr).toBe(0);
    expect(JSON.parse(given.stdout).ranks).toEqual(['3']);
    const inspected = await kprof(['inspect', `${FIX}/schema-1.0.0.db`]);
    expect(inspected.stdout).toContain('rank id  from RANK_DEVICE_MAP of schema-1.0.0.db (device 5)');
    const dir = tempDir();
    mkdirSync(join(dir, 'rank0_ascend_pt', 'ASCEND_PROFILER_OUTPUT'), { recursive: true });
    writeFileSync(join(dir, 'rank0_ascend_pt', 'profiler_info_0.json'), '{"rank_id": 0}');
    copyFileSync(`${FIX}/schema-1.0.0.db`, join(dir, 'rank0_ascend_pt', 'ASCEND_PROFILER_OUTPUT', 'ascend_pytorch_profiler_0.db'));
    const r = await kprof(['summary', dir, '--format', 'json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).ranks).toEqual(['0']);
    expect(r.stderr).toContain(
      'ascend_pytorch_profiler_0.db: RANK_DEVICE_MAP of ascend_pytorch_profiler_0.db (device 5) says rank 3; the rank is taken from profiler_info_0.json rank_id (0)',
    );
  });

  it('a file is a db by its SQLite header or its .db name; analysis.db beside the export is not read', () => {
    const dir = tempDir();
    copyFileSync(`${FIX}/schema-1.0.0.db`, join(dir, 'run.sqlite'));
    expect(plan(join(dir, 'run.sqlite')).ranks[0]!.format).toBe('db');
    // A CSV named *.db is a db to be refused (db-bad-not-a-db), not a CSV read by its header.
    expect(plan(`${FIX}/not-a-db.db`).ranks[0]!.format).toBe('db');
    expect(plan(`${L}/base/rank0_ascend_pt`).ranks[0]!.files.map((f) => f.split('/').pop())).toEqual(['ascend_pytorch_profiler_0.db']);
  });

  it('a folder with the text and the db export of one run: the text by default, --prefer db the db, and a note says which', () => {
    const text = plan(`${L}/both`);
    expect(text.ranks.map((p) => p.format)).toEqual(['kernel_details']);
    expect(text.notes.join('\n')).toMatch(/holds both the text and the db export of the run .*reading kernel_details\.csv \(the default/);
    expect(plan(`${L}/both`, 'text').ranks.map((p) => p.format)).toEqual(['kernel_details']);
    const db = plan(`${L}/both`, 'db');
    expect(db.ranks.map((p) => p.format)).toEqual(['db']);
    expect(db.notes.join('\n')).toMatch(/reading ascend_pytorch_profiler_0\.db \(--prefer db; --prefer text reads the other\)/);
  });

  it('an msprof PROF_ folder with op_summary and its msprof_*.db: --prefer chooses', () => {
    const dir = tempDir();
    cpSync(`${L}/msprof`, dir, { recursive: true });
    const prof = join(dir, 'PROF_000001_20260101000000000_ABCDEFGHIJKLMNOP');
    mkdirSync(join(prof, 'mindstudio_profiler_output'));
    writeFileSync(
      join(prof, 'mindstudio_profiler_output', 'op_summary_20260101000000.csv'),
      'Device_id,Op Name,OP Type,Task Type,Task Start Time(us),Task Duration(us)\n0,a,Add,AI_CORE,1,2\n',
    );
    expect(plan(dir).ranks.map((p) => p.format)).toEqual(['op_summary']);
    expect(plan(dir, 'db').ranks.map((p) => p.format)).toEqual(['db']);
    expect(plan(dir, 'db').notes.join('\n')).toContain('holds both the text and the db export');
  });

  it('--prefer takes db or text only', async () => {
    const r = await kprof(['summary', `${L}/both`, '--prefer', 'sqlite']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--prefer: expected db or text; found "sqlite".');
    const db = await kprof(['summary', `${L}/both`, '--prefer', 'db', '--format', 'json']);
    const text = await kprof(['summary', `${L}/both`, '--prefer', 'text', '--format', 'json']);
    expect(db.code).toBe(0);
    // The same kernels in both exports: the same figures, read from another file.
    const figures = (s: string) => {
      const j = JSON.parse(s);
      return { groups: j.groups, totals: j.totals, steps: j.steps };
    };
    expect(figures(db.stdout)).toEqual(figures(text.stdout));
    const inspected = await kprof(['inspect', `${L}/both`, '--prefer', 'db', '--format', 'json']);
    expect(JSON.parse(inspected.stdout).ranks[0].files[0].format).toBe('db');
  });
});

describe.skipIf(!HAS_SQLITE)('every schema generation through the command line', () => {
  const generations = ['preview-2024', 'torch_npu-6.0.rc1', 'torch_npu-6.0.rc2', 'torch_npu-6.0.rc3', 'schema-1.0.0', 'schema-1.2.0', 'wal'];
  for (const g of generations) {
    it(`${g}: the fixture's kernels per (type, core), steps where STEP_TIME is`, async () => {
      const r = await kprof(['summary', `${FIX}/${g}.db`, '--by', 'type+core', '--format', 'json']);
      expect(r.code, r.stderr).toBe(0);
      const j = JSON.parse(r.stdout);
      const counts = Object.fromEntries(j.groups.map((x: { key: string; count: number }) => [x.key, x.count]));
      const comm = g === 'preview-2024' ? {} : { 'hcom_allReduce_ @ HCCL': 2 };
      expect(counts).toEqual({ 'MatMulV2 @ AI_CORE': 3, 'Add @ AI_VECTOR_CORE': 2, 'ReduceSum @ MIX_AIV': 1, ...comm });
      // 20 + 123457 + 99999 ns of MatMulV2: exact, past what a double of Unix ns would keep.
      expect(j.groups.find((x: { key: string }) => x.key === 'MatMulV2 @ AI_CORE').totalUs).toBe(223.476);
      const steps = !['preview-2024', 'torch_npu-6.0.rc1'].includes(g);
      expect(j.stepIds).toEqual(steps ? [7, 8] : []);
    });
  }

  it('a STEP_TIME window of a negative id is no step (no --steps range selects one): left out, said, its kernels in no step', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kprof-negative-step-'));
    try {
      const path = join(dir, 'ascend_pytorch_profiler.db');
      copyFileSync(`${FIX}/schema-1.2.0.db`, path);
      const db = new TestDatabase(path);
      db.exec('UPDATE STEP_TIME SET id = -7 WHERE id = 7;');
      db.close();
      const whole = JSON.parse((await kprof(['summary', `${FIX}/schema-1.2.0.db`, '--format', 'json'])).stdout);
      for (const grouped of [true, false]) {
        // Both reads: the grouped one (summary) and the one-by-one one (--step-time reads every kernel).
        const r = await kprof(['summary', path, '--format', 'json', ...(grouped ? [] : ['--step-time'])]);
        expect(r.code, r.stderr).toBe(0);
        const j = JSON.parse(r.stdout);
        expect(j.stepIds).toEqual([8]);
        expect(j.totals).toEqual(whole.totals);
      }
      const ins = await kprof(['inspect', path]);
      expect(ins.stdout).toContain('1 STEP_TIME window of a negative id left out (steps are numbered from 0): its kernels in no step');
      expect(ins.stdout).toContain('steps    1 (8)');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the grouped read (summary) and the one-by-one read (inspect, sinks beside) give the same figures', async () => {
    const inputs = [...generations.map((g) => `${FIX}/${g}.db`), `${FIX}/bad-rows.db`, `${L}/base`, `${L}/msprof`];
    if (HAS_REAL)
      inputs.push(join(REAL, 'msinsight-torchnpu-db/level0'), join(REAL, 'msinsight-torchnpu-db/level1'), join(REAL, 'msinsight-server-db'));
    for (const input of inputs) {
      const grouped = await readProfile(input, { withShapes: true, ranks: null, threads: 'off' });
      const oneByOne = await readProfile(input, { withShapes: true, withSpan: true, ranks: null, threads: 'off' });
      const figures = (p: Profile) =>
        p.ranks.map((r) => ({
          rank: r.rank,
          rows: [r.rowsRead, r.rowsSkipped, r.kernels, r.rowsWithoutStep, r.stepIds, r.warningCount],
          groups: [...r.groups.values()]
            .map((g) => [g.name, g.type, g.core, g.shapes, g.total, [...g.steps].sort((a, b) => a[0] - b[0])])
            .sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1)),
        }));
      expect(figures(oneByOne), input).toEqual(figures(grouped));
      expect(oneByOne.ranks.every((r) => r.spanTicks !== null)).toBe(true);
    }
  });
});

describe.skipIf(!HAS_SQLITE)('uneven dbs', () => {
  const Database = HAS_SQLITE ? TestDatabase : null;
  const edited = (sql: string): string => {
    const path = join(tempDir(), 'ascend_pytorch_profiler_0.db');
    copyFileSync(`${FIX}/schema-1.0.0.db`, path);
    const db = new Database!(path);
    db.exec(sql);
    db.close();
    return path;
  };

  it('a db with no kernel rows is exit 2 naming it', async () => {
    const r = await kprof(['summary', edited('DELETE FROM TASK; DELETE FROM COMMUNICATION_OP')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/ascend_pytorch_profiler_0\.db has no kernels in it\./);
  });

  it('kinds whose fields join to the same text (a NUL inside a name) stay apart, read one by one or grouped', async () => {
    const path = edited(
      "UPDATE STRING_IDS SET value = 'x' || char(0) || 'y' WHERE value = 'aclnnMm_MatMulV2'; UPDATE STRING_IDS SET value = 'z' WHERE value = 'MatMulV2';" +
        "UPDATE STRING_IDS SET value = 'x' WHERE value = 'aclnnAdd_AddAiCore_Add'; UPDATE STRING_IDS SET value = 'y' || char(0) || 'z' WHERE value = 'Add';" +
        "UPDATE STRING_IDS SET value = 'AI_CORE' WHERE value = 'AI_VECTOR_CORE';",
    );
    for (const withSpan of [false, true]) {
      const p = await readProfile(path, { withShapes: false, withSpan, ranks: null, threads: 'off' });
      const counts = [...p.ranks[0]!.groups.values()].filter((g) => g.name!.startsWith('x')).map((g) => g.total.count);
      expect(counts.sort()).toEqual([2, 3]);
    }
  });

  it('a kernel whose deviceId is no device (-1, NULL) or a device RANK_DEVICE_MAP leaves out is skipped and said, not made a rank of that number', async () => {
    // Copies of TASK row 1 (and its COMPUTE_TASK_INFO row) on other devices, each with a globalTaskId of its own.
    const copies = (file: string, devices: (number | null)[], extra = ''): string => {
      const path = join(tempDir(), 'ascend_pytorch_profiler_0.db');
      copyFileSync(`${FIX}/${file}`, path);
      const db = new Database!(path);
      db.exec(
        devices
          .map(
            (d, i) =>
              `CREATE TEMP TABLE t${i} AS SELECT * FROM TASK WHERE rowid = 1; UPDATE t${i} SET deviceId = ${d ?? 'NULL'}, globalTaskId = ${301 + i}, startNs = startNs + ${i + 1}; ` +
              `CREATE TEMP TABLE c${i} AS SELECT * FROM COMPUTE_TASK_INFO WHERE globalTaskId = (SELECT globalTaskId FROM TASK WHERE rowid = 1); UPDATE c${i} SET globalTaskId = ${301 + i}; ` +
              `INSERT INTO TASK SELECT * FROM t${i}; INSERT INTO COMPUTE_TASK_INFO SELECT * FROM c${i};`,
          )
          .join(' ') + extra,
      );
      db.close();
      return path;
    };
    type Out = { ranks: string[]; skippedRows: number; totals: { count: number }; perRank: { rank: string; totals: { count: number } }[] };
    const json = async (path: string): Promise<{ out: Out; stderr: string }> => {
      const r = await kprof(['summary', path, '--format', 'json']);
      expect(r.code, r.stderr).toBe(0);
      return { out: JSON.parse(r.stdout) as Out, stderr: r.stderr };
    };
    // schema-1.0.0.db: device 5, which RANK_DEVICE_MAP maps to rank 3.
    const clean = (await json(`${FIX}/schema-1.0.0.db`)).out;
    const bad = await json(copies('schema-1.0.0.db', [-1, null, 7, 5]));
    expect(bad.out.ranks).toEqual(['3']);
    expect(bad.out.skippedRows).toBe(3);
    // The copy on device 5 counts (on rank 3); the others are in no rank.
    expect(bad.out.totals.count).toBe(clean.totals.count + 1);
    expect(bad.stderr).toContain('its deviceId is -1, not a device number (0, 1, …); row skipped');
    expect(bad.stderr).toContain('its deviceId is NULL, not a device number (0, 1, …); row skipped');
    expect(bad.stderr).toContain('its deviceId 7 is not in RANK_DEVICE_MAP, which maps device 5 to rank 3: it is on no rank; row skipped');
    // Read row by row (diff's Fusion rewrites read the kernels in order): the same rows skipped, named by row.
    const diff = await kprof(['diff', copies('schema-1.0.0.db', [-1, 7]), `${FIX}/schema-1.0.0.db`, '--format', 'json']);
    expect(diff.code, diff.stderr).toBe(0);
    expect(diff.stderr).toMatch(/TASK row 9: its deviceId is -1, not a device number/);
    expect(diff.stderr).toMatch(/TASK row 10: its deviceId 7 is not in RANK_DEVICE_MAP/);
    // A db without RANK_DEVICE_MAP (msprof: devices 0 and 1, each a rank by its number): -1 is skipped, 2 is a rank.
    const msprof = await json(copies('msprof.db', [-1, 2]));
    expect(msprof.out.ranks).toEqual(['0', '1', '2']);
    expect(msprof.out.skippedRows).toBe(1);
    // A map of another device only says nothing of these kernels: device 5 takes the folder's rank as before.
    const other = await json(copies('schema-1.0.0.db', [], 'UPDATE RANK_DEVICE_MAP SET deviceId = 9;'));
    expect([other.out.skippedRows, other.out.totals.count]).toEqual([0, clean.totals.count]);
  });

  it('a db without the accelerator core column: --by type+core is refused naming what it lacks, --by type reads', async () => {
    const path = edited('ALTER TABLE COMPUTE_TASK_INFO DROP COLUMN taskType');
    const r = await kprof(['summary', path, '--by', 'type+core']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--by type+core needs core types');
    expect((await kprof(['summary', path, '--by', 'type'])).code).toBe(0);
    expect((await kprof(['inspect', path])).stdout).toContain('missing  COMPUTE_TASK_INFO.taskType (the accelerator core)');
  });
});

/** A sink that wants starts and streams and records every kernel (and what it is told), with a row log. */
function recorder() {
  const kinds = new Map<number, KernelKind>();
  const rec = {
    origins: [] as number[],
    kernels: [] as { name: string; startTicks: number; stream: number; ticks: number }[],
    skips: [] as string[],
    wantsStarts: true,
    wantsStreams: true,
    rowsRead: 0,
    rowsSkipped: 0,
    begin() {},
    origin(us: number) {
      rec.origins.push(us);
    },
    bind(id: number, kind: KernelKind) {
      kinds.set(id, kind);
    },
    addBatch() {
      throw new Error('the db reader gives kernels one by one');
    },
    addKernel(id: number, _step: number | null, ticks: number, startTicks: number, stream: number) {
      rec.kernels.push({ name: kinds.get(id)!.rawName!, startTicks, stream, ticks });
    },
    addAggregated() {
      throw new Error('a sink that wants starts gets kernels one by one');
    },
    skip(_f: string, _l: number, m: string) {
      rec.rowsSkipped++;
      rec.skips.push(m);
    },
    warn() {},
  };
  return rec;
}

describe.skipIf(!HAS_SQLITE)('exact starts and streams for sinks that want them', () => {
  it('fixture: start ticks after a whole-µs origin, exact past 2^53 ns; streams from TASK.streamId, none for communication', async () => {
    const rec = recorder();
    await readDb(`${FIX}/schema-1.0.0.db`, rec, { withShapes: false });
    // T0 = 1736410576375315901 ns: origin 1736410576375315 µs, and 901 ns past it.
    expect(rec.origins).toEqual([1736410576375315]);
    expect(rec.kernels.map((k) => [k.name, k.startTicks, k.stream, k.ticks])).toEqual([
      ['aclnnMm_MatMulV2', 9010, 2, 200],
      ['aclnnAdd_AddAiCore_Add', 19010, 2, 15000],
      ['aclnnMm_MatMulV2', 59010, 2, 1234570],
      ['hcom_allReduce__12_0_1', 1009010, NO_STREAM, 500010],
      ['aclnnReduceSum_ReduceSum', 2009010, 3, 7770],
      ['aclnnMm_MatMulV2', 3009010, 2, 999990],
      ['hcom_allReduce__12_1_1', 4009010, NO_STREAM, 123450],
      ['aclnnAdd_AddAiCore_Add', 9009010, 2, 30],
    ]);
  });

  it.skipIf(!HAS_REAL)('real samples: every kernel start and stream equals BigInt arithmetic on the db', async () => {
    const Database = TestDatabase;
    for (const f of [
      'msinsight-torchnpu-db/level1/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_0.db',
      'msinsight-torchnpu-db/level0/rank1_ascend_pt/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_1.db',
    ]) {
      const path = join(REAL, f);
      const rec = recorder();
      await readDb(path, rec, { withShapes: false });
      // An independent read: a private copy in rollback mode (the sample may be in WAL mode in a read-only folder).
      const copy = join(tempDir(), 'copy.db');
      const bytes = readFileSync(path);
      bytes[18] = bytes[19] = 1;
      writeFileSync(copy, bytes);
      const db = new Database(copy, { readonly: true });
      const rows = db
        .prepare(
          'SELECT s.value AS name, t.startNs AS start, t.streamId AS stream FROM TASK t JOIN COMPUTE_TASK_INFO c ON c.globalTaskId = t.globalTaskId JOIN STRING_IDS s ON s.id = c.name ' +
            'UNION ALL SELECT s.value, o.startNs, NULL FROM COMMUNICATION_OP o JOIN STRING_IDS s ON s.id = o.opName',
        )
        .safeIntegers(true)
        .all() as { name: string; start: bigint; stream: bigint | null }[];
      // The origin is the earliest start of any task (the non-kernel ones too), floored to a whole µs.
      const earliest = db
        .prepare('SELECT min(m) FROM (SELECT min(startNs) AS m FROM TASK UNION ALL SELECT min(startNs) FROM COMMUNICATION_OP)')
        .pluck()
        .safeIntegers(true)
        .get() as bigint;
      db.close();
      const originUs = earliest / 1000n;
      const expected = rows.map((r) => `${r.name} ${(r.start - originUs * 1000n) * 10n} ${r.stream === null ? NO_STREAM : r.stream}`).sort();
      expect(rec.origins).toEqual([Number(originUs)]);
      expect(rec.kernels.map((k) => `${k.name} ${k.startTicks} ${k.stream}`).sort()).toEqual(expected);
      // In time order, as a sequence view reads them.
      const starts = rec.kernels.map((k) => k.startTicks);
      expect(starts).toEqual([...starts].sort((a, b) => a - b));
    }
  });
});

describe.skipIf(!HAS_SQLITE)('check and rules read a db', () => {
  it('rules from base → pr, then check of pr against them passes and of base fails', async () => {
    const dir = tempDir();
    const rules = join(dir, 'rules.yaml');
    const r = await kprof(['rules', `${L}/base`, `${L}/pr`, '--by', 'name', '-o', rules]);
    expect(r.code, r.stderr).toBe(0);
    const pass = await kprof(['check', `${L}/pr`, '--rules', rules]);
    expect(pass.code, pass.stdout + pass.stderr).toBe(0);
    const fail = await kprof(['check', `${L}/base`, '--rules', rules]);
    expect(fail.code, fail.stdout + fail.stderr).toBe(1);
  });
});

describe.skipIf(!HAS_SQLITE)('read-only, never writing beside the file', () => {
  it('a WAL-mode db in a read-only folder is read, and the folder is left as it was', async () => {
    const dir = tempDir();
    const ro = join(dir, 'ro');
    mkdirSync(ro);
    copyFileSync(`${FIX}/wal-pending.db`, join(ro, 'ascend_pytorch_profiler_0.db'));
    copyFileSync(`${FIX}/wal-pending.db-wal`, join(ro, 'ascend_pytorch_profiler_0.db-wal'));
    const listing = (): string[] =>
      readdirSync(ro)
        .sort()
        .map((e) => {
          const st = statSync(join(ro, e));
          return `${e} ${st.size} ${st.mtimeMs}`;
        });
    chmodSync(join(ro, 'ascend_pytorch_profiler_0.db'), 0o444);
    chmodSync(join(ro, 'ascend_pytorch_profiler_0.db-wal'), 0o444);
    chmodSync(ro, 0o555);
    const before = listing();
    // As root the mode does not stop a write: the listing and times before and after tell it either way.
    for (const args of [
      ['summary', ro, '--by', 'name', '--format', 'json'],
      ['inspect', join(ro, 'ascend_pytorch_profiler_0.db')],
    ]) {
      const r = await kprof(args);
      expect(r.code, r.stderr).toBe(0);
      if (args[0] === 'summary') {
        const mm = JSON.parse(r.stdout).groups.find((g: { key: string }) => g.key === 'aclnnMm_MatMulV2');
        expect(mm.count).toBe(5); // 3 in the file and 2 only in its -wal
      } else {
        expect(r.stdout).toContain('WAL mode: read through a private view');
      }
    }
    expect(listing()).toEqual(before);
  });
});

describe('without node:sqlite or better-sqlite3', () => {
  afterEach(() => injectSqliteLoader(null));

  it('a db export is an input error (exit 2) that says what to install; a CSV still reads', async () => {
    injectSqliteLoader(() => {
      throw Object.assign(new Error("Cannot find module 'better-sqlite3'"), { code: 'MODULE_NOT_FOUND' });
    });
    const r = await kprof(['summary', `${L}/base`]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      'ascend_pytorch_profiler_0.db: reading an SQLite export needs Node.js 22.16 or later (its built-in node:sqlite) or the better-sqlite3 package (version 12), which is not installed',
    );
    expect(r.stderr).toContain('npm install better-sqlite3@12');
    expect((await kprof(['summary', `${L}/both`])).code).toBe(0);
  });

  it('names no --rank of other db ranks to read without it (they fail alike), but one of another export', async () => {
    injectSqliteLoader(() => {
      throw Object.assign(new Error("Cannot find module 'better-sqlite3'"), { code: 'MODULE_NOT_FOUND' });
    });
    const r = await kprof(['summary', `${L}/base`]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('npm install better-sqlite3@12');
    expect(r.stderr).not.toContain('--rank');
    // A db rank beside a text one: --rank reads the text one.
    const mixed = tempDir();
    cpSync(`${L}/base/rank1_ascend_pt`, join(mixed, 'rank1_ascend_pt'), { recursive: true });
    cpSync('fixtures/formats/torch-level0/rank0_ascend_pt', join(mixed, 'rank0_ascend_pt'), { recursive: true });
    const m = await kprof(['summary', mixed]);
    expect(m.code).toBe(2);
    expect(m.stderr).toContain('It is rank 1, one of 2 ranks read: --rank 0 reads the other without it.');
  });
});

describe.skipIf(!HAS_REAL || !HAS_SQLITE)('real db exports against the text export of the same script', () => {
  for (const level of ['level0', 'level1']) {
    it(`${level}: diff text → db shows no compute-kernel change per (type, core)`, async () => {
      const r = await kprof([
        'diff',
        `${REAL_REL}/msinsight-torchnpu/${level}`,
        `${REAL_REL}/msinsight-torchnpu-db/${level}`,
        '--by',
        'type+core',
        '--format',
        'json',
      ]);
      expect(r.code, r.stderr).toBe(0);
      const rows = JSON.parse(r.stdout).rows as { key: string; base: { count: number }; pr: { count: number } }[];
      expect(rows.length).toBeGreaterThan(level === 'level1' ? 30 : 1);
      for (const row of rows) expect([row.key, row.pr.count]).toEqual([row.key, row.base.count]);
    });
  }

  it('transcript: the level1 diff text → db, only changed rows', async () => {
    const r = await expectTranscript('db-real-diff-text-level1', [
      'diff',
      `${REAL_REL}/msinsight-torchnpu/level1`,
      `${REAL_REL}/msinsight-torchnpu-db/level1`,
      '--by',
      'type+core',
      '--only',
      'changed',
    ]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('No group changed its kernel count.');
  });

  it('the msprof db of MindStudio Insight and a WAL-mode sample in its read-only folder', async () => {
    const r = await kprof(['inspect', join(REAL, 'msinsight-server-db/msprof_0.db')]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('msprof SQLite export');
    expect(r.stdout).toContain('steps    none (no STEP_TIME)');
    const w = await kprof(['summary', join(REAL, 'msinsight-torchnpu-db/level1/rank0_ascend_pt'), '--format', 'json']);
    expect(w.code, w.stderr).toBe(0);
    expect(JSON.parse(w.stdout).totals.count).toBe(191);
  });
});
