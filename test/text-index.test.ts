// The growing text index (src/model/textIndex.ts) of a fine-group table's names and a recorder's tokens: it must
// answer exactly as a Map<string, number> of the same sets would, as it grows, once texts pile up (it moves to a
// Map), and for texts too long for V8 to hash by their content.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TextIndex } from '../src/model/textIndex.js';
import { FineGroupTable } from '../src/model/fineGroups.js';
import { TokenTable } from '../src/analysis/rewrites/sequence.js';

/** An index over a list of texts (value = position), as TokenTable uses it, beside the Map it stands for. */
function tokenLike(maxRun?: number) {
  const texts: string[] = [];
  const index = new TextIndex((v) => texts[v]!, maxRun);
  const model = new Map<string, number>();
  const intern = (t: string): number => {
    let v = index.get(t);
    expect(v).toBe(model.get(t));
    if (v === undefined) {
      v = texts.length;
      texts.push(t);
      index.set(t, v);
      model.set(t, v);
    }
    return v;
  };
  return { index, model, intern };
}

describe('TextIndex', () => {
  it('answers as a Map of the texts set, for any texts, before and after it grows', () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ maxLength: 12 }), { maxLength: 400 }),
        fc.array(fc.string({ maxLength: 12 }), { maxLength: 50 }),
        (texts, probes) => {
          const { index, model, intern } = tokenLike();
          for (const t of texts) intern(t);
          expect(index.size).toBe(model.size);
          for (const t of [...texts, ...probes]) expect(index.get(t)).toBe(model.get(t));
        },
      ),
    );
  });

  it('answers the same once its texts piled up and it moved to a Map (maxRun 0: at the first collision)', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ maxLength: 6 }), { minLength: 1, maxLength: 300 }), (texts) => {
        const { index, model, intern } = tokenLike(0);
        for (const t of texts) intern(t);
        expect(index.size).toBe(model.size);
        for (const t of texts) expect(index.get(t)).toBe(model.get(t));
        expect(index.get('\u0000not set')).toBeUndefined();
      }),
    );
  });

  it('keeps a hundred thousand texts, through every doubling, each found again', () => {
    const texts: string[] = [];
    const index = new TextIndex((v) => texts[v]!);
    let wrong = 0;
    for (let i = 0; i < 100_000; i++) {
      const t = `aclnnKernel${i}_Op${i % 40}`;
      if (index.get(t) !== undefined) wrong++;
      texts.push(t);
      index.set(t, i);
    }
    expect(wrong).toBe(0);
    expect(index.size).toBe(100_000);
    for (let i = 0; i < 100_000; i++) if (index.get(texts[i]!) !== i) wrong++;
    expect(wrong).toBe(0);
    for (let i = 0; i < 100_000; i += 997) expect(index.get(`aclnnKernel${i}_Op${i % 40}`)).toBe(i);
    expect(index.get('aclnnKernel100000_Op0')).toBeUndefined();
  });

  it('tells apart long texts of one length that differ only at the end (V8 hashes them by length alone)', () => {
    const { index, intern } = tokenLike();
    const body = 'x'.repeat(70_000);
    for (let i = 0; i < 200; i++) expect(intern(`${body}${String(i).padStart(3, '0')}`)).toBe(i);
    expect(index.size).toBe(200);
    expect(index.get(`${body}199`)).toBe(199);
    expect(index.get(`${body}200`)).toBeUndefined();
  });

  it('gives a text set again its new value', () => {
    const texts = ['a', 'b', 'a'];
    const index = new TextIndex((v) => texts[v]!);
    index.set('a', 0);
    index.set('b', 1);
    index.set('a', 2);
    expect(index.size).toBe(2);
    expect(index.get('a')).toBe(2);
  });
});

describe('the tables that use it', () => {
  it('a TokenTable interns in order of first appearance', () => {
    const t = new TokenTable();
    expect(['b', 'a', 'b', 'c', 'a'].map((x) => t.intern(x))).toEqual([0, 1, 0, 2, 1]);
    expect(t.texts).toEqual(['b', 'a', 'c']);
    expect(t.get('c')).toBe(2);
    expect(t.get('d')).toBeUndefined();
  });

  it("a fine-group table finds each name's groups (several types of one name, a hundred thousand names)", () => {
    const table = new FineGroupTable();
    const n = 100_000;
    for (let i = 0; i < n; i++) table.index(`k${i}`, `T${i % 7}`, 'AI_CORE', null, '');
    // A second type of some names: chained after the first group of the name.
    for (let i = 0; i < n; i += 1000) table.index(`k${i}`, 'Other', 'AI_CORE', null, '');
    expect(table.size).toBe(n + n / 1000);
    for (let i = 0; i < n; i += 1000) {
      expect(table.index(`k${i}`, `T${i % 7}`, 'AI_CORE', null, '')).toBe(i);
      expect(table.index(`k${i}`, 'Other', 'AI_CORE', null, '')).toBe(n + i / 1000);
    }
    expect(table.size).toBe(n + n / 1000);
  });
});
