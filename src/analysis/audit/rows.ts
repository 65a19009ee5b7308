// Row citations of the audit: for a site, the file and line of its first kernel's row in a CSV kernel table
// (kernel_details.csv, op_summary*.csv). The recorder keeps no rows, only each kernel's index among its step's compute
// kernels on its stream; so the table is read again, once per rank, only when there are sites to cite, counting
// the rows as the recorder counted them (rows with a Step Id, communication kernels left out, file order), and it
// stops as soon as every site is found. A row whose Type is not the site's first kernel type (a row the reader had
// skipped would shift the count) is not cited: the site then keeps its step, stream and index. Other formats (a
// .db, a trace JSON, a .gz) have no line to cite and keep step, stream and index.

import { closeSync, openSync, readSync } from 'node:fs';
import { basename } from 'node:path';
import { onDisk } from '../../util/files.js';
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

const CHUNK = 1 << 20;

/** The cells of one CSV record (RFC 4180 quotes). */
function cells(rec: string): string[] {
  if (!rec.includes('"')) return rec.split(',');
  const out: string[] = [];
  let cur = '';
  let quoted = false;
  for (let i = 0; i < rec.length; i++) {
    const c = rec[i]!;
    if (quoted) {
      if (c === '"' && rec[i + 1] === '"') {
        cur += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cur += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      out.push(cur);
      cur = '';
    } else cur += c;
  }
  out.push(cur);
  return out;
}

/** A CSV kernel table that rows can be cited in. */
export function citable(path: string): boolean {
  return /\.csv$/i.test(basename(path)) && /^(kernel_details|op_summary)/i.test(basename(path));
}

/**
 * Find the rows of `wanted` in a rank's CSV kernel tables (in the order read). `shown`: the file's name as reports
 * show it. Sets file and line of each found.
 */
export function citeRows(files: { path: string; shown: string }[], wanted: Wanted[]): void {
  if (wanted.length === 0 || files.length === 0 || !files.every((f) => citable(f.path))) return;
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
    let fd: number;
    try {
      fd = openSync(onDisk(f.path), 'r');
    } catch {
      return;
    }
    try {
      const buf = Buffer.alloc(CHUNK);
      let carry = '';
      let lineNo = 0;
      let recStart = 1;
      let rec = '';
      let quotes = 0;
      let head: string[] | null = null;
      let col = { step: -1, stream: -1, type: -1, name: -1, core: -1 };
      const onRecord = (text: string, line: number): boolean => {
        if (head === null) {
          head = cells(text.replace(/^\uFEFF/, '')).map((c) => c.trim());
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
        const c = cells(text);
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
              w.line = line;
            }
            left--;
          }
        }
        return left > 0;
      };
      let going = true;
      for (;;) {
        const n = readSync(fd, buf, 0, CHUNK, null);
        const text = carry + (n > 0 ? buf.toString('utf8', 0, n) : '');
        const lines = text.split('\n');
        carry = n > 0 ? lines.pop()! : '';
        if (n === 0 && carry === '' && lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
        for (const raw of lines) {
          lineNo++;
          const l = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
          if (rec === '') recStart = lineNo;
          rec = rec === '' && quotes === 0 ? l : `${rec}\n${l}`;
          for (let i = 0; i < l.length; i++) if (l.charCodeAt(i) === 34) quotes++;
          if (quotes % 2 === 1) continue;
          quotes = 0;
          const r = rec;
          rec = '';
          if (r.trim() === '') continue;
          going = onRecord(r, recStart);
          if (!going) break;
        }
        if (!going || n === 0) break;
      }
      if (!going && left <= 0) return;
      if (!going) return;
    } finally {
      closeSync(fd);
    }
  }
}
