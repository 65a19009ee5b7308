// A db export whose TASK holds the kernels of several devices: each device is the rank RANK_DEVICE_MAP gives it
// (FORMATS.md §12), not the rank of its number; communication rows whose table has no deviceId (before schema
// 1.2.0) are on the db's one device, and on no rank (skipped, counted, said) where the kernels ran on several.
// Both reads: summary groups in SQLite, inspect reads the kernels one by one in time order.

import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { kprof, REAL, realData, sqliteInstalled, TestDatabase } from './helpers.js';

const HAS_SQLITE = sqliteInstalled(import.meta.url);
const HAS_REAL = realData(import.meta.url);

const FIX = 'fixtures/sqlite';

const dir = mkdtempSync(join(tmpdir(), 'kprof-sqlite-devices-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let made = 0;

/**
 * A copy of a fixture (one device, 5, which RANK_DEVICE_MAP maps to rank 3) whose TASK rows 1–2 ran on device `a`
 * and rows 3–8 on device `b`: compute kernels aclnnMm_MatMulV2 (20 ns) and aclnnAdd_AddAiCore_Add (1500 ns) on
 * `a`, the other four on `b`. COMMUNICATION_OP (schema 1.2.0 has a deviceId there): row 1 on `a`, row 2 on `b`.
 * `map`: the rows of RANK_DEVICE_MAP as [rank, device]. Each db in a folder of its own, as devices.db.
 */
function devicesDb(fixture: string, a: number, b: number, map: [number, number][]): string {
  const folder = join(dir, `run${made++}`);
  mkdirSync(folder);
  const path = join(folder, 'devices.db');
  copyFileSync(join(FIX, fixture), path);
  const db = new TestDatabase(path);
  const commDevice = (db.prepare("SELECT count(*) FROM pragma_table_info('COMMUNICATION_OP') WHERE name = 'deviceId'").pluck().get() as number) > 0;
  db.exec(
    `UPDATE TASK SET deviceId = CASE WHEN rowid <= 2 THEN ${a} ELSE ${b} END; DELETE FROM RANK_DEVICE_MAP;` +
      map.map(([rank, device]) => `INSERT INTO RANK_DEVICE_MAP (rankId, deviceId) VALUES (${rank}, ${device});`).join('') +
      (commDevice ? `UPDATE COMMUNICATION_OP SET deviceId = CASE WHEN rowid = 1 THEN ${a} ELSE ${b} END;` : ''),
  );
  db.close();
  return path;
}

interface SummaryJson {
  ranks: string[];
  rowsRead: number;
  skippedRows: number;
  rowsOnNoRank?: number;
  totals: { count: number };
  groups: { key: string; count: number }[];
  perRank: { rank: string; rowsRead: number; skippedRows: number; totals: { count: number }; groups: { key: string; count: number }[] }[];
}

interface InspectJson {
  ranks: {
    rank: string;
    rankSource: string;
    kernels: number;
    rowsRead: number;
    rowsSkipped: number;
    files: { rowsRead: number; rowsSkipped: number; rowsOnNoRank?: number }[];
    warnings: { file: string; line: number; message: string }[];
    warningCount: number;
  }[];
  noRank?: { files: { path: string; rowsSkipped: number }[]; warnings: { message: string }[]; warningCount: number };
}

async function summary(path: string, ...args: string[]): Promise<{ out: SummaryJson; stderr: string }> {
  const r = await kprof(['summary', path, '--format', 'json', ...args]);
  expect(r.code, r.stderr).toBe(0);
  return { out: JSON.parse(r.stdout) as SummaryJson, stderr: r.stderr };
}

async function inspect(path: string): Promise<{ out: InspectJson; stderr: string }> {
  const r = await kprof(['inspect', path, '--format', 'json']);
  expect(r.code, r.stderr).toBe(0);
  return { out: JSON.parse(r.stdout) as InspectJson, stderr: r.stderr };
}

/** Kernels per rank, in rank order. */
const perRank = (s: SummaryJson): [string, number][] => s.perRank.map((r) => [r.rank, r.totals.count]);
const inspected = (s: InspectJson): [string, number][] => s.ranks.map((r) => [r.rank, r.kernels]);

describe.skipIf(!HAS_SQLITE)('a db of several devices: each is the rank RANK_DEVICE_MAP gives it', () => {
  it('device 4 is rank 0 and device 5 is rank 1: summary per rank, --rank, and the messages name ranks 0 and 1', async () => {
    const path = devicesDb('schema-1.2.0.db', 4, 5, [
      [0, 4],
      [1, 5],
    ]);
    const { out } = await summary(path, '--by', 'name');
    expect(out.ranks).toEqual(['0', '1']);
    // Device 4: MatMulV2, Add and the first allReduce; device 5: four compute kernels and the second allReduce.
    expect(perRank(out)).toEqual([
      ['0', 3],
      ['1', 5],
    ]);
    expect(out.skippedRows).toBe(0);
    // Read one by one (inspect): the same ranks, named where they come from.
    const ins = await inspect(path);
    expect(inspected(ins.out)).toEqual([
      ['0', 3],
      ['1', 5],
    ]);
    expect(ins.out.ranks.map((r) => r.rankSource)).toEqual([
      'RANK_DEVICE_MAP of devices.db (device 4; the file holds the rows of 2 devices)',
      'RANK_DEVICE_MAP of devices.db (device 5; the file holds the rows of 2 devices)',
    ]);
    // --rank selects by the mapped rank: rank 0 is device 4's kernels.
    const zero = (await summary(path, '--by', 'name', '--rank', '0')).out;
    expect(zero.ranks).toEqual(['0']);
    expect(zero.groups.map((g) => [g.key, g.count]).sort()).toEqual([
      ['aclnnAdd_AddAiCore_Add', 1],
      ['aclnnMm_MatMulV2', 1],
      ['hcom_allReduce__*', 1],
    ]);
    // A device number is no rank of this db.
    const four = await kprof(['summary', path, '--rank', '4']);
    expect(four.code).toBe(2);
    expect(four.stderr).toContain('rank 4 not found; the input has ranks 0, 1.');
    const table = await kprof(['summary', path]);
    expect(table.stdout).toContain('2 ranks (0, 1)');
    expect(table.stdout).not.toMatch(/rank [45]\b/);
  });

  it('a map that swaps the numbers (device 0 is rank 1, device 1 is rank 0) puts each device on its own rank', async () => {
    const path = devicesDb('schema-1.2.0.db', 0, 1, [
      [1, 0],
      [0, 1],
    ]);
    expect(perRank((await summary(path)).out)).toEqual([
      ['0', 5],
      ['1', 3],
    ]);
    expect(inspected((await inspect(path)).out)).toEqual([
      ['0', 5],
      ['1', 3],
    ]);
  });

  it('a map that makes two devices one rank is warned of, and each device is the rank of its number', async () => {
    const path = devicesDb('schema-1.2.0.db', 4, 5, [
      [0, 4],
      [0, 5],
    ]);
    const { out, stderr } = await summary(path);
    expect(perRank(out)).toEqual([
      ['4', 3],
      ['5', 5],
    ]);
    expect(stderr).toContain('RANK_DEVICE_MAP of devices.db names devices 4 and 5 one rank (0): each device is read as the rank of its number');
  });
});

describe.skipIf(!HAS_SQLITE)('communication rows without a deviceId', () => {
  const SKIP =
    "it has no deviceId (COMMUNICATION_OP has none before schema 1.2.0) and the db's kernels ran on 2 devices (4, 5): nothing says which one it ran on, so it is on no rank";

  it("on a db of several devices: skipped, counted and said, on no device's rank (both reads)", async () => {
    // schema 1.0.0: COMMUNICATION_OP has no deviceId.
    const path = devicesDb('schema-1.0.0.db', 4, 5, [
      [0, 4],
      [1, 5],
    ]);
    const { out, stderr } = await summary(path, '--by', 'name');
    expect(out.ranks).toEqual(['0', '1']);
    expect(out.skippedRows).toBe(2);
    expect(out.rowsRead).toBe(8);
    // The compute kernels only: before, both allReduces were put on one device's rank.
    expect(perRank(out)).toEqual([
      ['0', 2],
      ['1', 4],
    ]);
    expect(out.groups.map((g) => g.key)).not.toContain('hcom_allReduce__*');
    // Counted as the file's, on no rank: not on the rank of the row read before them (device 5's rank, 1).
    expect(out.rowsOnNoRank).toBe(2);
    expect(out.perRank.map((r) => [r.rank, r.rowsRead, r.skippedRows])).toEqual([
      ['0', 2, 0],
      ['1', 4, 0],
    ]);
    expect(stderr).toContain(`COMMUNICATION_OP (1 row of hcom_allReduce__12_0_1): ${SKIP}; row skipped`);
    expect(stderr).toContain(`COMMUNICATION_OP (1 row of hcom_allReduce__12_1_1): ${SKIP}; row skipped`);
    // One by one, in time order (each allReduce came after a kernel of another device): the same rows skipped.
    const ins = await inspect(path);
    expect(inspected(ins.out)).toEqual([
      ['0', 2],
      ['1', 4],
    ]);
    expect(ins.out.ranks.map((r) => [r.rowsRead, r.rowsSkipped, r.files[0]!.rowsOnNoRank])).toEqual([
      [2, 0, 2],
      [4, 0, 2],
    ]);
    expect(ins.stderr).toContain(`COMMUNICATION_OP row 1: ${SKIP}; row skipped`);
    expect(ins.stderr).toContain(`COMMUNICATION_OP row 2: ${SKIP}; row skipped`);
    // Without RANK_DEVICE_MAP the devices are ranks 4 and 5, and the rows are on neither.
    const unmapped = (await summary(devicesDb('schema-1.0.0.db', 4, 5, []))).out;
    expect([unmapped.ranks, unmapped.skippedRows, unmapped.totals.count]).toEqual([['4', '5'], 2, 6]);
  });

  it("on a db of one device: on that device's rank, as before (both reads)", async () => {
    for (const path of [`${FIX}/schema-1.0.0.db`, devicesDb('schema-1.0.0.db', 7, 7, [[2, 7]])]) {
      const { out, stderr } = await summary(path, '--by', 'name');
      expect(out.ranks).toHaveLength(1);
      expect([out.skippedRows, out.totals.count]).toEqual([0, 8]);
      expect(out.groups.find((g) => g.key === 'hcom_allReduce__*')?.count).toBe(2);
      expect(stderr).not.toContain('deviceId');
      expect((await inspect(path)).out.ranks.map((r) => [r.kernels, r.rowsSkipped])).toEqual([[8, 0]]);
    }
  });
});

describe.skipIf(!HAS_SQLITE)('a skipped row is counted on its own rank, or on none: never on the rank of the row before it', () => {
  /**
   * Device 4 (rank 0): TASK rows 1-2, row 2 ending before it starts and moved after every other kernel (read in
   * time order, it comes after device 5's rows); device 5 (rank 1): rows 3-8, row 5 with deviceId -1 (no device).
   */
  function damaged(): string {
    const path = devicesDb('schema-1.2.0.db', 4, 5, [
      [0, 4],
      [1, 5],
    ]);
    const db = new TestDatabase(path);
    db.exec(
      'UPDATE TASK SET startNs = startNs + 10000000, endNs = startNs + 10000000 - 5 WHERE rowid = 2; UPDATE TASK SET deviceId = -1 WHERE rowid = 5;',
    );
    db.close();
    return path;
  }

  it('both reads: row 2 on rank 0 (its device), row 5 on no rank; the profile counts both', async () => {
    const path = damaged();
    const { out, stderr } = await summary(path, '--by', 'name');
    expect([out.rowsRead, out.skippedRows, out.rowsOnNoRank]).toEqual([8, 2, 1]);
    expect(out.perRank.map((r) => [r.rank, r.rowsRead, r.skippedRows, r.totals.count])).toEqual([
      ['0', 3, 1, 2],
      ['1', 4, 0, 4],
    ]);
    expect(stderr).toContain('TASK row 2: it ends 5 ns before it starts; row skipped');
    expect(stderr).toContain('its deviceId is -1, not a device number (0, 1, …); row skipped');
    const ins = await inspect(path);
    expect(ins.out.ranks.map((r) => [r.rank, r.rowsRead, r.rowsSkipped, r.kernels])).toEqual([
      ['0', 3, 1, 2],
      ['1', 4, 0, 4],
    ]);
    expect(ins.out.ranks.map((r) => r.files[0])).toEqual([
      expect.objectContaining({ rowsRead: 8, rowsSkipped: 2, rowsOnNoRank: 1 }),
      expect.objectContaining({ rowsRead: 8, rowsSkipped: 2, rowsOnNoRank: 1 }),
    ]);
    const text = await kprof(['inspect', path]);
    expect(text.stdout).toContain('rows     8 read, 2 skipped (1 of them on no rank: their device cannot be told)');
    expect(text.stdout).toContain("device   3 of those rows are this rank's, 1 of them skipped");
    // The warning of the row on no rank is said under no rank, not under rank 0 (the file's first), whose own
    // warning is its row 2's; JSON alike.
    const blocks = text.stdout.split('\n\n');
    const [rank0, rank1, none] = [blocks.find((b) => b.startsWith('rank 0\n'))!, blocks.find((b) => b.startsWith('rank 1\n'))!, blocks.at(-1)!];
    expect(rank0).toMatch(/\n {2}warnings 1 \(first: [^\n]*TASK row 2: it ends 5 ns before it starts; row skipped\)/);
    expect(rank1).not.toContain('warnings');
    expect(none).toMatch(
      /^no rank\n {2}rows {5}1 of [^\n]+\.db skipped: its device cannot be told\n {2}warnings 1 \(first: [^\n]*its deviceId is -1, not a device number/,
    );
    expect(ins.out.ranks.map((r) => [r.warningCount, r.warnings.map((w) => w.message.slice(0, 10))])).toEqual([
      [1, ['TASK row 2']],
      [0, []],
    ]);
    const noRank = ins.out.noRank!;
    expect([noRank.files.map((f) => f.rowsSkipped), noRank.warningCount, noRank.warnings.length]).toEqual([[1], 1, 1]);
    expect(noRank.warnings[0]!.message).toContain('its deviceId is -1');
    // Every other command says both warnings, as before.
    expect((await kprof(['summary', path, '-q'])).stderr.match(/^kprof: warning: /gm)).toHaveLength(2);
    // A summary JSON of it keeps the count (not the warnings): said under no rank too.
    const snap = `${path}.summary.json`;
    expect((await kprof(['summary', path, '-q', '-o', snap])).code).toBe(0);
    expect((await kprof(['inspect', snap])).stdout).toMatch(
      /\n\nno rank\n {2}rows {5}1 skipped when [^\n]+\.summary\.json was made: its device could not be told\n$/,
    );
  });

  it('a summary JSON keeps the rows on no rank: read back, merged and selected, the same figures', async () => {
    const path = damaged();
    const saved = join(dir, 'damaged.summary.json');
    expect((await kprof(['summary', path, '--format', 'json', '-o', saved])).code).toBe(0);
    const back = (await summary(saved)).out;
    expect([back.rowsRead, back.skippedRows, back.rowsOnNoRank]).toEqual([8, 2, 1]);
    expect(back.perRank.map((r) => [r.rowsRead, r.skippedRows])).toEqual([
      [3, 1],
      [4, 0],
    ]);
    const merged = await kprof(['merge', saved]);
    expect(merged.code, merged.stderr).toBe(0);
    expect((JSON.parse(merged.stdout) as SummaryJson).rowsOnNoRank).toBe(1);
    // The rows on no rank are the file's: they are counted whichever of its ranks is selected.
    const one = (await summary(path, '--rank', '1')).out;
    expect([one.rowsRead, one.skippedRows, one.rowsOnNoRank, one.perRank[0]!.skippedRows]).toEqual([5, 1, 1, 0]);
    // A top level that is not the ranks' sum and the rows on no rank is refused.
    const text = readFileSync(saved, 'utf8').replace('"rowsOnNoRank": 1', '"rowsOnNoRank": 2');
    const bad = join(dir, 'bad.summary.json');
    writeFileSync(bad, text);
    const refused = await kprof(['summary', bad]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('the top-level "rowsRead" 8 is not the sum of the ranks\' (7) and "rowsOnNoRank" (2)');
  });
});

describe.skipIf(!HAS_SQLITE || !HAS_REAL)('a real db export made one of two devices', () => {
  it("its 4 communication rows (no deviceId, schema 1.0.0) are on no rank; each device's rank has its own kernels only", async () => {
    // torch_npu Level1 rank 1 (device 1, 187 compute kernels, 4 allReduces), every other TASK row moved to device 0.
    const folder = join(dir, `real${made++}`);
    mkdirSync(folder);
    const path = join(folder, 'devices.db');
    copyFileSync(join(REAL, 'msinsight-torchnpu-db/level1/rank1_ascend_pt/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_1.db'), path);
    const db = new TestDatabase(path);
    db.exec('UPDATE TASK SET deviceId = 0 WHERE rowid % 2 = 0; INSERT INTO RANK_DEVICE_MAP (rankId, deviceId) VALUES (0, 0);');
    db.close();
    const { out, stderr } = await summary(path);
    expect([out.rowsRead, out.skippedRows, out.rowsOnNoRank, out.totals.count]).toEqual([191, 4, 4, 187]);
    expect(out.perRank.map((r) => [r.rank, r.rowsRead, r.skippedRows])).toEqual([
      ['0', 96, 0],
      ['1', 91, 0],
    ]);
    expect(stderr.match(/nothing says which one it ran on, so it is on no rank; row skipped/g)).toHaveLength(4);
    const ins = (await inspect(path)).out;
    expect(ins.ranks.map((r) => [r.rowsRead, r.rowsSkipped, r.files[0]!.rowsOnNoRank])).toEqual([
      [96, 0, 4],
      [91, 0, 4],
    ]);
    // Their 4 warnings are no rank's: not under rank 0 (the file's first), which has none of its own.
    expect(ins.ranks.map((r) => r.warningCount)).toEqual([0, 0]);
    expect([ins.noRank!.warningCount, ins.noRank!.files.map((f) => f.rowsSkipped)]).toEqual([4, [4]]);
    const text = (await kprof(['inspect', path])).stdout;
    expect(text.split('\n\n').filter((b) => b.startsWith('rank ') && b.includes('\n  warnings'))).toEqual([]);
    expect(text).toMatch(/\n\nno rank\n {2}rows {5}4 of [^\n]+devices\.db skipped: their devices cannot be told\n {2}warnings 4 \(first: /);
  });
});
