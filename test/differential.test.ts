// The fast scanner against csv-parse, the reference: the same records on every real export, on every fixture
// csv-parse itself can parse, and on random CSV fed through tiny buffers in random chunk sizes. Also with only
// the first cells located (the kernel table reader's fast path), where the rest of a record is only counted.
// Every comparison runs with both engines: the SIMD one (simd.wat, the default) and the JavaScript one alone.
// On damaged input, which csv-parse refuses, the two engines must give the same records, lines and problems.

import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parse } from 'csv-parse/sync';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CsvScanner, parseRecords, simdAvailable, type RowView } from '../src/input/csv/scan.js';
import { REAL, ROOT, realData } from './helpers.js';

const HAS_REAL = realData(import.meta.url);

const OPTIONS = { bom: true, skip_empty_lines: true, relax_column_count: true, record_delimiter: ['\r\n', '\n'] };

type Engine = 'simd' | 'js';
const ENGINES: Engine[] = ['simd', 'js'];

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
function chunked(engine: Engine, bytes: Uint8Array, sizes: number[], bufferSize = 8): string[][] {
  const out: string[][] = [];
  feed(new CsvScanner((r: RowView) => out.push(r.cells()), { bufferSize, engine }), bytes, sizes);
  return out;
}

/**
 * Records with only the first `limit` cells located (set from the first record on, as the kernel table
 * reader does): the cell count and the located cells, as [count, ...cells].
 */
function located(engine: Engine, bytes: Uint8Array, limit: number, sizes: number[]): (string | number)[][] {
  const out: (string | number)[][] = [];
  const s = new CsvScanner(
    (r: RowView) => {
      out.push([r.n, ...Array.from({ length: r.located }, (_, i) => r.text(i))]);
      r.locate = limit;
    },
    { bufferSize: 8, engine },
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

it('the SIMD engine runs here', () => {
  expect(simdAvailable()).toBe(true);
});

/**
 * Every CSV file under `dir` that csv-parse can parse reads the same with each engine: whole, fed in chunks of
 * `sizes` through a tiny buffer, and with only the first `limit` cells located.
 */
function describeFiles(what: string, dir: string, sizes: number[], limit: number): void {
  for (const engine of ENGINES) {
    describe(`${engine}: fast reader = csv-parse on every ${what}`, () => {
      const files = csvFiles(dir);
      it(`finds the ${what}s`, () => {
        expect(files.length).toBeGreaterThan(0);
      });
      for (const f of files) {
        it(relative(ROOT, f), () => {
          const bytes = readFileSync(f);
          const want = reference(bytes);
          if (want === null) return; // csv-parse itself refuses the file
          expect(parseRecords(bytes, { engine })).toEqual(want);
          expect(chunked(engine, bytes, sizes)).toEqual(want);
          expectLocated(located(engine, bytes, limit, sizes), want, limit);
        });
      }
    });
  }
}

if (HAS_REAL) describeFiles('real export', REAL, [4093, 1, 17, 65536], 11);
describeFiles('fixture', join(ROOT, 'fixtures'), [1, 2, 3, 5, 7, 11, 13], 3);

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

for (const engine of ENGINES) {
  describe(`${engine}: fast reader = csv-parse on random CSV`, () => {
    it('whole input and random chunk sizes through tiny buffers', () => {
      fc.assert(
        fc.property(csvText, chunkSizes, fc.integer({ min: 2, max: 32 }), (text, sizes, bufferSize) => {
          const want = reference(text);
          fc.pre(want !== null);
          const bytes = Buffer.from(text, 'utf8');
          expect(parseRecords(bytes, { engine })).toEqual(want);
          expect(chunked(engine, bytes, sizes, bufferSize)).toEqual(want);
        }),
        { numRuns: 1500 },
      );
    });

    it('with only the first cells located, cell counts and located cells match', () => {
      fc.assert(
        fc.property(csvText, chunkSizes, fc.integer({ min: 1, max: 5 }), (text, sizes, limit) => {
          const want = reference(text);
          fc.pre(want !== null);
          expectLocated(located(engine, Buffer.from(text, 'utf8'), limit, sizes), want, limit);
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
          { bufferSize: 8, engine },
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
      const s = new CsvScanner(
        (r) => {
          if (rows.length === 0) r.locate = 1;
          else {
            expect(r.n).toBe(3);
            expect(r.located).toBe(1);
            expect(r.text(0)).toBe('1');
            expect(() => r.text(2)).toThrow(/not located/);
          }
          rows.push(r);
        },
        { engine },
      );
      s.write(Buffer.from('a,b,c\n1,2,3\n'));
      s.finish();
      expect(rows.length).toBe(2);
    });
  });
}

// Damaged CSV (text after a closing quote, quotes never closed, stray quotes and CRs): csv-parse refuses most
// of it, so the reference here is the JavaScript engine, which the SIMD engine must match record for record.
const damagedChars = fc.constantFrom('a', '1', ',', ',', '"', '"', '""', '\n', '\r', '\r\n', ' ', 'µ');
const damagedText = fc.array(damagedChars, { maxLength: 80 }).map((cs) => cs.join(''));

function records(engine: Engine, bytes: Uint8Array, limit: number, sizes: number[], bufferSize: number): unknown[] {
  const out: unknown[] = [];
  const s = new CsvScanner(
    (r: RowView) => {
      out.push([r.line, r.problem, r.n, r.located, ...Array.from({ length: r.located }, (_, i) => [r.text(i), r.flags[i]])]);
      r.locate = limit;
    },
    { bufferSize, engine },
  );
  feed(s, bytes, sizes);
  return out;
}

describe('the SIMD engine = the JavaScript engine on damaged CSV', () => {
  it('same records, lines and problems, whatever the chunks and the cells located', () => {
    fc.assert(
      fc.property(
        damagedText,
        chunkSizes,
        fc.constantFrom(1, 2, 3, Number.POSITIVE_INFINITY),
        fc.integer({ min: 2, max: 64 }),
        (text, sizes, limit, bufferSize) => {
          const bytes = Buffer.from(text, 'utf8');
          expect(records('simd', bytes, limit, sizes, bufferSize)).toEqual(records('js', bytes, limit, sizes, bufferSize));
          expect(records('simd', bytes, limit, [bytes.length || 1], 1 << 16)).toEqual(records('js', bytes, limit, [bytes.length || 1], 1 << 16));
        },
      ),
      { numRuns: 3000 },
    );
  });
});
