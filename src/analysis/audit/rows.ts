// Row citations of the audit: for a site, the file and line of its first kernel's row in a CSV kernel table
// (a format of kernels told apart by its CSV header: kernel_details.csv, op_summary*.csv). The recorder keeps no rows, only each kernel's index among its step's compute
// kernels on its stream; so the table is read again, once per rank, only when there are sites to cite, counting
// the rows as the recorder counted them (rows with a Step Id, communication kernels left out, file order), and it
// stops as soon as every site is found. A row whose Type is not the site's first kernel type (a row the reader had
// skipped would shift the count) is not cited: the site then keeps its step, stream and index. Other formats (a
// .db, a trace JSON, a .gz) have no line to cite and keep step, stream and index. The file is read by the byte
// layer into the CSV scanner (input/csv/scan.ts), so its records, quotes and lines are those the reader saw.

import { readPlainUntil } from '../../input/bytes/open.js';
import { CsvScanner, type RowView } from '../../input/csv/scan.js';
import { formatOf } from '../../input/formats/registry.js';
import { isKprofError } from '../../util/errors.js';
import { isCommunicationKernel } from '../rewrites/sequence.js';

/** What is to be cited: step, stream and index of a kernel, and the type it must have. */
export interface Wanted {
  step: number;
  stream: string;
  index: number;
  type: string;
  /** Set when found. */
  file: string | null;
  line: number | null;
}

/** A kernel table that rows can be cited in: a CSV format of kernels (the registry: one told apart by its header). */
export function citable(file: { format: string }): boolean {
  const f = formatOf(file.format);
  return f.holds === 'kernels' && f.naming.header !== null;
}

/**
 * Find the rows of `wanted` in a rank's CSV kernel tables (in the order read). `shown`: the file's name as reports
 * show it. Sets file and line of each found.
 */
export function citeRows(files: { path: string; shown: string; format: string }[], wanted: Wanted[]): void {
  if (wanted.length === 0 || files.length === 0 || !files.every((f) => citable(f))) return;
  // Per "step\0stream": the wanted indexes.
  const want = new Map<string, Map<number, Wanted[]>>();
  for (const w of wanted) {
    const k = `${w.step}\u0000${w.stream}`;
    let m = want.get(k);
    if (m === undefined) {
      m = new Map();
      want.set(k, m);
    }
    const l = m.get(w.index) ?? [];
    l.push(w);
    m.set(w.index, l);
  }
  let left = wanted.length;
  const seen = new Map<string, number>();
  for (const f of files) {
    let head: string[] | null = null;
    let col = { step: -1, stream: -1, type: -1, name: -1, core: -1 };
    // Each record as the CSV scanner gives it (quoted cells, CRLF, a BOM as in every CSV), with the line it starts on.
    const onRecord = (row: RowView): boolean => {
      if (head === null) {
        head = row.cells().map((c) => c.trim());
        const at = (...names: string[]): number => head!.findIndex((h) => names.includes(h));
        col = {
          step: at('Step Id', 'Step ID'),
          stream: at('Stream ID', 'Stream Id'),
          type: at('Type', 'OP Type'),
          name: at('Name', 'Op Name'),
          core: at('Accelerator Core', 'Task Type'),
        };
        return col.step >= 0 && col.type >= 0;
      }
      // A row the reader skipped (damaged, or not as wide as the header) is not counted, as the recorder did not.
      if (row.problem !== 'none' || row.n !== head.length) return true;
      const c = row.cells();
      const stepText = (c[col.step] ?? '').trim();
      if (!/^-?\d+$/.test(stepText)) return true;
      const kernel = {
        type: c[col.type]?.trim() ?? null,
        name: col.name >= 0 ? (c[col.name]?.trim() ?? null) : null,
        core: col.core >= 0 ? (c[col.core]?.trim() ?? null) : null,
        shapes: null,
      };
      if (isCommunicationKernel(kernel)) return true;
      const streamText = col.stream >= 0 ? (c[col.stream] ?? '').trim() : '-';
      const stream = /^\d+$/.test(streamText) ? String(Number(streamText)) : streamText === '' ? '-' : streamText;
      const k = `${Number(stepText)}\u0000${stream}`;
      const n = seen.get(k) ?? 0;
      seen.set(k, n + 1);
      const hits = want.get(k)?.get(n);
      if (hits !== undefined) {
        for (const w of hits) {
          if (w.file === null && kernel.type === w.type) {
            w.file = f.shown;
            w.line = row.line;
          }
          left--;
        }
      }
      return left > 0;
    };
    let stop = false;
    const scanner = new CsvScanner((row) => {
      if (!stop && !onRecord(row)) stop = true;
    });
    try {
      // The byte layer opens the file and reads it into the scanner until every site is found (a gzip: not read).
      if (!readPlainUntil(f.path, scanner, () => stop)) return;
      if (!stop) scanner.finish();
    } catch (e) {
      // A file that cannot be read again: its sites keep step, stream and index.
      if (isKprofError(e)) return;
      throw e;
    } finally {
      scanner.close();
    }
    if (stop) return;
  }
}
