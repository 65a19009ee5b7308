// The selection options from the command line: --steps lists and open ranges, --rank by folder path, filters
// that select nothing, --match/--exclude on raw communication names.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { kprof } from './helpers.js';

const MULTI = 'fixtures/formats/multi-rank';

function json(stdout: string): { selection: string; stepIds: number[]; totals: { count: number }; filteredKernels: number } {
  return JSON.parse(stdout);
}

describe('--steps lists and open ranges', () => {
  it('an open range, a list and a range select the same rows when they name the same steps', async () => {
    const range = await kprof(['summary', MULTI, '--steps', '7-8', '--format', 'json']);
    const list = await kprof(['summary', MULTI, '--steps', '8,7', '--format', 'json']);
    const open = await kprof(['summary', MULTI, '--steps', '7-', '--format', 'json']);
    expect([range.code, list.code, open.code]).toEqual([0, 0, 0]);
    expect(json(list.stdout)).toEqual(json(range.stdout));
    expect(json(list.stdout).selection).toBe('steps=7-8');
    expect(json(open.stdout).stepIds).toEqual([7, 8]);
    expect(json(open.stdout).selection).toBe('steps=7-');
    const upTo = json((await kprof(['summary', MULTI, '--steps=-7', '--format', 'json'])).stdout);
    expect(upTo.stepIds).toEqual([7]);
    expect(upTo.selection).toBe('steps=0-7');
  });

  it('a snapshot made with a list is read back with the same list written another way', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kprof-'));
    try {
      const snap = join(dir, 's.json');
      expect((await kprof(['summary', MULTI, '--steps', '8,10-', '--format', 'json', '-o', snap])).code).toBe(0);
      const again = await kprof(['summary', snap, '--steps', '10-, 8', '--format', 'json']);
      expect(again.code).toBe(0);
      expect(json(again.stdout).totals.count).toBe(12);
      const other = await kprof(['summary', snap, '--steps', '8']);
      expect(other.code).toBe(2);
      expect(other.stderr).toMatch(/made with --by type and steps=8-8,10-, .*--steps 8-8/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a bad list is a usage error that shows what is accepted', async () => {
    const r = await kprof(['summary', MULTI, '--steps', '7,,8']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--steps: an empty item in the list; found "7,,8"\. Expected a Step Id \(7\), a range \(5-20\), an open range \(14- or -8\)/);
  });
});
