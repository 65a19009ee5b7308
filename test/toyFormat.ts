// A toy input format, added at run time (registerFormat) as a test adds one: one module with its registry entry
// and its reader, and nothing changed anywhere else (a built-in format puts the same entry and reader in FORMATS
// and READERS: CONTRIBUTING.md). A `.toy` file holds `name,duration` lines (µs), or `name,duration,step`
// lines (a step column), or `name,duration,step,start` lines (and a start column, µs); it has names, no types,
// no cores, no shapes, steps and starts when the columns are there, and its kernels in order. What it declares
// is all it gets: with steps, diff finds its fusion rewrites; with starts too, --step-time its step spans.

import { readSmall } from '../src/input/bytes/whole.js';
import type { FormatEntry, KernelReadOptions, KernelTarget } from '../src/input/formats/readers.js';
import { sourceFacts } from '../src/input/formats/registry.js';
import { NO_STREAM } from '../src/input/sink.js';
import type { SourceFile } from '../src/model/model.js';

const ROW = /^([^,]+),(\d+(?:\.\d{1,4})?)(?:,(\d{1,9})(?:,(\d{1,15}(?:\.\d{1,4})?))?)?$/;

async function readToy(path: string, into: KernelTarget, options: KernelReadOptions): Promise<SourceFile> {
  // The byte layer opens the file (a regular file, at most 16 MiB here; errors name it), as for every format.
  const bytes = readSmall(path, 16 << 20, 'a toy file');
  const lines = bytes.toString('utf8').split('\n');
  // What the file can answer, from what the entry declares (sourceFacts reads TOY.answers): the step column when
  // its first row has one.
  const first = lines.find((l) => l.trim() !== '') ?? '';
  const head = ROW.exec(first.trim());
  const steps = head?.[3] !== undefined;
  const starts = head?.[4] !== undefined;
  into.begin(sourceFacts(path, TOY.answers, { steps, starts }, options.withShapes));
  // Starts are ticks after an origin, a whole µs told to the sink first (only a sink that wants them is told).
  const originUs = starts ? Math.floor(Number(head![4])) : 0;
  if (starts && into.wantsStarts) into.origin(originUs);
  const ids = new Map<string, number>();
  let rows = 0;
  lines.forEach((line, i) => {
    if (line.trim() === '') return;
    rows++;
    into.rowsRead++;
    const m = ROW.exec(line.trim());
    if (m === null) {
      into.skip(path, i + 1, `expected name,duration; found "${line.slice(0, 40)}"; row skipped`);
      return;
    }
    const name = m[1]!;
    let id = ids.get(name);
    if (id === undefined) {
      id = ids.size;
      ids.set(name, id);
      into.bind(id, { name, rawName: name, type: null, core: null, shapes: null });
    }
    const step = steps && m[3] !== undefined ? Number(m[3]) : null;
    const start = starts && into.wantsStarts && m[4] !== undefined ? Math.round((Number(m[4]) - originUs) * 10_000) : Number.NaN;
    into.addKernel(id, step, Math.round(Number(m[2]) * 10_000), start, NO_STREAM);
  });
  return { path, format: 'toy', traits: ['toy name,duration lines'], columns: [], missing: [], bytes: bytes.length, rowsRead: rows, rowsSkipped: 0 };
}

export const TOY: FormatEntry = {
  id: 'toy',
  holds: 'kernels',
  recognise: { names: [/\.toy$/], places: ['loose'], takes: 'all' },
  answers: { names: 'yes', types: 'no', cores: 'no', shapes: 'no', steps: 'column', starts: 'column', streams: 'no', order: 'yes', ranks: 'folder' },
  naming: { short: '*.toy', brief: 'toy', pass: 'a toy file (*.toy)', title: 'a toy file', by: 'a test', lookedFor: ['*.toy'], header: null },
  gzip: false,
  reader: { kind: 'kernels', read: readToy },
};
