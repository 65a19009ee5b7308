// A summary JSON nested deeper than kprof reads (MAX_DEPTH) is refused before it is parsed: JSON.parse holds each
// level open, so a file of a few MB of `[` took seconds and gigabytes. kprof writes WRITTEN_DEPTH levels at most,
// whatever the profile (ranks, per-step cells, step time, user groups).

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keyNames } from '../src/input/json/duplicateKeys.js';
import { MAX_DEPTH, WRITTEN_DEPTH } from '../src/input/formats/summary/snapshot.js';
import { kprof, type Result } from './helpers.js';

const EX = 'fixtures/fusion-example';

function ok(r: Result): Result {
  expect(r.code, r.stderr).toBe(0);
  return r;
}

/** The deepest nesting of `text` (outside strings), as keyNames counts it. */
function depthOf(text: string): number {
  let d = 0;
  while (keyNames(text, Number.POSITIVE_INFINITY, d).tooDeep !== undefined) d++;
  return d;
}

let dir = '';
let made: string[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'kprof-depth-'));
  made = [
    ok(await kprof(['summary', `${EX}/base`, '--step-time', '--format', 'json'])).stdout,
    ok(await kprof(['summary', `${EX}/pr`, '--by', 'name', '--groups', 'fixtures/groups/attention.json', '--format', 'json'])).stdout,
  ];
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('a summary JSON nested deeper than kprof reads', () => {
  it('kprof writes WRITTEN_DEPTH levels at most, far below the bound', () => {
    for (const text of made) {
      const d = depthOf(text);
      expect(d).toBeGreaterThanOrEqual(3);
      expect(d).toBeLessThanOrEqual(WRITTEN_DEPTH);
    }
    expect(MAX_DEPTH).toBeGreaterThanOrEqual(4 * WRITTEN_DEPTH);
    // Brackets in strings are text, not nesting.
    expect(depthOf(`{"a": "${'['.repeat(100)}", "b": ["{{{"]}`)).toBe(2);
  });

  it('is refused (exit 2) before it is parsed, naming the file, the line and column of the first level past the bound, and what to do', async () => {
    const cases: [string, string, 'list' | 'object'][] = [
      ['lists', `{"schemaVersion": 1,\n "x": ${'['.repeat(MAX_DEPTH + 1)}${']'.repeat(MAX_DEPTH + 1)}}`, 'list'],
      ['objects', `{"a":\n${'{"a": '.repeat(MAX_DEPTH)}0${'}'.repeat(MAX_DEPTH + 1)}`, 'object'],
      // Cut short, and a million levels: refused as soon as the bound is passed, the rest never read.
      ['cut', `{"x": ${'[0,'.repeat(1_000_000)}`, 'list'],
      ['inside', made[0]!.replace('"totals": {', `"totals": {"deep": ${'['.repeat(MAX_DEPTH)}${']'.repeat(MAX_DEPTH)}, `), 'list'],
    ];
    for (const [name, text, kind] of cases) {
      const f = join(dir, `${name}.json`);
      writeFileSync(f, text);
      const at = keyNames(text, Number.POSITIVE_INFINITY, MAX_DEPTH).tooDeep!;
      expect(at, name).toBeDefined();
      const before = text.slice(0, at).split('\n');
      for (const args of [
        ['summary', f],
        ['diff', f, f],
        ['check', f, '--base', f, '--rules', `${EX}/kprof.rules.yaml`],
      ]) {
        const r = await kprof(args);
        expect(r.code, `${name} ${args[0]}: ${r.stderr}`).toBe(2);
        expect(r.stderr).toBe(
          `kprof: ${f}:${before.length}:${before.at(-1)!.length + 1}: not a kprof summary JSON: a ${kind} here is nested more than ${MAX_DEPTH} levels deep, ` +
            `the most kprof reads (a summary JSON is ${WRITTEN_DEPTH} levels deep at most). Was the file made by another tool, or edited? ` +
            'Regenerate it with `kprof summary <profile> --format json`.\n',
        );
      }
    }
  });

  it('nesting up to the bound passes the check (the file is then read as any other)', async () => {
    const text = made[0]!.replace('"totals": {', `"totals": {"deep": ${'['.repeat(MAX_DEPTH - 3)}${']'.repeat(MAX_DEPTH - 3)}, `);
    expect(keyNames(text, Number.POSITIVE_INFINITY, MAX_DEPTH).tooDeep).toBeUndefined();
    const f = join(dir, 'at.json');
    writeFileSync(f, text);
    const r = await kprof(['summary', f]);
    expect(r.stderr).not.toContain('levels deep');
  });
});
