// Content sniffing for the trace formats, from the first bytes of a file (after gunzip): the registry asks these
// before choosing a reader. A yes is a guess the reader confirms (it refuses what is not a trace, naming the byte).

import { nsysHeader } from './nsys/nsysCsv.js';
import type { TraceFormat } from './record.js';
import { excerpt } from '../../../util/inputText.js';

/** How much of a file the sniffers look at. */
export const SNIFF_BYTES = 64 << 10;

/**
 * Chrome-trace JSON: a bare array whose first element is an object (torch_npu trace_view.json), or an object with a
 * `traceEvents` member in its first 64 KiB (kineto puts `schemaVersion`, `deviceProperties`, `distributedInfo`
 * first). An empty array counts (an empty trace).
 */
export function sniffChromeTrace(head: Uint8Array): boolean {
  // A UTF-8 byte-order mark (an editor's re-save) before the JSON: the reader skips it too.
  let p = head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf ? 3 : 0;
  while (p < head.length && (head[p] === 32 || head[p] === 10 || head[p] === 13 || head[p] === 9)) p++;
  if (head[p] === 0x5b) {
    p++;
    while (p < head.length && (head[p] === 32 || head[p] === 10 || head[p] === 13 || head[p] === 9)) p++;
    return p >= head.length || head[p] === 0x7b || head[p] === 0x5d;
  }
  if (head[p] !== 0x7b) return false;
  return Buffer.from(head.buffer, head.byteOffset, head.byteLength).indexOf('"traceEvents"') >= 0;
}

/** Nsight Systems `nsys stats` CSV: a header of cuda_gpu_trace or cuda_gpu_kern_sum within its first 50 lines. */
export function sniffNsysCsv(head: Uint8Array): Extract<TraceFormat, 'nsys_gpu_trace' | 'nsys_kern_sum'> | null {
  const lines = Buffer.from(head.buffer, head.byteOffset, head.byteLength).toString('utf8').split('\n').slice(0, 50);
  for (const line of lines) {
    if (line.indexOf(',') < 0) continue;
    const h = nsysHeader(line.replace(/\r$/, '').split(','));
    if (h === null) continue;
    if ('unknownUnit' in h) return null;
    return h.report === 'gpu_trace' ? 'nsys_gpu_trace' : 'nsys_kern_sum';
  }
  return null;
}

/**
 * The rank of a kineto trace from its first bytes: `distributedInfo.rank` (kineto writes distributedInfo before
 * traceEvents), else a `rank-N` / `rank_N` / `rankN` in the file name; null when neither says.
 */
export function kinetoRank(head: Uint8Array, name: string): { rank: string; source: string; warning?: string } | null {
  const text = Buffer.from(head.buffer, head.byteOffset, Math.min(head.byteLength, SNIFF_BYTES)).toString('latin1');
  const at = text.indexOf('"distributedInfo"');
  let warning: string | undefined;
  if (at >= 0) {
    const end = text.indexOf('}', at);
    const body = text.slice(at, end < 0 ? at + 4096 : Math.min(end, at + 4096));
    const m = /"rank"\s*:\s*"?(\d{1,9})"?\s*[,}\s]/.exec(`${body} `);
    if (m) return { rank: String(Number(m[1])), source: 'distributedInfo.rank' };
    // A rank that is not a rank id (1e29, -1, 3.5, a text): said, never passed over in silence.
    const odd = /"rank"\s*:\s*([^,}\s][^,}]*)/.exec(body);
    if (odd) warning = `distributedInfo.rank is ${excerpt(odd[1]!.trim())}, not a rank id (a whole number from 0 to 999,999,999)`;
  }
  const n = /(?:^|[^a-z])rank[-_]?(\d{1,9})(?=\D|$)/i.exec(name);
  if (n) {
    const own = { rank: String(Number(n[1])), source: `file name ${name}` };
    return warning === undefined ? own : { ...own, warning: `${warning}; the rank is taken from the file name` };
  }
  return warning === undefined ? null : { rank: '-', source: 'not found in the file', warning: `${warning}; the trace has no rank id` };
}
