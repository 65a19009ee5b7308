// Opening a reader's file: openRegular (which refuses a FIFO or a device before a read could block on it), its
// first bytes read for the sniff, and then its bytes read straight into a buffer the reader owns (the CSV
// scanner's: no copy on the hot path), or unpacked chunk by chunk (chunks.ts). Errors name the file.

import { closeSync, readSync } from 'node:fs';
import { countLf } from '../../util/bytes.js';
import { fsError, isSystemError, openRegular } from '../../util/files.js';
import { isGzip, SNIFF_BYTES } from './sniff.js';

/** An open regular file: its descriptor (the caller closes it), its size, and its first bytes. */
export interface Opened {
  fd: number;
  size: number;
  head: Buffer;
}

/** Open a regular file and read its first `n` bytes (at most its size), from offset 0 (the file's position stays 0). */
export function openWithHead(path: string, n = SNIFF_BYTES): Opened {
  const { fd, size } = openRegular(path);
  try {
    const head = Buffer.alloc(Math.min(size, n));
    let off = 0;
    while (off < head.length) {
      const got = readSync(fd, head, off, head.length - off, off);
      if (got === 0) break;
      off += got;
    }
    return { fd, size, head };
  } catch (e) {
    closeSync(fd);
    throw isSystemError(e) ? fsError(path, e) : e;
  }
}

/** Where a reader wants bytes put: a window of its own buffer, then how many bytes were put there. */
export interface ByteWindow {
  space(): { buf: Buffer; offset: number; length: number };
  commit(n: number): void;
}

/**
 * Read a plain file from its position to its end into `into`'s windows, without a copy; `each` sees each read's
 * bytes (buf[start, end)) before they are committed. Returns the last byte read (-1: none).
 */
export function readInto(fd: number, into: ByteWindow, each: (buf: Buffer, start: number, end: number) => void): number {
  let last = -1;
  for (;;) {
    const sp = into.space();
    const n = readSync(fd, sp.buf, sp.offset, sp.length, null);
    if (n === 0) return last;
    last = sp.buf[sp.offset + n - 1]!;
    each(sp.buf, sp.offset, sp.offset + n);
    into.commit(n);
  }
}

/** The 1-based line of a byte offset of a plain open file, counted by reading the file again up to it (for a message). */
export function lineAt(fd: number, offset: number): number {
  const buf = Buffer.alloc(1 << 20);
  let line = 1;
  for (let pos = 0; pos < offset; ) {
    const n = readSync(fd, buf, 0, Math.min(buf.length, offset - pos), pos);
    if (n === 0) break;
    line += countLf(buf, 0, n);
    pos += n;
  }
  return line;
}

/**
 * Read a plain file into `into`'s windows until `done()` says it has enough (asked after each read) or the file
 * ends: for a reader that stops early (the audit's row citations). A gzip file is not read: false. Errors name it.
 */
export function readPlainUntil(path: string, into: ByteWindow, done: () => boolean): boolean {
  const { fd, head } = openWithHead(path, 2);
  try {
    if (isGzip(head)) return false;
    for (;;) {
      const sp = into.space();
      let n: number;
      try {
        n = readSync(fd, sp.buf, sp.offset, sp.length, null);
      } catch (e) {
        throw isSystemError(e) ? fsError(path, e) : e;
      }
      if (n === 0) return true;
      into.commit(n);
      if (done()) return true;
    }
  } finally {
    closeSync(fd);
  }
}
