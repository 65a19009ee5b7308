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

run(process.argv.slice(2), io).then(
  (code) => {
    process.exitCode = code;
  },
  (e: unknown) => {
    process.stderr.write(`kprof: internal error: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exitCode = 2;
  },
);
