// A toy input format, written the way a new format is added: one module with its registry entry and its reader,
// and nothing changed anywhere else. A `.toy` file holds `name,duration` lines (µs); it has names, no types, no
// cores, no shapes, no steps, and its kernels in order.

import { readFileSync } from 'node:fs';
import type { FormatEntry, KernelReadOptions, KernelTarget } from '../src/input/formats/readers.js';
import { sourceFacts } from '../src/input/formats/registry.js';
import { NO_STREAM } from '../src/input/sink.js';
import type { SourceFile } from '../src/model/model.js';

async function readToy(path: string, into: KernelTarget, options: KernelReadOptions): Promise<SourceFile> {
  const bytes = readFileSync(path);
  // What the file can answer, from what the entry declares (sourceFacts reads TOY.answers).
  into.begin(sourceFacts(path, TOY.answers, {}, options.withShapes));
  const ids = new Map<string, number>();
  let rows = 0;
  bytes
    .toString('utf8')
    .split('\n')
    .forEach((line, i) => {
      if (line.trim() === '') return;
      rows++;
      into.rowsRead++;
      const m = /^([^,]+),(\d+(?:\.\d{1,4})?)$/.exec(line.trim());
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
      into.addKernel(id, null, Math.round(Number(m[2]) * 10_000), Number.NaN, NO_STREAM);
    });
  return { path, format: 'toy', traits: ['toy name,duration lines'], columns: [], missing: [], bytes: bytes.length, rowsRead: rows, rowsSkipped: 0 };
}

export const TOY: FormatEntry = {
  id: 'toy',
  holds: 'kernels',
  recognise: { names: [/\.toy$/], places: ['loose'], takes: 'all' },
  answers: { names: 'yes', types: 'no', cores: 'no', shapes: 'no', steps: 'no', starts: 'no', streams: 'no', order: 'yes', ranks: 'folder' },
  naming: { short: '*.toy', brief: 'toy', pass: 'a toy file (*.toy)', title: 'a toy file', by: 'a test', lookedFor: ['*.toy'], header: null },
  gzip: false,
  reader: { kind: 'kernels', read: readToy },
};
