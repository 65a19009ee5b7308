// countSteps (analysis/rewrites/chainCount.ts) on hand-made step shapes: a step whose two streams each keep a
// kernel of the chain beside the fused one is one step of `kept.steps`, its kernels counted on each stream.

import { expect, test } from 'vitest';
import { countSteps } from '../src/analysis/rewrites/chainCount.js';
import { exactOccurrences } from '../src/analysis/rewrites/match.js';

const [X, A, B, Y, F] = [1, 2, 3, 4, 5];

test('two streams of one step each keep a kernel of the chain: 2 kept kernels in 1 step', () => {
  const base = [new Int32Array([X, A, B, Y]), new Int32Array([X, A, B, Y])];
  const pr = [new Int32Array([X, F, B, Y]), new Int32Array([X, F, B, Y])];
  const tokens: [Int32Array[], Int32Array[]] = [base, pr];
  const rewrite = { removed: new Int32Array([A, B]), added: new Int32Array([F]) };
  const counted = countSteps(
    {
      tokens,
      units: [
        {
          rank: '0',
          shapes: [
            [0, 1],
            [0, 1],
          ],
        },
        {
          rank: '0',
          shapes: [
            [0, 1],
            [0, 1],
          ],
        },
      ],
      exact: (side, shape, chain) => exactOccurrences(tokens[side][shape]!, chain),
    },
    [rewrite],
  ).counted.get(rewrite)!;
  expect(counted.chains).toBe(4);
  expect(counted.perStep).toEqual({ min: 2, max: 2 });
  expect(counted.kept.kernels).toBe(4);
  expect(counted.kept.steps).toBe(2);
  expect([...counted.kept.tokens]).toEqual([[B, 4]]);
});

test('many steps alike over interleaved ranks: each counted, the ranks in order of their first step, one undone', () => {
  // Base: one A·B chain, two, none; PR: the fused F, one A·B chain.
  const base = [new Int32Array([X, A, B, Y]), new Int32Array([X, A, B, A, B, Y]), new Int32Array([X, Y])];
  const pr = [new Int32Array([X, F, Y]), new Int32Array([X, A, B, Y])];
  const tokens: [Int32Array[], Int32Array[]] = [base, pr];
  const rewrite = { removed: new Int32Array([A, B]), added: new Int32Array([F]) };
  // Rank 1 replaced one chain a step (5 steps), rank 0 none (2 steps, one of another base shape), rank 3 ran one more
  // than its base in each of its 3 steps.
  const unit = (rank: string, b: number, p: number) => ({ rank, shapes: [[b], [p]] as [number[], number[]] });
  const units = [
    unit('1', 0, 0),
    unit('0', 1, 1),
    unit('3', 2, 1),
    unit('1', 0, 0),
    unit('0', 0, 1),
    unit('3', 2, 1),
    unit('1', 0, 0),
    unit('3', 2, 1),
    unit('1', 0, 0),
    unit('1', 0, 0),
  ];
  const counted = countSteps({ tokens, units, exact: (side, shape, chain) => exactOccurrences(tokens[side][shape]!, chain) }, [rewrite]).counted.get(
    rewrite,
  )!;
  expect(counted.chains).toBe(2);
  expect(counted.ranks).toEqual(['1']);
  expect(counted.undone).toEqual({ ranks: ['3'], chains: 3 });
  expect(counted.perStep).toEqual({ min: 0, max: 1 });
});
