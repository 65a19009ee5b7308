// util/heap.ts: collectGrown collects only when the heap in use grew by the slack it is given since the last
// collection (GrowthCollector, over a heap figure and a collection of the test's own).

import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { buildSync } from 'esbuild';
import { GrowthCollector, YOUNG_HOLD_FLAG } from '../src/util/heap.js';
import { RELEASE_MIN_BYTES, releaseAfterPost, TIDY_MIN_BYTES, tidiesBeforePack, tidyCollects } from '../src/input/workers/readWorker.js';

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

describe('a read worker kept for a job', () => {
  it('collects its garbage before the job from 32 MB of heap in use on (a million names), not below (a few hundred groups)', () => {
    expect(tidyCollects(TIDY_MIN_BYTES - 1)).toBe(false);
    expect(tidyCollects(TIDY_MIN_BYTES)).toBe(true);
    expect(TIDY_MIN_BYTES).toBe(32 << 20);
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

describe('a collection', () => {
  it('leaves no V8 flag set that makes a read worker starting after it compile its bundle without its code cache', () => {
    // In a process of its own (a test run earlier in this one may have set flags): a script's code cache made in a
    // worker, then a collection in the main thread, then a worker compiling the script with that cache, as a read
    // worker of a pool or one still starting up does (V8 refuses a cache made under other flags: --expose-gc).
    const heap = buildSync({
      entryPoints: [new URL('../src/util/heap.ts', import.meta.url).pathname],
      bundle: true,
      platform: 'node',
      format: 'cjs',
      write: false,
    }).outputFiles[0]!.text;
    const compile = `const { Script } = require('node:vm');
const { parentPort, workerData } = require('node:worker_threads');
const s = new Script('function f(n) { return n + 1; } f(1);', { filename: 'b.cjs', ...(workerData ? { cachedData: workerData } : {}) });
parentPort.postMessage(workerData ? String(s.cachedDataRejected) : s.createCachedData());`;
    const main = `const m = { exports: {} };
new Function('module', 'exports', 'require', ${JSON.stringify(heap)})(m, m.exports, require);
const { Worker } = require('node:worker_threads');
const run = (data) => new Promise((done) => new Worker(${JSON.stringify(compile)}, { eval: true, workerData: data }).once('message', done));
run(undefined).then((cache) => {
  let junk = [];
  for (let i = 0; i < 1e5; i++) junk.push({ i });
  junk = null;
  const before = require('node:v8').getHeapStatistics().used_heap_size;
  m.exports.collectGarbage(0);
  const collected = require('node:v8').getHeapStatistics().used_heap_size < before;
  return run(cache).then((rejected) => process.stdout.write(JSON.stringify({ collected, rejected })));
});`;
    const r = spawnSync(process.execPath, ['-e', main], { encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toEqual({ collected: true, rejected: 'false' });
  });
});
