// The Fusion rewrites' searches in WebAssembly (search.wat, through searchEngine.ts) against the JavaScript ones:
// the alignment (myers.ts) gives the same change flags, or the same refusal, for every pair of sequences and cap;
// the near occurrences (match.ts) the same sites; the tables of regroup.ts the same cells. The rewrites use the WebAssembly searches by default, so every
// other test of the Fusion rewrites runs them too.

import fc from 'fast-check';
import { afterEach, describe, expect, test } from 'vitest';
import { alignSequences } from '../src/analysis/rewrites/myers.js';
import { nearOccurrences } from '../src/analysis/rewrites/match.js';
import { alignInWasm, nearInWasm, regroupInWasm, searchMemoryHeld, useSearchEngine } from '../src/analysis/rewrites/searchEngine.js';
import { realignTables } from '../src/analysis/rewrites/regroup.js';
import { prng } from './decodeGen.js';
import { tokenSeq, windowed } from './tokenArbs.js';

afterEach(() => useSearchEngine('wasm'));

function both(a: Int32Array, b: Int32Array, cap: number): void {
  useSearchEngine('js');
  const js = alignSequences(a, b, cap);
  useSearchEngine('wasm');
  const wasm = alignSequences(a, b, cap);
  expect(wasm).toEqual(js);
}

/** Sequences of a few tokens (many matches, long snakes) or of many (few matches). */
const seq = tokenSeq;

describe('the WebAssembly alignment search', () => {
  test('is the one alignSequences uses where WebAssembly runs', () => {
    const a = Int32Array.from([1, 2, 3]);
    const b = Int32Array.from([1, 3]);
    const ca = new Uint8Array(5);
    const cb = new Uint8Array(4);
    expect(alignInWasm(a, b, -1, ca, cb)).toBe(true);
    expect([...ca]).toEqual([0, 0, 1, 0, 0]);
    expect([...cb]).toEqual([0, 0, 0, 0]);
    useSearchEngine('js');
    expect(alignInWasm(a, b, -1, ca, cb)).toBeNull();
  });

  test('marks the same changes as the JavaScript search, with and without a cap', () => {
    fc.assert(
      fc.property(seq(80, 4), seq(80, 4), fc.oneof(fc.constant(Number.POSITIVE_INFINITY), fc.integer({ min: 0, max: 120 })), (a, b, cap) =>
        both(a, b, cap),
      ),
      { numRuns: 400 },
    );
    fc.assert(
      fc.property(seq(60, 40), seq(60, 40), fc.integer({ min: 0, max: 100 }), (a, b, cap) => both(a, b, cap)),
      { numRuns: 200 },
    );
  });

  test('marks the same changes on steps the size of a decode layer stack, edited as fusions edit them', () => {
    const rnd = prng(5);
    for (let round = 0; round < 12; round++) {
      // A step of 60 layers of 40 kernels; the PR fuses a chain of each layer (a run of 3-6 kernels becomes one),
      // drops or adds a few kernels elsewhere.
      const layer = Array.from({ length: 40 }, () => Math.floor(rnd() * 30));
      const a: number[] = [];
      const b: number[] = [];
      for (let l = 0; l < 60; l++) {
        a.push(...layer);
        const at = Math.floor(rnd() * 30);
        const len = 3 + Math.floor(rnd() * 4);
        const fused = [...layer.slice(0, at), 99, ...layer.slice(at + len)];
        if (rnd() < 0.1) fused.splice(Math.floor(rnd() * fused.length), 1);
        if (rnd() < 0.1) fused.splice(Math.floor(rnd() * fused.length), 0, 98);
        b.push(...fused);
      }
      const A = Int32Array.from(a);
      const B = Int32Array.from(b);
      both(A, B, Number.POSITIVE_INFINITY);
      both(A, B, 200 + Math.floor(rnd() * 400));
      both(B, A, Number.POSITIVE_INFINITY);
    }
  });

  test('reuses its memory, grown for a larger pair, for a smaller one after', () => {
    const big = Int32Array.from({ length: 4000 }, (_, i) => i % 97);
    const other = Int32Array.from({ length: 3800 }, (_, i) => (i * 7) % 97);
    both(big, other, Number.POSITIVE_INFINITY);
    both(Int32Array.from([5, 6, 7]), Int32Array.from([5, 7, 8]), Number.POSITIVE_INFINITY);
    both(new Int32Array(0), Int32Array.from([1]), 0);
    expect(searchMemoryHeld()).toBeGreaterThan(0);
  });

  test('lets go of a memory grown past 16 MB for a search of very long steps, and searches again after', () => {
    const long = Int32Array.from({ length: 400_000 }, (_, i) => i % 1000);
    const other = long.slice();
    other[200_000] = 5000;
    const ca = new Uint8Array(long.length + 2);
    const cb = new Uint8Array(other.length + 2);
    expect(alignInWasm(long, other, -1, ca, cb)).toBe(true);
    expect(ca.reduce((n, x) => n + x, 0) + cb.reduce((n, x) => n + x, 0)).toBe(2);
    // Its memory (some 30 MB) is not held to the end of the run.
    expect(searchMemoryHeld()).toBe(0);
    both(Int32Array.from([5, 6, 7]), Int32Array.from([5, 7, 8]), Number.POSITIVE_INFINITY);
    expect(searchMemoryHeld()).toBeGreaterThan(0);
    expect(searchMemoryHeld()).toBeLessThanOrEqual(16 << 20);
  });
});

test('src/analysis/rewrites/searchWasm.ts is the assembly of src/analysis/rewrites/search.wat', async () => {
  const { readFileSync } = await import('node:fs');
  const { join } = await import('node:path');
  const { ROOT } = await import('./helpers.js');
  const { assemble } = await import('../scripts/wasm-json.mjs');
  expect(await assemble('search')).toBe(readFileSync(join(ROOT, 'src/analysis/rewrites/searchWasm.ts'), 'utf8'));
});

function sameSites(text: Int32Array, chain: Int32Array, k: number): void {
  useSearchEngine('js');
  const js = nearOccurrences(text, chain, k);
  useSearchEngine('wasm');
  expect(nearInWasm(text, chain, k)).toEqual(js);
  expect(nearOccurrences(text, chain, k)).toEqual(js);
}

describe('the WebAssembly near occurrences', () => {
  test('are the ones nearOccurrences gives where WebAssembly runs, and left to JavaScript where it cannot take them', () => {
    const text = Int32Array.from([1, 2, 3, 9, 1, 2, 4, 3]);
    expect(nearInWasm(text, Int32Array.from([1, 2, 3]), 1)).toEqual([
      { start: 0, end: 3, edits: 0 },
      { start: 4, end: 6, edits: 1 },
    ]);
    sameSites(text, Int32Array.from([1, 2, 3]), 1);
    // An empty chain, a k not a whole number, ids spanning more than a table of masks: JavaScript's.
    expect(nearInWasm(text, new Int32Array(0), 1)).toBeNull();
    expect(nearInWasm(text, Int32Array.from([1, 2]), 1.5)).toBeNull();
    expect(nearInWasm(text, Int32Array.from([1, 2 ** 20]), 1)).toBeNull();
    useSearchEngine('js');
    expect(nearInWasm(text, Int32Array.from([1, 2, 3]), 1)).toBeNull();
  });

  test('give the sites the JavaScript search gives: short chains (bit-parallel) and long ones (cut-off columns)', () => {
    const token = fc.integer({ min: 0, max: 5 });
    fc.assert(
      fc.property(fc.array(token, { maxLength: 120 }), fc.array(token, { minLength: 1, maxLength: 40 }), fc.integer({ min: 0, max: 6 }), (t, c, k) =>
        sameSites(Int32Array.from(t), Int32Array.from(c), k),
      ),
      { numRuns: 500 },
    );
    // Ids far from 0 and of either sign (the table is offset by the chain's least id), and text tokens outside it.
    const wide = fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 });
    fc.assert(
      fc.property(
        fc.array(fc.oneof(token, wide), { maxLength: 60 }),
        fc.array(fc.integer({ min: -3, max: 3 }), { minLength: 1, maxLength: 33 }),
        fc.nat(4),
        (t, c, k) => sameSites(Int32Array.from(t), Int32Array.from(c), k),
      ),
      { numRuns: 300 },
    );
  });

  test('give the same sites for ids at both ends of the 32-bit range', () => {
    const max = 2 ** 31 - 1;
    const min = -(2 ** 31);
    // A chain of ids near the top; a text of ids near the bottom (whose differences from the chain's overflow 32
    // bits), and of the chain's own ids.
    const chain = Int32Array.from([max - 100, max - 50, max]);
    const text = Int32Array.from([min, min + 50, min + 100, max - 100, max - 50, max, min + 100, max - 100, min, max]);
    for (const k of [0, 1, 2]) sameSites(text, chain, k);
    expect(nearInWasm(text, chain, 0)).toEqual([{ start: 3, end: 6, edits: 0 }]);
  });

  test('give the same sites on steps the size of a decode layer stack, for chains of 1 to 40 kernels', () => {
    const rnd = prng(9);
    for (let round = 0; round < 20; round++) {
      const layer = Array.from({ length: 40 }, () => Math.floor(rnd() * 30));
      const text = Int32Array.from({ length: 2400 }, (_, i) => (rnd() < 0.05 ? 31 : layer[i % 40]!));
      const m = 1 + Math.floor(rnd() * 40);
      const at = Math.floor(rnd() * (40 - Math.min(m, 39)));
      const chain = Int32Array.from(layer.slice(at, at + m).concat(m > 40 - at ? layer.slice(0, m - (40 - at)) : []));
      sameSites(text, chain, Math.floor(rnd() * 4));
    }
  });
});

describe('the WebAssembly tables of regroup', () => {
  test('are the cells realignTables writes, for any window of any two sequences, and left to JavaScript when chosen', () => {
    const window = windowed(40, 4);
    fc.assert(
      fc.property(window, ({ a, b, w }) => {
        const K = w.aEnd - w.aStart + (w.bEnd - w.bStart) + 1;
        expect(regroupInWasm(a, b, w, K)).toEqual(realignTables(a, b, w, K));
      }),
      { numRuns: 500 },
    );
    const a = Int32Array.from([1, 2, 3]);
    useSearchEngine('js');
    expect(regroupInWasm(a, a, { aStart: 0, aEnd: 3, bStart: 0, bEnd: 3 }, 7)).toBeNull();
  });

  test('are the same cells for a window of a decode layer stack, edited as fusions edit them', () => {
    const rand = prng(7);
    const layer = Array.from({ length: 60 }, () => Math.floor(rand() * 12));
    const a = Int32Array.from(Array.from({ length: 8 }, () => layer).flat());
    const b = Int32Array.from(
      Array.from(a)
        .filter((_, i) => i % 17 !== 3)
        .map((t, i) => (i % 29 === 5 ? 40 : t)),
    );
    const w = { aStart: 30, aEnd: 400, bStart: 25, bEnd: 380 };
    const K = w.aEnd - w.aStart + (w.bEnd - w.bStart) + 1;
    expect(regroupInWasm(a, b, w, K)).toEqual(realignTables(a, b, w, K));
  });
});
