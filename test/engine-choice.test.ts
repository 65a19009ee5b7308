// KPROF_ENGINE chooses the scan engine of a run: js (the JavaScript reference) or simd (the default). A real
// export read with each, through the CLI and through the worker threads, gives the same output; any other
// value is a usage error.

import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { defaultEngine, setDefaultEngine } from '../src/input/engine.js';
import { readProfile } from '../src/input/read.js';
import { kprof, REAL, REAL_REL, realData } from './helpers.js';

const HAS_REAL = realData(import.meta.url);

afterEach(() => setDefaultEngine('simd'));

describe('KPROF_ENGINE', () => {
  it('is read for each run: js, simd, or unset (simd)', async () => {
    await kprof(['rules', '--help'], { KPROF_ENGINE: 'js' });
    expect(defaultEngine()).toBe('js');
    await kprof(['rules', '--help'], {});
    expect(defaultEngine()).toBe('simd');
  });

  it('any other value is a usage error that names it and the engines', async () => {
    const r = await kprof(['summary', 'x.csv'], { KPROF_ENGINE: 'wasm\u001b[31m' });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      'kprof: KPROF_ENGINE is "wasm\\x1b[31m"; expected js (the JavaScript reference engine) or simd (the default). Unset it or set one of those.\n',
    );
  });

  describe.skipIf(!HAS_REAL)('a real export read with each engine', () => {
    const base = `${REAL_REL}/msinsight-st-level2/rank_0_ascend_pt`;
    const pr = `${REAL_REL}/msinsight-st-level2/rank_2_ascend_pt`;

    for (const args of [
      ['diff', base, pr, '--by', 'name', '--format', 'json'],
      ['summary', `${REAL_REL}/msinsight-st-level2`, '--by', 'type+shapes', '--format', 'json'],
      ['inspect', base],
    ]) {
      it(`kprof ${args[0]}: the same output`, async () => {
        const js = await kprof(args, { KPROF_ENGINE: 'js' });
        const simd = await kprof(args, { KPROF_ENGINE: 'simd' });
        expect(js.code).toBe(0);
        expect(js.stdout.length).toBeGreaterThan(500);
        expect(js).toEqual(simd);
      });
    }

    it('in worker threads too (the engine goes with each task)', async () => {
      const input = join(REAL, 'msinsight-st-level2');
      const js = await readProfile(input, { withShapes: true, ranks: null, threads: 'on', engine: 'js' });
      const simd = await readProfile(input, { withShapes: true, ranks: null, threads: 'on', engine: 'simd' });
      expect(js.ranks.length).toBeGreaterThan(1);
      expect(js).toEqual(simd);
    });
  });
});
