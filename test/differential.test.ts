// The fast scanner against csv-parse, the reference: the same records on every real export, on every fixture
// csv-parse itself can parse, and on random CSV fed through tiny buffers in random chunk sizes. Also with only
// the first cells located (the kernel table reader's fast path), where the rest of a record is only counted.

import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parse } from 'csv-parse/sync';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CsvScanner, parseRecords, type RowView } from '../src/csv/scan.js';
import { HAS_REAL, REAL, ROOT } from './helpers.js';

const OPTIONS = { bom: true, skip_empty_lines: true, relax_column_count: true, record_delimiter: ['\r\n', '\n'] };

function reference(input: string | Buffer): string[][] | null {
  try {
    return parse(input, OPTIONS) as string[][];
  } catch {
    return null; // csv-parse refuses it: not a case to compare on
  }
}

/** Write `bytes` into the scanner in the given chunk sizes (cycled), then finish. */
function feed(s: CsvScanner, bytes: Uint8Array, sizes: number[]): void {
  let i = 0;
  let k = 0;
  while (i < bytes.length) {
    const n = Math.max(1, sizes[k++ % sizes.length]!);
    s.write(bytes.subarray(i, i + n));
    i += n;
  }
  s.finish();
}

/** Feed `bytes` through a scanner with a tiny buffer in the given chunk sizes (cycled). */
function chunked(bytes: Uint8Array, sizes: number[], bufferSize = 8): string[][] {
  const out: string[][] = [];
  feed(new CsvScanner((r: RowView) => out.push(r.cells()), { bufferSize }), bytes, sizes);
  return out;
}

/**
 * Records with only the first `limit` cells located (set from the first record on, as the kernel table
 * reader does): the cell count and the located cells, as [count, ...cells].
 */
function located(bytes: Uint8Array, limit: number, sizes: number[]): (string | number)[][] {
  const out: (string | number)[][] = [];
  const s = new CsvScanner(
    (r: RowView) => {
      out.push([r.n, ...Array.from({ length: r.located }, (_, i) => r.text(i))]);
      r.locate = limit;
    },
    { bufferSize: 8 },
  );
  feed(s, bytes, sizes);
  return out;
}

function expectLocated(got: (string | number)[][], want: string[][], limit: number): void {
  expect(got.length).toBe(want.length);
  got.forEach((row, i) => {
    const w = want[i]!;
    const cells = i === 0 ? w : w.slice(0, limit);
    expect(row).toEqual([w.length, ...cells]);
  });
}

function csvFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.toLowerCase().endsWith('.csv')) out.push(p);
    }
  };
  walk(dir);
  return out.sort();
}

describe.skipIf(!HAS_REAL)('fast reader = csv-parse on every real export', () => {
  const files = HAS_REAL ? csvFiles(REAL) : [];
  it('finds the real exports', () => {
    expect(files.length).toBeGreaterThan(10);
  });
  for (const f of files) {
    it(relative(REAL, f), () => {
      const bytes = readFileSync(f);
      const want = reference(bytes);
      if (want === null) return; // csv-parse itself refuses the file
      expect(parseRecords(bytes)).toEqual(want);
      expect(chunked(bytes, [4093, 1, 17, 65536])).toEqual(want);
      expectLocated(located(bytes, 11, [8191, 3]), want, 11);
    });
  }
});
if (!HAS_REAL) console.warn('differential.test.ts: ../shared/data/real is absent; the real-export comparison is skipped');

describe('fast reader = csv-parse on every fixture csv-parse can parse', () => {
  const files = csvFiles(join(ROOT, 'fixtures'));
  it('finds fixtures', () => {
    expect(files.length).toBeGreaterThan(0);
  });
  for (const f of files) {
    it(relative(ROOT, f), () => {
      const bytes = readFileSync(f);
      const want = reference(bytes);
      if (want === null) return;
      expect(parseRecords(bytes)).toEqual(want);
      expect(chunked(bytes, [1, 2, 3, 5, 7, 11])).toEqual(want);
      expectLocated(located(bytes, 3, [13, 1]), want, 3);
    });
  }
});

// Random CSV: cells with quotes, commas, line breaks (LF and CRLF), non-ASCII; LF or CRLF records; a BOM;
// empty lines; with or without a final line break.
const cellChars = fc.constantFrom('a', 'b', 'Z', '0', '9', '.', ' ', '\t', ',', '"', '\n', '\r\n', 'µ', '→', ';', '-');
const cell = fc.array(cellChars, { maxLength: 8 }).map((cs) => cs.join(''));

function encodeCell(c: string, forceQuote: boolean): string {
  if (forceQuote || /[",\r\n]/.test(c)) return `"${c.replaceAll('"', '""')}"`;
  return c;
}

const csvText = fc
  .record({
    rows: fc.array(fc.array(fc.record({ text: cell, quote: fc.boolean() }), { minLength: 1, maxLength: 6 }), { maxLength: 12 }),
    crlf: fc.array(fc.boolean(), { minLength: 1, maxLength: 12 }),
    bom: fc.boolean(),
    finalNewline: fc.boolean(),
    emptyLines: fc.array(fc.nat(12), { maxLength: 3 }),
  })
  .map(({ rows, crlf, bom, finalNewline, emptyLines }) => {
    const lines = rows.map((r) => r.map((c) => encodeCell(c.text, c.quote)).join(','));
    for (const at of emptyLines) lines.splice(Math.min(at, lines.length), 0, '');
    let text = '';
    lines.forEach((l, i) => {
      const eol = crlf[i % crlf.length] ? '\r\n' : '\n';
      text += l + (i < lines.length - 1 || finalNewline ? eol : '');
    });
    return (bom ? '\uFEFF' : '') + text;
  });

const chunkSizes = fc.array(fc.integer({ min: 1, max: 9 }), { minLength: 1, maxLength: 6 });

describe('fast reader = csv-parse on random CSV', () => {
  it('whole input and random chunk sizes through tiny buffers', () => {
    fc.assert(
      fc.property(csvText, chunkSizes, fc.integer({ min: 2, max: 32 }), (text, sizes, bufferSize) => {
        const want = reference(text);
        fc.pre(want !== null);
        const bytes = Buffer.from(text, 'utf8');
        expect(parseRecords(bytes)).toEqual(want);
        expect(chunked(bytes, sizes, bufferSize)).toEqual(want);
      }),
      { numRuns: 1500 },
    );
  });

  it('with only the first cells located, cell counts and located cells match', () => {
    fc.assert(
      fc.property(csvText, chunkSizes, fc.integer({ min: 1, max: 5 }), (text, sizes, limit) => {
        const want = reference(text);
        fc.pre(want !== null);
        expectLocated(located(Buffer.from(text, 'utf8'), limit, sizes), want, limit);
      }),
      { numRuns: 1500 },
    );
  });

  it('with only the first cells located, records start on the same lines', () => {
    const lines = (bytes: Uint8Array, limit: number, sizes: number[]): number[] => {
      const out: number[] = [];
      const s = new CsvScanner(
        (r) => {
          out.push(r.line);
          r.locate = limit;
        },
        { bufferSize: 8 },
      );
      for (let i = 0, k = 0; i < bytes.length; ) {
        const n = sizes[k++ % sizes.length]!;
        s.write(bytes.subarray(i, i + n));
        i += n;
      }
      s.finish();
      return out;
    };
    fc.assert(
      fc.property(csvText, chunkSizes, fc.integer({ min: 1, max: 5 }), (text, sizes, limit) => {
        const bytes = Buffer.from(text, 'utf8');
        expect(lines(bytes, limit, sizes)).toEqual(lines(bytes, Number.POSITIVE_INFINITY, [bytes.length || 1]));
      }),
      { numRuns: 1000 },
    );
  });

  it('a cell that was not located cannot be read by mistake', () => {
    const rows: RowView[] = [];
    const s = new CsvScanner((r) => {
      if (rows.length === 0) r.locate = 1;
      else {
        expect(r.n).toBe(3);
        expect(r.located).toBe(1);
        expect(r.text(0)).toBe('1');
        expect(() => r.text(2)).toThrow(/not located/);
      }
      rows.push(r);
    });
    s.write(Buffer.from('a,b,c\n1,2,3\n'));
    s.finish();
    expect(rows.length).toBe(2);
  });
});
