// `kprof diff <base> <pr>`: read both inputs at once, group them alike, diff, render.

import { fitHint, terminalFit } from './terminalFit.js';
import { selectionRawNames } from '../input/rawNames.js';
import { extensionFormat, formatLabel, type DiffFormat } from '../report/choices.js';
import { incomparableMessages } from '../analysis/comparable.js';
import { emptySelectionMessages, emptySelectionWarnings, requireSelectedSteps } from '../analysis/emptySelection.js';
import { diffSummaries, viewDiff, type Diff, type DiffOnly, type DiffSort, type DiffView } from '../analysis/diff.js';
import { DEFAULT_ALPHA } from '../analysis/timeTest.js';
import { usageError } from '../util/errors.js';
import { escaped, given, shown, inQuotes } from '../util/inputText.js';
import { forgetGroupsByKey, shareKeys, summarize } from '../aggregate/group.js';
import { collectGarbage } from '../util/heap.js';
import { plural } from '../util/format.js';
import { colorEnabled, distinctOutputs, emit, type Io, outputsNotInputs } from '../util/io.js';
import {
  apartNote,
  shortenedNote,
  unreadNote,
  chooseBy,
  namesLeftOut,
  namesNeeded,
  namesOnlyProfile,
  parseCommon,
  parseTop,
  plannedBy,
  savedSelectionOf,
  sequencesBy,
  stepTimeFits,
  type CommonFlags,
} from './options.js';
import type { Progress } from '../model/progress.js';
import { GROUP_BYS, type GroupBy, type Profile, type Summary } from '../model/model.js';
import { holdReadWorkers, planPair, readProfile, runJob, type PlannedProfile } from '../input/read.js';
import { diffWarnings } from '../report/diff/shared.js';
import { unavailableText } from '../report/diff/rewrites.js';
import { DIFF_REPORTERS } from '../report/registry.js';
import { warningLines } from '../report/warnings.js';
import { strictCheck } from './summary.js';
import { DEFAULT_NOISE } from '../analysis/noise.js';
import { profileSequences, SEQUENCE_RECORDER } from '../analysis/rewrites/recorderSink.js';
import { rewritesScope, type RewritesSection } from '../analysis/rewrites/section.js';
import { REWRITES_SECTION_JOB, type SectionInput } from '../analysis/rewrites/sectionJob.js';
import { fusionsFile } from '../analysis/audit/saveFusions.js';

/** A stage of diff that leaves this much heap or more (live and garbage) is followed by a collection. */
const COLLECT_AFTER_STAGE_BYTES = 256 << 20;
/**
 * …and the summaries, from this much: by name, the two sides' names and groups alone are ~180 MB of a million
 * names, and their garbage (the PR's copies of the names, once shared) must go before the diff's rows grow.
 */
const COLLECT_AFTER_SUMMARIES_BYTES = 128 << 20;

/**
 * The rewrites section runs in the read worker (beside the grouping and diffing here) when the two sides have at
 * most this many distinct tokens in all: kernel types, or the names of a profile of a few thousand; past it, here.
 */
const JOB_MAX_TOKENS = 1 << 16;

/** The distinct tokens (types or names) of the section's two sides. */
function tokensOf(input: SectionInput): number {
  return (input.base.ok ? input.base.seq.tokens.length : 0) + (input.pr.ok ? input.pr.seq.tokens.length : 0);
}

export interface DiffFlags extends CommonFlags {
  /** Tables and lines whole on a terminal too (not fitted to its width). */
  wide?: boolean;
  format: DiffFormat;
  sort: DiffSort;
  only?: DiffOnly;
  top?: string;
  out?: string;
  strict?: boolean;
  perStep?: boolean;
  timeTolerance: string;
  rewrites?: 'on' | 'off';
  layerMarker?: string;
  alpha?: string;
  stepTime?: boolean;
  saveFusions?: string;
}

/**
 * `--time-tolerance 2` or `2%`: a percentage from 0 to 100. A time that is not zero falls by less than 100%, so a
 * tolerance above 100 hides no more speed-ups than 100 does, only larger slow-downs: not the symmetric ±PCT it
 * says (as `fell-by-at-least` of a rules file, at most 100%).
 */
export function parseTolerance(text: string): number {
  const m = /^\s*(\d+(?:\.\d+)?|\.\d+)\s*%?\s*$/.exec(text);
  if (!m) throw usageError(`--time-tolerance: expected a percentage such as 2 or 0.5%; found ${given(text)}.`);
  const pct = Number(m[1]);
  if (!(pct <= 100)) {
    throw usageError(
      `--time-tolerance: expected a percentage from 0 to 100, such as 2 or 0.5%; found ${inQuotes(shown(text))}. ` +
        'A time falls by 100% at most, so a tolerance above 100 is not ±: it hides more slow-downs only. Give 100 or less (the default is 2).',
    );
  }
  return pct;
}

/** `--alpha 0.05`: a significance level, above 0 and below 1. */
export function parseAlpha(text: string): number {
  const m = /^\s*(0?\.\d+|0|1)\s*$/.exec(text);
  const a = m ? Number(m[1]) : Number.NaN;
  if (!(a > 0 && a < 1)) throw usageError(`--alpha: expected a significance level between 0 and 1 such as 0.05 or 0.01; found ${given(text)}.`);
  return a;
}

/** Warnings about each side: said once for both when they are the same. */
function sideWarnings(base: string[], pr: string[]): string {
  const both = base.filter((m) => pr.includes(m));
  return (
    emptySelectionWarnings(both, 'base and PR: ') +
    emptySelectionWarnings(
      base.filter((m) => !both.includes(m)),
      'base: ',
    ) +
    emptySelectionWarnings(
      pr.filter((m) => !both.includes(m)),
      'PR: ',
    )
  );
}

export async function diffCommand(base: string, pr: string, flags: DiffFlags, io: Io, progress: Progress): Promise<number> {
  distinctOutputs(
    [
      ['-o', flags.out],
      ['--save-fusions', flags.saveFusions],
    ],
    [base, pr, ...(flags.groups !== undefined ? [flags.groups] : [])],
  );
  // A name whose extension says another format (x.json) would hide the YAML catalogue written under it.
  const named = flags.saveFusions === undefined ? undefined : extensionFormat(flags.saveFusions);
  if (named !== undefined) {
    throw usageError(
      `--save-fusions ${escaped(flags.saveFusions!)}: it writes a YAML fusion catalogue, and this name says ${formatLabel(named)}. Name it .yaml or .yml (kprof audit --catalogue reads it).`,
    );
  }
  const common = parseCommon(flags);
  // --save-fusions writes the rewrites the section finds, by type: options that rule it out are said before the read.
  if (flags.saveFusions !== undefined && flags.rewrites === 'off') {
    throw usageError(
      '--save-fusions: it writes the fusions the Fusion rewrites section finds, and --rewrites off turns the section off. Leave one of them out.',
    );
  }
  if (flags.saveFusions !== undefined && common.byGiven && common.by !== 'type') {
    throw usageError(
      `--save-fusions: a fusion catalogue names kernel types, and --by ${common.by} groups the rewrites otherwise. Leave --by out (or pass --by type).`,
    );
  }
  if (flags.layerMarker !== undefined && flags.rewrites === 'off') {
    throw usageError(
      '--layer-marker: it marks the layers of the Fusion rewrites section, and --rewrites off turns the section off. Leave one of them out.',
    );
  }
  stepTimeFits(flags.stepTime, flags.format);
  if (flags.layerMarker === '') {
    throw usageError(
      '--layer-marker: expected a kernel type or name; found an empty value (an unset variable?). Leave --layer-marker out to have one found.',
    );
  }
  const view: DiffView = { sort: flags.sort, only: flags.only ?? null, top: parseTop(flags.top) };
  const timeTolerancePct = parseTolerance(flags.timeTolerance);
  // The rewrites section reads each rank's kernel sequence beside its accumulator (on by default).
  const rewrites = flags.rewrites !== 'off';
  const alpha = parseAlpha(flags.alpha ?? String(DEFAULT_ALPHA));
  const read = (input: PlannedProfile, recordBy: GroupBy | null, track: boolean, kernelNames = true) =>
    readProfile(input, {
      withShapes: common.withShapes,
      ranks: common.selection.ranks,
      rawNames: selectionRawNames(common.selection),
      kernelNames,
      shortNames: flags.shortNames === true,
      ...(track ? { onBytes: progress.tracker(input.input) } : {}),
      beside: recordBy !== null ? { kind: SEQUENCE_RECORDER, options: { by: recordBy, steps: common.selection.steps } } : null,
      prefer: common.prefer,
      stepTime: flags.stepTime === true,
    });
  // The sequences are keyed by the grouping, which is told from the plans before the read (chooseBy says it after).
  const planned = planPair([base, pr], { ranks: common.selection.ranks, prefer: common.prefer });
  const recordBy = rewrites ? plannedBy(common.byGiven, common.by, planned) : null;
  // Kernel names are kept only when the grouping or the selection reads them (namesNeeded).
  const kernelNames = namesNeeded(plannedBy(common.byGiven, common.by, planned), common.selection);
  // The rewrites section runs in a read worker kept after the reads (if the inputs were read in one), while this
  // thread groups and diffs.
  const release = rewrites ? holdReadWorkers() : () => {};
  let b: Profile;
  let p: Profile;
  let sb: Summary;
  let sp: Summary;
  let d: Diff;
  let by: GroupBy;
  try {
    [b, p] = await Promise.all([read(planned[0], recordBy, true, kernelNames), read(planned[1], recordBy, true, kernelNames)]);
    progress.done();
    requireSelectedSteps(b, common.selection);
    requireSelectedSteps(p, common.selection);
    // Both sides go through summarize with the same options: a summary JSON made with other grouping or
    // filters is refused there, with the command that regenerates it.
    apartNote([b, p], io);
    shortenedNote([b, p], io);
    unreadNote([b, p], io);
    by = chooseBy(common.byGiven, common.by, [b, p], io, GROUP_BYS);
    // Grouped by name after all (what only the read tells, see plannedBy): read both sides again with the names.
    if (!kernelNames && namesNeeded(by, common.selection) && namesLeftOut([b, p]))
      [b, p] = await Promise.all([read(planned[0], recordBy, false), read(planned[1], recordBy, false)]);
    let section: Promise<RewritesSection> | null = null;
    let made: RewritesSection | null = null;
    const recorded: Profile[] = [b, p];
    if (rewrites) {
      // The sequences follow the grouping used (read again by it only where the plans could not tell it).
      const [rb, rp] = await sequencesBy(by, recordBy ?? by, [b, p], (side) => read(planned[side], by, false));
      recorded.push(rb, rp);
      // Let go of once the section is made here (below): a variable that still held it would keep it from the collector.
      let input: SectionInput | null = {
        by,
        base: profileSequences(rb, by),
        pr: profileSequences(rp, by),
        options: {
          layerMarker: flags.layerMarker ?? null,
          noise: { ...DEFAULT_NOISE, alpha, minEffect: timeTolerancePct / 100 },
          scope: rewritesScope(common.selection),
        },
      };
      if (tokensOf(input) <= JOB_MAX_TOKENS) {
        section = runJob(REWRITES_SECTION_JOB, input);
        // Awaited below; a failure of the grouping first must not leave it unhandled.
        section.catch(() => {});
        // The ranks' recorded sequences are read by nothing once the section's input is made.
        for (const r of recorded.flatMap((x) => x.ranks)) delete r.beside;
      } else {
        // Many distinct tokens (grouped by name, a name per call): a copy in a worker beside this thread's would
        // cost more memory than the time it saves; the worker kept for it is stopped now. Made here, before the
        // summaries and the diff: the ranks' recorded sequences (of a million names, tens of MB a side) and the
        // section's garbage are then let go before the summaries and the diff's rows grow the heap, not beside them
        // (collected whatever the heap holds: this path is taken only past 65,536 distinct tokens).
        release();
        made = REWRITES_SECTION_JOB.run(input);
        input = null;
        for (const r of recorded.flatMap((x) => x.ranks)) delete r.beside;
        collectGarbage(0);
      }
    }
    const saved = savedSelectionOf(common.selection, flags.shortNames);
    // By name of a million names alone in them, each side's groups are made on read, not held (summarize).
    const opts = {
      by,
      selection: common.selection,
      stepTime: flags.stepTime === true,
      groupsOnRead: true,
      ...(saved !== undefined ? { savedSelection: saved } : {}),
    };
    sb = summarize(b, opts);
    sp = summarize(p, opts);
    io.stderr(warningLines(sb.warnings, sb.warningCount, sb.skippedRows, { inReport: flags.format !== 'csv', side: 'base' }));
    io.stderr(warningLines(sp.warnings, sp.warningCount, sp.skippedRows, { inReport: flags.format !== 'csv', side: 'PR' }));
    io.stderr(sideWarnings(emptySelectionMessages(b, common.selection, sb), emptySelectionMessages(p, common.selection, sp)));
    io.stderr(emptySelectionWarnings(incomparableMessages(b, p, by, common.selection)));
    strictCheck(flags.strict, sb.skippedRows + sp.skippedRows);
    // The names both sides have held once (the PR's copies are then garbage), and the garbage of grouping a
    // million groups (a hundred MB and more), collected before the diff grows the heap beside it.
    shareKeys(sb, sp);
    collectGarbage(COLLECT_AFTER_SUMMARIES_BYTES);
    d = diffSummaries(sb, sp, { normalization: flags.perStep ? 'per-step' : 'none', timeTolerancePct, alpha });
    // The diff's indexes of each side's groups by key are not read again (of a million groups, some 40 MB each);
    // with the garbage of grouping and diffing a million groups (hundreds of MB), collected at once, before the
    // report grows the heap beside it (util/heap.ts).
    forgetGroupsByKey(sb);
    forgetGroupsByKey(sp);
    collectGarbage(COLLECT_AFTER_STAGE_BYTES);
    if (section !== null) d.rewrites = await section;
    if (made !== null) d.rewrites = made;
  } finally {
    release();
  }
  if (flags.saveFusions !== undefined) {
    // --save-fusions: the rewrites as catalogue entries for kprof audit (needs the rewrites by type).
    if (d.rewrites?.status !== 'ok' || by !== 'type') {
      // What the inputs lack, as the report's section would say it (the report is not written: exit 2).
      const why =
        by !== 'type'
          ? `the inputs are grouped by ${by} (they name their kernels only), and a fusion catalogue names kernel types. Save fusions from exports that give op types (kprof inspect says what each file gives).`
          : d.rewrites?.status === 'unavailable'
            ? `the Fusion rewrites section is ${unavailableText(d.rewrites, (t) => t)}`
            : 'there is no Fusion rewrites section.';
      throw usageError(`--save-fusions: needs the Fusion rewrites section by type; ${why}`);
    }
    const saved = fusionsFile(d.rewrites.result.rewrites, base, pr);
    outputsNotInputs([
      ['-o', flags.out],
      ['--save-fusions', flags.saveFusions],
    ]);
    const went = await emit(io, flags.saveFusions, saved.text, '--save-fusions');
    io.stderr(
      `kprof: --save-fusions: ${saved.written} entr${saved.written === 1 ? 'y' : 'ies'} written to ${went === 'file' ? shown(flags.saveFusions) : went}${saved.skipped > 0 ? ` (${plural(saved.skipped, 'rewrite')} left out: nothing fused, or a kernel type a catalogue cannot name)` : ''}.\n`,
    );
  }
  io.stderr(diffWarnings(d));
  const fit = flags.format === 'table' ? terminalFit(io, flags.out, flags.wide) : undefined;
  const ctx = { color: flags.out === undefined && colorEnabled(io, io.stdoutIsTTY), ...(fit ? { fit } : {}) };
  const reporter = await DIFF_REPORTERS[flags.format]();
  const report = reporter(d, { ...view, sides: { base: sb, pr: sp } }, ctx);
  await emit(io, flags.out, report);
  // The keys are read only of a profile of kernel names only (their length): not listed for a million names else.
  const gpuNames = flags.shortNames !== true && (namesOnlyProfile(b) || namesOnlyProfile(p));
  io.stderr(
    fitHint(fit, gpuNames, gpuNames && (flags.format === 'table' || flags.format === 'markdown') ? viewDiff(d, view).rows.map((r) => r.key) : []),
  );
  return 0;
}
