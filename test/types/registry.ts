// Type test (compiled by `npm run typecheck`, tsconfig.test.json; never run): the registry's types refuse an
// incomplete format. Each @ts-expect-error line must be an error: if one compiled, tsc says the directive is unused.

import type { FormatEntry, FormatFacts, FormatId, FormatReader } from '../../src/input/formats/registry.js';

const reader: FormatReader = { kind: 'ranks', read: () => [] };

/** A complete entry compiles. */
export const complete: FormatEntry = {
  id: 'complete',
  holds: 'kernels',
  recognise: { names: [/\.c$/], places: ['loose'], takes: 'first' },
  answers: { names: 'yes', types: 'yes', cores: 'no', shapes: 'no', steps: 'column', starts: 'no', streams: 'no', order: 'yes', ranks: 'folder' },
  naming: { short: '*.c', brief: 'c', pass: '*.c', title: 'a c file', by: 'a test', lookedFor: ['*.c'], header: null },
  gzip: false,
  reader,
};

/** An entry that does not say whether its kernels are in order does not. */
export const noOrder: FormatFacts = {
  id: 'no-order',
  holds: 'kernels',
  recognise: { names: [/\.o$/], places: ['loose'], takes: 'first' },
  // @ts-expect-error: `order` (and so what the format can answer) is required
  answers: { names: 'yes', types: 'yes', cores: 'no', shapes: 'no', steps: 'column', starts: 'no', streams: 'no', ranks: 'folder' },
  naming: { short: '*.o', brief: 'o', pass: '*.o', title: 'an o file', by: 'a test', lookedFor: ['*.o'], header: null },
  gzip: false,
};

/** An answer must be one the read path knows. */
export const badAnswer: FormatFacts['answers'] = {
  names: 'yes',
  types: 'yes',
  cores: 'no',
  shapes: 'no',
  // @ts-expect-error: 'sometimes' is not an Answer
  steps: 'sometimes',
  starts: 'no',
  streams: 'no',
  order: 'yes',
  ranks: 'folder',
};

/** A run-time entry needs its reader. */
// @ts-expect-error: `reader` is required
export const noReader: FormatEntry = { ...complete, reader: undefined };

/** The built-in readers are a Record over the built-in ids: a table without one of them does not compile. */
export const readers: Record<FormatId, FormatReader> = {
  kernel_details: reader,
  op_summary: reader,
  op_statistic: reader,
  db: reader,
  analysis_db: reader,
  summary_json: reader,
  trace_view: reader,
  kineto: reader,
  nsys_gpu_trace: reader,
  nsys_kern_sum: reader,
};
// @ts-expect-error: op_statistic has no reader
export const missing: Record<FormatId, FormatReader> = {
  kernel_details: reader,
  op_summary: reader,
  db: reader,
  analysis_db: reader,
  summary_json: reader,
};
