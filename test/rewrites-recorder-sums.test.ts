// The recorder's per-shape sums against a plain reference: steps are cut where a lane's Step Id changes (and at
// the end, lanes in rank and stream order), a shape is a step's token sequence, its sums the durations per
// position over its steps. The recorder adds a step's durations to its lane's last shape as they come when the
// step has that shape so far, and puts them back when it turns out not to (a token differs, the step is shorter
// or longer), also while another lane adds a step of the same shape: every such case is generated here.

import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { SequenceRecorder } from '../src/analysis/rewrites/sequence.js';

interface Kernel {
  stream: number;
  step: number;
  token: number;
  dur: number;
}

/** Steps of templates, each maybe changed (a token replaced, cut short, one more), on streams interleaved at random. */
const runs = fc
  .record({
    templates: fc.array(fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 1, maxLength: 6 }), { minLength: 1, maxLength: 3 }),
    steps: fc.array(
      fc.record({
        t: fc.nat(),
        stream: fc.integer({ min: 0, max: 2 }),
        change: fc.integer({ min: 0, max: 5 }),
        at: fc.nat(),
        token: fc.integer({ min: 0, max: 3 }),
        sameId: fc.boolean(),
      }),
      { minLength: 1, maxLength: 40 },
    ),
    picks: fc.array(fc.nat(), { maxLength: 400 }),
    big: fc.boolean(),
  })
  .map(({ templates, steps, picks, big }) => {
    const byStream: Kernel[][] = [[], [], []];
    const lastId = [0, 0, 0];
    steps.forEach((s, k) => {
      const tokens = [...templates[s.t % templates.length]!];
      if (s.change === 3) tokens[s.at % tokens.length] = s.token;
      if (s.change === 4 && tokens.length > 1) tokens.length = 1 + (s.at % (tokens.length - 1));
      if (s.change === 5) tokens.push(s.token);
      // A step of the same id as the stream's last one continues it (after a step of another stream, a split step).
      const step = s.sameId && lastId[s.stream]! > 0 ? lastId[s.stream]! : k + 1;
      lastId[s.stream] = step;
      tokens.forEach((token, i) => {
        // Whole ticks, some past 2^40 (sums stay exact below 2^53).
        const dur = ((k * 7 + i * 13) % 997) + 1 + (big && i === 0 ? 2 ** 40 : 0);
        byStream[s.stream]!.push({ stream: s.stream, step, token, dur });
      });
    });
    // The streams' kernels interleaved, each stream's in its order.
    const out: Kernel[] = [];
    const next = [0, 0, 0];
    let p = 0;
    while (out.length < byStream.flat().length) {
      const open = [0, 1, 2].filter((s) => next[s]! < byStream[s]!.length);
      const s = open[(picks[p++] ?? 0) % open.length]!;
      out.push(byStream[s]![next[s]!++]!);
    }
    return out;
  });

/** The shapes (tokens, steps, sums) and the steps' shapes, as the recorder cuts and orders them. */
function reference(kernels: Kernel[], streamOrder: number[]) {
  const lanes = new Map<number, { step: number; tokens: number[]; durs: number[] }>();
  const shapes: { tokens: number[]; instances: number; sums: number[] }[] = [];
  const steps: { step: number; shape: number }[] = [];
  const close = (lane: { step: number; tokens: number[]; durs: number[] }) => {
    if (lane.tokens.length === 0) return;
    let id = shapes.findIndex((s) => s.tokens.join() === lane.tokens.join());
    if (id < 0) {
      id = shapes.length;
      shapes.push({ tokens: [...lane.tokens], instances: 0, sums: lane.tokens.map(() => 0) });
    }
    const shape = shapes[id]!;
    shape.instances++;
    lane.durs.forEach((d, i) => {
      shape.sums[i]! += d;
    });
    steps.push({ step: lane.step, shape: id });
    lane.tokens = [];
    lane.durs = [];
  };
  for (const k of kernels) {
    let lane = lanes.get(k.stream);
    if (lane === undefined) {
      lane = { step: Number.NaN, tokens: [], durs: [] };
      lanes.set(k.stream, lane);
    }
    if (lane.step !== k.step) {
      close(lane);
      lane.step = k.step;
    }
    lane.tokens.push(k.token);
    lane.durs.push(k.dur);
  }
  for (const s of streamOrder) close(lanes.get(s)!);
  return { shapes, steps };
}

describe("the recorder's sums of a shape", () => {
  test('property: every shape, its steps and its sums per position are those of its steps, whatever lanes interleave', () => {
    fc.assert(
      fc.property(runs, (kernels) => {
        const rec = new SequenceRecorder('type');
        const rank = rec.rank('0');
        const ids = new Map<number, number>();
        for (const k of kernels) {
          if (!ids.has(k.stream)) ids.set(k.stream, rec.stream(String(k.stream)));
          rec.add(rank, ids.get(k.stream)!, k.step, k.token, k.dur, 0);
        }
        const seq = rec.finish();
        const want = reference(kernels, [...ids.keys()]);
        expect(seq.shapes.map((s) => ({ tokens: Array.from(s.tokens), instances: s.instances, sums: Array.from(s.sumTicks) }))).toEqual(want.shapes);
        expect(seq.steps.map((s) => ({ step: s.step, shape: s.shape }))).toEqual(want.steps);
      }),
      {
        numRuns: 600,
        examples: [
          // Two lanes whose last steps had one shape, then steps of another (shorter, then longer), side by side.
          [
            [
              { stream: 0, step: 1, token: 0, dur: 1 },
              { stream: 0, step: 1, token: 0, dur: 14 },
              { stream: 0, step: 2, token: 0, dur: 8 },
              { stream: 1, step: 3, token: 0, dur: 15 },
              { stream: 1, step: 3, token: 0, dur: 28 },
              { stream: 1, step: 4, token: 0, dur: 22 },
              { stream: 1, step: 4, token: 0, dur: 35 },
            ],
          ],
        ],
      },
    );
  });
});
