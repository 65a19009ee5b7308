// The real executable, spawned as a user runs it: the bundle of src/ (scripts/bundle.mjs; the tests' global setup
// makes it), and the read worker bundled beside it.

import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { resolveInput } from '../src/input/formats/resolve.js';
import { WorkerPool } from '../src/input/pool.js';
import { readRank } from '../src/input/readRank.js';
import { unpackRanks, type PackedRanks } from '../src/input/workers/pack.js';
import type { ReadTask } from '../src/input/workers/protocol.js';
import { ROOT } from './helpers.js';

function kprofBin(args: string[], env: Record<string, string> = {}) {
  const r = spawnSync(process.execPath, ['bin/kprof.js', ...args], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', ...env } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('bin/kprof.js', () => {
  it('loads bundles of ASCII only (decoded at every start on the fast path: a character past it in a regular expression, which esbuild leaves as it is, is written as an escape)', () => {
    for (const f of ['cli.cjs', 'early.cjs', 'workers/readWorker.cjs', 'workers/readWorkerStart.cjs']) {
      const bytes = readFileSync(join(ROOT, 'dist/bundle', f));
      const at = bytes.findIndex((b) => b > 0x7f);
      expect(at === -1 ? '' : `${f}: ${bytes.subarray(Math.max(0, at - 40), at + 10).toString('utf8')}`).toBe('');
    }
  });

  it('runs a summary and exits 0', () => {
    const r = kprofBin(['summary', 'fixtures/formats/multi-rank']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^type\s+count\s+total/);
    expect(r.stdout).toMatch(/24 kernels, 10\.56 ms kernel time, 2 steps on each rank, 2 ranks \(0, 1\), 0 rows skipped/);
    expect(r.stderr).toBe('');
  });

  it('exits 2 with one line on stderr and no stack trace for bad input; the trace only with --debug', () => {
    const r = kprofBin(['summary', 'fixtures/does-not-exist']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('kprof: fixtures/does-not-exist: no such file or folder. Check the path.\n');
    const d = kprofBin(['summary', 'fixtures/does-not-exist', '--debug']);
    expect(d.code).toBe(2);
    expect(d.stderr).toMatch(/KprofError: .*\n\s+at /);
  });

  it('in a copy that was never built (no dist/): exit 2 and what to run, not a stack trace with exit 1', () => {
    const copy = mkdtempSync(join(tmpdir(), 'kprof-unbuilt-'));
    try {
      mkdirSync(join(copy, 'bin'));
      copyFileSync(join(ROOT, 'bin/kprof.js'), join(copy, 'bin/kprof.js'));
      copyFileSync(join(ROOT, 'bin/package.json'), join(copy, 'bin/package.json'));
      writeFileSync(join(copy, 'package.json'), '{"type":"module"}\n');
      const run = () => spawnSync(process.execPath, [join(copy, 'bin/kprof.js'), 'check', 'p', '--rules', 'r'], { encoding: 'utf8' });
      const r = run();
      expect(r.status).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(
        /^kprof: this copy of kprof is not built: .*dist[/\\]bundle[/\\]early\.cjs is missing\. Run npm install \(or npm run build\) in .*, then run kprof again\.\n$/,
      );
      // Half a build (the CLI bundle missing): the same.
      mkdirSync(join(copy, 'dist/bundle'), { recursive: true });
      for (const f of ['early.cjs', 'workers/readWorkerStart.cjs', 'workers/readWorker.cjs']) {
        mkdirSync(dirname(join(copy, 'dist/bundle', f)), { recursive: true });
        copyFileSync(join(ROOT, 'dist/bundle', f), join(copy, 'dist/bundle', f));
      }
      const h = run();
      expect(h.status).toBe(2);
      expect(h.stderr).toMatch(/^kprof: this copy of kprof is not built: .*dist[/\\]bundle[/\\]cli\.cjs is missing\. /);
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });

  it('exits 2 for usage errors, 0 for --help and --version', () => {
    expect(kprofBin([]).code).toBe(2);
    expect(kprofBin(['summary', '--by', 'nope', 'x']).code).toBe(2);
    expect(kprofBin(['--help']).code).toBe(0);
    expect(kprofBin(['--version']).stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it('reads in the bundled worker what the reader reads in this thread', async () => {
    // Small inputs never reach a worker through the CLI: run the bundled worker script directly (the script the
    // reader starts, which loads the worker's bundle with its code cache).
    const plans = resolveInput(join(ROOT, 'fixtures/formats/multi-rank')).ranks;
    const read = async (script: string) => {
      const pool = new WorkerPool(pathToFileURL(join(ROOT, script)));
      try {
        const tasks = plans.map((plan) =>
          pool.run<PackedRanks>({ plan, cwd: undefined, withShapes: false, withSpan: false, rawNames: null, beside: null } satisfies ReadTask),
        );
        const ranks = (await Promise.all(tasks)).flatMap(unpackRanks);
        expect(pool.completed).toBe(plans.length);
        return ranks;
      } finally {
        await pool.close();
      }
    };
    const bundled = await read('dist/bundle/workers/readWorkerStart.cjs');
    expect(bundled.map((r) => r.rank)).toEqual(['0', '1']);
    const here = (await Promise.all(plans.map((plan) => readRank(plan, { withShapes: false, withSpan: false })))).flat();
    expect(bundled).toEqual(here);
  });
});

describe('bin/kprof.js check', () => {
  it('the process exits 1 when a rule breaks and 0 when all hold', () => {
    const R = 'fixtures/rules';
    const MULTI = [`${R}/multi-rank-one-breaks/profile`, '--rules', `${R}/multi-rank-one-breaks/kprof.rules.yaml`];
    const bin = (args: string[]) => ({ status: kprofBin(args).code });
    expect(bin(['check', ...MULTI]).status).toBe(1);
    expect(bin(['check', ...MULTI.slice(0, 2), `${R}/multi-rank-one-breaks/kprof.rules.yaml`, '--format', 'json']).status).toBe(1);
    expect(bin(['check', `${R}/one-rank/pr`, '--rules', `${R}/one-rank/every-kind.rules.yaml`, '--base', `${R}/one-rank/base`]).status).toBe(0);
    expect(bin(['check', `${R}/one-rank/pr`, '--rules', `${R}/bad-rules/unknown-group.yaml`]).status).toBe(2);
  });
});
