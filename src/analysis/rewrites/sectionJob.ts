// The Fusion rewrites section as a job (input/workers/jobs.ts): `kprof diff` runs it in a read worker kept after
// the reads, while the main thread groups and diffs, and here when the inputs were read here. Registered in the
// worker's entry (src/cli/readWorker.ts); the section is plain data, so its clone is the section. The sequences'
// sample arrays are moved to the worker: the caller reads nothing of the sequences (nor of those it read them from)
// after.

import type { WorkerJob } from '../../input/workers/jobs.js';
import type { GroupBy } from '../../model/model.js';
import type { SideSequences } from './recorderSink.js';
import { rewritesSection, type RewritesSection, type SectionOptions } from './section.js';

export interface SectionInput {
  by: GroupBy;
  base: SideSequences;
  pr: SideSequences;
  options: Partial<SectionOptions>;
}

export const REWRITES_SECTION_JOB: WorkerJob<SectionInput, RewritesSection> = {
  name: 'kprof.rewritesSection',
  run: ({ by, base, pr, options }) => rewritesSection(by, base, pr, options),
  // The sampled steps' durations and starts are most of the bytes (a megabyte or more a side): moved, not copied.
  // Those of a rank read in a worker are views of one buffer of its recorded sequences (unpackRecorded), which is
  // moved whole: the caller gives up the sequences of the profiles these came from.
  transfer: ({ base, pr }) => {
    const buffers = new Set<ArrayBuffer>();
    for (const side of [base, pr]) {
      if (!side.ok) continue;
      for (const shape of side.seq.shapes) {
        for (const a of shape.sampleDurTicks) if (a.buffer instanceof ArrayBuffer) buffers.add(a.buffer);
        for (const a of shape.sampleStartTicks) if (a.buffer instanceof ArrayBuffer) buffers.add(a.buffer);
        for (const a of shape.rankTicks?.values() ?? []) if (a.buffer instanceof ArrayBuffer) buffers.add(a.buffer);
      }
    }
    return [...buffers];
  },
};
