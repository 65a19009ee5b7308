// The sequence recorder as a sink beside each rank's accumulator, read through readProfile in this thread and in
// read workers: the same sequences either way, the same as the rows read with csv-parse (test/rewrites-rows.ts),
// and a side that has no kernel order says why.

import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { SEQUENCE_RECORDER, profileSequences, type SideSequences } from '../src/analysis/rewrites/recorderSink.js';
import type { Sequences } from '../src/analysis/rewrites/sequence.js';
import { readProfile, sharedPool } from '../src/input/read.js';
import type { GroupBy } from '../src/model/model.js';
import { REAL, realData } from './helpers.js';
import { readRows, record } from './rewrites-rows.js';

const HAS_REAL = realData(import.meta.url);
const ST = join(REAL, 'msinsight-st-level2');

async function sides(input: string, threads: 'on' | 'off', by: GroupBy = 'type'): Promise<SideSequences> {
  const p = await readProfile(input, {
    withShapes: by === 'type+shapes',
    ranks: null,
    threads,
    beside: { kind: SEQUENCE_RECORDER, options: { by } },
  });
  return profileSequences(p, by);
}

async function sequences(input: string, threads: 'on' | 'off', by: GroupBy = 'type'): Promise<Sequences> {
  const s = await sides(input, threads, by);
  if (!s.ok) throw new Error(s.why);
  return s.seq;
}

/** Each step as (rank, step, its tokens as text, its summed duration), in order: what does not depend on ids. */
function steps(seq: Sequences) {
  return seq.steps.map((st) => {
    const shape = seq.shapes[st.shape]!;
    return { rank: seq.ranks[st.rank], step: st.step, tokens: Array.from(shape.tokens, (t) => seq.tokens[t]).join(' ') };
  });
}

describe('the recorder beside the accumulator', () => {
  test.skipIf(!HAS_REAL)('read in workers, the sequences are those read in this thread', async () => {
    const pool = sharedPool()!;
    const before = pool.completed;
    for (const by of ['type', 'name', 'type+shapes'] as const) {
      const here = await sequences(ST, 'off', by);
      const there = await sequences(ST, 'on', by);
      expect(there).toEqual(here);
      expect(here.ranks).toEqual(['0', '2']);
    }
    expect(pool.completed - before, 'the ranks were read in workers').toBeGreaterThanOrEqual(6);
  });

  test.skipIf(!HAS_REAL)('the same steps, tokens and durations as the rows read with csv-parse', async () => {
    const seq = await sequences(ST, 'off');
    const ranks = ['0', '2'].map((rank) => ({
      rank,
      rows: readRows(join(ST, `rank_${rank}_ascend_pt/ASCEND_PROFILER_OUTPUT/kernel_details.csv`)),
    }));
    const want = record('type', ranks);
    expect(steps(seq)).toEqual(steps(want));
    expect(seq.stats).toEqual(want.stats);
    const sums = (s: Sequences) => s.shapes.map((x) => Array.from(x.sumTicks));
    expect(sums(seq)).toEqual(sums(want));
  });

  test('identical steps of different ranks are one shape', async () => {
    const seq = await sequences('fixtures/fusion-example/base', 'off');
    expect(seq.ranks).toEqual(['0', '1']);
    expect(seq.steps).toHaveLength(8);
    expect(seq.shapes).toHaveLength(1);
    expect(seq.shapes[0]!.instances).toBe(8);
    expect(seq.shapes[0]!.sampled).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
  });

  test('a side without kernel order or steps says why', async () => {
    const statistic = await sides('fixtures/formats/op-statistic-no-device', 'off');
    expect(statistic).toEqual({ ok: false, why: 'totals', file: expect.stringMatching(/op_statistic\.csv$/) });
    const noStep = await sides('fixtures/formats/torch-no-step-reduced', 'off');
    expect(noStep).toEqual({ ok: false, why: 'no-step-column', file: expect.stringMatching(/kernel_details\.csv$/) });
  });
});
