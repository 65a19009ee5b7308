// The SQLite library, loaded only when a db export is read: CSV users never install or load it.
//
// Node's own `node:sqlite` is used where the running Node has all the reader needs of it (rows as arrays,
// StatementSync.setReturnArrays: Node 22.16 and later, 24): nothing to install. Elsewhere (Node 20, Node 22 before
// 22.16) better-sqlite3 12, an optional peer dependency (package.json) that npm does not install with kprof, so that
// nobody who reads only CSV pays for its native build (about 2.5 minutes here, with no prebuilt binary reachable).
// A db read with neither is an input error (exit 2) that says what to do.
// Only what the reader calls is typed here, so that no type package is needed.

import { createRequire } from 'node:module';
import { inputError } from '../../../util/errors.js';
import { clipped } from '../../../util/inputText.js';
import { passTextExport } from '../registry.js';

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
export const NODE_SQLITE = 'node:sqlite';

/** node:sqlite's statement, as far as the reader uses it. */
interface NodeStatement {
  all(...params: unknown[]): unknown[];
  get(...params: unknown[]): unknown;
  iterate(...params: unknown[]): IterableIterator<unknown>;
  setReadBigInts(on: boolean): void;
  setReturnArrays(on: boolean): void;
}

interface NodeSqlite {
  DatabaseSync: new (path: string, options: { readOnly: boolean }) => { prepare(sql: string): NodeStatement; close(): void };
  StatementSync: { prototype: Partial<NodeStatement> };
}

/**
 * better-sqlite3's statement methods over node:sqlite's: rows as arrays with raw(), BigInts with safeIntegers(),
 * and otherwise integers past 2^53 as the nearest number, as better-sqlite3 gives them (node:sqlite would throw): its
 * integers are read as BigInts and those made numbers, so both libraries give the reader the same values.
 */
class NodeSqliteStatement implements SqliteStatement {
  private bigints = false;
  constructor(private readonly s: NodeStatement) {
    s.setReadBigInts(true);
  }
  raw(on = true): this {
    this.s.setReturnArrays(on);
    return this;
  }
  safeIntegers(on = true): this {
    this.bigints = on;
    return this;
  }
  private row = (r: unknown): unknown => {
    if (this.bigints || r === null || typeof r !== 'object') return r;
    if (Array.isArray(r)) {
      for (let i = 0; i < r.length; i++) if (typeof r[i] === 'bigint') r[i] = Number(r[i]);
      return r;
    }
    const o = r as Record<string, unknown>;
    for (const k in o) if (typeof o[k] === 'bigint') o[k] = Number(o[k]);
    return o;
  };
  *iterate(...params: unknown[]): IterableIterator<unknown> {
    for (const r of this.s.iterate(...params)) yield this.row(r);
  }
  get(...params: unknown[]): unknown {
    return this.row(this.s.get(...params));
  }
  all(...params: unknown[]): unknown[] {
    return this.s.all(...params).map(this.row);
  }
}

/**
 * node:sqlite when the running Node has it whole (setReturnArrays: 22.16+, 24), else null. Node's warning that it
 * is experimental is not shown (cli.ts filters it: its figures are checked against better-sqlite3's in the tests).
 */
function nodeSqlite(load: (id: string) => unknown): SqliteOpen | null {
  let m: NodeSqlite;
  try {
    m = load(NODE_SQLITE) as NodeSqlite;
  } catch {
    return null;
  }
  if (typeof m?.DatabaseSync !== 'function' || typeof m.StatementSync?.prototype?.setReturnArrays !== 'function') return null;
  return (path) => {
    loaded = NODE_SQLITE;
    const db = new m.DatabaseSync(path, { readOnly: true });
    return { prepare: (sql) => new NodeSqliteStatement(db.prepare(sql)), close: () => db.close() };
  };
}

const defaultLoad = createRequire(import.meta.url);
let cached: SqliteOpen | null = null;
/** The library that opened the last db: `node:sqlite` or `better-sqlite3` (for the tests that check which is used). */
let loaded: string | null = null;

export function loadedSqliteLibrary(): string | null {
  return loaded;
}
let injected: ((id: string) => unknown) | null = null;

/**
 * For tests: load the package with `load` from now on (one that throws as a missing package does, to see the
 * message a user without it gets); null: the default again.
 */
export function injectSqliteLoader(load: ((id: string) => unknown) | null): void {
  injected = load;
}

/** Can a db be read here: does node:sqlite or better-sqlite3 load? (Else every db of a run fails alike.) */
export function sqliteAvailable(): boolean {
  try {
    sqliteLibrary('');
    return true;
  } catch {
    return false;
  }
}

/**
 * A function that opens a db read-only with better-sqlite3, loading the package on the first call.
 * `file` is the db as shown to the user, for the message when the package is missing; `load` is for tests
 * (a require that fails as a missing package does).
 */
export function sqliteLibrary(file: string, load: (id: string) => unknown = injected ?? defaultLoad): SqliteOpen {
  if (cached !== null && load === defaultLoad) return cached;
  const builtin = nodeSqlite(load);
  if (builtin !== null) {
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
      `${file}: reading an SQLite export needs Node.js 22.16 or later (its built-in node:sqlite) or the ${SQLITE_PACKAGE} package (version 12), which ${why}. ` +
        `Run kprof with Node.js 22.16+ or 24, or install the package where kprof is installed (\`${SQLITE_INSTALL}\`, or \`npm install -g better-sqlite3@12\` beside a global kprof; ` +
        `it builds with python3 and a C++ compiler when no prebuilt binary is reachable), or read the text export (${passTextExport()}) instead.`,
    );
  }
  const open: SqliteOpen = (path) => {
    loaded = SQLITE_PACKAGE;
    try {
      return new Database(path, { readonly: true, fileMustExist: true });
    } catch (e) {
      // better-sqlite3 loads its native addon only here: one built for another Node.js version fails to load.
      const code = (e as { code?: unknown }).code;
      const m = e instanceof Error ? e.message : '';
      if (code !== 'ERR_DLOPEN_FAILED' && !/NODE_MODULE_VERSION|did not self-register/.test(m)) throw e;
      throw inputError(
        `${file}: the installed ${SQLITE_PACKAGE} was built for another Node.js version than this one (${process.versions.node}): ` +
          `${oneLineMessage(e)}. Run \`npm rebuild better-sqlite3\` where kprof is installed, or use Node.js 22.16+ or 24 (built-in node:sqlite).`,
      );
    }
  };
  if (load === defaultLoad) cached = open;
  return open;
}

function oneLineMessage(e: unknown): string {
  const m = e instanceof Error ? e.message : String(e);
  // The first line only: a native module's load error carries a require stack.
  return clipped(m.split('\n')[0] ?? '', 200);
}
