// Opening and reading the files kprof is given: regular files only (never a FIFO or a device), small side files
// whole with a limit, file-system errors as messages for the user, and the encoding of text that is not UTF-8.
// Paths are resolved against the run's working directory (Io.cwd), never the process's.

import { AsyncLocalStorage } from 'node:async_hooks';
import { closeSync, constants, fstatSync, lstatSync, openSync, readlinkSync, readSync, realpathSync, statSync, type Stats } from 'node:fs';
import { isAbsolute, sep } from 'node:path';
import { inputError, type KprofError } from './errors.js';

/** The working directory of the run in progress (its async context), an absolute path. */
const workingDir = new AsyncLocalStorage<string>();

/**
 * Run `fn` with `cwd` (absolute) as the folder that relative paths are resolved against: run() sets Io.cwd so
 * for the whole run, a read worker the folder its task names. Concurrent runs each keep their own.
 */
export function inWorkingDir<T>(cwd: string, fn: () => T): T {
  return workingDir.run(cwd, fn);
}

/** The working directory of the run in progress; undefined outside one (a library call). */
export function currentWorkingDir(): string | undefined {
  return workingDir.getStore();
}

/**
 * The path to give the file system for a path as the user wrote it. kprof keeps paths as written (messages and
 * reports show them so) and resolves them only here, against the run's working directory: as the kernel resolves
 * a relative path (the folder, then the path as it is: `a/../b` goes through `a`), so that nothing but the
 * folder it is read from changes. Outside a run, a relative path is left to Node (the process's folder).
 */
export function onDisk(path: string): string {
  const cwd = workingDir.getStore();
  if (cwd === undefined || path === '' || isAbsolute(path)) return path;
  return cwd.endsWith(sep) ? cwd + path : cwd + sep + path;
}

/**
 * What a path names on disk (its device and inode, after symbolic links), so that two paths written differently
 * (`run`, `run/`, `./run`, a link to it) are known for one file or folder; null when it cannot be told.
 */
export function diskIdentity(path: string): string | null {
  try {
    const st = statSync(onDisk(path));
    return `${st.dev}:${st.ino}`;
  } catch {
    return null;
  }
}

/**
 * The encoding of text that is not UTF-8 but UTF-16 or UTF-32 (a byte order mark, or the zero bytes of ASCII
 * text in those encodings), or null. Such a file would otherwise look like binary data full of NUL bytes.
 */
export function textEncoding(head: Uint8Array): string | null {
  const b = (i: number): number => head[i] ?? -1;
  if (b(0) === 0xff && b(1) === 0xfe && b(2) === 0 && b(3) === 0) return 'UTF-32LE';
  if (b(0) === 0 && b(1) === 0 && b(2) === 0xfe && b(3) === 0xff) return 'UTF-32BE';
  if (b(0) === 0xff && b(1) === 0xfe) return 'UTF-16LE';
  if (b(0) === 0xfe && b(1) === 0xff) return 'UTF-16BE';
  // No mark: ASCII characters in the first 16 code units, each with its zero bytes where the encoding puts them.
  const units = (size: number, at: number): boolean => {
    if (head.length < size * 16) return false;
    for (let k = 0; k < 16; k++) {
      for (let j = 0; j < size; j++) {
        const c = head[k * size + j]!;
        if (j === at ? c === 0 || c > 0x7f : c !== 0) return false;
      }
    }
    return true;
  };
  if (units(4, 0)) return 'UTF-32LE';
  if (units(4, 3)) return 'UTF-32BE';
  if (units(2, 0)) return 'UTF-16LE';
  if (units(2, 1)) return 'UTF-16BE';
  return null;
}

/** What a path is when it is a FIFO, a device or a socket (following links), in words; else null. */
export function specialKindOf(path: string): string | null {
  try {
    return specialKind(statSync(onDisk(path)));
  } catch {
    return null;
  }
}

/** What a path that is not a regular file is, in words. */
function specialKind(st: Stats): string | null {
  if (st.isFIFO()) return 'a FIFO (named pipe)';
  if (st.isCharacterDevice()) return 'a character device (such as /dev/zero or a terminal)';
  if (st.isBlockDevice()) return 'a block device (a disk)';
  if (st.isSocket()) return 'a socket';
  return null;
}

/**
 * Open a file kprof reads, refusing anything but a regular file: a FIFO may never be written to or never end,
 * and a device such as /dev/zero never ends. The open does not block (O_NONBLOCK, which changes nothing for a
 * regular file), so a FIFO with no writer is refused at once instead of hanging; the check is made on the open
 * file, so the path cannot be swapped between the check and the read.
 */
export function openRegular(path: string, what?: string): { fd: number; size: number } {
  let fd: number;
  try {
    fd = openSync(onDisk(path), constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (e) {
    throw fsError(path, e);
  }
  try {
    const st = fstatSync(fd);
    if (st.isDirectory()) {
      // A side file (rules, a catalogue, profiler_info …) is said as what was expected; else as an export file.
      if (what !== undefined) throw inputError(`${path}: is a folder, expected ${what}. Pass the file itself.`);
      throw fsError(path, Object.assign(new Error('is a directory'), { code: 'EISDIR' }));
    }
    const special = specialKind(st);
    if (special !== null) {
      throw inputError(
        `${path}: ${special}, not a regular file; kprof reads only regular files, since a pipe or a device can block or never end. ` +
          'Copy the data into a file and pass that.',
      );
    }
    return { fd, size: st.size };
  } catch (e) {
    closeSync(fd);
    throw e;
  }
}

/**
 * Read a small side file (a rules or groups file, profiler_info_*.json, a summary JSON) whole, refusing a
 * special file and anything over `limit` bytes, counted as read (a size from stat can be 0 for /proc files);
 * `toDo` ends the message of a file too large.
 */
export function readRegularFile(path: string, limit: number, what: string, toDo = 'Is this the right file?'): Buffer {
  const { fd } = openRegular(path, what);
  try {
    return readBounded(path, fd, limit, () => {
      throw inputError(`${path}: more than ${formatLimit(limit)}; ${what} is at most ${formatLimit(limit)}. ${toDo}`);
    });
  } finally {
    closeSync(fd);
  }
}

/**
 * The bytes of the open file `fd` (of `path`) to its end, read 1 MiB at a time; `tooLarge` is called as soon as
 * more than `limit` were read (it throws). A read error is fsError's message; the caller closes `fd`.
 */
export function readBounded(path: string, fd: number, limit: number, tooLarge: () => never): Buffer {
  const chunks: Buffer[] = [];
  let total = 0;
  for (;;) {
    const buf = Buffer.alloc(Math.min(1 << 20, limit + 1 - total));
    let n: number;
    try {
      n = readSync(fd, buf, 0, buf.length, null);
    } catch (e) {
      throw isSystemError(e) ? fsError(path, e) : e;
    }
    if (n === 0) break;
    chunks.push(buf.subarray(0, n));
    total += n;
    if (total > limit) tooLarge();
  }
  return Buffer.concat(chunks, total);
}

function formatLimit(bytes: number): string {
  return bytes >= 1 << 20 ? `${bytes / (1 << 20)} MiB` : `${bytes / 1024} KiB`;
}

export function isSystemError(e: unknown): e is Error & { code: string } {
  return e instanceof Error && 'code' in e && typeof e.code === 'string' && /^E[A-Z]+$/.test(e.code);
}

/**
 * Where a file that is itself a symbolic link leads (its real path), else null. A message about what such a file
 * holds names where it leads instead of quoting it: a link in a profile from elsewhere (`kernel_details.csv ->
 * ~/.git-credentials`) would otherwise put the start of any file kprof can read into a CI log.
 */
export function linkTarget(path: string): string | null {
  try {
    return lstatSync(onDisk(path)).isSymbolicLink() ? realpathSync(onDisk(path)) : null;
  } catch {
    return null;
  }
}

/** The text of a file's start to quote in a message, or, for a symbolic link, where it leads (see linkTarget). */
export function quotedUnlessLink(path: string, text: () => string): string {
  const target = linkTarget(path);
  return target === null ? text() : `(not quoted: the file is a symbolic link to ${target})`;
}

/** A path that does not exist; a dangling symbolic link, or a loop of them, is named as one. */
export function missingPathError(path: string): KprofError {
  try {
    if (lstatSync(onDisk(path)).isSymbolicLink()) {
      if (loops(path)) return loopError(path);
      return inputError(
        `${path}: a symbolic link to ${readlinkSync(onDisk(path))}, which does not exist. ` +
          `Fix the link, or pass the file or folder it should point to.`,
      );
    }
  } catch {
    /* not there at all */
  }
  // U+FFFD is what a command line's bytes that are not UTF-8 become: the name on disk is in another encoding.
  if (path.includes('\uFFFD'))
    return inputError(
      `${path}: no such file or folder by this name, which holds U+FFFD where the command line had bytes that are not UTF-8 ` +
        '(a name in GBK, Latin-1 or another encoding), so it cannot be opened. Rename it in UTF-8 (convmv -f gbk -t utf-8).',
    );
  return inputError(`${path}: no such file or folder. Check the path.`);
}

function loops(path: string): boolean {
  try {
    statSync(onDisk(path));
    return false;
  } catch (e) {
    return e instanceof Error && 'code' in e && e.code === 'ELOOP';
  }
}

function loopError(path: string): KprofError {
  return inputError(
    `${path}: a loop of symbolic links (following them leads back where they started, or more than 40 deep). ` +
      'Fix the links, or pass the file or folder they should point to.',
  );
}

/** A file-system error as a message for the user. */
export function fsError(path: string, e: unknown): KprofError {
  const code = e instanceof Error && 'code' in e ? String(e.code) : '';
  if (code === 'ENOENT') return missingPathError(path);
  if (code === 'ELOOP') return loopError(path);
  if (code === 'ENAMETOOLONG') return inputError(`${path}: the path or a name in it is too long for the file system. Check the path.`);
  if (code === 'EACCES' || code === 'EPERM') {
    return inputError(`${path}: permission denied. Make it readable (chmod +r) or run as a user who can read it.`);
  }
  if (code === 'EISDIR') {
    return inputError(`${path}: is a folder, expected a file. Pass the export file itself, or the profile folder that holds it.`);
  }
  if (code === 'ENOTDIR') {
    return inputError(`${path}: a part of this path is a file, not a folder. Check the path.`);
  }
  return inputError(`${path}: cannot be read (${code || (e instanceof Error ? e.message : String(e))}). Check the file and its disk.`);
}
