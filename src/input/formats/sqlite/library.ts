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
  // Node's own node:sqlite first, where the running Node has it (22.13+, 24): no native module, so no build and
  // no addon compiled for another Node (better-sqlite3 loads its addon only when a db is opened, and one built for
  // another Node version fails there). better-sqlite3 otherwise (Node 20, 22.5-22.12).
  const builtin = builtinSqlite(load);
  if (builtin !== null) {
    lastBackEnd = 'node:sqlite';
    if (load === defaultLoad) cached = builtin;
    return builtin;
  }
  let Database: Constructor;
  try {
    Database = load(SQLITE_PACKAGE) as Constructor;
  } catch (e) {
    const code = (e as { code?: unknown }).code;
    const why = code === 'MODULE_NOT_FOUND' || code === 'ERR_MODULE_NOT_FOUND' ? 'is not installed' : `could not be loaded (${oneLineMessage(e)})`;
    throw inputError(
      `${file}: reading an SQLite export needs Node 22.13 or later (its built-in node:sqlite; this is Node ${process.versions.node}) ` +
        `or the ${SQLITE_PACKAGE} package (version 12), which ${why}. Run kprof with Node 22.13+ or 24, or ` +
        `install ${SQLITE_PACKAGE} where kprof is installed (\`${SQLITE_INSTALL}\`, or \`npm install -g better-sqlite3@12\` beside a global kprof; ` +
        'it builds with python3 and a C++ compiler when no prebuilt binary is reachable), or read the text export (kernel_details.csv) instead.',
    );
  }
  lastBackEnd = SQLITE_PACKAGE;
  const open: SqliteOpen = (path) => new Database(path, { readonly: true, fileMustExist: true });
  if (load === defaultLoad) cached = open;
  return open;
}

/** The back end the last successful load chose (for --debug and tests). */
export let lastBackEnd: 'better-sqlite3' | 'node:sqlite' | null = null;

interface NodeStatement {
  all(...params: unknown[]): unknown[];
  get(...params: unknown[]): unknown;
  iterate?(...params: unknown[]): IterableIterator<unknown>;
  setReadBigInts(on: boolean): void;
  setReturnArrays?(on: boolean): void;
}
type NodeDatabaseSync = new (
  path: string,
  options: { readOnly: boolean; allowExtension?: boolean },
) => { prepare(sql: string): NodeStatement; close(): void };

/**
 * node:sqlite's DatabaseSync behind the statement methods the reader uses, or null when this Node has none
 * (Node 20; 22.5-22.12 without its flag). Node's "SQLite is an experimental feature" warning is held back while
 * the module loads (that warning only); the db is opened read-only, without extension loading.
 */
function builtinSqlite(load: (id: string) => unknown): SqliteOpen | null {
  let mod: { DatabaseSync?: NodeDatabaseSync };
  const emit = process.emitWarning;
  process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
    const text = typeof warning === 'string' ? warning : warning.message;
    const type = typeof rest[0] === 'string' ? rest[0] : (rest[0] as { type?: string } | undefined)?.type;
    const kind = typeof warning === 'string' ? type : warning.name;
    if (kind === 'ExperimentalWarning' && /SQLite/.test(text)) return;
    (emit as (...a: unknown[]) => void).call(process, warning, ...rest);
  }) as typeof process.emitWarning;
  try {
    mod = load('node:sqlite') as { DatabaseSync?: NodeDatabaseSync };
  } catch {
    return null;
  } finally {
    process.emitWarning = emit;
  }
  const DatabaseSync = mod.DatabaseSync;
  if (typeof DatabaseSync !== 'function') return null;
  return (path) => {
    const db = new DatabaseSync(path, { readOnly: true, allowExtension: false });
    return { prepare: (sql) => wrapStatement(db.prepare(sql), (q) => db.prepare(q), sql), close: () => db.close() };
  };
}

/** Blobs as Buffers (as better-sqlite3 gives them). */
function cell(v: unknown): unknown {
  return v instanceof Uint8Array && !Buffer.isBuffer(v) ? Buffer.from(v.buffer, v.byteOffset, v.byteLength) : v;
}

/**
 * Node 22.13-22.15 have no setReturnArrays: rows come as objects, where two result columns of one name (two
 * `NULL`s, `c.name` and `o.name`) would keep one value. A SELECT is then prepared again as
 * `SELECT * FROM (query)`, whose columns SQLite names uniquely (`NULL`, `NULL:1`, ...), in query order.
 */
function wrapStatement(first: NodeStatement, prepare: (sql: string) => NodeStatement, sql: string): SqliteStatement {
  let st = first;
  let raw = false;
  let arrays = false;
  let bigInts = false;
  // Integers are always read as BigInt (node:sqlite throws on one past 2^53 otherwise) and made numbers, as
  // better-sqlite3 does, unless safeIntegers asked for BigInt.
  first.setReadBigInts(true);
  const value = (v: unknown): unknown => (typeof v === 'bigint' && !bigInts ? Number(v) : cell(v));
  const shape = (row: unknown): unknown => {
    if (row === undefined || row === null) return row;
    if (!raw) return Object.fromEntries(Object.entries(row as Record<string, unknown>).map(([k, v]) => [k, value(v)]));
    if (arrays) return (row as unknown[]).map(value);
    return Object.values(row as Record<string, unknown>).map(value);
  };
  const self: SqliteStatement = {
    raw(on = true) {
      raw = on;
      if (typeof st.setReturnArrays === 'function') {
        st.setReturnArrays(on);
        arrays = on;
      } else if (on && st === first && /^\s*select\b/i.test(sql)) {
        st = prepare(`SELECT * FROM (${sql})`);
        st.setReadBigInts(true);
      }
      return self;
    },
    safeIntegers(on = true) {
      bigInts = on;
      return self;
    },
    all: (...params) => st.all(...params).map(shape),
    get: (...params) => shape(st.get(...params)),
    *iterate(...params) {
      const rows = typeof st.iterate === 'function' ? st.iterate(...params) : st.all(...params);
      for (const r of rows) yield shape(r);
    },
  } as SqliteStatement;
  return self;
}

function oneLineMessage(e: unknown): string {
  const m = e instanceof Error ? e.message : String(e);
  // The first line only: a native module's load error carries a require stack.
  return clipped(m.split('\n')[0] ?? '', 200);
}
