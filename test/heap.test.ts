// util/heap.ts: collectGrown collects only when the heap in use grew by the slack it is given since the last
// collection made there (V8's figures and its collection stand in for the real ones here).

import { describe, expect, it, vi } from 'vitest';

let used = 0;
let collections = 0;
vi.mock('node:v8', async (original) => ({
  ...(await original<typeof import('node:v8')>()),
  setFlagsFromString: () => {},
  getHeapStatistics: () => ({ used_heap_size: used }),
}));
vi.mock('node:vm', async (original) => ({
  ...(await original<typeof import('node:vm')>()),
  runInNewContext: () => () => {
    collections++;
    used = 10;
  },
}));

const { collectGarbage, collectGrown } = await import('../src/util/heap.js');

describe('collectGrown', () => {
  it('collects past the growth since the last collection, not before', () => {
    used = 100;
    collectGarbage(0);
    expect([collections, used]).toEqual([1, 10]);
    used = 10 + 49;
    collectGrown(50);
    expect(collections).toBe(1);
    used = 10 + 50;
    collectGrown(50);
    expect([collections, used]).toEqual([2, 10]);
    // collectGarbage's own threshold is the heap in use, and it sets the mark too.
    used = 40;
    collectGarbage(30);
    collectGrown(50);
    expect(collections).toBe(3);
  });
});
