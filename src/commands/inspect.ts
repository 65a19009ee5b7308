// `kprof inspect <profile>`: what was found and how it will be read.

import type { InspectFormat } from '../report/choices.js';
import { emit, type Io } from '../util/io.js';
import { parsePrefer, parseRanks } from './options.js';
import type { Progress } from '../model/progress.js';
import { skippedRowsOf } from '../model/model.js';
import { readProfile } from '../input/read.js';
import { INSPECT_REPORTERS } from '../report/registry.js';
import { warningLines } from '../report/warnings.js';
import { witnessProfile } from '../analysis/witness.js';

export interface InspectFlags {
  format: InspectFormat;
  rank?: string;
  out?: string;
  shortNames?: boolean;
  prefer?: string;
}

export async function inspectCommand(profile: string, flags: InspectFlags, io: Io, progress: Progress): Promise<number> {
  const data = await readProfile(profile, {
    withShapes: false,
    withSpan: true,
    ranks: parseRanks(flags.rank),
    shortNames: flags.shortNames === true,
    onBytes: progress.tracker(profile),
    prefer: parsePrefer(flags.prefer),
  });
  progress.done();
  const witness = await witnessProfile(data);
  const warnings = data.ranks.flatMap((r) => r.warnings);
  const count = data.ranks.reduce((n, r) => n + r.warningCount, 0);
  const skipped = skippedRowsOf(data.ranks);
  io.stderr(warningLines(warnings, count, skipped));
  const reporter = await INSPECT_REPORTERS[flags.format]();
  await emit(io, flags.out, reporter(data, witness, { color: false }));
  return 0;
}
