// What an output path is, before a report is written there: a path of this process (/dev, /proc), the links it
// leads through, and why it could not be written (naming the option that gave it). Shared by io.ts's checks before
// a run and its atomic write.

import { lstatSync, readlinkSync, statSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { inputError, type KprofError } from './errors.js';
import { onDisk } from './files.js';

/** A path in /dev or /proc: a device or an open file of this process, never replaced by a rename. */
export function isOwn(path: string): boolean {
  return /^\/(dev|proc)\//.test(path);
}

/**
 * The paths a link leads through, `path` first, each hop read with readlink (at most 40, as the kernel follows):
 * so a link to /dev/stdout is known as one even where the chain ends in no path at all (a pipe, a socket).
 */
export function linkChain(path: string): string[] {
  let p = onDisk(path);
  const chain = [p];
  for (let i = 0; i < 40; i++) {
    try {
      if (!lstatSync(p).isSymbolicLink()) break;
      p = resolve(dirname(p), readlinkSync(p));
    } catch {
      break;
    }
    chain.push(p);
  }
  return chain;
}

export function errorCode(e: unknown): string {
  return e instanceof Error && 'code' in e ? String(e.code) : '';
}

/** The end of `dir/`, `dir/.` or `dir/..`: a path that names a folder, whatever is there, never a file to write. */
const FOLDER_END = /\/\.{0,2}$/;

/** Does the path name a folder by its end (FOLDER_END)? */
export function endsAsFolder(path: string): boolean {
  return FOLDER_END.test(path);
}

/**
 * Why a path's folder cannot take the report: the path names a folder itself (`out/`), a part of it is a file
 * (`base.json/r.md`), or its folder does not exist.
 */
function noFolder(path: string): string {
  const end = FOLDER_END.exec(path);
  if (end !== null) return `it ends in "${end[0]}", so it names a folder, not a file`;
  for (let d = dirname(path); dirname(d) !== d; d = dirname(d)) {
    try {
      if (statSync(onDisk(d)).isDirectory()) break;
      return `${d} is a file, not a folder`;
    } catch {
      /* not there: look further up */
    }
  }
  return `the folder ${dirname(path)} does not exist`;
}

/** Why --out could not be written, and what to do. */
export function writeError(path: string, e: unknown, flag = '--out'): KprofError {
  const code = errorCode(e);
  const name = basename(path);
  const why =
    code === 'ENOENT' || code === 'ENOTDIR'
      ? noFolder(path)
      : code === 'EISDIR'
        ? 'it is a folder'
        : code === 'EACCES' || code === 'EPERM' || code === 'EROFS'
          ? 'permission denied'
          : code === 'ENOSPC'
            ? 'the disk is full'
            : code === 'ENAMETOOLONG'
              ? `the name is too long: ${Buffer.byteLength(name)} bytes in the file name, ${Buffer.byteLength(path)} in the path; most file systems take at most 255 bytes in a name`
              : code === 'ELOOP'
                ? 'the path goes through a loop of symbolic links'
                : code || (e instanceof Error ? e.message : String(e));
  return inputError(
    `${flag === '--out' ? '' : `${flag} `}${path}: cannot write the report (${why}); nothing was written. Pass ${flag} a file path in a folder that exists and is writable.`,
  );
}

/** The message of `-o ''` (an unset variable): refused before the read (writablePath), and on writing (writeFileAtomic). */
export const EMPTY_OUT = '--out: expected a file path; found an empty string. Pass -o FILE, or leave -o out to write to stdout.';
