// Step sequences recorded as a reader records them (SequenceRecorder, grouped by type), for the Fusion rewrites'
// tests: `ranks` ranks on stream 2 (each recorded apart and merged, as a read does), `steps` steps (Step Ids from 1)
// of `layers` layers each, kernels back to back.

import { mergeRecorded } from '../src/analysis/rewrites/recorderSink.js';
import { SequenceRecorder, type Sequences } from '../src/analysis/rewrites/sequence.js';

export interface StepsSpec {
  ranks?: number;
  layers: number;
  steps: number;
  /** The kernels of layer `l` of a step: a type, or a type and its own duration (ticks). */
  layer: (rank: number, step: number, l: number) => (string | [string, number])[];
  /** The duration (ticks) of a kernel of a type given alone. */
  dur: (type: string, rank: number, step: number) => number;
  /** Kernels of each step on a second stream (`besideStream`, default 3), beside the layers. */
  beside?: (rank: number, step: number) => (string | [string, number])[];
  besideStream?: string;
  /** Whether the second stream's kernels start after the layers' (default: with them). */
  besideAfter?: boolean;
}

export function recordSteps(spec: StepsSpec): Sequences {
  const ranks = spec.ranks ?? 1;
  if (ranks === 1) return recordRank(spec, 0);
  // A rank a part, merged as a read merges its ranks' recordings.
  return mergeRecorded(
    'type',
    Array.from({ length: ranks }, (_, rank) => ({ rank: String(rank), seq: recordRank(spec, rank) })),
  );
}

function recordRank(spec: StepsSpec, rank: number): Sequences {
  const rec = new SequenceRecorder('type');
  const r = rec.rank(String(rank));
  const s = rec.stream('2');
  const s3 = rec.stream(spec.besideStream ?? '3');
  let t = 0;
  for (let step = 1; step <= spec.steps; step++) {
    const at = t;
    for (let l = 0; l < spec.layers; l++)
      for (const k of spec.layer(rank, step, l)) {
        const [type, dur] = typeof k === 'string' ? [k, spec.dur(k, rank, step)] : k;
        rec.add(r, s, step, rec.table.intern(type), dur, t);
        t += dur + 10_000;
      }
    let u = spec.besideAfter === true ? t : at + 5_000;
    for (const k of spec.beside?.(rank, step) ?? []) {
      const [type, dur] = typeof k === 'string' ? [k, spec.dur(k, rank, step)] : k;
      rec.add(r, s3, step, rec.table.intern(type), dur, u);
      u += dur + 10_000;
    }
  }
  return rec.finish();
}
