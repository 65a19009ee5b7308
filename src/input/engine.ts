// Which scan engine reads the CSV exports: 'simd' (simd.wat where WebAssembly SIMD runs, the default) or 'js'
// (the JavaScript scanner alone, the reference both are tested against). The CLI sets it for each run from
// KPROF_ENGINE; the scheduler (read.ts) hands it to every rank's job, in this thread or a worker. A small module,
// so that the CLI can set it without loading the input layer.

import { usageError } from '../util/errors.js';
import { excerpt, inQuotes } from '../util/inputText.js';

export type Engine = 'simd' | 'js';

let current: Engine = 'simd';

/** The engine of this run. */
export function defaultEngine(): Engine {
  return current;
}

/** Read with this engine from now on (the CLI sets it for each run). */
export function setDefaultEngine(engine: Engine): void {
  current = engine;
}

/** The engine KPROF_ENGINE names: unset or empty, 'simd'; a value that is neither engine is a usage error. */
export function parseEngine(v: string | undefined): Engine {
  if (v === undefined || v === '' || v === 'simd') return 'simd';
  if (v === 'js') return 'js';
  throw usageError(
    `KPROF_ENGINE is ${inQuotes(excerpt(v))}; expected js (the JavaScript reference engine) or simd (the default). Unset it or set one of those.`,
  );
}
