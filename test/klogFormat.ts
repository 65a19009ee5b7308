// A second example format, written as a contributor adds one (CONTRIBUTING.md): a kernel log, a tab-separated
// file `step start_us dur_us op_type op_name` (µs; step and start_us may be empty) with that header line, which
// claims the file whatever its name (`sniff`). Unlike test/toyFormat.ts it streams its file through the byte layer
// (traceChunks: any size, gzip unpacked), has kernel types but no cores, and bounds what it keeps of a line.

import { traceChunks } from '../src/input/bytes/chunks.js';
import type { FormatEntry, KernelReadOptions, KernelTarget } from '../src/input/formats/readers.js';
import { sourceFacts } from '../src/input/formats/registry.js';
import { startOriginUs, startTicksAfter } from '../src/input/kernelCells.js';
import { MAX_NAME_BYTES, NO_STREAM } from '../src/input/sink.js';
import { inputError } from '../src/util/errors.js';
import { MAX_EXACT_TICKS, type SourceFile } from '../src/model/model.js';

const HEADER = 'step\tstart_us\tdur_us\top_type\top_name';
/** The longest line read; a longer one is skipped without being kept. */
const MAX_LINE = 2 * MAX_NAME_BYTES + 256;

/** The first bytes (a BOM allowed) are the header line. */
function sniffKlog(head: Uint8Array): boolean {
  const text = Buffer.from(head.subarray(0, 64))
    .toString('latin1')
    .replace(/^\xEF\xBB\xBF/, '');
  return text.startsWith(HEADER) && /^\r?(\n|$)/.test(text.slice(HEADER.length));
}

async function readKlog(path: string, into: KernelTarget, options: KernelReadOptions): Promise<SourceFile> {
  const ids = new Map<string, number>();
  let [line, rows, bytes, originUs] = [0, 0, 0, Number.NaN];
  const row = (text: string): void => {
    if (++line === 1) {
      if (text.replace(/\r$/, '') !== HEADER) {
        throw inputError(`${path}:1: expected the header "${HEADER}" of a kernel log; found "${text.slice(0, 60)}". Pass a kernel log.`);
      }
      into.begin(sourceFacts(path, KLOG.answers, { steps: true, starts: true }, options.withShapes));
      return;
    }
    if (text === '' || text === '\r') return;
    rows++;
    into.rowsRead++;
    const cells = text.length > MAX_LINE ? [] : text.replace(/\r$/, '').split('\t');
    const [step = '', start = '', dur = '', type = '', name = ''] = cells;
    const ticks = startTicksAfter(dur, 0);
    if (cells.length !== 5 || !/^\d{0,9}$/.test(step) || !(ticks >= 0 && ticks < MAX_EXACT_TICKS) || type === '' || name === '') {
      const found = cells.length === 0 ? `a line of ${text.length.toLocaleString('en-US')} characters or more` : `"${text.slice(0, 60)}"`;
      into.skip(path, line, `expected step, start_us, dur_us (µs, 0 or more), op_type and op_name; found ${found}; row skipped`);
      return;
    }
    if (Number.isNaN(originUs) && start !== '' && into.wantsStarts) {
      originUs = startOriginUs(start);
      if (!Number.isNaN(originUs)) into.origin(originUs);
    }
    const key = `${type}\t${name}`;
    let id = ids.get(key);
    if (id === undefined) {
      ids.set(key, (id = ids.size));
      into.bind(id, { name, rawName: name, type, core: null, shapes: null });
    }
    const at = start !== '' && into.wantsStarts ? startTicksAfter(start, originUs) : Number.NaN;
    into.addKernel(id, step === '' ? null : Number(step), ticks, at, NO_STREAM);
  };
  // Lines as the chunks come; a line past MAX_LINE keeps only its first MAX_LINE + 1 characters.
  let pending = '';
  const decoder = new TextDecoder();
  for await (const chunk of traceChunks(path, (n) => (bytes += n))) {
    const parts = (pending + decoder.decode(chunk, { stream: true })).split('\n');
    pending = parts.pop()!.slice(0, MAX_LINE + 1);
    for (const p of parts) row(p);
  }
  if (pending !== '' || line === 0) row(pending);
  return { path, format: KLOG.id, traits: ['kernel log'], columns: HEADER.split('\t'), missing: [], bytes, rowsRead: rows, rowsSkipped: 0 };
}

export const KLOG: FormatEntry = {
  id: 'klog',
  holds: 'kernels',
  recognise: { names: [/\.klog(\.gz)?$/], sniff: sniffKlog, places: ['loose'], takes: 'first' },
  answers: { names: 'yes', types: 'yes', cores: 'no', shapes: 'no', steps: 'column', starts: 'column', streams: 'no', order: 'yes', ranks: 'folder' },
  naming: {
    short: '*.klog',
    brief: 'kernel log',
    pass: 'a kernel log (*.klog)',
    title: 'a kernel log',
    by: 'a test',
    lookedFor: ['*.klog'],
    header: null,
  },
  gzip: true,
  reader: { kind: 'kernels', read: readKlog },
};
