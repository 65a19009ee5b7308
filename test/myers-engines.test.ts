// The alignment search in WebAssembly (myers.wat, through myersEngine.ts) against the JavaScript one (myers.ts):
// the same change flags, or the same refusal, for every pair of sequences and cap. alignSequences uses the
// WebAssembly search by default, so every other test of the Fusion rewrites runs it too.

import fc from 'fast-check';
import { afterEach, describe, expect, test } from 'vitest';
import { alignSequences } from '../src/analysis/rewrites/myers.js';
import { alignInWasm, useMyersEngine } from '../src/analysis/rewrites/myersEngine.js';
import { prng } from './decodeGen.js';

afterEach(() => useMyersEngine('wasm'));

function both(a: Int32Array, b: Int32Array, cap: number): void {
  useMyersEngine('js');
  const js = alignSequences(a, b, cap);
  useMyersEngine('wasm');
  const wasm = alignSequences(a, b, cap);
  expect(wasm).toEqual(js);
}

/** Sequences of a few tokens (many matches, long snakes) or of many (few matches). */
const seq = (max: number, tokens: number) => fc.array(fc.integer({ min: 0, max: tokens }), { maxLength: max }).map((x) => Int32Array.from(x));

describe('the WebAssembly alignment search', () => {
  test('is the one alignSequences uses where WebAssembly runs', () => {
    const a = Int32Array.from([1, 2, 3]);
    const b = Int32Array.from([1, 3]);
    const ca = new Uint8Array(5);
    const cb = new Uint8Array(4);
    expect(alignInWasm(a, b, -1, ca, cb)).toBe(true);
    expect([...ca]).toEqual([0, 0, 1, 0, 0]);
    expect([...cb]).toEqual([0, 0, 0, 0]);
    useMyersEngine('js');
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
  });
});

test('src/analysis/rewrites/myersWasm.ts is the assembly of src/analysis/rewrites/myers.wat', async () => {
  const { readFileSync } = await import('node:fs');
  const { join } = await import('node:path');
  const { ROOT } = await import('./helpers.js');
  const { assemble } = await import('../scripts/wasm-json.mjs');
  expect(await assemble('myers')).toBe(readFileSync(join(ROOT, 'src/analysis/rewrites/myersWasm.ts'), 'utf8'));
});
