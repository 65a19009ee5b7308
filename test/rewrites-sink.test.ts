// The sequence recorder as a sink beside each rank's accumulator, read through readProfile in this thread and in
// read workers: the same sequences either way, the same as the rows read with csv-parse (test/rewrites-rows.ts),
// and a side that has no kernel order says why.

import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { RecorderSink, SEQUENCE_RECORDER, profileSequences, type RecordedRank, type SideSequences } from '../src/analysis/rewrites/recorderSink.js';
import { packRecorded, unpackRecorded } from '../src/analysis/rewrites/recordedPack.js';
import { NO_STREAM, type KernelKind, type SourceFacts } from '../src/input/sink.js';
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

describe('a recording as it crosses from a worker', () => {
  const kind = (name: string, type = 'T'): KernelKind => ({ name, rawName: name, type, core: 'AI_CORE', shapes: null });

  /** A recording by `by` of one step of the kernels named, in order (hcom_ names are communication, kept out). */
  function recorded(by: GroupBy, names: string[]): RecordedRank {
    const sink = new RecorderSink(by);
    sink.begin({ file: 'k.csv', ordered: true, steps: true, starts: true } as SourceFacts);
    sink.origin(0);
    names.forEach((n, id) => sink.bind(id, kind(n, n.startsWith('hcom_') ? 'hcom_allReduce_' : `T${id % 3}`)));
    names.forEach((_, id) => sink.addKernel(id, 1, 10 + id, id * 100, NO_STREAM));
    return sink.finish();
  }

  function across(r: RecordedRank, names: (string | null)[] | null) {
    const packed = packRecorded(r, names);
    // The message copies what it carries, as structuredClone does.
    const value = structuredClone(packed.value, { transfer: packed.transfer });
    return { carried: (packed.value as { tokens: string[] }).tokens, back: unpackRecorded(value, names) };
  }

  test('tokens by name that are the names of the rank are carried as positions in them, and come back the same', () => {
    const kernels = ['a', 'hcom_x', 'b', 'c', 'a', 'b'];
    const r = recorded('name', kernels);
    const want = structuredClone(r);
    // The rank's names as its table holds them: communication and a second group of a name (another type) between.
    const names = ['a', 'hcom_x', 'b', 'a', 'c'];
    const { carried, back } = across(r, names);
    expect(carried).toEqual([]);
    expect(back).toEqual(want);
    expect(back.seq.tokens.every((t) => names.includes(t))).toBe(true);
  });

  test('tokens not found a few names ahead, or with no names, are carried as text; the recording is the same', () => {
    const kernels = Array.from({ length: 300 }, (_, i) => `k${i}`);
    const r = recorded('name', kernels);
    const want = structuredClone(r);
    // The names in another order (the last first): k299 is far from where the walk looks.
    const names = [...kernels.slice(150), ...kernels.slice(0, 150)];
    const shuffled = across(r, names);
    expect(shuffled.carried.length).toBeGreaterThan(0);
    expect(shuffled.carried.length).toBeLessThan(300);
    expect(shuffled.back).toEqual(want);
    const none = across(recorded('name', kernels), null);
    expect(none.carried).toEqual(kernels);
    expect(none.back).toEqual(want);
  });

  test('tokens by type are carried as text (they are not the names)', () => {
    const r = recorded('type', ['a', 'b', 'c']);
    const want = structuredClone(r);
    const { carried, back } = across(r, ['a', 'b', 'c']);
    expect(carried).toEqual(want.seq.tokens);
    expect(back).toEqual(want);
  });

  test('a fixture read by name in workers gives the sequences read in this thread', async () => {
    const here = await sequences('fixtures/fusion-example/base', 'off', 'name');
    const there = await sequences('fixtures/fusion-example/base', 'on', 'name');
    expect(there).toEqual(here);
  });
});
