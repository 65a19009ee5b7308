// The JSON writer: the same bytes as JSON.stringify(value, null, 2), in chunks, with lists made while writing.

import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { CHUNK_CHARS, JsonList, jsonChunks, jsonText, mapped } from '../src/report/json.js';
import { jsonSafe } from '../src/report/render.js';

/** A copy of `v` with some arrays (those `pick` chooses) turned into JsonLists, at any depth. */
function listify(v: unknown, pick: () => boolean): unknown {
  if (Array.isArray(v)) {
    const items = v.map((x) => listify(x, pick));
    return pick() ? new JsonList(items) : items;
  }
  if (typeof v === 'object' && v !== null && Object.getPrototypeOf(v) === Object.prototype) {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[k] = listify(x, pick);
    return out;
  }
  return v;
}

/** JSON values, and values JSON.stringify treats specially: undefined and functions, NaN, -0, toJSON. */
const value = fc.letrec((tie) => ({
  leaf: fc.oneof(
    fc.constantFrom(null, true, false, undefined, Number.NaN, Number.POSITIVE_INFINITY, -0, 1e21, 5e-324, () => 1, '##[x', '\u2028#'),
    fc.double(),
    fc.integer(),
    fc.string({ unit: 'binary' }),
    fc.date({ noInvalidDate: true }),
  ),
  node: fc.oneof({ depthSize: 'small' }, tie('leaf'), tie('array'), tie('object')),
  array: fc.array(tie('node'), { maxLength: 5 }),
  object: fc.dictionary(fc.string({ unit: 'binary', maxLength: 6 }), tie('node'), { maxKeys: 5 }),
})).node;

describe('jsonChunks', () => {
  it('writes what JSON.stringify(value, null, 2) writes, whichever arrays are lists and whatever the chunk size', () => {
    fc.assert(
      fc.property(value, fc.array(fc.boolean(), { minLength: 1 }), fc.integer({ min: 1, max: 200 }), (v, picks, size) => {
        let i = 0;
        const lazy = listify(v, () => picks[i++ % picks.length]!);
        const want = JSON.stringify(v, null, 2);
        if (want === undefined) return; // a top-level undefined or function: no report is that
        const chunks = [...jsonChunks(lazy, size)];
        expect(chunks.join('')).toBe(`${want}\n`);
        // No string is split between chunks: a rewrite of strings made chunk by chunk is made on the whole.
        expect(chunks.map(jsonSafe).join('')).toBe(jsonSafe(`${want}\n`));
      }),
      { numRuns: 2000 },
    );
  });

  it('writes long lists, at any depth, as JSON.stringify does: items in batches, one by one where a batch cannot be', () => {
    // Lists of up to 300 items (a batch is many of them), among them long strings (a piece of their own, written one
    // by one), lists (the list's items then written one by one), undefined, functions and toJSON, nested in objects
    // and arrays up to six deep, with chunks from a few characters to more than the whole text.
    const item = fc.oneof(value, fc.string({ minLength: 40, maxLength: 400 }), fc.array(fc.integer(), { maxLength: 60 }));
    fc.assert(
      fc.property(
        fc.array(item, { maxLength: 300 }),
        fc.array(fc.oneof(fc.constant('array'), fc.string({ maxLength: 4 })), { maxLength: 6 }),
        fc.array(fc.boolean(), { minLength: 1 }),
        fc.integer({ min: 1, max: 20_000 }),
        (items, wrappers, picks, size) => {
          let i = 0;
          const pick = () => picks[i++ % picks.length]!;
          let plain: unknown = items;
          let lazy: unknown = new JsonList(items.map((x) => listify(x, pick)));
          for (const w of wrappers) {
            plain = w === 'array' ? [1, plain] : { [w]: plain, after: [w] };
            lazy = w === 'array' ? [1, lazy] : { [w]: lazy, after: [w] };
          }
          const want = `${JSON.stringify(plain, null, 2)}\n`;
          const chunks = [...jsonChunks(lazy, size)];
          expect(chunks.join('')).toBe(want);
          expect(chunks.map(jsonSafe).join('')).toBe(jsonSafe(want));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('writes a long list of small items a batch at a time, not an item at a time', () => {
    // JSON.stringify called once an item, and its text indented, was most of the time of writing a diff of a million
    // rows; a batch of items is one call (here about 270 items of 120 characters, half a chunk).
    const items = Array.from({ length: 10_000 }, (_, i) => ({ i, name: `k${i}`, byStep: [{ step: 1, count: i }] }));
    const stringify = vi.spyOn(JSON, 'stringify');
    try {
      const text = jsonText({ kind: 'summary', groups: new JsonList(items) });
      expect(stringify.mock.calls.length).toBeLessThan(100);
      stringify.mockRestore();
      expect(text).toBe(`${JSON.stringify({ kind: 'summary', groups: items }, null, 2)}\n`);
    } finally {
      stringify.mockRestore();
    }
  });

  it('empty lists, lists in lists, a list at the top', () => {
    const v = { a: new JsonList([]), b: new JsonList([new JsonList([]), new JsonList([1, [2, {}]])]), c: [new JsonList(['x'])] };
    expect(jsonText(v)).toBe(`${JSON.stringify({ a: [], b: [[], [1, [2, {}]]], c: [['x']] }, null, 2)}\n`);
    expect(jsonText(new JsonList([{ k: 1 }]))).toBe(`${JSON.stringify([{ k: 1 }], null, 2)}\n`);
  });

  it('makes the items of a list one at a time, while writing, and writes in bounded chunks', () => {
    let made = 0;
    const items = mapped(
      Array.from({ length: 10_000 }, (_, i) => i),
      (i) => {
        made++;
        return { i, name: `k${i}` };
      },
    );
    const chunks = jsonChunks({ groups: new JsonList(items) }, 1000);
    expect(made).toBe(0);
    const first = chunks.next();
    expect(first.done).toBe(false);
    expect(made).toBeLessThan(100);
    let n = 1;
    let text = first.value as string;
    for (const c of chunks) {
      expect(c.length).toBeLessThan(1100);
      text += c;
      n++;
    }
    expect(made).toBe(10_000);
    expect(n).toBeGreaterThan(100);
    expect(JSON.parse(text).groups).toHaveLength(10_000);
  });

  it('writes each long string as a piece of its own: no chunk of 64 KiB names is longer than one name', () => {
    // V8 makes and reads a string of more than ~128 K characters several times slower than shorter ones: a group of
    // two 64 KiB names written whole (131 K characters) made a report of such names spend seconds in
    // JSON.stringify and jsonSafe. Each name is now a chunk of its own, and the text is unchanged.
    const name = (i: number): string => `${'ab_c'.repeat(16_383)}${String(i).padStart(4, '0')}`;
    const groups = Array.from({ length: 40 }, (_, i) => ({ key: name(i), names: [name(i)], count: i, byStep: [{ step: 1, count: i }] }));
    const value = { kind: 'summary', groups: new JsonList(groups), perRank: [{ rank: '0', groups }] };
    const chunks = [...jsonChunks(value)];
    expect(chunks.join('')).toBe(`${JSON.stringify({ ...value, groups }, null, 2)}\n`);
    const longest = JSON.stringify(name(0)).length;
    expect(longest).toBe(CHUNK_CHARS + 2);
    expect(Math.max(...chunks.map((c) => c.length))).toBe(longest);
    // A short chunk between two names: the pieces around a long string are not glued to it.
    expect(chunks.filter((c) => c.length === longest)).toHaveLength(160);
  });

  it('lists nested a thousand deep', () => {
    let lazy: unknown = 0;
    let plain: unknown = 0;
    for (let i = 0; i < 1000; i++) {
      lazy = { a: new JsonList([lazy]) };
      plain = { a: [plain] };
    }
    expect(jsonText(lazy)).toBe(`${JSON.stringify(plain, null, 2)}\n`);
  });
});
