// The read worker bin/kprof.js starts before the CLI loads (src/cli/early.ts, input/workers/prestart.ts): started
// only for two large profiles, taken by the pool as its first worker, and never used when it failed or is of
// another script.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEarly } from '../src/cli/early.js';
import { WorkerPool } from '../src/input/pool.js';
import { planProfile, readProfile, workerScript } from '../src/input/read.js';
import { unpackRanks, type PackedRanks } from '../src/input/workers/pack.js';
import type { ReadTask } from '../src/input/workers/protocol.js';
import type { RankData } from '../src/model/model.js';
import { PARALLEL_MIN_BYTES, prestartReadWorker, takePrestarted } from '../src/input/workers/prestart.js';
import { ROOT } from './helpers.js';

describe('the read worker started before the CLI', () => {
  let dir = '';
  let big = '';
  let halves = '';
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'kprof-prestart-'));
    big = join(dir, 'big.csv');
    writeFileSync(big, Buffer.alloc(PARALLEL_MIN_BYTES));
    // A folder counts the files below it: two halves make one large profile, one does not.
    halves = join(dir, 'run', 'ASCEND_PROFILER_OUTPUT');
    mkdirSync(halves, { recursive: true });
    writeFileSync(join(halves, 'a.csv'), Buffer.alloc(PARALLEL_MIN_BYTES / 2));
    mkdirSync(join(dir, 'one-half'));
    writeFileSync(join(dir, 'one-half', 'a.csv'), Buffer.alloc(PARALLEL_MIN_BYTES / 2));
  });
  afterAll(async () => {
    await takePrestarted(script())?.terminate();
    rmSync(dir, { recursive: true, force: true });
  });

  const script = (): URL => workerScript()!;

  it('is started for a diff or rules of two large profiles only', async () => {
    writeFileSync(join(halves, 'b.csv'), Buffer.alloc(PARALLEL_MIN_BYTES / 2));
    const small = join(ROOT, 'fixtures/fusion-example/base');
    for (const args of [
      ['diff', small, join(ROOT, 'fixtures/fusion-example/pr')],
      ['diff', big, small],
      ['diff', big, join(dir, 'one-half')],
      ['summary', big, big],
      ['diff', big, big, '--help'],
      ['diff', big, join(dir, 'no-such-folder')],
    ]) {
      startEarly(args, script());
      expect(takePrestarted(script()), args.join(' ')).toBeNull();
    }
    for (const args of [
      ['diff', big, big],
      ['rules', '--steps', '3-5', big, join(dir, 'run')],
    ]) {
      startEarly(args, script());
      const w = takePrestarted(script());
      expect(w, args.join(' ')).not.toBeNull();
      await w!.terminate();
    }
  });

  it("is the pool's first worker, and answers its task", async () => {
    await takePrestarted(script())?.terminate();
    const w = prestartReadWorker(script());
    let replies = 0;
    w.on('message', () => void replies++);
    const pool = new WorkerPool(script(), 2);
    try {
      const input = join(ROOT, 'fixtures/fusion-example/base');
      const plan = planProfile(input, { ranks: null }).plans[0]!;
      const task: ReadTask = {
        plan,
        cwd: ROOT,
        withShapes: false,
        withSpan: false,
        rawNames: null,
        beside: null,
      };
      const packed = await pool.run<PackedRanks>(task);
      expect(unpackRanks(packed)).toEqual((await readInThisThread(input)).filter((r) => r.rank === plan.rank));
      expect(pool.completed).toBe(1);
      expect(replies).toBe(1);
      expect(takePrestarted(script())).toBeNull();
    } finally {
      await pool.close();
    }
  });

  it('is not used when it failed before the pool took it, or runs another script', async () => {
    await takePrestarted(script())?.terminate();
    const bad = pathToFileURL(join(dir, 'bad-worker.mjs'));
    writeFileSync(bad, "throw new Error('not a read worker');\n");
    const w = prestartReadWorker(bad);
    await new Promise((resolve) => w.once('exit', resolve));
    expect(takePrestarted(bad)).toBeNull();
    prestartReadWorker(script());
    expect(takePrestarted(bad)).toBeNull();
    expect(takePrestarted(script())).toBeNull();
  });
});

async function readInThisThread(input: string): Promise<RankData[]> {
  return (await readProfile(input, { withShapes: false, ranks: null, threads: 'off' })).ranks;
}
