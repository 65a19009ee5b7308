// The SIMD engine's own cases: its module is the assembly of its source, and the records it hands back to the
// JavaScript engine (wider than it locates, longer than its buffer) still read right.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CsvScanner, parseRecords, type RowView } from '../src/input/csv/scan.js';
import { ROOT } from './helpers.js';

describe('SIMD engine', () => {
  it('src/input/csv/simdWasm.ts is the assembly of src/input/csv/simd.wat', async () => {
    const { assemble } = (await import('../scripts/wasm.mjs')) as { assemble: () => Promise<string> };
    expect(await assemble()).toBe(readFileSync(join(ROOT, 'src/input/csv/simdWasm.ts'), 'utf8'));
  });

  it('inlines the .wat fragments: each use gets the text with its parameters renamed; an unknown one or a wrong count is an error', async () => {
    const { expand } = (await import('../scripts/wasm.mjs')) as { expand: (wat: string) => string };
    const wat = [
      '  ;; @inline $twice $a $r',
      '  (local.set $r (i32.add (local.get $a) (local.get $a)))',
      '  ;; @end',
      '  ;; @inline $four $a $r',
      '  {{$twice $a $r}} (local.set $r (i32.add (local.get $r) (local.get $r)))',
      '  ;; @end',
      '(func (local $x i32) (local $ab i32) {{$twice $x $ab}} {{$four $ab $x}})',
      '',
    ].join('\n');
    expect(expand(wat)).toBe(
      '(func (local $x i32) (local $ab i32) (local.set $ab (i32.add (local.get $x) (local.get $x))) ' +
        '(local.set $x (i32.add (local.get $ab) (local.get $ab))) (local.set $x (i32.add (local.get $x) (local.get $x))))\n',
    );
    expect(() => expand('{{$none $x}}')).toThrow(/no fragment/);
    expect(() => expand(`${wat}{{$twice $x}}`)).toThrow(/takes 2 locals, not 1/);
  });

  it('reads records wider than the 1024 cells it locates, with every cell located or a few', () => {
    const wide = Array.from({ length: 1500 }, (_, i) => (i % 7 === 0 ? `"q,${i}"` : `c${i}`)).join(',');
    const text = `a,b\n${wide}\r\nx,"y""z"\n${wide}`;
    for (const engine of ['simd', 'js'] as const) {
      const rows = parseRecords(text, { engine });
      expect(rows.map((r) => r.length)).toEqual([2, 1500, 2, 1500]);
      expect(rows[1]![7]).toBe('q,7');
      expect(rows[1]![1499]).toBe('c1499');
      expect(rows[2]).toEqual(['x', 'y"z']);
      const counts: number[] = [];
      const s = new CsvScanner(
        (r: RowView) => {
          counts.push(r.n, r.located);
          r.locate = 2;
        },
        { engine },
      );
      s.write(Buffer.from(text));
      s.finish();
      expect(counts).toEqual([2, 2, 1500, 2, 2, 2, 1500, 2]);
    }
  });

  it('keeps reading when a record outgrows its buffer (the WebAssembly memory grows)', () => {
    const long = 'x'.repeat(300_000);
    const text = `h1,h2\n"${long}",1\nshort,2\n${long},3\n`;
    const got: string[][] = [];
    const s = new CsvScanner((r: RowView) => got.push(r.cells()), { bufferSize: 16, engine: 'simd' });
    const bytes = Buffer.from(text);
    for (let i = 0; i < bytes.length; i += 4096) s.write(bytes.subarray(i, i + 4096));
    s.finish();
    expect(got).toEqual([
      ['h1', 'h2'],
      [long, '1'],
      ['short', '2'],
      [long, '3'],
    ]);
  });

  it('a closed scanner scans nothing more, and the next scanner (on the same instance) reads as new', () => {
    const first: string[][] = [];
    const a = new CsvScanner((r: RowView) => first.push(r.cells()), { engine: 'simd' });
    a.write(Buffer.from('x,y\n1,2\n'));
    a.close();
    a.write(Buffer.from('3,4\n'));
    a.finish();
    expect(first).toEqual([
      ['x', 'y'],
      ['1', '2'],
    ]);
    const second: string[][] = [];
    const b = new CsvScanner((r: RowView) => second.push(r.cells()), { engine: 'simd' });
    b.write(Buffer.from('p,q\n5,6'));
    b.finish();
    b.close();
    expect(second).toEqual([
      ['p', 'q'],
      ['5', '6'],
    ]);
  });
});
