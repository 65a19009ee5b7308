// The bytes of a trace file, plain or gzip (kineto writes `*.pt.trace.json.gz`), as chunks of up to 1 MiB.
// Gzip is recognised by its magic bytes, not by the name. Errors name the file (fsError, gzipError).

import { createReadStream, readSync, closeSync } from 'node:fs';
import { createGunzip } from 'node:zlib';
import { fsError, onDisk, openRegular } from '../../../util/files.js';
import { gzipError } from '../readTable.js';

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

/** The file's bytes (unpacked when it is gzip), chunk by chunk. `onRead` gets the size of each chunk read from disk. */
export async function* traceChunks(path: string, onRead?: (n: number) => void): AsyncGenerator<Buffer> {
  const gz = isGzipFile(path);
  // A FIFO or a device is refused here (it could block or never end), as the CSV readers refuse it.
  const { fd } = openRegular(path);
  const file = createReadStream(onDisk(path), { fd, start: 0, highWaterMark: CHUNK });
  if (onRead) file.on('data', (c) => onRead(c.length));
  let unpacked = 0;
  try {
    if (!gz) {
      for await (const chunk of file) yield chunk as Buffer;
      return;
    }
    const gunzip = createGunzip({ chunkSize: CHUNK });
    for await (const chunk of file.pipe(gunzip)) {
      unpacked += (chunk as Buffer).length;
      yield chunk as Buffer;
    }
  } catch (e) {
    if (e instanceof Error && 'code' in e && typeof e.code === 'string') {
      if (e.code.startsWith('Z_')) throw gzipError(path, e.code, e.message, unpacked);
      if (/^E[A-Z]+$/.test(e.code)) throw fsError(path, e);
    }
    throw e;
  } finally {
    file.destroy();
  }
}
