// A read that folds many kinds into few groups (--by type of a million names, or names whose per-call counters fold)
// collects the garbage its readers' caches of kinds leave, at each 64 k kinds looked up: the accumulator asks for a
// collection when the heap grew (collectGrown), where the kinds made few groups; a read by name of a million names,
// whose kinds are each a group, asks at each 16 k groups instead. collectGrown: test/heap.test.ts.

import { describe, expect, it } from 'vitest';
import { Accumulator } from '../src/input/accumulator.js';

const asked: number[] = [];
const collectGrown = (slack: number): void => {
  asked.push(slack);
};

const FIELDS = { name: true, type: true, core: true, shapes: false, steps: true };

/** Look `n` distinct kinds up, of 40 types (as a kernel table of n distinct names). */
function lookUp(acc: Accumulator, n: number): void {
  for (let i = 0; i < n; i++) acc.groupIndex(`aclnnKernel${i}_Op${i % 40}`, `Op${i % 40}`, 'AI_CORE', null);
}

describe('a read that folds many kinds into few groups collects their garbage', () => {
  it('asks at each 64 k kinds when they made few groups (names not kept)', () => {
    asked.length = 0;
    const acc = new Accumulator(FIELDS, { names: false, collectGrown });
    lookUp(acc, 65_535);
    expect(asked).toEqual([]);
    lookUp(acc, 1);
    expect(asked).toEqual([32 << 20]);
    lookUp(acc, 3 * 65_536);
    expect(asked).toHaveLength(4);
    expect(acc.groups.size).toBe(40);
  });

  it('where every kind is a group of its own (names kept), asks at each 16 k groups past 64 k, not at the 64 k kinds', () => {
    asked.length = 0;
    const acc = new Accumulator(FIELDS, { collectGrown });
    lookUp(acc, 65_536);
    expect(asked).toEqual([]);
    for (let i = 65_536; i < 200_000; i++) acc.groupIndex(`aclnnKernel${i}_Op${i % 40}`, `Op${i % 40}`, 'AI_CORE', null);
    // At 64, 80, 96, 112, 144, 160, 176 and 192 k groups (at 128 k the read collects whatever the growth).
    expect(asked).toEqual(Array(8).fill(24 << 20));
    expect(acc.groups.size).toBe(200_000);
  });
});

describe('a read of many distinct groups holds the young generations as they are', () => {
  it('asks once, at its 4,096th group, and a read of fewer groups never does', () => {
    let held = 0;
    const holdYoung = (): void => {
      held++;
    };
    const few = new Accumulator(FIELDS, { collectGrown, holdYoung });
    lookUp(few, 4_096);
    // Kinds looked up again make no group: still 4,096.
    lookUp(few, 4_096);
    expect([few.groups.size, held]).toEqual([4_096, 0]);
    lookUp(few, 4_097);
    expect([few.groups.size, held]).toEqual([4_097, 1]);
    lookUp(few, 20_000);
    expect(held).toBe(1);
    // Folded into few groups (names not kept), a million kinds are 40 groups: nothing held.
    const folded = new Accumulator(FIELDS, { names: false, collectGrown, holdYoung });
    lookUp(folded, 20_000);
    expect([folded.groups.size, held]).toEqual([40, 1]);
  });
});
