// Every Markdown table kprof writes is one that GFM renders: its delimiter row has as many cells as its heading
// row (GFM shows no table at all where they differ), for inputs with steps and without.

import { describe, expect, it } from 'vitest';
import { markdownTable } from '../src/report/render.js';
import { kprof } from './helpers.js';

/** The cells of a table row, split on the pipes that are not escaped (`\|` is a pipe inside a cell). */
function cells(line: string): number {
  return line.replace(/\\\|/g, '').split('|').length - 2;
}

/** [heading cells, delimiter cells] of each table of a Markdown text. */
function tables(md: string): [number, number][] {
  const lines = md.split('\n');
  const out: [number, number][] = [];
  for (let i = 1; i < lines.length; i++) {
    if (/^\|(\s*:?-+:?\s*\|)+$/.test(lines[i]!) && lines[i - 1]!.startsWith('|')) out.push([cells(lines[i - 1]!), cells(lines[i]!)]);
  }
  return out;
}

describe('Markdown tables', () => {
  it('markdownTable writes one delimiter cell per heading, whatever the alignments given', () => {
    expect(tables(markdownTable(['a', 'b'], [['1', '2']], ['left', 'right', 'right']))).toEqual([[2, 2]]);
    expect(tables(markdownTable(['a', 'b', 'c'], [], ['left']))).toEqual([[3, 3]]);
  });

  for (const profile of ['fixtures/trace/kineto-no-step', 'fixtures/formats/torch-no-step-reduced', 'fixtures/trace/kineto-ranks']) {
    it(`summary --format markdown of ${profile}: the delimiter row matches the heading`, async () => {
      const r = await kprof(['summary', profile, '--format', 'markdown']);
      expect(r.code).toBe(0);
      const t = tables(r.stdout);
      expect(t.length).toBeGreaterThan(0);
      for (const [head, rule] of t) expect(rule).toBe(head);
    });
  }
});
