import { parse } from 'csv-parse/sync';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CsvScanner, parseRecords, type RowView } from '../src/input/csv/scan.js';

function reference(input: string): string[][] {
  return parse(input, { bom: true, skip_empty_lines: true, relax_column_count: true, record_delimiter: ['\r\n', '\n'] }) as string[][];
}

/** Feed the input in chunks of `size` bytes through a tiny buffer, so records straddle every boundary. */
function chunked(input: string, size: number): string[][] {
  const out: string[][] = [];
  const s = new CsvScanner((r: RowView) => out.push(r.cells()), { bufferSize: 8 });
  const bytes = Buffer.from(input, 'utf8');
  for (let i = 0; i < bytes.length; i += size) s.write(bytes.subarray(i, i + size));
  s.finish();
  return out;
}

describe('CsvScanner', () => {
  const cases: Record<string, string> = {
    simple: 'a,b,c\n1,2,3\n',
    crlf: 'a,b\r\n1,2\r\n',
    mixed: 'a,b\r\n1,2\n3,4\r\n',
    'no final newline': 'a,b\n1,2',
    'quoted comma and newline': 'a,b\n"x,y","line1\nline2"\n',
    'escaped quotes': 'a\n"say ""hi"""\n',
    'tripled shape quotes': 'Name,Input Shapes\nMatMul,"""81920,4096;8192,512"""\n',
    'trailing tab': 'Start,Dur\n1736408883704643.212\t,5\n',
    bom: '\uFEFFName,Type\nA,B\n',
    'empty lines': 'a,b\n\n1,2\n\n',
    'trailing comma': 'a,b,\n1,2,\n',
    'empty cells': ',,\n,,\n',
    'quoted empty': 'a,b\n"",""\n',
    unicode: 'name\nµs→ü\n',
    'crlf inside quotes': 'a\r\n"x\r\ny"\r\n',
  };
  for (const [name, input] of Object.entries(cases)) {
    it(`matches csv-parse: ${name}`, () => {
      const want = reference(input);
      expect(parseRecords(input)).toEqual(want);
      for (const size of [1, 2, 3, 7]) expect(chunked(input, size)).toEqual(want);
    });
  }

  it('reports the line each record starts on, counting line breaks inside quotes', () => {
    const lines: number[] = [];
    const s = new CsvScanner((r) => lines.push(r.line));
    s.write(Buffer.from('h\n"a\nb"\nc\n\nd\n'));
    s.finish();
    expect(lines).toEqual([1, 2, 4, 6]);
  });

  it('flags a quote that is never closed and goes on with the next line', () => {
    const rows: { line: number; problem: string; cells: string[] }[] = [];
    const s = new CsvScanner((r) => rows.push({ line: r.line, problem: r.problem, cells: r.cells() }), { bufferSize: 16 });
    s.write(Buffer.from('a,b\n1,"oops\n2,3\n4,5\n'));
    s.finish();
    expect(rows[0]).toMatchObject({ line: 1, problem: 'none', cells: ['a', 'b'] });
    expect(rows[1]).toMatchObject({ line: 2, problem: 'unclosed-quote' });
    expect(rows.slice(2).map((r) => r.cells)).toEqual([
      ['2', '3'],
      ['4', '5'],
    ]);
    expect(rows.slice(2).map((r) => r.line)).toEqual([3, 4]);
  });

  it('flags text after a closing quote', () => {
    const rows: string[] = [];
    const s = new CsvScanner((r) => rows.push(r.problem));
    s.write(Buffer.from('a,b\n"x"y,2\n3,4\n'));
    s.finish();
    expect(rows).toEqual(['none', 'text-after-quote', 'none']);
  });

  it('reads a record longer than its buffer', () => {
    const big = 'x'.repeat(100_000);
    const out = chunked(`a,b\n${big},1\n`, 4096);
    expect(out[1]![0]!.length).toBe(100_000);
  });
});

describe('CsvScanner: very long records', () => {
  interface Seen {
    line: number;
    problem: string;
    cells: string[];
  }
  function scan(
    input: Buffer,
    chunk: number,
    options: { bufferSize?: number; maxRecordBytes?: number; engine?: 'js' | 'simd' },
  ): { rows: Seen[]; scanned: number } {
    const rows: Seen[] = [];
    const s = new CsvScanner((r) => rows.push({ line: r.line, problem: r.problem, cells: r.problem === 'too-long' ? [] : r.cells() }), options);
    for (let i = 0; i < input.length; i += chunk) s.write(input.subarray(i, i + chunk));
    s.finish();
    s.close();
    return { rows, scanned: s.bytesScanned };
  }

  it('a record written in many small chunks is scanned a few times over, not once per chunk', () => {
    const input = Buffer.from(`a,b\n${'x'.repeat(2_000_000)},1\nc,2\n`);
    for (const engine of ['js', 'simd'] as const) {
      const { rows, scanned } = scan(input, 1024, { bufferSize: 1024, engine });
      expect(rows.map((r) => r.cells[0]!.length)).toEqual([1, 2_000_000, 1]);
      // Once per chunk would be ~2 GB.
      expect(scanned).toBeLessThan(4 * input.length);
    }
  });

  it('the SIMD scanner leaves the JavaScript loop no record that only waits for more data', () => {
    // Regular records cut at every chunk end: each incomplete one waits for the next chunk as it is. The loop reads
    // the last record (no line feed after it: the end of the input ends it) and nothing else.
    const rows = Array.from({ length: 4_000 }, (_, i) => `k${i},"a,""b""",${i}`);
    const input = Buffer.from(`Name,Shape,Dur\n${rows.join('\n')}`);
    const out: string[][] = [];
    const s = new CsvScanner((r) => out.push(r.cells()), { bufferSize: 4096, engine: 'simd' });
    for (let i = 0; i < input.length; i += 1000) s.write(input.subarray(i, i + 1000));
    s.finish();
    expect(out).toEqual(reference(input.toString()));
    expect(s.recordsReadHere).toBe(1);
  });

  it('a record longer than maxRecordBytes is reported and skipped to its line break, in bounded memory', () => {
    const input = Buffer.from(`a,b\n1,2\n${'x'.repeat(10_000)},3\n4,5\n"q\n${'y'.repeat(10_000)}\n6,7\n`);
    for (const engine of ['js', 'simd'] as const) {
      const { rows } = scan(input, 100, { bufferSize: 16, maxRecordBytes: 1000, engine });
      expect(rows).toEqual([
        { line: 1, problem: 'none', cells: ['a', 'b'] },
        { line: 2, problem: 'none', cells: ['1', '2'] },
        { line: 3, problem: 'too-long', cells: [] },
        { line: 4, problem: 'none', cells: ['4', '5'] },
        // A quote not closed within the limit: cut at the line break after it, as at the end of the input.
        { line: 5, problem: 'unclosed-quote', cells: ['"q'] },
        { line: 6, problem: 'too-long', cells: [] },
        { line: 7, problem: 'none', cells: ['6', '7'] },
      ]);
    }
  });

  it('the records do not depend on how the input is cut, how large the buffer starts, or the engine', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.constantFrom('a', ',', '\n', '"', '\r\n', 'x'.repeat(40), '\n'.repeat(3)), fc.string({ maxLength: 5 })), {
          maxLength: 60,
        }),
        fc.integer({ min: 1, max: 50 }),
        fc.integer({ min: 8, max: 64 }),
        fc.constantFrom('js' as const, 'simd' as const),
        (parts, chunk, bufferSize, engine) => {
          const input = Buffer.from(parts.join(''));
          const want = scan(input, input.length || 1, { bufferSize: 64, maxRecordBytes: 64, engine: 'js' }).rows;
          expect(scan(input, chunk, { bufferSize, maxRecordBytes: 64, engine }).rows).toEqual(want);
        },
      ),
      { numRuns: 500 },
    );
  });
});
