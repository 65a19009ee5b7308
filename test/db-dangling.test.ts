// A db export whose rows hold string ids that STRING_IDS does not have (a damaged or hand-made db): the rows
// still count, under a visible `(unknown id N)` apart from the real ones, and the reader says how many there were,
// read one by one or grouped by SQLite.

import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readProfile } from '../src/input/read.js';
import { kprof, sqliteInstalled, TestDatabase } from './helpers.js';

const HAS_SQLITE = sqliteInstalled(import.meta.url);

const dir = mkdtempSync(join(tmpdir(), 'kprof-db-dangling-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** schema-1.0.0.db (MatMulV2 ×3, Add ×2, ReduceSum ×1 compute kernels) with `sql` run on it. */
function edited(name: string, sql: string): string {
  const path = join(dir, name);
  copyFileSync('fixtures/sqlite/schema-1.0.0.db', path);
  const Database = TestDatabase;
  const db = new Database(path);
  db.exec(sql);
  db.close();
  return path;
}

// The Add rows' op type (id 3) and the ReduceSum row's core (id 6) point at nothing; MatMulV2's stay.
const DANGLING = !HAS_SQLITE
  ? ''
  : edited(
      'ascend_pytorch_profiler_0.db',
      'UPDATE COMPUTE_TASK_INFO SET opType = 9001 WHERE opType = 3; UPDATE COMPUTE_TASK_INFO SET taskType = 9002 WHERE opType = 5; UPDATE TASK SET taskType = 9003;',
    );

describe.skipIf(!HAS_SQLITE)('string ids that are not in STRING_IDS', () => {
  it('group under "(unknown id N)", counted, and are warned of with their number, one by one or grouped', async () => {
    const said: string[][] = [];
    for (const withSpan of [false, true]) {
      const p = await readProfile(DANGLING, { withShapes: false, withSpan, ranks: null, threads: 'off' });
      const r = p.ranks[0]!;
      const compute = [...r.groups.values()].filter((g) => g.core !== 'HCCL').map((g) => [g.type, g.core, g.total.count]);
      expect(compute.sort(), `withSpan ${withSpan}`).toEqual([
        ['(unknown id 9001)', 'AI_VECTOR_CORE', 2],
        ['MatMulV2', 'AI_CORE', 3],
        ['ReduceSum', '(unknown id 9002)', 1],
      ]);
      expect(r.rowsSkipped).toBe(0);
      const messages = r.warnings.map((w) => w.message);
      said.push(messages);
      expect(messages).toContain(
        '2 rows: their COMPUTE_TASK_INFO.opType is an id not in STRING_IDS, read as "(unknown id 9001)" (each such id apart)',
      );
      expect(messages).toContain(
        '1 row: its COMPUTE_TASK_INFO.taskType is an id not in STRING_IDS, read as "(unknown id 9002)" (each such id apart)',
      );
    }
    // The same warnings either way (TASK.taskType, which no figure uses, is not one of them).
    expect(said[1]).toEqual(said[0]);
  });

  it('the CLI shows the unknown type as a group of its own and says why on stderr', async () => {
    const r = await kprof(['summary', DANGLING, '--by', 'type']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^\(unknown id 9001\) +2 /m);
    expect(r.stderr).toContain('their COMPUTE_TASK_INFO.opType is an id not in STRING_IDS');
  });

  it('a NULL id is no dangling id: nothing to warn of', async () => {
    const path = edited('null_0.db', 'UPDATE COMPUTE_TASK_INFO SET opType = NULL WHERE opType = 3;');
    const p = await readProfile(path, { withShapes: false, ranks: null, threads: 'off' });
    expect(p.ranks[0]!.warnings.map((w) => w.message).filter((m) => m.includes('STRING_IDS'))).toEqual([]);
  });
});
