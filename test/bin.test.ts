// The real executable, spawned as a user runs it (npm test builds dist/ first).

import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { ROOT } from './helpers.js';

function kprofBin(args: string[], env: Record<string, string> = {}) {
  const r = spawnSync(process.execPath, ['bin/kprof.js', ...args], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', ...env } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('bin/kprof.js', () => {
  it('runs a summary and exits 0', () => {
    const r = kprofBin(['summary', 'fixtures/formats/multi-rank']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^type\s+count\s+total/);
    expect(r.stdout).toMatch(/24 kernels, 10\.56 ms kernel time, 2 steps, 2 ranks \(0, 1\), 0 rows skipped/);
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

  it('exits 2 for usage errors, 0 for --help and --version', () => {
    expect(kprofBin([]).code).toBe(2);
    expect(kprofBin(['summary', '--by', 'nope', 'x']).code).toBe(2);
    expect(kprofBin(['--help']).code).toBe(0);
    expect(kprofBin(['--version']).stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });
});
