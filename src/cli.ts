// The only module that touches `process`.

import { run } from './run.js';

const io = {
  stdout: (s: string) => {
    process.stdout.write(s);
  },
  stderr: (s: string) => {
    process.stderr.write(s);
  },
  env: process.env,
  stdoutIsTTY: process.stdout.isTTY === true,
  stderrIsTTY: process.stderr.isTTY === true,
};

// EPIPE (e.g. `kprof summary … | head`) is not an error of ours.
process.stdout.on('error', (e: NodeJS.ErrnoException) => {
  if (e.code === 'EPIPE') process.exit(0);
  throw e;
});

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
  process.stdout.write('', written);
  process.stderr.write('', written);
}

run(process.argv.slice(2), io).then(exitWhenWritten, (e: unknown) => {
  process.stderr.write(`kprof: internal error: ${e instanceof Error ? e.message : String(e)}\n`);
  exitWhenWritten(2);
});
