// fast-check arbitraries of token sequences, for the tests of the rewrites' alignment and regroup tables (their
// TypeScript and WebAssembly engines alike).

import fc from 'fast-check';
import type { Span } from '../src/analysis/rewrites/regroup.js';

/** A sequence of up to `max` tokens, each 0 to `tokens` (few distinct tokens: many matches and repeats). */
export const tokenSeq = (max: number, tokens: number): fc.Arbitrary<Int32Array> =>
  fc.array(fc.integer({ min: 0, max: tokens }), { maxLength: max }).map((x) => Int32Array.from(x));

/** Two sequences of up to `max` tokens and a window of each (any ends, in order, empty ones too). */
export const windowed = (max: number, tokens: number): fc.Arbitrary<{ a: Int32Array; b: Int32Array; w: Span }> =>
  tokenSeq(max, tokens).chain((a) =>
    tokenSeq(max, tokens).chain((b) =>
      fc
        .tuple(fc.nat(a.length), fc.nat(a.length), fc.nat(b.length), fc.nat(b.length))
        .map(([x, y, u, v]) => ({ a, b, w: { aStart: Math.min(x, y), aEnd: Math.max(x, y), bStart: Math.min(u, v), bEnd: Math.max(u, v) } })),
    ),
  );
