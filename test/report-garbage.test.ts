// util/io.ts emit: a report's chunks are written with the garbage of making them collected along the way (a summary
// JSON of a million groups peaked at 510 MB, 200 MB of it garbage moved to the old heap, before the collection).

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { heapGrowth } from '../src/util/heap.js';
import { emit } from '../src/util/io.js';

const calls: number[] = [];
beforeEach(() => {
  calls.length = 0;
  vi.spyOn(heapGrowth, 'collectGrown').mockImplementation((slack: number) => void calls.push(slack));
});
afterEach(() => vi.restoreAllMocks());

const dir = mkdtempSync(join(tmpdir(), 'kprof-report-garbage-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function io(out: string[]) {
  return { stdout: (s: string) => void out.push(s), stderr: () => {}, env: {}, stdoutIsTTY: false, stderrIsTTY: false, cwd: dir };
}

function* chunks(n: number): Generator<string> {
  for (let i = 0; i < n; i++) yield `chunk ${i}\n`;
}

describe('a report written in chunks', () => {
  it('on stdout: every chunk written as made, the heap checked after each (collected past 64 MB of growth)', async () => {
    const out: string[] = [];
    expect(await emit(io(out), undefined, chunks(5))).toBe('stdout');
    expect(out.join('')).toBe([...chunks(5)].join(''));
    expect(calls).toEqual(Array(5).fill(64 << 20));
  });

  it('to a file (-o): the same bytes, the heap checked after each chunk', async () => {
    const file = join(dir, 'r.txt');
    expect(await emit(io([]), file, chunks(7))).toBe('file');
    expect(readFileSync(file, 'utf8')).toBe([...chunks(7)].join(''));
    expect(calls).toEqual(Array(7).fill(64 << 20));
  });

  it('a report of one string is written as it is, with no check', async () => {
    const out: string[] = [];
    await emit(io(out), undefined, 'whole\n');
    expect(out).toEqual(['whole\n']);
    expect(calls).toEqual([]);
  });
});
