// util/heap.ts: collectGrown collects only when the heap in use grew by the slack it is given since the last
// collection (GrowthCollector, over a heap figure and a collection of the test's own).

import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { GrowthCollector, YOUNG_HOLD_FLAG } from '../src/util/heap.js';
import { RELEASE_MIN_BYTES, releaseAfterPost, tidiesBeforePack } from '../src/input/workers/readWorker.js';

describe('collectGrown', () => {
  it('collects past the growth since the last collection, not before', () => {
    let used = 100;
    let collections = 0;
    const growth = new GrowthCollector(
      () => used,
      () => {
        collections++;
        used = 10;
      },
    );
    // Before any collection, the mark is 0.
    growth.collectGrown(101);
    expect(collections).toBe(0);
    growth.collectGrown(100);
    expect([collections, used]).toEqual([1, 10]);
    used = 10 + 49;
    growth.collectGrown(50);
    expect(collections).toBe(1);
    used = 10 + 50;
    growth.collectGrown(50);
    expect([collections, used]).toEqual([2, 10]);
    // A collection made elsewhere sets the mark too.
    used = 40;
    growth.collected();
    used = 80;
    growth.collectGrown(50);
    expect(collections).toBe(2);
  });
});

describe('a read worker done with its read', () => {
  it('lets its scanners and its garbage go before packing its answer from 64 MB of heap in use on, and not below', () => {
    // Below it (every read of a few hundred groups) the worker keeps its engines for the next task.
    expect(tidiesBeforePack(RELEASE_MIN_BYTES - 1)).toBe(false);
    expect(tidiesBeforePack(RELEASE_MIN_BYTES)).toBe(true);
    expect(RELEASE_MIN_BYTES).toBe(64 << 20);
  });
});

describe('a held young generation', () => {
  /** The young generation's size (MB) in a new process after it allocated 1.5 M objects that stay, with `flag` set first. */
  const youngAfter = (flag: string | null): number => {
    const script = `
      const v8 = require('node:v8');
      ${flag !== null ? `v8.setFlagsFromString(${JSON.stringify(flag)});` : ''}
      const keep = [];
      for (let i = 0; i < 1.5e6; i++) keep.push({ i, s: 'x' + i });
      const young = v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space');
      process.stdout.write(String(young.space_size / 1048576));`;
    const r = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8' });
    expect(r.status).toBe(0);
    return Number(r.stdout);
  };

  it('does not grow once the flag is set, where it grows to several times its size without it (V8 reads it as it grows)', () => {
    const held = youngAfter(YOUNG_HOLD_FLAG);
    const grown = youngAfter(null);
    expect(held).toBeLessThanOrEqual(4);
    expect(grown).toBeGreaterThanOrEqual(4 * held);
  });
});

describe('a read worker that posted its answer', () => {
  it('lets the rest of a large read go at once, whatever its heap then holds; after a small read, from 64 MB only', () => {
    // A large read's heap is mostly the columns' strings once the answer is posted (~60 MB of a million names).
    expect(releaseAfterPost(true)).toBe(0);
    expect(releaseAfterPost(false)).toBe(RELEASE_MIN_BYTES);
  });
});
