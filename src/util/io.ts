// The process boundary, injected so the whole CLI runs in-process in tests.

import { closeSync, lstatSync, openSync, readlinkSync, realpathSync, renameSync, rmSync, statSync, writeSync, type Stats } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join, resolve } from 'node:path';
import { inputError, isKprofError, usageError } from './errors.js';
import { onDisk } from './files.js';
import { EMPTY_OUT, endsAsFolder, errorCode, isOwn, linkChain, writeError } from './outPath.js';
import { writePacked } from './packed.js';
import { collectedAlong } from './heap.js';
import { clearCollections, refuseInCollection } from './collections.js';

/** node:crypto's randomBytes, loaded on first use (only -o needs it; a static import costs each run ~5 ms of start-up). */
function randomBytes(n: number): Buffer {
  return (createRequire(import.meta.url)('node:crypto') as typeof import('node:crypto')).randomBytes(n);
}

export interface Io {
  /** Write to stdout; a promise means: wait for it before writing more (the pipe is full). */
  stdout(text: string): void | Promise<void>;
  stderr(text: string): void;
  env: Record<string, string | undefined>;
  stdoutIsTTY: boolean;
  /** The width of the terminal stdout is, when it is one (COLUMNS is asked when this is absent): tables fit it. */
  stdoutColumns?: number;
  stderrIsTTY: boolean;
  /** The width of the terminal stderr is, when it is one (COLUMNS is asked when this is absent). */
  stderrColumns?: number;
  /**
   * The working directory (absolute): every path kprof is given is resolved against it, and paths are shown
   * relative to it. The bin passes process.cwd(); nothing else asks the process.
   */
  cwd: string;
}

/** Colour only on a TTY, never with NO_COLOR (https://no-color.org) or TERM=dumb. */
export function colorEnabled(io: Io, tty: boolean): boolean {
  const nc = io.env.NO_COLOR;
  if (nc !== undefined && nc !== '') return false;
  if (io.env.TERM === 'dumb') return false;
  if (io.env.FORCE_COLOR !== undefined && io.env.FORCE_COLOR !== '0') return true;
  return tty;
}

/** The files and folders this run reads (real identities), so that --out never replaces one of them. */
const inputs = new Map<string, { dev: number; ino: number }>();

/** Note a file this run reads: --out refuses to replace it (by device and inode, so any path to it counts). */
export function noteInput(path: string): void {
  try {
    const st = statSync(onDisk(path));
    inputs.set(path, { dev: st.dev, ino: st.ino });
  } catch {
    // unreadable: the read reports it, and a file that is not there cannot be replaced
  }
}

/**
 * Before a run: an output path that is a folder, or in a folder that does not exist, refused as writeFileAtomic
 * would refuse it only after the run (a report already printed, a large profile read), naming `flag`.
 */
export function writablePath(flag: string, path: string): void {
  // -o '' (an unset variable): said before the read, not after it (other options' empty paths are cli/run.ts's).
  if (path === '' && flag === '--out') throw usageError(EMPTY_OUT);
  if (path === '' || linkChain(path).some(isOwn)) return;
  const code = isDir(path) ? 'EISDIR' : endsAsFolder(path) || !isDir(dirname(path)) ? 'ENOENT' : null;
  if (code !== null) throw writeError(path, Object.assign(new Error(code), { code }), flag);
}

/**
 * Before a run that writes more than one file (-o beside --markdown-out, --html-out or --save-fusions), checked before anything
 * is read: two naming one file would leave only the report written last, and one naming a file the command line reads (the
 * rules file, a profile's) would be refused only after the run, with another report printed. `outs`: [flag, path] pairs (an
 * absent flag's path undefined); `named`: the inputs. Other /dev and /proc paths (a pipe) may be named twice.
 */
export function distinctOutputs(outs: readonly (readonly [string, string | undefined])[], named: readonly string[]): void {
  // `-` and /dev/stdout (or a link to it) are stdout, and so is an absent -o (undefined); two reports there would run together.
  const [a, b] = outs.filter(([flag, path]) => (path === undefined ? flag === '-o' : path === '-' || linkChain(path).some(isStdout)));
  if (b !== undefined) {
    const where = a![1] === undefined ? 'the report goes too (no -o FILE)' : `${a![0]} ${a![1]} writes too`;
    throw usageError(`${b[0]} ${b[1]}: stdout, where ${where}; two reports there would run together. Pass one of them a file path.`);
  }
  // So are two on /dev/stderr (or a link to it), with kprof's messages between them.
  const [c, d] = outs.filter(([, path]) => path !== undefined && path !== '-' && linkChain(path).some((p) => STDERR_PATHS.has(p)));
  if (d !== undefined)
    throw usageError(`${d[0]} ${d[1]}: stderr, where ${c![0]} ${c![1]} writes too; they would run together. Pass one a file path.`);
  const seen: { flag: string; id: string }[] = [];
  for (const [flag, path] of outs) {
    if (path === undefined || path === '' || path === '-') continue;
    if (linkChain(path).some(isOwn)) continue;
    let st: Stats | null = null;
    try {
      st = statSync(onDisk(path));
    } catch {
      // not there yet: known by its resolved path
    }
    writablePath(flag, path);
    if (st !== null && !st.isFile()) continue; // a device: writeFileAtomic says what it is
    for (const input of named) {
      if (st === null) break;
      let id: Stats;
      try {
        id = statSync(onDisk(input));
      } catch {
        continue;
      }
      if (id.isFile() && id.dev === st.dev && id.ino === st.ino) {
        throw inputError(
          `${flag} ${path}: this is ${input === path ? 'an input' : `the same file as ${input}, an input`} of this run; ` +
            `writing the report there would destroy it, so nothing was written. Pass ${flag} another path.`,
        );
      }
    }
    const id = st !== null ? `${st.dev}:${st.ino}` : resolvedPath(path);
    const other = seen.find((s) => s.id === id);
    if (other !== undefined) {
      throw usageError(
        `${flag} ${path}: the same file as ${other.flag}; each report needs a file of its own (only the last written would be kept). Pass ${flag} another path.`,
      );
    }
    seen.push({ flag, id });
  }
}

function isDir(path: string): boolean {
  try {
    return statSync(onDisk(path)).isDirectory();
  } catch {
    return false;
  }
}

/** A path not yet there, as the file system would name it: its folder resolved (links too), and its name (a dangling link's, that of the file it points to). */
function resolvedPath(path: string): string {
  // A dangling link names the file it will create: the end of its chain of links.
  const chain = linkChain(path);
  const abs = resolve(onDisk(chain[chain.length - 1]!));
  const dir = dirname(abs);
  try {
    return join(realpathSync(onDisk(dir)), basename(abs));
  } catch {
    return abs;
  }
}

/** A path whose file (`st`) is one this run read: refused, naming the option that gave it. */
function refuseInput(path: string, st: Stats, flag: string): void {
  for (const [input, id] of inputs) {
    if (id.dev === st.dev && id.ino === st.ino) {
      throw inputError(
        `${flag === '--out' ? '' : `${flag} `}${path}: this is ${input === path ? 'an input' : `the same file as ${input}, an input`} of this run; ` +
          `writing the report there would destroy it, so nothing was written. Pass ${flag} another path.`,
      );
    }
  }
}

/**
 * After the read, before the first of several reports is written: a path that names a file the run read (a
 * profile's kernel_details.csv given as --markdown-out, which distinctOutputs could not know before the read)
 * is refused before any report is written, not after -o's, so that "nothing was written" holds. writeFileAtomic
 * checks again when it writes. `outs` as for distinctOutputs.
 */
export function outputsNotInputs(outs: readonly (readonly [string, string | undefined])[]): void {
  for (const [flag, path] of outs) {
    if (path === undefined || path === '' || path === '-' || linkChain(path).some(isOwn)) continue;
    let st: Stats;
    try {
      st = statSync(onDisk(path));
    } catch {
      continue; // not there yet, or a dangling link: writeFileAtomic says what it is
    }
    if (st.isFile()) refuseInput(path, st, flag);
  }
}

/** Forget the inputs of the last run (run() starts each run with none). */
export function clearInputs(): void {
  inputs.clear();
  clearCollections();
}

/** Temporary files being written, removed by the signal handler when SIGINT or SIGTERM arrives meanwhile. */
const pending = new Set<string>();

function onSignal(signal: NodeJS.Signals): void {
  for (const tmp of pending) rmSync(tmp, { force: true });
  pending.clear();
  // Die of the signal as the default action would, now that nothing is left behind.
  for (const s of SIGNALS) process.removeListener(s, onSignal);
  process.kill(process.pid, signal);
}

const SIGNALS = ['SIGINT', 'SIGTERM'] as const;

/**
 * Write a report file atomically: to a temporary file beside it, then rename, so a failed run never leaves a
 * half-written file where the report should be. The temporary file has a random name and is created
 * exclusively (O_EXCL, which also refuses to follow a symbolic link planted under that name), and is removed
 * when the write fails or the run is interrupted (SIGINT, SIGTERM) meanwhile: the handler is installed only
 * for the write, so Ctrl-C during a long read stops kprof at once.
 *
 * What the path names decides how it is written: a symbolic link is followed (the file it points to is
 * replaced, the link stays); a character device or a FIFO (/dev/null, /dev/stdout, a named pipe) is written
 * directly, as a shell redirection would; a folder, a block device, a dangling link and an input of this run
 * are refused with a message.
 *
 * A path that ends in `.gz` (as written, any case) gets the report gzipped, as its name says (kprof reads a
 * `.json.gz` summary JSON back, unpacking it); a device or a FIFO is written as it is.
 */
export function writeFileAtomic(path: string, text: Report, flag = '--out'): void {
  // Messages name the option that gave the path (--out's own say the path alone, as they always have).
  const at = flag === '--out' ? path : `${flag} ${path}`;
  if (path === '') throw usageError(EMPTY_OUT);
  // The path as written names the file in messages; `disk` is where it is (see onDisk).
  const disk = onDisk(path);
  let target = disk;
  let st: Stats | null = null;
  // A path in /dev or /proc (/dev/stdout, /dev/fd/3), or a link that leads there, names an open file of this
  // process, reached through links that may lead to no path at all (a pipe): taken as it is, and written to
  // directly below, never replaced.
  let own = linkChain(path).some(isOwn);
  try {
    st = own ? statSync(disk) : lstatSync(disk);
    if (st.isSymbolicLink()) {
      target = realpathSync(disk);
      own = isOwn(target);
      st = statSync(own ? disk : target);
    }
  } catch (e) {
    const code = errorCode(e);
    if (code === 'ENOENT' && st?.isSymbolicLink()) {
      throw inputError(
        `${at}: a symbolic link to ${readlinkSync(disk)}, which does not exist; nothing was written. ` +
          'kprof does not create the file a dangling link points to: remove the link, or pass the path of the file to write.',
      );
    }
    if (code !== 'ENOENT') throw writeError(path, e, flag);
    st = null;
  }
  if (st !== null) {
    if (st.isDirectory()) throw writeError(path, Object.assign(new Error('is a folder'), { code: 'EISDIR' }), flag);
    if (st.isBlockDevice()) {
      throw inputError(`${at}: a block device (a disk or partition); nothing was written. Pass ${flag} a file path.`);
    }
    refuseInput(path, st, flag);
    // A character device or a FIFO: the reader at the other end takes the report as it is written. A file
    // reached through /dev or /proc is appended to, as a shell redirection does, never replaced (that would
    // cut a log that stdout appends to).
    if (!st.isFile() || own) {
      let fd = -1;
      try {
        fd = openSync(disk, st.isFile() ? 'a' : 'w');
        writeAll(fd, text);
      } catch (e) {
        // An error of the report itself (one too large to read back) is said as it is.
        throw isKprofError(e) ? e : writeError(path, e, flag);
      } finally {
        if (fd >= 0) closeSync(fd);
      }
      return;
    }
  }
  refuseInCollection(path, target, flag);
  const tmp = join(dirname(target), `.kprof-${randomBytes(8).toString('hex')}.tmp`);
  let fd = -1;
  for (const s of SIGNALS) process.on(s, onSignal);
  try {
    fd = openSync(tmp, 'wx', st !== null ? st.mode & 0o777 : 0o666);
    pending.add(tmp);
    if (GZ_PATH.test(path)) writePacked(fd, text);
    else writeAll(fd, text);
    closeSync(fd);
    fd = -1;
    renameSync(tmp, target);
  } catch (e) {
    if (fd >= 0) closeSync(fd);
    if (pending.has(tmp)) rmSync(tmp, { force: true });
    throw isKprofError(e) ? e : writeError(path, e, flag);
  } finally {
    pending.delete(tmp);
    for (const s of SIGNALS) process.removeListener(s, onSignal);
  }
}

/** The buffer writeAll encodes chunks into (the reporters' chunks are of 64 Ki characters, about). */
const WRITE_BUFFER_BYTES = 1 << 20;

/**
 * Write a report, chunk by chunk (see Report), the chunks encoded one after another into one buffer, used again,
 * which is written when the next might not fit: a buffer per chunk is memory outside the heap until the collector
 * frees its wrapper (a report of a million rows is some 11,000 chunks), and a write per chunk 11,000 calls. A
 * chunk is given room for 3 bytes a UTF-16 unit (the most UTF-8 takes), so it is encoded once, never measured
 * first; a chunk longer than the buffer takes has a buffer of its own.
 */
function writeAll(fd: number, text: Report): void {
  let buf: Buffer | null = null;
  let used = 0;
  const flush = (): void => {
    if (buf !== null) writeBytes(fd, buf, used);
    used = 0;
  };
  for (const chunk of typeof text === 'string' ? [text] : text) {
    if (3 * chunk.length <= WRITE_BUFFER_BYTES) {
      buf ??= Buffer.allocUnsafe(WRITE_BUFFER_BYTES);
      if (used + 3 * chunk.length > WRITE_BUFFER_BYTES) flush();
      used += buf.write(chunk, used);
    } else {
      flush();
      const bytes = Buffer.from(chunk);
      writeBytes(fd, bytes, bytes.length);
    }
  }
  flush();
}

/** Write the first `n` bytes of `buf` whole (a write may take fewer). */
function writeBytes(fd: number, buf: Buffer, n: number): void {
  let off = 0;
  while (off < n) off += writeSync(fd, buf, off, n - off);
}

/** A path whose report is written gzipped. */
const GZ_PATH = /\.gz$/i;

const STDOUT_PATHS: ReadonlySet<string> = new Set(['/dev/stdout', '/dev/fd/1', '/proc/self/fd/1']);
const isStdout = (path: string): boolean => STDOUT_PATHS.has(path);
const STDERR_PATHS: ReadonlySet<string> = new Set(['/dev/stderr', '/dev/fd/2', '/proc/self/fd/2']);

/** A report: one string, or chunks of it (JSON reports, which can be larger than a string can be). */
export type Report = string | Iterable<string>;

/** Where a report went: stdout, stderr (-o /dev/stderr or a link to it), or the file --out names. */
export type Destination = 'stdout' | 'stderr' | 'file';

/**
 * Write a report to --out or stdout (`-` is stdout, as for --markdown-out, --html-out and --save-fusions; `./-` is a
 * file); chunks are written one at a time, waiting while stdout is full, the garbage of making them collected
 * along the way (util/heap.ts). Returns where it went.
 */
export async function emit(io: Io, out: string | undefined, report: Report, flag = '--out'): Promise<Destination> {
  const chunks = typeof report === 'string' ? [report] : collectedAlong(report);
  // -o /dev/stdout, or a link to it, is stdout itself, whatever it is (a file appended to, a pipe, a socket, a terminal).
  const chain = out === undefined || out === '-' ? [] : linkChain(out);
  if (out === undefined || out === '-' || chain.some(isStdout)) {
    for (const chunk of chunks) await io.stdout(chunk);
    return 'stdout';
  }
  if (chain.some((p) => STDERR_PATHS.has(p))) {
    for (const chunk of chunks) io.stderr(chunk);
    return 'stderr';
  }
  writeFileAtomic(out, typeof report === 'string' ? report : chunks, flag);
  return 'file';
}
