// What the first bytes of a file say it is: gzip, ZIP, JSON, text or binary data. The byte layer's sniff, asked
// by the readers before they scan (a CSV reader refuses JSON or binary data with what it found).

const GZIP = [0x1f, 0x8b];

/** How many bytes are sniffed to tell CSV from JSON, ZIP or binary data. */
export const SNIFF_BYTES = 65536;

export type ByteKind = 'gzip' | 'zip' | 'json' | 'binary' | 'text';

/** Do the bytes start with gzip's magic (1f 8b)? */
export function isGzip(head: Uint8Array): boolean {
  return head[0] === GZIP[0] && head[1] === GZIP[1];
}

/** What the first bytes say the file is. */
export function sniffBytes(head: Uint8Array): ByteKind {
  if (head[0] === GZIP[0] && head[1] === GZIP[1]) return 'gzip';
  if (head[0] === 0x50 && head[1] === 0x4b && head[2] === 0x03 && head[3] === 0x04) return 'zip';
  let i = 0;
  if (head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf) i = 3;
  while (i < head.length && (head[i] === 0x20 || head[i] === 0x0a || head[i] === 0x0d || head[i] === 0x09)) i++;
  if (head[i] === 0x7b || head[i] === 0x5b) return 'json';
  return binaryAt(head) === null ? 'text' : 'binary';
}

/** Where the first bytes stop looking like text: the offset of a NUL byte, or of the first control byte when
 * more than 5% are control bytes; null for text. */
export function binaryAt(head: Uint8Array): { offset: number; what: string } | null {
  const n = Math.min(head.length, SNIFF_BYTES);
  let bad = 0;
  let first = -1;
  for (let k = 0; k < n; k++) {
    const c = head[k]!;
    if (c === 0) return { offset: k, what: 'a NUL byte' };
    if (c < 9 || (c > 13 && c < 32)) {
      bad++;
      if (first < 0) first = k;
    }
  }
  if (n > 0 && bad / n > 0.05) return { offset: first, what: `${bad} control bytes in the first ${n}` };
  return null;
}
