// Terminal tables are laid out without cli-table3 when every cell is one line of narrow characters; the text
// must stay byte-identical to what cli-table3 draws, and anything else must still go to cli-table3.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cliTextTable, codeSpan, csvChunks, csvLines, paint, textTable, textTableChunks, type Align, type Paint } from '../src/report/render.js';

const STYLES: Paint[] = ['bold', 'dim', 'red', 'green', 'yellow', 'cyan'];

/** Cells as reports make them, and some that only cli-table3 can measure (wide, combining, emoji, breaks). */
const text = (odd: boolean): fc.Arbitrary<string> =>
  fc
    .array(
      fc.oneof(
        fc.constantFrom('a', 'Z', '0', ' ', '-', '+', '%', '~', '*', '(', ')', ',', '.', '|', '\\', 'Δ', 'µ', '─', '…', '→', '±', '·', '∞'),
        ...(odd ? [fc.constantFrom('中', '✅', '⚠️', 'é', 'e\u0301', '\n', '\t', '\u001b[31m', 'Ａ', '😀', '\u00a0')] : []),
      ),
      { maxLength: 12 },
    )
    .map((cs) => cs.join(''));

const cell = (odd: boolean): fc.Arbitrary<{ text: string; style: Paint | null }> =>
  fc.record({ text: text(odd), style: fc.option(fc.constantFrom(...STYLES), { freq: 3 }) });

const table = (odd: boolean) =>
  fc.integer({ min: 1, max: 5 }).chain((cols) =>
    fc.record({
      color: fc.boolean(),
      head: fc.array(text(odd), { minLength: cols, maxLength: cols }),
      rows: fc.array(fc.array(cell(odd), { minLength: cols, maxLength: cols }), { maxLength: 6 }),
      footer: fc.option(fc.array(cell(odd), { minLength: cols, maxLength: cols })),
      align: fc.array(fc.constantFrom<Align>('left', 'right'), { minLength: cols, maxLength: cols }),
    }),
  );

function draw(t: fc.Arbitrary<ReturnType<typeof table> extends fc.Arbitrary<infer T> ? T : never>): void {
  fc.assert(
    fc.property(t, ({ color, head, rows, footer, align }) => {
      const ctx = { color };
      const cells = (r: { text: string; style: Paint | null }[]): string[] => r.map((c) => (c.style ? paint(ctx, c.style, c.text) : c.text));
      const body = rows.map(cells);
      const foot = footer ? cells(footer) : undefined;
      const whole = cliTextTable(ctx, head, body, align, foot);
      expect(textTable(ctx, head, body, align, foot)).toBe(whole);
      // In chunks, each row made when it is written (twice: to measure, to write): the same text.
      expect([...textTableChunks(ctx, head, body.length, (i) => body[i]!, align, foot)].join('')).toBe(whole);
    }),
    { numRuns: 500 },
  );
}

describe('textTable', () => {
  it('draws what cli-table3 draws, for cells of narrow characters, painted or not', () => draw(table(false)));
  it('draws what cli-table3 draws whatever the cells hold', () => draw(table(true)));

  it('lays out a report table: columns padded, numbers right-aligned, two spaces between', () => {
    const out = textTable(
      { color: false },
      ['type', 'count', 'Δ'],
      [
        ['MatMulV3', '1,234', '+5'],
        ['Add', '7', '-1'],
      ],
      ['left', 'right', 'right'],
      ['total', '1,241', '+4'],
    );
    expect(out).toBe(
      ['type      count   Δ', '────────  ─────  ──', 'MatMulV3  1,234  +5', 'Add           7  -1', '────────  ─────  ──', 'total     1,241  +4'].join(
        '\n',
      ),
    );
  });
});

describe('textTable with wide and combining characters', () => {
  it('draws each rule as wide as the terminal shows its column: 融 takes two columns, a combining accent none', () => {
    const out = textTable(
      { color: false },
      ['type', 'count'],
      [
        ['融合算子', '1'],
        ['e\u0301\u0301', '2'],
      ],
      ['left', 'right'],
      ['total', '3'],
    );
    const lines = out.split('\n');
    // 融合算子 is 8 columns wide: the rules under it too, and the count column starts after it and two spaces.
    expect(lines[1]).toBe('────────  ─────');
    expect(lines[4]).toBe('────────  ─────');
    expect(lines[2]).toBe('融合算子      1');
    expect(lines[3]).toBe(`e\u0301\u0301${' '.repeat(7 + 2 + 4)}2`);
  });
});

describe('textTableChunks and csvChunks', () => {
  it('write a table of many rows in chunks, no row held: the text textTable and csvLines make', () => {
    const rows = Array.from({ length: 30_000 }, (_, i) => [`kernel_${i}`, String(i * 7), i % 3 === 0 ? '-' : `${i}.5`]);
    const align: Align[] = ['left', 'right', 'right'];
    const chunks = [...textTableChunks({ color: false }, ['name', 'count', 'µs'], rows.length, (i) => rows[i]!, align, ['total', '1', '2'])];
    expect(chunks.length).toBeGreaterThan(5);
    expect(chunks.join('')).toBe(textTable({ color: false }, ['name', 'count', 'µs'], rows, align, ['total', '1', '2']));
    const csv = [...csvChunks(['name', 'count', 'us'], rows.length, (i) => rows[i]!)];
    expect(csv.length).toBeGreaterThan(5);
    expect(csv.join('')).toBe(csvLines(['name', 'count', 'us'], rows));
  });
});

describe('codeSpan', () => {
  it('keeps every backtick of a name: the fence is longer than any run inside', () => {
    expect(codeSpan('MatMul')).toBe('`MatMul`');
    expect(codeSpan('a`b')).toBe('``a`b``');
    expect(codeSpan('a``b`c')).toBe('```a``b`c```');
    expect(codeSpan('`x')).toBe('`` `x ``');
    expect(codeSpan('x`')).toBe('`` x` ``');
  });
});
