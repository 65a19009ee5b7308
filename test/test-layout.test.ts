// The tests themselves pass in any clone: a file that reads the real exports (../shared/data/real) asks
// realData() first, so that without them it skips with one notice (and fails under CI=true) instead of failing at
// collection; and the real data is named only through test/helpers.ts, never by a path of its own.

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './helpers.js';

const files = (dir: string): string[] =>
  readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name)) : /\.ts$/.test(e.name) ? [join(dir, e.name)] : [],
  );

const tests = files('test').filter((f) => f !== join('test', 'helpers.ts') && f !== join('test', 'test-layout.test.ts'));

describe('the tests pass in a clone without ../shared', () => {
  it('finds the test files', () => {
    expect(tests.length).toBeGreaterThan(50);
  });

  it('every file that reads the real exports asks realData(import.meta.url) first', () => {
    const readers = tests.filter((f) => /\b(REAL|REAL_REL|HAS_REAL)\b/.test(readFileSync(join(ROOT, f), 'utf8')));
    expect(readers.length).toBeGreaterThan(10);
    const unasked = readers.filter((f) => {
      const text = readFileSync(join(ROOT, f), 'utf8');
      return !/\brealData\(import\.meta\.url\)/.test(text) && !/^test\/(rewrites-rows|htmlReport|toyFormat)\.ts$/.test(f);
    });
    expect(unasked).toEqual([]);
  });

  it('no file names ../shared by a path of its own', () => {
    const own = tests.filter((f) => /['"`]\.\.\/shared\b|['"`]shared['"`]/.test(readFileSync(join(ROOT, f), 'utf8')));
    expect(own).toEqual([]);
  });
});
