// The duplicate-key check of JSON text (src/input/json/duplicateKeys.ts): the counting pass and the locating scan
// agree, on hand-written cases and on generated JSON, and a key is one key however it is escaped. The count of
// different key names stops at the first name past the bound, whatever the text holds after it.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { duplicateKey, firstDuplicateKey, keyNames } from '../src/input/json/duplicateKeys.js';

function check(text: string): ReturnType<typeof firstDuplicateKey> {
  const located = firstDuplicateKey(text);
  expect(duplicateKey(text, JSON.parse(text)) !== null).toBe(located !== null);
  return located === null ? null : duplicateKey(text, JSON.parse(text));
}

describe('duplicateKey', () => {
  it.each([
    ['{"a":1,"a":2}', { key: 'a', first: 1, second: 7 }],
    ['{"a":1,"\\u0061":2}', { key: 'a', first: 1, second: 7 }],
    ['{"x":"a\\"","a\\\\":1,"a\\\\":2}', { key: 'a\\', first: 11, second: 19 }],
    ['{"a":[1,{"b":2,"c":{"d":1}},3],"b":1,"a":0}', { key: 'a', first: 1, second: 37 }],
    ['[{"a":1},{"b":{"c":1, "c" :2}}]', { key: 'c', first: 15, second: 22 }],
    ['{"__proto__":1,"__proto__":2}', { key: '__proto__', first: 1, second: 15 }],
  ])('%s: the second key is found', (text, want) => {
    expect(check(text)).toEqual(want);
  });

  it.each(['{"a":{"a":1},"b":[{"a":1},{"a":2}]}', '["a","a"]', '{"k":"a","a":1}', '{"k":"a:","a":"\\":"}', '{}', '"a"'])('%s: none', (text) => {
    expect(check(text)).toBeNull();
  });

  it('finds a key written again in an object of many keys (past the ones compared one by one)', () => {
    const keys = Array.from({ length: 1000 }, (_, i) => `"k${i}":${i}`);
    const text = `{"x":{${keys.join(',')},"k500":0}}`;
    expect(check(text)).toMatchObject({ key: 'k500', second: text.lastIndexOf('"k500"') });
  });

  it('on generated JSON, finds a duplicate exactly when an object writes a key twice', () => {
    type Node = number | string | { list: Node[] } | { members: [string, Node][] };
    const key = fc.constantFrom('a', 'b', 'c', '\u001b', 'a"', 'a\\', 'a:');
    const { node } = fc.letrec<{ node: Node }>((tie) => ({
      node: fc.oneof(
        { depthSize: 'small' },
        fc.integer(),
        fc.constantFrom('a', 'b:', '"a":', '\\'),
        fc.record({ list: fc.array(tie('node'), { maxLength: 3 }) }),
        fc.record({ members: fc.array(fc.tuple(key, tie('node')), { maxLength: 5 }) }),
      ),
    }));
    // A key as JSON.stringify writes it, or each of its characters as a \u escape.
    const write = (v: Node, escapeKeys: boolean): string => {
      if (typeof v !== 'object') return JSON.stringify(v);
      if ('list' in v) return `[${v.list.map((x) => write(x, escapeKeys)).join(', ')}]`;
      const name = (k: string): string =>
        escapeKeys ? `"${[...k].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('')}"` : JSON.stringify(k);
      return `{${v.members.map(([k, x]) => `${name(k)} : ${write(x, escapeKeys)}`).join(',')}}`;
    };
    const twice = (v: Node): boolean => {
      if (typeof v !== 'object') return false;
      if ('list' in v) return v.list.some(twice);
      return new Set(v.members.map(([k]) => k)).size < v.members.length || v.members.some(([, x]) => twice(x));
    };
    fc.assert(
      fc.property(node, fc.boolean(), (v, escapeKeys) => {
        const text = write(v, escapeKeys);
        const found = check(text);
        expect(found !== null).toBe(twice(v));
        if (found !== null) {
          const written = (at: number): string => JSON.parse(text.slice(at, text.indexOf(' :', at))) as string;
          expect([written(found.first), written(found.second)]).toEqual([found.key, found.key]);
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('keyNames', () => {
  it('counts the keys, and finds the first key whose name is past the most (a name written again is not counted again)', () => {
    const text = '{"a":1,"b":{"a":2,"c":[{"b":3}]},"d":"e:","f":4}';
    expect(keyNames(text, 10)).toEqual({ keys: 7, pastMost: null });
    expect(keyNames(text, 5)).toEqual({ keys: 7, pastMost: null });
    expect(keyNames(text, 4)).toEqual({ keys: 7, pastMost: { key: 'f', at: text.indexOf('"f"') } });
    expect(keyNames(text, 3)).toEqual({ keys: 6, pastMost: { key: 'd', at: text.indexOf('"d"') } });
    expect(keyNames(text, 1)).toEqual({ keys: 2, pastMost: { key: 'b', at: text.indexOf('"b"') } });
  });

  it('stops at the first name past the most, so one object of very many members is read only up to it', () => {
    const members = Array.from({ length: 100_000 }, (_, i) => `"k${i}":0`).join(',');
    const text = `{"kind":"summary","x":{${members}}}`;
    expect(keyNames(text, 1024)).toEqual({ keys: 1025, pastMost: { key: 'k1022', at: text.indexOf('"k1022"') } });
  });

  it('tells apart names that share a slot of its table of recent names (same length, first, middle and last character)', () => {
    const pair = '{"abxcd":1,"aaxcd":2}';
    const text = `[${Array(1000).fill(pair).join(',')}]`;
    expect(keyNames(text, 2)).toEqual({ keys: 2000, pastMost: null });
    expect(keyNames(text, 1)).toEqual({ keys: 2, pastMost: { key: 'aaxcd', at: text.indexOf('"aaxcd"') } });
    expect(keyNames('{"":1,"":2,"a":3}', 1)).toEqual({ keys: 3, pastMost: { key: 'a', at: 11 } });
  });

  it('names a key decoded when it can, and ends at a string that does not end (the text is not parsed yet)', () => {
    expect(keyNames('{"a":1,"\\u0062":2}', 1).pastMost).toEqual({ key: 'b', at: 7 });
    expect(keyNames('{"a":1,"\\x":2}', 1).pastMost).toEqual({ key: '\\x', at: 7 });
    expect(keyNames('{"a":1,"b', 1)).toEqual({ keys: 1, pastMost: null });
    expect(keyNames('{"a":1,"b\\"', 1)).toEqual({ keys: 1, pastMost: null });
  });
});
