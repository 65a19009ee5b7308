// The SIMD engine reads 64 bytes at a time, with quotes toggling an inside-quotes mask, both in the cells it
// locates and in the rest of the record it only counts. These cases put what it must get right (quoted commas
// and line feeds, `""` escapes, runs of quotes, CRLF, quotes out of place) at every offset of its blocks, and
// check that the records it reads are the JavaScript engine's, cell for cell, with the same counts and lines.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CsvScanner, type RowView } from '../src/input/csv/scan.js';

/** Each record as its engine reads it: line, problem, cells counted and located, the located cells' text. */
function read(input: Buffer, engine: 'simd' | 'js', locate: number, chunk: number): string[] {
  const out: string[] = [];
  const s = new CsvScanner(
    (r: RowView) => {
      const cells: string[] = [];
      for (let i = 0; i < r.located; i++) cells.push(r.text(i));
      out.push(JSON.stringify([r.line, r.problem, r.n, r.located, cells]));
      r.locate = locate;
    },
    { engine },
  );
  for (let i = 0; i < input.length; i += chunk) s.write(input.subarray(i, i + chunk));
  s.finish();
  return out;
}

/** A cell of the kinds a profile holds, and a few it should not, of lengths that reach past a block. */
const cell = fc.oneof(
  { weight: 4, arbitrary: fc.nat(80).map((k) => 'x'.repeat(k)) },
  { weight: 2, arbitrary: fc.nat(9999).map(String) },
  {
    weight: 6,
    arbitrary: fc
      .array(
        fc.oneof(
          fc.constantFrom(',', '\n', '\r\n', '""', '""""', 'a', '1,4096,1024', ';'),
          fc.nat(70).map((k) => 'y'.repeat(k)),
        ),
        {
          maxLength: 6,
        },
      )
      .map((parts) => `"${parts.join('')}"`),
  },
  { weight: 1, arbitrary: fc.constantFrom('""', '""""', '""""""', '"""375815680"""', '"""1,4096,1024"""', '"\n"') },
  // Out of place: a quote inside an unquoted cell, text after a closing quote, a CR that ends nothing, unclosed.
  { weight: 1, arbitrary: fc.constantFrom('a"b', 'a"b,c"', 'a""', '"a"b', '"a""', '"a"\r', 'x\ry', '\r', '"', '"a\n"b"c', '"""') },
);

const record = fc.record({
  lead: fc.nat(70),
  cells: fc.array(cell, { minLength: 1, maxLength: 12 }),
  eol: fc.constantFrom('\n', '\n', '\r\n'),
});

describe('SIMD engine: 64-byte blocks', () => {
  it('reads every record as the JavaScript engine does, whatever falls on a block edge', () => {
    fc.assert(
      fc.property(
        fc.array(record, { minLength: 1, maxLength: 8 }),
        fc.integer({ min: 1, max: 14 }),
        fc.constantFrom(1 << 20, 7, 61, 64, 65, 200),
        (records, locate, chunk) => {
          const text = records.map((r) => ['p'.repeat(r.lead), ...r.cells].join(',') + r.eol).join('');
          const input = Buffer.from(`h\n${text}`);
          expect(read(input, 'simd', locate, chunk)).toEqual(read(input, 'js', locate, chunk));
        },
      ),
      { numRuns: 600 },
    );
  });

  it('quote runs and `""` escapes at each offset of a block, in located cells and past them', () => {
    const cells = ['"""1,4096,1024"""', '""""', '"a,""\n"""', '"x"\r', '"x""y"', 'a"b', '""'];
    for (const c of cells) {
      const rows: string[] = [];
      for (let lead = 0; lead < 80; lead++) {
        const row = `${'z'.repeat(lead)},${c},${'q'.repeat(lead % 7)},"${'w'.repeat(lead)}""",e\r\n`;
        rows.push(row, row.replace('\r\n', '\n'));
      }
      const input = Buffer.from(`h\n${rows.join('')}tail`);
      for (const locate of [1, 2, 3, 5]) expect(read(input, 'simd', locate, 1 << 20)).toEqual(read(input, 'js', locate, 1 << 20));
    }
  });

  it('a quote out of place at each offset of a block (data in an unquoted cell, text after a closing quote)', () => {
    const rows: string[] = [];
    for (let k = 0; k < 140; k++) {
      const u = 'u'.repeat(k);
      rows.push(`a,${u}"v,w,"x"\n`, `a,${u}"v,w",z\n`, `a,"${u}"x,w\n`, `a,"${u}"\rx,w\n`, `a,"${u}"\r\n`, `a,${u}"\n`, `a,${u},"",""""\r\n`);
    }
    const input = Buffer.from(`h\n${rows.join('')}`);
    for (const locate of [1, 2, 3]) expect(read(input, 'simd', locate, 1 << 20)).toEqual(read(input, 'js', locate, 1 << 20));
  });
});
