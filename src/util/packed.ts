// A report written gzipped, for `-o x.json.gz` (util/io.ts writes every report; this is its packing). The one
// module outside src/input/bytes/ that imports node:zlib, and it only packs (test/architecture.test.ts).

import { writeSync } from 'node:fs';
import { gzipSync } from 'node:zlib';

/** The text gzipped at once, as one member of the file: a member a few MB long packs as well as one of the whole. */
const PACK_MEMBER_CHARS = 8 << 20;

/**
 * Write a report gzipped, chunk by chunk: each run of chunks of about PACK_MEMBER_CHARS is one gzip member, and
 * the members one after another are one gzip file (RFC 1952 §2.2), which gunzip and kprof unpack whole. A report
 * is never held whole (a summary JSON may be hundreds of MB); an empty one is one empty member.
 */
export function writePacked(fd: number, text: string | Iterable<string>): void {
  let parts: string[] = [];
  let chars = 0;
  let members = 0;
  const flush = (): void => {
    const packed = gzipSync(Buffer.from(parts.join('')));
    let off = 0;
    while (off < packed.length) off += writeSync(fd, packed, off, packed.length - off);
    parts = [];
    chars = 0;
    members++;
  };
  for (const chunk of typeof text === 'string' ? [text] : text) {
    parts.push(chunk);
    chars += chunk.length;
    if (chars >= PACK_MEMBER_CHARS) flush();
  }
  if (chars > 0 || members === 0) flush();
}
