// `kprof summary <profile>`: read, group, render.

import { emptySelectionMessages, emptySelectionWarnings } from '../emptySelection.js';
import { summarize, type SummarySort } from '../group.js';
import { emit, colorEnabled, type Io } from '../io.js';
import { parseCommon, parseTop, type CommonFlags } from '../options.js';
import type { OutputFormat } from '../choices.js';
import { readProfile } from '../read.js';
import { SUMMARY_REPORTERS } from '../reporters/summary.js';
import { warningLines } from '../warnings.js';
import { KprofError } from '../errors.js';
import type { Progress } from '../progress.js';

export interface SummaryFlags extends CommonFlags {
  format: OutputFormat;
  sort: SummarySort;
  top?: string;
  out?: string;
  strict?: boolean;
}

export async function summaryCommand(profile: string, flags: SummaryFlags, io: Io, progress: Progress): Promise<number> {
  const common = parseCommon(flags);
  const top = parseTop(flags.top);
  const data = await readProfile(profile, { withShapes: common.withShapes, ranks: common.selection.ranks, onBytes: progress.tracker(profile) });
  progress.done();
  const s = summarize(data, { by: common.by, selection: common.selection });
  io.stderr(warningLines(s.warnings, s.warningCount, s.skippedRows));
  io.stderr(emptySelectionWarnings(emptySelectionMessages(data, common.selection, s)));
  strictCheck(flags.strict, s.skippedRows);
  const view = { sort: flags.sort, top };
  const ctx = { color: flags.out === undefined && colorEnabled(io, io.stdoutIsTTY) };
  emit(io, flags.out, SUMMARY_REPORTERS[flags.format](s, view, ctx));
  return 0;
}

/** --strict: any skipped row makes the input unusable. */
export function strictCheck(strict: boolean | undefined, skipped: number): void {
  if (strict && skipped > 0) {
    throw new KprofError('input', `--strict: ${skipped} row${skipped === 1 ? '' : 's'} could not be read (see the warnings above); no report written.`);
  }
}
