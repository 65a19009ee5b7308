// Files read whole, and files a library opens by their path: still opened here, so every file a format reads is
// checked the same way (a regular file, not a FIFO or a device that could block or never end; errors that name
// it: fsError, gzipError) and no module of input/formats/ opens a file itself (test/architecture.test.ts).
// - readWhole: a small file parsed whole (a summary JSON), unpacked when gzip, refused past a limit before it is
//   read (its size) and as it is read or unpacked (a size of 0 from /proc, a gzip bomb).
// - readSmall: a small side file read whole as it is (profiler_info_*.json, a step-time CSV).
// - forLibrary: a file a library opens by its path (SQLite): opened and checked here, its first bytes read for the
//   reader's own checks, closed, and its path on disk handed over with its size.
// - checkRegular: refuse a path that is a FIFO, a device or a socket, saying which.

import { closeSync } from 'node:fs';
import { onDisk, openRegular, readBounded, readRegularFile } from '../../util/files.js';
import { gzipError, unpackWhole } from './gzip.js';
import { isGzip } from './sniff.js';
import { openWithHead } from './open.js';

/** Said when a file, or what it unpacks to, is past the limit (`packed`: it unpacks to more). */
export type TooLarge = (packed: boolean) => never;

/**
 * A small file's bytes, unpacked when gzip, at most `limit` bytes (stored and unpacked): past it, `tooLarge` is
 * called (before the read when the file's size says so). Damaged gzip data is gzipError's message, with `fix`.
 */
export function readWhole(path: string, limit: number, tooLarge: TooLarge, fix: string): { bytes: Buffer; gzip: boolean } {
  const { fd, size } = openRegular(path);
  let bytes: Buffer;
  try {
    if (size > limit) tooLarge(false);
    bytes = readBounded(path, fd, limit, () => tooLarge(false));
  } finally {
    closeSync(fd);
  }
  if (!isGzip(bytes)) return { bytes, gzip: false };
  try {
    return { bytes: unpackWhole(bytes, limit), gzip: true };
  } catch (e) {
    const code = e instanceof Error && 'code' in e ? String(e.code) : '';
    if (e instanceof RangeError || code === 'ERR_BUFFER_TOO_LARGE') tooLarge(true);
    throw gzipError(path, code, e instanceof Error ? e.message : String(e), null, fix);
  }
}

/** A small side file's bytes as they are, at most `limit` (`what` names it in the message past it). */
export function readSmall(path: string, limit: number, what: string): Buffer {
  return readRegularFile(path, limit, what);
}

/** A file a library opens by its path, checked and handed over: its path on disk, its size and first `n` bytes. */
export interface ForLibrary {
  disk: string;
  size: number;
  head: Buffer;
}

/**
 * Open a file as a reader's file is opened (openRegular: a regular file, errors naming `path`), read its first
 * `n` bytes, close it, and hand over its path on disk: for a library that opens files by path only (SQLite).
 */
export function forLibrary(path: string, n: number): ForLibrary {
  const { fd, size, head } = openWithHead(path, n);
  closeSync(fd);
  return { disk: onDisk(path), size, head };
}

/** Refuse a path that is a FIFO, a device or a socket (openRegular says which), without reading it. */
export function checkRegular(path: string): void {
  closeSync(openRegular(path).fd);
}
