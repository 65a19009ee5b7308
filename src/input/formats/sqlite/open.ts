// Opening a db export read-only, without ever writing beside it.
//
// - The first 100 bytes (the SQLite header) are checked first, so a file that is not a db, or was cut short, is
//   refused with a message that names it, before any library is loaded.
// - A db in rollback-journal mode (header bytes 18/19 = 1) opens read-only in place: SQLite only reads it and
//   takes shared locks.
// - A db in WAL mode (bytes 18/19 = 2, as MindStudio Insight leaves the dbs it opened) cannot: even a read-only
//   connection creates `-wal` and `-shm` files beside it, which fails in a read-only folder and writes into the
//   user's folder in any other. (The `immutable` URI flag would avoid that, but better-sqlite3 is built without
//   URI names, and it would also ignore a `-wal` that holds data.) So it is read through a private view in a
//   fresh temporary folder: a hard link to the file (no copy: the file is opened read-only, so the link cannot
//   change it), or a copy where a link cannot be made (another file system, a read-only mount); plus a copy of a
//   non-empty `-wal`, whose pages are part of the database. The folder is removed when the db is closed.

import { copyFileSync, constants, linkSync, mkdtempSync, realpathSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { inputError, isKprofError } from '../../../util/errors.js';
import { quotedUnlessLink } from '../../../util/files.js';
import { forLibrary } from '../../bytes/whole.js';
import { shellWord, shown, inQuotes } from '../../../util/inputText.js';
import { decodeKeepingBytes } from '../../csv/scan.js';
import type { SqliteDatabase, SqliteOpen } from './library.js';

const MAGIC = 'SQLite format 3\u0000';
const HEADER_BYTES = 100;

/** What the header of a db says. */
export interface DbHeader {
  pageSize: number;
  /** Bytes 18/19 say WAL mode. */
  wal: boolean;
  /** Pages of the database by its header; null when the header's count is not valid (old writers). */
  pages: number | null;
  bytes: number;
}

/** The first bytes of an SQLite database: for detecting a db by its content, whatever its name. */
export function looksLikeSqlite(head: Uint8Array): boolean {
  if (head.length < MAGIC.length) return false;
  for (let i = 0; i < MAGIC.length; i++) if (head[i] !== MAGIC.charCodeAt(i)) return false;
  return true;
}

/**
 * Reads and checks the header of `path` (as the user wrote it; messages show `file`): an input error when it is
 * not an SQLite database, is cut short or has a header SQLite would refuse. The byte layer opens it (a regular
 * file, not a FIFO or a device: its errors name `path`) and hands over the path on disk the library is to open.
 */
export function readHeader(path: string, file: string): DbHeader & { disk: string } {
  const { disk, size: bytes, head } = forLibrary(path, HEADER_BYTES);
  const n = head.length;
  if (bytes === 0)
    throw inputError(`${file}: empty file; expected an SQLite export (a torch_npu ascend_pytorch_profiler*.db or an msprof msprof_*.db)`);
  if (n >= 2 && head[0] === 0x1f && head[1] === 0x8b) {
    throw inputError(
      `${file}: gzip data, not an SQLite database: SQLite reads a db unpacked only. Unpack it first (gunzip -k ${shellWord(file)}) and pass the .db it writes.`,
    );
  }
  if (!looksLikeSqlite(head.subarray(0, n))) {
    throw inputError(
      `${file}: not an SQLite database: it starts with ${quotedUnlessLink(file, () => inQuotes(shown(decodeKeepingBytes(head, 0, Math.min(n, 24)))))}, ` +
        `expected "SQLite format 3". Pass a torch_npu ascend_pytorch_profiler*.db or an msprof msprof_*.db, or the text export.`,
    );
  }
  if (n < HEADER_BYTES) throw cutShort(file, `the file has ${bytes} bytes, less than the 100 of an SQLite header`);
  const rawPage = head.readUInt16BE(16);
  const pageSize = rawPage === 1 ? 65536 : rawPage;
  if (pageSize < 512 || (pageSize & (pageSize - 1)) !== 0) throw damaged(file, `its page size is ${rawPage}`);
  const write = head[18]!;
  const read = head[19]!;
  if (read > 2 || write > 2 || read === 0 || write === 0) throw damaged(file, `its file format bytes are ${write} and ${read}, expected 1 or 2`);
  const changes = head.readUInt32BE(24);
  const validFor = head.readUInt32BE(92);
  const counted = head.readUInt32BE(28);
  const pages = counted > 0 && changes === validFor ? counted : null;
  if (bytes % pageSize !== 0) throw cutShort(file, `the file has ${bytes} bytes, not a whole number of its ${pageSize}-byte pages`);
  if (pages !== null && bytes < pages * pageSize) {
    throw cutShort(file, `its header says ${pages} pages of ${pageSize} bytes (${pages * pageSize} bytes); the file has ${bytes}`);
  }
  return { pageSize, wal: read === 2 || write === 2, pages, bytes, disk };
}

function cutShort(file: string, what: string): Error {
  return inputError(
    `${file}: the SQLite database is cut short: ${what}. Copy the export again (was it still being written, or cut by a size limit?).`,
  );
}

function damaged(file: string, what: string): Error {
  return inputError(`${file}: not a usable SQLite database: ${what}. Copy the export again, or read the text export.`);
}

/** An open db: a connection for the rows, one for looking strings up while rows are read, and what was done. */
export interface OpenDb {
  header: DbHeader;
  rows: SqliteDatabase;
  /** A second connection: a connection cannot run a statement while it iterates another. */
  lookups: SqliteDatabase;
  /** How it was opened (for inspect): in place, or through a private view and why. */
  traits: string[];
  close(): void;
}

export interface OpenOptions {
  /** Where private views of WAL-mode dbs are made (default: the system's temporary folder). */
  tmpRoot?: string;
  /** For tests: refuse hard links, as another file system does, so that the copy is made. */
  noLink?: boolean;
}

/** Opens `path` (shown as `file`) read-only with `open`, through a private view when it is in WAL mode. */
export function openDb(path: string, file: string, open: SqliteOpen, options: OpenOptions = {}): OpenDb {
  const { disk, ...header } = readHeader(path, file);
  const traits: string[] = [];
  let target = disk;
  let cleanup = (): void => {};
  if (header.wal) {
    const view = privateView(disk, file, options);
    target = view.path;
    cleanup = view.remove;
    traits.push(view.trait);
  }
  let rows: SqliteDatabase | null = null;
  let lookups: SqliteDatabase | null = null;
  const close = (): void => {
    for (const db of [lookups, rows]) {
      try {
        db?.close();
      } catch {
        // Closing a read-only connection cannot lose anything.
      }
    }
    lookups = rows = null;
    cleanup();
    process.removeListener('exit', cleanup);
  };
  // A private view is removed at exit too, when kprof stops before it closes the db (an error elsewhere).
  if (header.wal) process.once('exit', cleanup);
  try {
    rows = open(target);
    lookups = open(target);
    return { header, rows, lookups, traits, close };
  } catch (e) {
    close();
    throw sqliteFailure(file, e);
  }
}

interface View {
  path: string;
  trait: string;
  remove: () => void;
}

function privateView(given: string, file: string, options: OpenOptions): View {
  // The file itself, not a symbolic link to it: a hard link of the link would lead SQLite back to the folder of
  // the file (it opens the -wal and -shm beside the file a link names), and its -wal is beside the file.
  let path = given;
  try {
    path = realpathSync(given);
  } catch {
    // Unreadable: the link or copy below says why.
  }
  const root = options.tmpRoot ?? tmpdir();
  let dir: string;
  try {
    dir = mkdtempSync(join(root, 'kprof-db-'));
  } catch (e) {
    throw inputError(
      `${file}: is in WAL mode, which kprof reads through a private view in a temporary folder, and ${root} would not take one ` +
        `(${(e as NodeJS.ErrnoException).code ?? String(e)}). Set TMPDIR to a writable folder.`,
    );
  }
  const remove = (): void => rmSync(dir, { recursive: true, force: true });
  const target = join(dir, basename(path).replace(/[^A-Za-z0-9._-]/g, '_') || 'export.db');
  let how: string;
  try {
    try {
      if (options.noLink) throw Object.assign(new Error('links refused'), { code: 'EXDEV' });
      linkSync(path, target);
      how = 'a hard link';
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code !== 'EXDEV' && code !== 'EPERM' && code !== 'EACCES' && code !== 'EROFS' && code !== 'EMLINK' && code !== 'ENOTSUP') throw e;
      copyFileSync(path, target, constants.COPYFILE_FICLONE);
      how = 'a copy';
    }
    const wal = walBytes(path);
    if (wal > 0) {
      copyFileSync(`${path}-wal`, `${target}-wal`);
      how += ` and a copy of its ${wal}-byte -wal`;
    }
  } catch (e) {
    remove();
    throw inputError(
      `${file}: is in WAL mode, which kprof reads through a private view in ${root} (a link, or a copy of the file), and making it failed ` +
        `(${(e as NodeJS.ErrnoException).code ?? String(e)}). Set TMPDIR to a folder with room on the same file system.`,
    );
  }
  return { path: target, trait: `WAL mode: read through a private view (${how}) in a temporary folder, never beside the file`, remove };
}

/** Bytes of the `-wal` beside a db (0 when there is none). */
function walBytes(path: string): number {
  try {
    const st = statSync(`${path}-wal`);
    return st.isFile() ? st.size : 0;
  } catch {
    return 0;
  }
}

/**
 * An error from SQLite while reading `file`, as an input error naming it. Other errors (a KprofError, a bug of
 * kprof) pass unchanged, so that a bug is still reported as one.
 */
/** SQLite's primary result codes that a read can meet, by number (sqlite3.h). */
const SQLITE_CODES: Record<number, string> = {
  1: 'SQLITE_ERROR',
  5: 'SQLITE_BUSY',
  6: 'SQLITE_LOCKED',
  7: 'SQLITE_NOMEM',
  10: 'SQLITE_IOERR',
  11: 'SQLITE_CORRUPT',
  13: 'SQLITE_FULL',
  14: 'SQLITE_CANTOPEN',
  23: 'SQLITE_AUTH',
  26: 'SQLITE_NOTADB',
};

export function sqliteFailure(file: string, e: unknown): unknown {
  if (isKprofError(e)) return e;
  // better-sqlite3 gives SQLite's code (SQLITE_CORRUPT …); node:sqlite ERR_SQLITE_ERROR with SQLite's number in errcode.
  const { code: given, errcode } = e as { code?: unknown; errcode?: unknown };
  const code =
    given === 'ERR_SQLITE_ERROR' ? (typeof errcode === 'number' ? (SQLITE_CODES[errcode & 0xff] ?? `SQLITE_${errcode}`) : 'SQLITE_ERROR') : given;
  if (typeof code !== 'string' || !code.startsWith('SQLITE_')) return e;
  const message = e instanceof Error ? e.message : String(e);
  return inputError(
    `${file}: SQLite could not read it (${code}: ${shown(message)}). The file is damaged or not a complete export: copy it again, or read the text export.`,
  );
}
