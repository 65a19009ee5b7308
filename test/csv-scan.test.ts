import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { CsvScanner, parseRecords, type RowView } from '../src/csv/scan.js';

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
    'unicode': 'name\nµs→ü\n',
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
