// The process boundary, injected so the whole CLI runs in-process in tests.

import { renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { inputError, type KprofError } from './errors.js';

export interface Io {
  stdout(text: string): void;
  stderr(text: string): void;
  env: Record<string, string | undefined>;
  stdoutIsTTY: boolean;
  stderrIsTTY: boolean;
}

/** Colour only on a TTY, never with NO_COLOR (https://no-color.org) or TERM=dumb. */
export function colorEnabled(io: Io, tty: boolean): boolean {
  const nc = io.env.NO_COLOR;
  if (nc !== undefined && nc !== '') return false;
  if (io.env.TERM === 'dumb') return false;
  if (io.env.FORCE_COLOR !== undefined && io.env.FORCE_COLOR !== '0') return true;
  return tty;
}

/**
 * Write a report file atomically: to a temporary file beside it, then rename, so a failed run never leaves a
 * half-written file where the report should be.
 */
export function writeFileAtomic(path: string, text: string): void {
  const tmp = join(dirname(path), `.${basename(path)}.${process.pid}.tmp`);
  try {
    writeFileSync(tmp, text);
    renameSync(tmp, path);
  } catch (e) {
    rmSync(tmp, { force: true });
    throw writeError(path, e);
  }
}

/** Why --out could not be written, and what to do. */
function writeError(path: string, e: unknown): KprofError {
  const code = e instanceof Error && 'code' in e ? String(e.code) : '';
  const why =
    code === 'ENOENT' || code === 'ENOTDIR'
      ? `the folder ${dirname(path)} does not exist`
      : code === 'EISDIR'
        ? 'it is a folder'
        : code === 'EACCES' || code === 'EPERM' || code === 'EROFS'
          ? 'permission denied'
          : code === 'ENOSPC'
            ? 'the disk is full'
            : code || (e instanceof Error ? e.message : String(e));
  return inputError(`${path}: cannot write the report (${why}); nothing was written. Pass --out a file path in a folder that exists and is writable.`);
}

/** Write a report to --out or stdout. */
export function emit(io: Io, out: string | undefined, text: string): void {
  if (out !== undefined) writeFileAtomic(out, text);
  else io.stdout(text);
}
