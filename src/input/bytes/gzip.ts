// Gzip for every reader: what zlib's errors mean for the user. The byte layer unpacks a file once, as it is
// read (chunks.ts); nothing outside src/input/bytes/ imports node:zlib (test/architecture.test.ts).

import { closeSync, readSync } from 'node:fs';
import { constants, gunzipSync } from 'node:zlib';
import { inputError, type KprofError } from '../../util/errors.js';
import { openRegular } from '../../util/files.js';
import { isGzip, SNIFF_BYTES } from './sniff.js';

/**
 * What zlib's error means for the user: a checksum that does not match, data cut short, or damage. `unpacked`:
 * the bytes unpacked before it (null: not known, for a file unpacked at once); `fix`: what to do.
 */
export function gzipError(
  path: string,
  code: string,
  message: string,
  unpacked: number | null,
  fix = 'Copy the file again or export the profile again.',
): KprofError {
  const at = unpacked === null ? '' : unpacked > 0 ? `after ${unpacked} unpacked bytes` : 'before any data could be unpacked';
  const where = at === '' ? '' : ` ${at}`;
  if (/incorrect (data|length) check/.test(message)) {
    return inputError(
      `${path}: the gzip checksum at the end of the file does not match the data (${message}): the file is damaged, ` +
        `e.g. bytes changed in a copy, so none of its rows can be trusted. ${fix}`,
    );
  }
  if (code === 'Z_BUF_ERROR' || /unexpected end/.test(message)) {
    return inputError(
      `${path}: the gzip data ends early (cut short, e.g. a partial copy or a full disk)${where}; expected a complete gzip file. ${fix}`,
    );
  }
  // A file's first bytes are gzip's before it is unpacked (isGzip), and a member is checked whole (its checksum)
  // before the next header is read: a header that is not gzip's is past complete data, in bytes appended to it.
  // zlib stops there before it hands over the last data, so nothing says how much was unpacked.
  if (/incorrect header check/.test(message)) {
    return inputError(
      `${path}: the gzip data is followed by bytes that are not gzip data (${message}): files joined together, or a copy padded? ` +
        `Expected a file that ends where its gzip data ends. ${fix}`,
    );
  }
  return inputError(`${path}: the gzip data is damaged (${message})${where}; expected a complete gzip file. ${fix}`);
}

/** The first bytes of a file (for sniffing), unpacked when it is gzip; empty when they cannot be read. */
export function readHead(path: string): Uint8Array {
  let fd = -1;
  try {
    fd = openRegular(path).fd;
    const buf = Buffer.alloc(SNIFF_BYTES);
    const n = readSync(fd, buf, 0, buf.length, 0);
    const head = buf.subarray(0, n);
    if (!isGzip(head)) return head;
    try {
      return gunzipSync(head, { finishFlush: constants.Z_SYNC_FLUSH }).subarray(0, SNIFF_BYTES);
    } catch {
      return head;
    }
  } catch {
    return new Uint8Array(0); // the read of the file says what is wrong with it
  } finally {
    if (fd >= 0) closeSync(fd);
  }
}

/**
 * A whole small file's bytes, unpacked when they are gzip, at most `limit` bytes unpacked (a RangeError, or an
 * ERR_BUFFER_TOO_LARGE error, past it; zlib's own error when the data is damaged): the caller says which.
 */
export function unpackWhole(bytes: Buffer, limit: number): Buffer {
  return isGzip(bytes) ? gunzipSync(bytes, { maxOutputLength: limit }) : bytes;
}
