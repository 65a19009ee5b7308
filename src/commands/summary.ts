// `kprof summary <profile>`: read, group, render.

import { fitHint, terminalFit } from './terminalFit.js';
import { selectionRawNames } from '../input/rawNames.js';
import { emptyGroupMessages, emptySelectionMessages, emptySelectionWarnings, requireSelectedSteps } from '../analysis/emptySelection.js';
import { summarize, type SummarySort } from '../aggregate/group.js';
import { emit, colorEnabled, type Io, type Report } from '../util/io.js';
import {
  apartNote,
  shortenedNote,
  unreadNote,
  chooseBy,
  namesLeftOut,
  namesNeeded,
  namesOnlyProfile,
  parseCommon,
  savedSelectionOf,
  parseTop,
  stepTimeFits,
  type CommonFlags,
} from './options.js';
import type { SummaryFormat } from '../report/choices.js';
import { readProfile } from '../input/read.js';
import { SUMMARY_REPORTERS } from '../report/registry.js';
import { warningLines } from '../report/warnings.js';
import { inputError, KprofError } from '../util/errors.js';
import { MAX_SNAPSHOT_BYTES, sizeText } from '../input/formats/summary/snapshot.js';
import { formatOf, witnessText } from '../input/formats/registry.js';
import { shown } from '../util/inputText.js';
import { collectGarbage } from '../util/heap.js';
import { fmtCount, ranksNamed } from '../util/format.js';
import { shownRows } from '../report/summary/shared.js';
import type { Progress } from '../model/progress.js';
import { GROUP_BY_FIELDS, GROUP_BYS, type Profile, type Summary } from '../model/model.js';
import { witnessLines } from '../report/witness.js';
import { witnessProfile, type Witnessed } from '../analysis/witness.js';

export interface SummaryFlags extends CommonFlags {
  /** Tables and lines whole on a terminal too (not fitted to its width). */
  wide?: boolean;
  format: SummaryFormat;
  sort: SummarySort;
  top?: string;
  out?: string;
  strict?: boolean;
  witness?: boolean;
  stepTime?: boolean;
}

/** The heap in use (live and garbage) after `summarize` from which it is collected: never of a few hundred groups. */
const COLLECT_AFTER_SUMMARY_BYTES = 64 << 20;

export async function summaryCommand(profile: string, flags: SummaryFlags, io: Io, progress: Progress): Promise<number> {
  const common = parseCommon(flags);
  const top = parseTop(flags.top);
  stepTimeFits(flags.stepTime, flags.format);
  // Kernel names are kept only when the grouping or the selection reads them (namesNeeded).
  const kernelNames = namesNeeded(common.by, common.selection);
  const read = (names: boolean, onBytes: ReturnType<Progress['tracker']>) =>
    readProfile(profile, {
      withShapes: common.withShapes,
      ranks: common.selection.ranks,
      rawNames: selectionRawNames(common.selection),
      kernelNames: names,
      shortNames: flags.shortNames === true,
      onBytes,
      prefer: common.prefer,
      stepTime: flags.stepTime === true,
    });
  let data = await read(kernelNames, progress.tracker(profile));
  progress.done();
  requireSelectedSteps(data, common.selection);
  apartNote([data], io);
  shortenedNote([data], io);
  unreadNote([data], io);
  const by = chooseBy(common.byGiven, common.by, [data], io, GROUP_BYS);
  // Grouped by name after all (a rank of kernel names only beside ranks with types): read again with the names.
  if (!kernelNames && namesNeeded(by, common.selection) && namesLeftOut([data])) data = await read(true, undefined);
  const saved = savedSelectionOf(common.selection, flags.shortNames);
  const s = summarize(data, {
    by,
    selection: common.selection,
    stepTime: flags.stepTime === true,
    // Its groups are read a few times each (the report): by name, made on read rather than held (a million names).
    groupsOnRead: true,
    ...(saved !== undefined ? { savedSelection: saved } : {}),
  });
  // The garbage of grouping a million groups, collected before the report grows the heap beside it (util/heap.ts).
  collectGarbage(COLLECT_AFTER_SUMMARY_BYTES);
  io.stderr(warningLines(s.warnings, s.warningCount, s.skippedRows, { inReport: flags.format !== 'csv' }));
  if (!common.byGiven) io.stderr(typelessNote(s));
  io.stderr(emptySelectionWarnings([...emptySelectionMessages(data, common.selection, s), ...emptyGroupMessages(data, common.selection, s)]));
  strictCheck(flags.strict, s.skippedRows);
  if (flags.witness) io.stderr(witnessReport(data, await witnessProfile(data)));
  const view = { sort: flags.sort, top };
  const fit = flags.format === 'table' ? terminalFit(io, flags.out, flags.wide) : undefined;
  const ctx = { color: flags.out === undefined && colorEnabled(io, io.stdoutIsTTY), ...(fit ? { fit } : {}) };
  const reporter = await SUMMARY_REPORTERS[flags.format]();
  const report = reporter(s, view, ctx);
  const making: SnapshotMaking = { command: 'summary', by, typesKnown: !namesOnlyProfile(data), stepIds: s.stepIds, ranks: s.ranks };
  await emit(io, flags.out, flags.format === 'json' ? readableSnapshot(report, snapshotLimit(io), flags.out, making) : report);
  // The labels are read only of a profile of kernel names only (their length): not made for a million names else.
  const gpuNames = flags.shortNames !== true && namesOnlyProfile(data);
  io.stderr(fitHint(fit, gpuNames, gpuNames && (flags.format === 'table' || flags.format === 'markdown') ? shownRows(s, view).labels() : []));
  return 0;
}

/**
 * The largest summary JSON kprof writes: the largest it reads back (MAX_SNAPSHOT_BYTES). KPROF_SNAPSHOT_LIMIT
 * (bytes) lowers it, for tests only (CONTRIBUTING.md): a real one that large takes minutes to make.
 */
export function snapshotLimit(io: Io): number {
  const v = io.env.KPROF_SNAPSHOT_LIMIT;
  return v !== undefined && /^\d+$/.test(v) && Number(v) < MAX_SNAPSHOT_BYTES ? Number(v) : MAX_SNAPSHOT_BYTES;
}

/** What made a summary JSON, for the advice on making it smaller: a summary's grouping, Step Ids and ranks, or a merge. */
export type SnapshotMaking =
  | { command: 'summary'; by: string; typesKnown: boolean; stepIds: readonly number[]; ranks: readonly string[] }
  | { command: 'merge' };

/** What would make a summary JSON smaller, given how it was made (only what applies, and what its command takes). */
export function smallerAdvice(m: SnapshotMaking): string {
  const folder = 'a folder of summary JSONs is read as one profile';
  if (m.command === 'merge') return `merge fewer files into each (one per node or per rack), or leave them unmerged: ${folder}`;
  const ways: string[] = [];
  if (m.typesKnown && m.by !== 'type' && m.by !== 'core') ways.push(`group by type rather than ${m.by} (--by type)`);
  if (m.stepIds.length > 10) ways.push(`summarise fewer steps (--steps ${m.stepIds[0]}-${m.stepIds[9]}: 10 of its ${m.stepIds.length})`);
  if (m.ranks.length > 1)
    ways.push(`summarise fewer ranks per file (--rank ${shown(m.ranks[0]!)}, one file per rank) and put the files in one folder: ${folder}`);
  ways.push(`leave out the kernels not needed (--exclude <regex>${m.typesKnown ? ', --core' : ''})`);
  return ways.join('; or ');
}

/**
 * A summary JSON as it is written, stopped with an input error (exit 2) before it grows past `limit` bytes:
 * kprof would refuse to read it back, and a snapshot kept as a baseline must read back. With --out nothing is
 * written (the temporary file is removed); stdout holds what was written before the stop.
 */
export function* readableSnapshot(report: Report, limit: number, out: string | undefined, making: SnapshotMaking): Generator<string> {
  let bytes = 0;
  for (const chunk of typeof report === 'string' ? [report] : report) {
    bytes += Buffer.byteLength(chunk);
    if (bytes > limit) {
      throw inputError(
        `${out !== undefined ? `${shown(out)}: the summary JSON` : 'The summary JSON on stdout'} would be more than ${sizeText(limit)}, the largest summary JSON kprof reads back, ` +
          `so ${out !== undefined ? 'nothing was written' : 'it was stopped there and is cut short'}. Make it smaller: ${smallerAdvice(making)}.`,
      );
    }
    yield chunk;
  }
}

/** --witness on stderr: one verdict per kernel table with an op_statistic beside it, or why there is none. */
function witnessReport(data: Profile, w: Witnessed): string {
  const lines: string[] = [];
  for (const r of w.results) {
    const where = data.ranks.length > 1 && r.ranks.length === 1 ? `${ranksNamed(r.ranks, shown)}: ` : '';
    lines.push(...witnessLines(r, '').map((l, i) => (i === 0 ? `kprof: witness: ${where}${l}` : `kprof: witness: ${l}`)));
  }
  if (w.withoutStatistic.length > 0) {
    const ranks = w.withoutStatistic;
    lines.push(`kprof: witness: ${ranksNamed(ranks, shown)}: no ${witnessText().totals} beside the kernel table, nothing to cross-check against.`);
  }
  if (lines.length === 0) {
    const w = witnessText();
    // Kernels of a format that declares no totals beside it (a trace, a kernel log): said as such, not as no kernels.
    const files = data.ranks.filter((r) => !r.snapshot).flatMap((r) => r.files.map((f) => formatOf(f.format)));
    const unwitnessed = [...new Set(files)].filter((f) => f.holds === 'kernels' && f.witness === undefined).map((f) => f.naming.title);
    const why =
      unwitnessed.length === 0
        ? 'this input has no kernel table'
        : `this input is ${unwitnessed.join(' and ')}, which has no totals of the same kernels beside it`;
    lines.push(`kprof: witness: nothing to cross-check: --witness compares a kernel table (${w.tables}) with the ${w.totals} beside it, and ${why}.`);
  }
  return `${lines.join('\n')}\n`;
}

/**
 * Kernels whose Type is N/A (a Level0 export) grouped by a type they lack are one N/A row, of every kernel where
 * the whole export is Level0: said once, with the grouping that shows them apart, as inspect and diff say it.
 */
export function typelessNote(s: Summary): string {
  if (!(GROUP_BY_FIELDS[s.groupBy] as readonly string[]).includes('type')) return '';
  const na = s.groups.filter((g) => g.type === 'N/A').reduce((n, g) => n + g.total.count, 0);
  if (na === 0) return '';
  return `kprof: note: Type is N/A for ${fmtCount(na)} of ${fmtCount(s.totals.count)} kernels (a Level0 export writes no types): grouped by ${s.groupBy}, they are one N/A row; --by name shows them apart.\n`;
}

/** --strict: any skipped row makes the input unusable. */
export function strictCheck(strict: boolean | undefined, skipped: number): void {
  if (strict && skipped > 0) {
    throw new KprofError(
      'input',
      `--strict: ${skipped} row${skipped === 1 ? '' : 's'} could not be read (see the warnings above); no report written.`,
    );
  }
}
