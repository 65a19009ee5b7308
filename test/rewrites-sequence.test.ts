import { describe, expect, test } from 'vitest';
import {
  MAX_LANES,
  SAMPLE_CAP,
  SequenceRecorder,
  isCommunicationKernel,
  startOriginUs,
  startTicksAfter,
  startTicksAfterBytes,
  tokenKey,
} from '../src/analysis/rewrites/sequence.js';

const k = (type: string, extra: Partial<{ name: string; core: string; shapes: string }> = {}) => ({
  name: extra.name ?? `aclnn${type}`,
  type,
  core: extra.core ?? 'AI_CORE',
  shapes: extra.shapes ?? '1,2',
});

/** Record steps of token texts on one lane: each kernel lasts 10 ticks and starts 100 ticks after the previous. */
function recordSteps(steps: string[][], opts: { rank?: string; stream?: string; firstStep?: number } = {}) {
  const rec = new SequenceRecorder('type');
  const r = rec.rank(opts.rank ?? '0');
  const s = rec.stream(opts.stream ?? '2');
  let t = 0;
  steps.forEach((types, i) => {
    for (const type of types) {
      rec.add(r, s, (opts.firstStep ?? 1) + i, rec.table.intern(type), 10, t);
      t += 100;
    }
  });
  return rec.finish();
}

describe('SequenceRecorder', () => {
  test('identical steps share one shape; its per-position sums cover every step', () => {
    const seq = recordSteps([
      ['A', 'B', 'C'],
      ['A', 'B', 'C'],
      ['A', 'C'],
      ['A', 'B', 'C'],
    ]);
    expect(seq.shapes).toHaveLength(2);
    expect(seq.shapes.map((s) => s.instances)).toEqual([3, 1]);
    expect(Array.from(seq.shapes[0]!.tokens, (t) => seq.tokens[t])).toEqual(['A', 'B', 'C']);
    expect(Array.from(seq.shapes[0]!.sumTicks)).toEqual([30, 30, 30]);
    expect(seq.steps.map((s) => [s.step, s.shape, s.startTicks, s.endTicks])).toEqual([
      [1, 0, 0, 210],
      [2, 0, 300, 510],
      [3, 1, 600, 710],
      [4, 0, 800, 1010],
    ]);
    expect(seq.stats.kernels).toBe(11);
    // Sampled starts are relative to the step's first start.
    expect(Array.from(seq.shapes[0]!.sampleStartTicks[1]!)).toEqual([0, 100, 200]);
  });

  test('two steps whose tokens hash alike are two shapes: a shape is found by its hash, then told by every token', () => {
    // Two 4-token steps that share their first half and hash alike under the recorder's step hash (FNV-1a over the
    // token ids, then the count; found by a search over random ids): only a compare of their last tokens tells them
    // apart.
    const steps = [
      [1, 2, 1816098613, 357957549],
      [1, 2, 761576245, 1156314029],
    ];
    const hash = (ts: number[]) => Math.imul(ts.reduce((h, t) => Math.imul(h ^ t, 0x01000193), 0x811c9dc5) ^ ts.length, 0x01000193);
    expect(hash(steps[0]!)).toBe(hash(steps[1]!));
    const rec = new SequenceRecorder('type');
    const r = rec.rank('0');
    const s = rec.stream('2');
    steps.forEach((ts, i) => {
      for (const t of ts) rec.add(r, s, i + 1, t, 10 * (i + 1), 0);
    });
    const seq = rec.finish();
    expect(seq.shapes.map((sh) => Array.from(sh.tokens))).toEqual(steps);
    expect(seq.shapes.map((sh) => Array.from(sh.sumTicks))).toEqual([
      [10, 10, 10, 10],
      [20, 20, 20, 20],
    ]);
    expect(seq.steps.map((st) => st.shape)).toEqual([0, 1]);
  });

  test('memory grows with shapes, not rows: 1,000 steps of one shape keep one shape and a bounded sample', () => {
    const step = Array.from({ length: 50 }, (_, i) => `K${i % 7}`);
    const seq = recordSteps(Array.from({ length: 1000 }, () => step));
    expect(seq.shapes).toHaveLength(1);
    const shape = seq.shapes[0]!;
    expect(shape.instances).toBe(1000);
    expect(shape.sampled.length).toBeLessThanOrEqual(SAMPLE_CAP);
    expect(shape.sampled.length).toBeGreaterThan(SAMPLE_CAP / 2);
    // Spread evenly over the run: every stride-th step, from the first.
    const stride = shape.sampled[1]! - shape.sampled[0]!;
    expect(stride).toBe(16);
    expect(shape.sampled).toEqual(Array.from({ length: shape.sampled.length }, (_, i) => i * stride));
    expect(shape.sampled.at(-1)).toBeGreaterThan(900);
  });

  test('thinned samples: each sampled step keeps its own durations and starts (arrays of dropped steps are reused)', () => {
    const rec = new SequenceRecorder('type');
    const r = rec.rank('0');
    const s = rec.stream('2');
    const tokens = ['A', 'B', 'C'].map((t) => rec.table.intern(t));
    // Step i: kernel j lasts i * 10 + j ticks and starts i * 1000 + j * 7 * (i + 1) ticks in.
    for (let i = 0; i < 300; i++) tokens.forEach((t, j) => rec.add(r, s, i, t, i * 10 + j, i * 1000 + j * 7 * (i + 1)));
    const shape = rec.finish().shapes[0]!;
    expect(shape.sampled.length).toBeGreaterThan(SAMPLE_CAP / 2);
    expect(shape.sampled.at(-1)).toBeGreaterThan(200);
    shape.sampled.forEach((i, k) => {
      expect(Array.from(shape.sampleDurTicks[k]!)).toEqual([i * 10, i * 10 + 1, i * 10 + 2]);
      expect(Array.from(shape.sampleStartTicks[k]!)).toEqual([0, 7 * (i + 1), 14 * (i + 1)]);
    });
    const arrays = [...shape.sampleDurTicks, ...shape.sampleStartTicks];
    expect(new Set(arrays).size).toBe(arrays.length);
  });

  test('lanes: ranks and streams are kept apart even when their rows interleave', () => {
    const rec = new SequenceRecorder('type');
    const r0 = rec.rank('0');
    const r1 = rec.rank('1');
    const s2 = rec.stream('2');
    const s3 = rec.stream('3');
    const A = rec.table.intern('A');
    const B = rec.table.intern('B');
    rec.add(r0, s2, 5, A, 1, 0);
    rec.add(r0, s3, 5, B, 1, 1);
    rec.add(r1, s2, 5, B, 1, 2);
    rec.add(r0, s2, 5, A, 1, 3);
    rec.add(r0, s3, 5, B, 1, 4);
    const seq = rec.finish();
    const text = seq.steps.map(
      (s) => `${seq.ranks[s.rank]}/${seq.streams[s.stream]}:${Array.from(seq.shapes[s.shape]!.tokens, (t) => seq.tokens[t]).join('')}`,
    );
    expect(text).toEqual(['0/2:AA', '0/3:BB', '1/2:B']);
  });

  test('a step whose rows come back after another step is a split step, counted', () => {
    const seq = recordSteps([['A'], ['B'], ['A']], { firstStep: 1 });
    expect(seq.stats.splitSteps).toBe(0);
    const rec = new SequenceRecorder('type');
    const r = rec.rank('0');
    const s = rec.stream('2');
    const A = rec.table.intern('A');
    rec.add(r, s, 1, A, 1, 0);
    rec.add(r, s, 2, A, 1, 1);
    rec.add(r, s, 1, A, 1, 2);
    const out = rec.finish();
    expect(out.stats.splitSteps).toBe(1);
    expect(out.steps.map((x) => [x.step, x.split])).toEqual([
      [1, false],
      [2, false],
      [1, true],
    ]);
  });

  test('kernels kept out are counted; unreadable starts and out-of-order rows are counted', () => {
    const rec = new SequenceRecorder('type');
    rec.skipCommunication();
    rec.skipWithoutStep();
    const r = rec.rank('0');
    const s = rec.stream('-');
    const A = rec.table.intern('A');
    rec.add(r, s, 1, A, 5, 100);
    rec.add(r, s, 1, A, 5, 50);
    rec.add(r, s, 1, A, 5, Number.NaN);
    const seq = rec.finish();
    expect(seq.stats).toEqual({ kernels: 3, communication: 1, withoutStep: 1, badStart: 1, outOfOrder: 1, splitSteps: 0, pastLaneLimit: 0 });
    // The unreadable start is taken as the latest end so far.
    expect(Array.from(seq.shapes[0]!.sampleStartTicks[0]!)).toEqual([50, 0, 55]);
  });

  test('finish twice gives the same sequences', () => {
    const rec = new SequenceRecorder('type');
    rec.add(rec.rank('0'), rec.stream('2'), 1, rec.table.intern('A'), 1, 0);
    const a = rec.finish();
    const b = rec.finish();
    expect(b.steps).toEqual(a.steps);
  });
});

describe('tokens', () => {
  test('communication kernels are kept out: COMMUNICATION / HCCL cores, hcom_* and lccl* types or names', () => {
    expect(isCommunicationKernel(k('hcom_allReduce_', { core: 'N/A' }))).toBe(true);
    expect(isCommunicationKernel(k('N/A', { core: 'COMMUNICATION' }))).toBe(true);
    expect(isCommunicationKernel(k('AllReduce', { core: 'HCCL' }))).toBe(true);
    expect(isCommunicationKernel(k('LcclAllReduce'))).toBe(true);
    expect(isCommunicationKernel(k('Foo', { name: 'lccl_all_gather' }))).toBe(true);
    expect(isCommunicationKernel(k('MatMulV3'))).toBe(false);
    expect(tokenKey('type', k('hcom_allGather_'))).toBeNull();
  });
  test('the token follows --by', () => {
    const m = k('MatMulV3', { name: 'aclnnMatmul_MatMulV3', shapes: '32,7168;7168,2112' });
    expect(tokenKey('type', m)).toBe('MatMulV3');
    expect(tokenKey('name', m)).toBe('aclnnMatmul_MatMulV3');
    expect(tokenKey('type+shapes', m)).toBe('MatMulV3 [32,7168;7168,2112]');
  });
});

describe('start times', () => {
  test('exact ticks after a whole-µs origin, where a double is not', () => {
    const origin = startOriginUs('1764246877073569.640\t');
    expect(origin).toBe(1764246877073569);
    expect(startTicksAfter('1764246877073569.640\t', origin)).toBe(6400);
    expect(startTicksAfter('1764246877075462.560', origin)).toBe(1893 * 10_000 + 5600);
    expect(startTicksAfter('1764246877073569.12345', origin)).toBe(1235);
    expect(startTicksAfter('1764246877073569.12344', origin)).toBe(1234);
    expect(startTicksAfter('1764246877073570', origin)).toBe(10_000);
    expect(startTicksAfter('N/A', origin)).toBeNaN();
    expect(startTicksAfter('', origin)).toBeNaN();
    for (const cell of ['1764246877073569.640\t', ' 1764246877073570.00005 ', '1764246877073569.1', 'N/A', '12a', '.5', '']) {
      const bytes = Buffer.from(`,${cell},`, 'latin1');
      expect(startTicksAfterBytes(bytes, 1, bytes.length - 1, origin)).toBe(startTicksAfter(cell, origin));
    }
    expect(startTicksAfter(' 1764246877073570.00005 ', origin)).toBe(10_001);
    // As doubles, two starts 0.02 µs apart at this magnitude would not be told apart exactly.
    expect(startTicksAfter('1764246877073569.660', origin) - startTicksAfter('1764246877073569.640', origin)).toBe(200);
  });
});

test('a stream id on every row does not make a lane per row: lanes past MAX_LANES are counted and kept out', () => {
  const rec = new SequenceRecorder('type');
  const r = rec.rank('0');
  const A = rec.table.intern('A');
  for (let i = 0; i < MAX_LANES + 10; i++) rec.add(r, rec.stream(`s${i}`), 1, A, 1, i);
  const seq = rec.finish();
  expect(seq.steps).toHaveLength(MAX_LANES);
  expect(seq.stats.pastLaneLimit).toBe(10);
  expect(seq.stats.kernels).toBe(MAX_LANES);
  expect(seq.shapes).toHaveLength(1);
});

describe('the steps finish closes', () => {
  test("a lane's last step, of a new shape, holds the lane's arrays rather than copies of them; the same figures", () => {
    // 20 kernels: the lane's arrays grew to 32 (from 16, doubling), so an array of the lane is longer than the step.
    const types = Array.from({ length: 20 }, (_, i) => `T${i}`);
    const seq = recordSteps([types.slice(0, 3), types]);
    const last = seq.shapes[1]!;
    expect(last.tokens.length).toBe(20);
    expect(last.tokens.buffer.byteLength).toBe(32 * 4);
    expect(last.sampleDurTicks[0]!.buffer.byteLength).toBe(32 * 8);
    expect(last.sampleStartTicks[0]!.buffer.byteLength).toBe(32 * 8);
    expect([...last.sampleDurTicks[0]!]).toEqual(Array(20).fill(10));
    expect([...last.sampleStartTicks[0]!]).toEqual(types.map((_, i) => 100 * i));
    expect([...last.sumTicks]).toEqual(Array(20).fill(10));
    // A step closed before the last (by the next one's start) is copied: exact arrays of its own.
    const first = seq.shapes[0]!;
    expect(first.tokens.buffer.byteLength).toBe(3 * 4);
    expect(first.sampleDurTicks[0]!.buffer.byteLength).toBe(3 * 8);
  });
});
