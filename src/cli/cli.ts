// The only module that touches `process` (and the worker's entry, readWorker.ts, its own thread's warnings).

import { EXIT } from '../util/errors.js';
import { run } from './run.js';
import { quietSqliteWarning } from './warnings.js';

quietSqliteWarning(process);

const io = {
  // Backpressure: when the pipe is full, the next chunk of a report waits for it to drain.
  stdout: (s: string) => (process.stdout.write(s) ? undefined : new Promise<void>((resolve) => process.stdout.once('drain', resolve))),
  stderr: (s: string) => {
    process.stderr.write(s);
  },
  env: process.env,
  stdoutIsTTY: process.stdout.isTTY === true,
  stderrIsTTY: process.stderr.isTTY === true,
  ...(process.stdout.isTTY === true && process.stdout.columns > 0 ? { stdoutColumns: process.stdout.columns } : {}),
  ...(process.stderr.isTTY === true && process.stderr.columns > 0 ? { stderrColumns: process.stderr.columns } : {}),
  cwd: process.cwd(),
};

// EPIPE (e.g. `kprof summary … | head`) is not an error of ours: the reader took what it wanted. Any other
// failure to write the report (a full disk, /dev/full, an I/O error) is exit 2 with a message: a run whose report
// was lost must not pass for one that wrote it. (A stdout closed before the start is /dev/null to Node.)
function stdoutFailed(e: NodeJS.ErrnoException): void {
  if (e.code === 'EPIPE') process.exit(EXIT.ok);
  const why = e.code === 'ENOSPC' ? 'the disk is full' : e.code === 'EBADF' ? 'standard output is closed' : (e.code ?? e.message);
  process.stderr.write(
    `kprof: cannot write the report to standard output (${why}); the report is incomplete or missing. ` +
      'Free some space, or write it to a file with --out.\n',
  );
  process.exit(EXIT.badInput);
}

process.stdout.on('error', stdoutFailed);

/**
 * Exit once stdout and stderr have taken everything written to them (a pipe may still hold some), rather than
 * when the event loop runs dry: a natural exit first frees the heap page by page, which after a large input
 * takes longer than grouping, diffing and rendering it (30 ms, and over 100 ms on a busy machine).
 */
function exitWhenWritten(code: number): void {
  process.exitCode = code;
  let pending = 2;
  const written = (): void => {
    if (--pending === 0) process.exit(code);
  };
  // A write that failed earlier fails this one too: its callback is the first to know.
  process.stdout.write('', (e) => (e ? stdoutFailed(e) : written()));
  process.stderr.write('', written);
}

run(process.argv.slice(2), io).then(exitWhenWritten, (e: unknown) => {
  process.stderr.write(`kprof: internal error: ${e instanceof Error ? e.message : String(e)}\n`);
  exitWhenWritten(EXIT.internal);
});
