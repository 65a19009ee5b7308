// The SQLite library, loaded only when a db export is read: CSV users never install or load it.
//
// better-sqlite3 12 is an optional peer dependency (package.json): npm does not install it with kprof, so that
// nobody who reads only CSV pays for its native build (about 2.5 minutes here, with no prebuilt binary
// reachable). A db read without it is an input error (exit 2) that says what to install.
// Only what the reader calls is typed here, so that no type package is needed.

import { createRequire } from 'node:module';
import { inputError } from '../../../util/errors.js';
import { clipped } from '../../../util/inputText.js';

/** The statement methods the reader uses (better-sqlite3's Statement). */
export interface SqliteStatement {
  /** Rows as arrays of values, in column order. */
  raw(on?: boolean): this;
  /** Integers as BigInt (all of them), for the values past 2^53. */
  safeIntegers(on?: boolean): this;
  iterate(...params: unknown[]): IterableIterator<unknown>;
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
}

/** The connection methods the reader uses (better-sqlite3's Database). */
export interface SqliteDatabase {
  prepare(sql: string): SqliteStatement;
  close(): void;
}

export type SqliteOpen = (path: string) => SqliteDatabase;

type Constructor = new (path: string, options: { readonly: boolean; fileMustExist: boolean }) => SqliteDatabase;

export const SQLITE_PACKAGE = 'better-sqlite3';
export const SQLITE_INSTALL = 'npm install better-sqlite3@12';

const defaultLoad = createRequire(import.meta.url);
let cached: SqliteOpen | null = null;
let injected: ((id: string) => unknown) | null = null;

/**
 * For tests: load the package with `load` from now on (one that throws as a missing package does, to see the
 * message a user without it gets); null: the default again.
 */
export function injectSqliteLoader(load: ((id: string) => unknown) | null): void {
  injected = load;
}

/**
 * A function that opens a db read-only with better-sqlite3, loading the package on the first call.
 * `file` is the db as shown to the user, for the message when the package is missing; `load` is for tests
 * (a require that fails as a missing package does).
 */
export function sqliteLibrary(file: string, load: (id: string) => unknown = injected ?? defaultLoad): SqliteOpen {
  if (cached !== null && load === defaultLoad) return cached;
  let Database: Constructor;
  try {
    Database = load(SQLITE_PACKAGE) as Constructor;
  } catch (e) {
    const code = (e as { code?: unknown }).code;
    const why = code === 'MODULE_NOT_FOUND' || code === 'ERR_MODULE_NOT_FOUND' ? 'is not installed' : `could not be loaded (${oneLineMessage(e)})`;
    throw inputError(
      `${file}: reading an SQLite export needs the ${SQLITE_PACKAGE} package (version 12), which ${why}. ` +
        `Install it where kprof is installed (\`${SQLITE_INSTALL}\`, or \`npm install -g better-sqlite3@12\` beside a global kprof; ` +
        'it builds with python3 and a C++ compiler when no prebuilt binary is reachable), or read the text export (kernel_details.csv) instead.',
    );
  }
  const open: SqliteOpen = (path) => new Database(path, { readonly: true, fileMustExist: true });
  if (load === defaultLoad) cached = open;
  return open;
}

function oneLineMessage(e: unknown): string {
  const m = e instanceof Error ? e.message : String(e);
  // The first line only: a native module's load error carries a require stack.
  return clipped(m.split('\n')[0] ?? '', 200);
}
