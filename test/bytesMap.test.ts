// BytesMap, the hot loop's lookup by raw bytes, must behave exactly as a Map keyed by the same bytes: a hash
// collision or a word-wise comparison must never merge two keys.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BytesMap } from '../src/input/csv/bytesMap.js';

describe('BytesMap', () => {
  it('agrees with a Map on keys that differ in one byte anywhere, at any offset in the buffer', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.uint8Array({ minLength: 0, maxLength: 70 }), fc.option(fc.uint8Array({ maxLength: 12 }), { nil: null })), {
          minLength: 1,
          maxLength: 60,
        }),
        fc.nat(7),
        (keys, pad) => {
          const change = (k: Uint8Array, at: number): Uint8Array => {
            const c = Uint8Array.from(k);
            if (c.length > 0) c[at] = (c[at]! + 1) & 255;
            return c;
          };
          // Similar keys: each key also appears with its first, middle or last byte changed.
          const all = keys.flatMap(([k, s]) =>
            [k, change(k, 0), change(k, k.length >> 1), change(k, k.length - 1)].map((x) => [x, s] as [Uint8Array, Uint8Array | null]),
          );
          const map = new BytesMap<number>();
          const ref = new Map<string, number>();
          all.forEach(([k, s], i) => {
            const buf = Buffer.alloc(pad + k.length + 1 + (s?.length ?? 0));
            buf.set(k, pad);
            const s1 = pad;
            const e1 = pad + k.length;
            let s2 = -1;
            let e2 = -1;
            if (s) {
              buf.set(s, e1 + 1);
              s2 = e1 + 1;
              e2 = s2 + s.length;
            }
            const id = `${Buffer.from(k).toString('hex')}|${s ? Buffer.from(s).toString('hex') : '-'}`;
            const h = map.hash(buf, s1, e1, s2, e2);
            const got = map.get(h, buf, s1, e1, s2, e2);
            expect(got).toBe(ref.get(id));
            if (got === undefined) {
              map.set(h, buf, s1, e1, s2, e2, i);
              ref.set(id, i);
            }
          });
          expect(map.size).toBe(ref.size);
        },
      ),
      { seed: 42, numRuns: 300 },
    );
  });
});
