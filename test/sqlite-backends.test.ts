// Which SQLite library reads a db export: Node's own node:sqlite where the running Node has it whole (22.16+, 24),
// else better-sqlite3 (library.ts). `.ci/run` runs the SQLite tests with Node 20 (better-sqlite3) and with Node 22
// and 24 (node:sqlite, better-sqlite3 out of reach), so every SQLite transcript and comparison holds for both.

import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadedSqliteLibrary } from '../src/input/formats/sqlite/library.js';
import { HAS_BETTER_SQLITE, HAS_NODE_SQLITE, kprof, ROOT, sqliteInstalled } from './helpers.js';

const HAS_SQLITE = sqliteInstalled(import.meta.url);
const DB = 'fixtures/sqlite/schema-1.2.0.db';

describe.skipIf(!HAS_SQLITE)('the SQLite library', () => {
  it(`reads with ${HAS_NODE_SQLITE ? 'node:sqlite' : 'better-sqlite3'} on Node ${process.versions.node}`, async () => {
    const r = await kprof(['inspect', DB]);
    expect(r.code).toBe(0);
    expect(loadedSqliteLibrary()).toBe(HAS_NODE_SQLITE ? 'node:sqlite' : 'better-sqlite3');
    // Node 22.16+ and 24 need nothing installed.
    const major = Number(process.versions.node.split('.')[0]);
    const minor = Number(process.versions.node.split('.')[1]);
    if (major > 22 || (major === 22 && minor >= 16)) expect(HAS_NODE_SQLITE).toBe(true);
    if (!HAS_NODE_SQLITE) expect(HAS_BETTER_SQLITE).toBe(true);
  });

  it('prints no warning of Node (node:sqlite is experimental in Node 22 and 24) and the same figures', () => {
    const r = spawnSync(process.execPath, [join(ROOT, 'bin/kprof.js'), 'summary', DB, '--format', 'json'], { cwd: ROOT, encoding: 'utf8' });
    expect(r.status).toBe(0);
    expect(r.stderr).not.toMatch(/Warning/);
    const s = JSON.parse(r.stdout) as { totals: { count: number } };
    expect(s.totals.count).toBeGreaterThan(0);
  });
});
