// Shared test helpers: run the CLI in-process, write transcripts, find the real exports.

import { closeSync, existsSync, openSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { inject, test } from 'vitest';
import { run } from '../src/cli/run.js';
import type { Summary } from '../src/model/model.js';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
/** Real exports, read at run time from ../shared (never copied into this repo). */
export const REAL = resolve(ROOT, '../shared/data/real');
/**
 * `KPROF_TEST_REAL=absent` runs the tests as a clone without `../shared` would (`.ci/run` does so once, so that a
 * test reading the real exports unconditionally cannot land).
 */
export const REAL_HIDDEN = process.env.KPROF_TEST_REAL === 'absent';
export const HAS_REAL = !REAL_HIDDEN && existsSync(REAL);
/** The same folder as the CLI sees it from the repo root (transcripts show this path). */
export const REAL_REL = '../shared/data/real';

/**
 * Called once at the top of every test file that reads the real exports. With the exports present it returns
 * true. Without them it returns false, so that the file's real-data tests skip, and the first file of the run to
 * ask prints one notice line for the whole run (setup/notice.ts); under CI=true (where `../shared` must be beside the clone) it adds a test that fails instead, unless the
 * data was hidden on purpose (`KPROF_TEST_REAL=absent`).
 */
export function realData(file: string): boolean {
  if (HAS_REAL) return true;
  const name = basename(file.startsWith('file:') ? fileURLToPath(file) : file);
  if (process.env.CI === 'true' && !REAL_HIDDEN) {
    test(`the real exports are beside the clone (${REAL_REL})`, () => {
      throw new Error(`${REAL_REL} is absent under CI=true: ${name} cannot run its real-data tests; CI must lay ../shared beside the clone`);
    });
  } else if (firstNotice('real-data')) {
    console.warn(
      `NOTICE: ${REAL_REL} is ${REAL_HIDDEN ? 'hidden (KPROF_TEST_REAL=absent)' : 'absent'}: the real-data tests of this run are skipped (the first in ${name}; CI=true runs them).`,
    );
  }
  return false;
}

/** Is this the first time in this run (over every test file's worker) that the notice `id` is said? */
function firstNotice(id: string): boolean {
  let dir: string;
  try {
    dir = inject('noticeDir');
  } catch {
    return true;
  }
  if (typeof dir !== 'string') return true;
  try {
    closeSync(openSync(join(dir, id), 'wx'));
    return true;
  } catch {
    return false;
  }
}

export interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Run kprof in-process with NO_COLOR and no TTY, in the repo root (`cwd`, which transcripts' paths are relative
 * to) or the folder given.
 */
export async function kprof(args: string[], env: Record<string, string | undefined> = {}, cwd: string = ROOT): Promise<Result> {
  let stdout = '';
  let stderr = '';
  const code = await run(args, {
    stdout: (s) => {
      stdout += s;
    },
    stderr: (s) => {
      stderr += s;
    },
    env: { NO_COLOR: '1', ...env },
    stdoutIsTTY: false,
    stderrIsTTY: false,
    cwd,
  });
  return { code, stdout, stderr };
}

/** A Markdown transcript of one CLI run: the command, stdout, stderr and exit code. */
export function transcript(args: string[], r: Result): string {
  const fence = (s: string): string => '```\n' + s + (s.endsWith('\n') || s === '' ? '' : '\n') + '```';
  const parts = [
    `$ kprof ${args.map(quote).join(' ')}`,
    '',
    '## stdout',
    fence(r.stdout),
    '',
    '## stderr',
    fence(r.stderr),
    '',
    `Exit code: ${r.code}`,
    '',
  ];
  return parts.join('\n');
}

function quote(a: string): string {
  return /^[\w./@:=,+-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`;
}

/** Run and compare with a golden transcript file under test/transcripts/. */
export async function expectTranscript(name: string, args: string[], env?: Record<string, string | undefined>): Promise<Result> {
  const r = await kprof(args, env);
  const { expect } = await import('vitest');
  await expect(transcript(args, r)).toMatchFileSnapshot(resolve(ROOT, 'test/transcripts', `${name}.md`));
  return r;
}

/** better-sqlite3, the optional peer dependency that reads SQLite exports, as the tests resolve it. */
export const HAS_BETTER_SQLITE = ((): boolean => {
  try {
    createRequire(import.meta.url).resolve('better-sqlite3');
    return true;
  } catch {
    return false;
  }
})();

/** Node's own node:sqlite, whole enough for kprof (rows as arrays: Node 22.16+, 24), as library.ts asks. */
export const HAS_NODE_SQLITE = ((): boolean => {
  try {
    const m = createRequire(import.meta.url)('node:sqlite') as { StatementSync?: { prototype?: { setReturnArrays?: unknown } } };
    return typeof m.StatementSync?.prototype?.setReturnArrays === 'function';
  } catch {
    return false;
  }
})();

/** Something that reads SQLite exports: node:sqlite or better-sqlite3. */
export const HAS_SQLITE = HAS_NODE_SQLITE || HAS_BETTER_SQLITE;

/**
 * Called once at the top of every test file that reads SQLite exports: true on Node 22.16+ (node:sqlite) or with
 * better-sqlite3 installed (`.ci/run` installs it; `npm install --no-save better-sqlite3@12` in a clone). Without it, false (the first file of the run to ask prints one notice for the run), so that
 * the file's SQLite tests skip; under CI=true a test that fails instead.
 */
export function sqliteInstalled(file: string): boolean {
  if (HAS_SQLITE) return true;
  const name = basename(file.startsWith('file:') ? fileURLToPath(file) : file);
  if (process.env.CI === 'true') {
    test('SQLite can be read (the SQLite tests need it)', () => {
      throw new Error(
        `neither node:sqlite (Node 22.16+) nor better-sqlite3 under CI=true: ${name} cannot run its SQLite tests; .ci/run installs better-sqlite3`,
      );
    });
  } else if (firstNotice('sqlite')) {
    console.warn(
      `NOTICE: this Node has no node:sqlite (22.16+) and better-sqlite3 is not installed (npm install --no-save better-sqlite3@12): the SQLite tests of this run are skipped (the first in ${name}).`,
    );
  }
  return false;
}

/**
 * `text` with `path` replaced by `as`, in either form kprof shows a path: relative to the working directory (the
 * repo root) or, when that would climb three folders or more, as given. Which one depends on where the clone and
 * the temp folder are, so a test that writes under the temp folder masks both.
 */
export function maskPath(text: string, path: string, as: string): string {
  const rel = relative(ROOT, path).split(sep).join('/');
  return text.split(rel).join(as).split(path).join(as);
}

/** The user's documentation: README.md, then each page of docs/ in name order, as [path, text]. */
export function docFiles(): [string, string][] {
  const pages = readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => `docs/${f}`);
  return ['README.md', ...pages].map((f) => [f, readFileSync(join(ROOT, f), 'utf8')]);
}

/** The text between `<!-- section:NAME -->` and `<!-- /section:NAME -->`, in whichever page of the docs holds it. */
export function docSection(name: string): string {
  for (const [, text] of docFiles()) {
    const m = new RegExp(`<!-- section:${name} -->([\\s\\S]*?)<!-- /section:${name} -->`).exec(text);
    if (m) return m[1]!;
  }
  throw new Error(`no page of the docs has the section ${name}`);
}

/** Every file below `dir`, in sorted order (folders followed, depth first). */
export function walk(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((e) => {
      const p = join(dir, e);
      return statSync(p).isDirectory() ? walk(p) : [p];
    });
}

/** A statement of TestDatabase: better-sqlite3's methods the tests use. */
export interface TestStatement {
  run(...params: unknown[]): unknown;
  // biome-ignore lint/suspicious/noExplicitAny: rows of a test's own query, which the test knows the shape of
  get(...params: unknown[]): any;
  // biome-ignore lint/suspicious/noExplicitAny: as get
  all(...params: unknown[]): any[];
  raw(on?: boolean): TestStatement;
  pluck(on?: boolean): TestStatement;
  safeIntegers(on?: boolean): TestStatement;
}

/**
 * A db for tests to write or read on their own: Node's node:sqlite where it is whole (22.16+), else better-sqlite3
 * with better-sqlite3's methods (raw, pluck, safeIntegers), so that the SQLite tests run on either.
 */
export class TestDatabase {
  // biome-ignore lint/suspicious/noExplicitAny: either library's connection, used through the methods both have
  private readonly db: any;
  private readonly node: boolean;
  constructor(path: string, options: { readonly?: boolean } = {}) {
    const load = createRequire(import.meta.url);
    this.node = HAS_NODE_SQLITE;
    if (this.node) {
      const { DatabaseSync } = load('node:sqlite') as { DatabaseSync: new (p: string, o: object) => unknown };
      this.db = new DatabaseSync(path, { readOnly: options.readonly === true });
    } else {
      const Database = load('better-sqlite3') as new (p: string, o: object) => unknown;
      this.db = new Database(path, { readonly: options.readonly === true });
    }
  }
  exec(sql: string): void {
    this.db.exec(sql);
  }
  close(): void {
    this.db.close();
  }
  prepare(sql: string): TestStatement {
    const s = this.db.prepare(sql);
    if (!this.node) return s as TestStatement;
    let pluck = false;
    const one = (row: unknown): unknown => (pluck && Array.isArray(row) ? row[0] : row);
    const st: TestStatement = {
      run: (...p) => s.run(...p),
      get: (...p) => one(s.get(...p)),
      all: (...p) => (s.all(...p) as unknown[]).map(one),
      raw: (on = true) => {
        s.setReturnArrays(on);
        return st;
      },
      pluck: (on = true) => {
        pluck = on;
        s.setReturnArrays(on);
        return st;
      },
      safeIntegers: (on = true) => {
        s.setReadBigInts(on);
        return st;
      },
    };
    return st;
  }
}

/**
 * A summary grouped by type with no selection, file or warning, every row of its ranks read and none skipped (the
 * diff's tests make its groups and ranks by hand).
 */
export function summaryShell(s: Pick<Summary, 'input' | 'ranks' | 'stepIds' | 'hasSteps' | 'totals' | 'groups' | 'perRank'>): Summary {
  return {
    input: s.input,
    groupBy: 'type',
    selection: '',
    ranks: s.ranks,
    stepIds: s.stepIds,
    hasSteps: s.hasSteps,
    files: [],
    rowsRead: s.totals.count,
    skippedRows: 0,
    rowsOnNoRank: 0,
    filteredKernels: 0,
    totals: s.totals,
    groups: s.groups,
    perRank: s.perRank,
    warnings: [],
    warningCount: 0,
  };
}
