// The diff's index of a summary's groups by key (src/aggregate/keyIndex.ts): it must answer exactly as a Map of
// the groups set one by one in order, in its slots and in the Map it falls back to when keys pile up.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { KeyIndex } from '../src/aggregate/keyIndex.js';
import { groupsByKey } from '../src/aggregate/group.js';
import { emptyCell, type Group } from '../src/model/model.js';

const group = (key: string, tag: number): Group => ({ key, name: key, total: { ...emptyCell(), count: tag }, steps: new Map() });

/** The Map the index stands for. */
function modelOf(groups: Group[]): Map<string, Group> {
  const m = new Map<string, Group>();
  for (const g of groups) m.set(g.key, g);
  return m;
}

function sameAsMap(index: KeyIndex, groups: Group[], probes: string[]): void {
  const m = modelOf(groups);
  expect(index.size).toBe(m.size);
  expect([...index]).toEqual([...m]);
  expect([...index.keys()]).toEqual([...m.keys()]);
  expect([...index.values()]).toEqual([...m.values()]);
  const entries: [string, Group][] = [];
  index.forEachEntry((k, g, at) => {
    entries.push([k, g]);
    // The entry's position is its key's first place in the list, and reads its group back.
    expect(groups.findIndex((x) => x.key === k)).toBe(at);
    expect(index.groupAt(at)).toBe(g);
  });
  expect(entries).toEqual([...m]);
  for (const k of [...m.keys(), ...probes]) {
    expect(index.get(k)).toBe(m.get(k));
    expect(index.has(k)).toBe(m.has(k));
    const at = index.position(k);
    expect(at).toBe(m.has(k) ? groups.findIndex((x) => x.key === k) : -1);
    if (at >= 0) expect(index.groupAt(at)).toBe(m.get(k));
  }
}

describe('KeyIndex', () => {
  // Keys from a small alphabet repeat often; the probes include keys that are absent.
  const keys = fc.array(fc.string({ unit: fc.constantFrom('a', 'b', 'é', '\u{1F600}', '\0'), maxLength: 4 }), { maxLength: 300 });

  it('answers as a Map of the groups set in order (a key set twice keeps its first place and its last group)', () => {
    fc.assert(
      fc.property(keys, keys, (ks, probes) => {
        const groups = ks.map((k, i) => group(k, i));
        sameAsMap(new KeyIndex(groups), groups, probes);
      }),
    );
  });

  it('answers the same once its keys are kept in a Map (keys that pile up in the slots)', () => {
    fc.assert(
      fc.property(keys, keys, (ks, probes) => {
        const groups = ks.map((k, i) => group(k, i));
        sameAsMap(new KeyIndex(groups, 0), groups, probes);
      }),
    );
  });

  it('holds a hundred thousand distinct keys, past the slots it starts with', () => {
    const groups = Array.from({ length: 100_000 }, (_, i) => group(`aclnnKernel${i}_Op${i % 40}`, i));
    const index = new KeyIndex(groups);
    expect(index.size).toBe(100_000);
    for (let i = 0; i < 100_000; i += 997) expect(index.get(`aclnnKernel${i}_Op${i % 40}`)).toBe(groups[i]);
    expect(index.get('aclnnKernel100000_Op0')).toBeUndefined();
  });

  it('is made once per list of groups (groupsByKey)', () => {
    const groups = [group('a', 1), group('b', 2)];
    expect(groupsByKey(groups)).toBe(groupsByKey(groups));
    expect(groupsByKey(groups).get('b')).toBe(groups[1]);
  });
});
