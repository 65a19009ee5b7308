// The bytes of a trace file, plain or gzip (kineto writes `*.pt.trace.json.gz`), as chunks of up to 1 MiB.
// Gzip is recognised by its magic bytes, not by the name. Errors name the file (fsError, gzipError).

import { closeSync, createReadStream, read, readSync } from 'node:fs';
import { createGunzip } from 'node:zlib';
import { fsError, onDisk, openRegular } from '../../util/files.js';
import { gzipError } from './gzip.js';

const CHUNK = 1 << 20;

/** Is the file gzip-compressed (magic 1f 8b)? */
export function isGzipFile(path: string): boolean {
  // openRegular refuses a FIFO or a device before a read could block on it.
  const { fd } = openRegular(path);
  try {
    const head = Buffer.alloc(2);
    let n: number;
    try {
      n = readSync(fd, head, 0, 2, 0);
    } catch (e) {
      throw fsError(path, e);
    }
    return n === 2 && head[0] === 0x1f && head[1] === 0x8b;
  } finally {
    closeSync(fd);
  }
}

export interface ChunkOptions {
  /**
   * The chunks of a plain file are read into the same two buffers in turn (the next one is read while the
   * caller works on this one): for a caller that keeps no reference to a chunk once it has asked for the next
   * (EventScanner.push copies what it keeps). No new memory per chunk, so no garbage collection for it.
   */
  reuse?: boolean;
}

/** The file's bytes (unpacked when it is gzip), chunk by chunk. `onRead` gets the size of each chunk read from disk. */
export async function* traceChunks(path: string, onRead?: (n: number) => void, options: ChunkOptions = {}): AsyncGenerator<Buffer> {
  const gz = isGzipFile(path);
  // A FIFO or a device is refused here (it could block or never end), as the CSV readers refuse it.
  const { fd } = openRegular(path);
  if (!gz && options.reuse === true) {
    yield* reusedChunks(path, fd, onRead);
    return;
  }
  if (gz) {
    yield* gunzipChunks(path, fd, onRead);
    return;
  }
  const file = createReadStream(onDisk(path), { fd, start: 0, highWaterMark: CHUNK });
  if (onRead) file.on('data', (c) => onRead(c.length));
  try {
    for await (const chunk of file) yield chunk as Buffer;
  } catch (e) {
    throw chunkError(path, e, 0);
  } finally {
    file.destroy();
  }
}

/**
 * A gzip file's unpacked bytes, chunk by chunk (up to 1 MiB), from `fd` (opened by openRegular, which refused a
 * FIFO or a device; taken over and closed): the one place a file is unpacked as it is read. `onRead` gets the
 * size of each chunk read from disk; a zlib error is the gzipError that names the file.
 */
export async function* gunzipChunks(path: string, fd: number, onRead?: (n: number) => void): AsyncGenerator<Buffer> {
  const file = createReadStream(onDisk(path), { fd, start: 0, highWaterMark: CHUNK });
  if (onRead) file.on('data', (c) => onRead(c.length));
  let unpacked = 0;
  try {
    for await (const chunk of file.pipe(createGunzip({ chunkSize: CHUNK }))) {
      unpacked += (chunk as Buffer).length;
      yield chunk as Buffer;
    }
  } catch (e) {
    throw chunkError(path, e, unpacked);
  } finally {
    file.destroy();
  }
}

function chunkError(path: string, e: unknown, unpacked: number): unknown {
  if (e instanceof Error && 'code' in e && typeof e.code === 'string') {
    if (e.code.startsWith('Z_')) return gzipError(path, e.code, e.message, unpacked);
    if (/^E[A-Z]+$/.test(e.code)) return fsError(path, e);
  }
  return e;
}

function readAt(fd: number, into: Buffer, position: number): Promise<number> {
  return new Promise((resolve, reject) => read(fd, into, 0, into.length, position, (e, n) => (e ? reject(e) : resolve(n))));
}

/** A plain file's chunks in two buffers used in turn (ChunkOptions.reuse); the fd is closed at the end. */
async function* reusedChunks(path: string, fd: number, onRead?: (n: number) => void): AsyncGenerator<Buffer> {
  const buffers = [Buffer.allocUnsafeSlow(CHUNK), Buffer.allocUnsafeSlow(CHUNK)];
  let turn = 0;
  let position = 0;
  let next: Promise<number> | null = readAt(fd, buffers[0]!, 0);
  try {
    for (;;) {
      const n: number = await next;
      next = null;
      if (n === 0) return;
      position += n;
      onRead?.(n);
      const chunk = buffers[turn]!.subarray(0, n);
      turn ^= 1;
      // The next chunk is read into the other buffer while the caller works on this one.
      next = readAt(fd, buffers[turn]!, position);
      yield chunk;
    }
  } catch (e) {
    throw chunkError(path, e, 0);
  } finally {
    // A read still under way ends before its file is closed.
    if (next !== null) await next.catch(() => 0);
    closeSync(fd);
  }
}
