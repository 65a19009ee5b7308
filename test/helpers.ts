// Shared test helpers: run the CLI in-process, write transcripts, find the real exports.

import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { test } from 'vitest';
import { run } from '../src/cli/run.js';

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
 * true. Without them it prints one notice line for the file and returns false, so that the file's real-data tests
 * skip; under CI=true (where `../shared` must be beside the clone) it adds a test that fails instead, unless the
 * data was hidden on purpose (`KPROF_TEST_REAL=absent`).
 */
export function realData(file: string): boolean {
  if (HAS_REAL) return true;
  const name = basename(file.startsWith('file:') ? fileURLToPath(file) : file);
  if (process.env.CI === 'true' && !REAL_HIDDEN) {
    test(`the real exports are beside the clone (${REAL_REL})`, () => {
      throw new Error(`${REAL_REL} is absent under CI=true: ${name} cannot run its real-data tests; CI must lay ../shared beside the clone`);
    });
  } else {
    console.warn(`NOTICE: ${name}: ${REAL_REL} is ${REAL_HIDDEN ? 'hidden (KPROF_TEST_REAL=absent)' : 'absent'}; its real-data tests are skipped.`);
  }
  return false;
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

/** Node's built-in node:sqlite (22.13+, 24), which kprof prefers where it loads. */
export const HAS_NODE_SQLITE = ((): boolean => {
  try {
    return typeof (createRequire(import.meta.url)('node:sqlite') as { DatabaseSync?: unknown }).DatabaseSync === 'function';
  } catch {
    return false;
  }
})();

/** The SQLite back end kprof uses in this process; `.ci/run` says which one it expects (KPROF_TEST_SQLITE_BACKEND). */
export const SQLITE_BACKEND: 'node:sqlite' | 'better-sqlite3' | null = HAS_NODE_SQLITE ? 'node:sqlite' : HAS_BETTER_SQLITE ? 'better-sqlite3' : null;

/** Something reads SQLite exports here: node:sqlite or better-sqlite3. */
export const HAS_SQLITE = SQLITE_BACKEND !== null;

/**
 * Called once at the top of every test file that reads SQLite exports: true on Node 22.13+/24 (node:sqlite) or with
 * better-sqlite3 installed (`.ci/run` installs it for Node 20; `npm install --no-save better-sqlite3@12` in a clone). Without it, one notice line and false, so that
 * the file's SQLite tests skip; under CI=true a test that fails instead.
 */
export function sqliteInstalled(file: string): boolean {
  if (HAS_SQLITE) return true;
  const name = basename(file.startsWith('file:') ? fileURLToPath(file) : file);
  if (process.env.CI === 'true') {
    test('better-sqlite3 is installed (the SQLite tests need it)', () => {
      throw new Error(`better-sqlite3 is not installed under CI=true: ${name} cannot run its SQLite tests; .ci/run installs it`);
    });
  } else {
    console.warn(`NOTICE: ${name}: better-sqlite3 is not installed (npm install --no-save better-sqlite3@12); its SQLite tests are skipped.`);
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

/** A statement of a test's own db (better-sqlite3's methods, over whichever back end is here). */
export interface TestStatement {
  run(...params: unknown[]): unknown;
  get(...params: unknown[]): any;
  all(...params: unknown[]): any[];
  raw(on?: boolean): TestStatement;
  pluck(on?: boolean): TestStatement;
  safeIntegers(on?: boolean): TestStatement;
}

/**
 * Opens a db for a test to write or check independently: node:sqlite where this Node has it (so that the Node
 * 22/24 runs of `.ci/run` need no better-sqlite3), better-sqlite3 otherwise.
 */
export function openTestDb(
  path: string,
  options: { readonly?: boolean } = {},
): {
  exec(sql: string): void;
  prepare(sql: string): TestStatement;
  close(): void;
} {
  const req = createRequire(import.meta.url);
  if (!HAS_NODE_SQLITE) {
    const Database = req('better-sqlite3') as new (p: string, o: object) => ReturnType<typeof openTestDb>;
    return new Database(path, { readonly: options.readonly === true });
  }
  type St = { run(...a: unknown[]): unknown; get(...a: unknown[]): unknown; all(...a: unknown[]): unknown[]; setReadBigInts(on: boolean): void };
  const { DatabaseSync } = req('node:sqlite') as {
    DatabaseSync: new (p: string, o: object) => { exec(s: string): void; prepare(s: string): St; close(): void };
  };
  const db = new DatabaseSync(path, { readOnly: options.readonly === true });
  return {
    exec: (sql) => db.exec(sql),
    close: () => db.close(),
    prepare(sql) {
      const st = db.prepare(sql);
      let raw = false;
      let pluck = false;
      const shape = (row: unknown): unknown => {
        if (row === undefined || row === null) return row;
        const values = Object.values(row as Record<string, unknown>);
        return pluck ? values[0] : raw ? values : row;
      };
      const self: TestStatement = {
        run: (...a) => st.run(...a),
        get: (...a) => shape(st.get(...a)),
        all: (...a) => st.all(...a).map(shape),
        raw(on = true) {
          raw = on;
          return self;
        },
        pluck(on = true) {
          pluck = on;
          return self;
        },
        safeIntegers(on = true) {
          st.setReadBigInts(on);
          return self;
        },
      };
      return self;
    },
  };
}
