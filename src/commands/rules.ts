// `kprof rules <base> <pr>`: a starter rules file that locks in what a change achieved (see rules/generate.ts).

import { selectionRawNames } from '../input/rawNames.js';
import { noStepsText } from '../input/formats/registry.js';
import type { RulesBy } from '../report/choices.js';
import { diffSummaries } from '../analysis/diff.js';
import { requireSelectedSteps } from '../analysis/emptySelection.js';
import { usageError } from '../util/errors.js';
import { escaped, given, shellWord, shown, inQuotes } from '../util/inputText.js';
import { summarize } from '../aggregate/group.js';
import { emit, type Io } from '../util/io.js';
import type { Profile, Selection } from '../model/model.js';
import { chooseBy, DEFAULT_BY, parseCommon, plannedBy, savedSelectionOf, sequencesBy, unreadNote, type CommonFlags } from './options.js';
import { relPath } from '../util/paths.js';
import { rankOption } from '../util/format.js';
import type { Progress } from '../model/progress.js';
import { planPair, readProfile, type PlannedProfile } from '../input/read.js';
import { generateRules } from '../rules/generate.js';
import { profileSequences, SEQUENCE_RECORDER, type Unavailable } from '../analysis/rewrites/recorderSink.js';
import { findRewrites, type Rewrites } from '../analysis/rewrites/rewrites.js';
import { scopeProfile } from '../rules/scope.js';
import { warningLines } from '../report/warnings.js';
import { extensionFormat, formatLabel } from '../report/choices.js';
import { strictCheck } from './summary.js';

export interface RulesFlags extends CommonFlags {
  by?: RulesBy | undefined;
  cutThreshold: string;
  margin: string;
  out?: string;
  strict?: boolean;
}

/** `20`, `20%` → 20. */
export function parsePercent(flag: string, text: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*%?\s*$/.exec(text);
  // 400 digits read as Infinity: no percentage.
  if (!m || !Number.isFinite(Number(m[1]))) throw usageError(`${flag}: expected a percentage such as 20 or 20%; found ${given(text)}.`);
  return Number(m[1]);
}

/** The options `kprof check` needs to see the kernels the rules were made from (--steps is in the file). */
function checkOptions(sel: Selection): string {
  const o: string[] = [];
  // Runs of ranks as ranges (`--rank 0-6,8-46`), as the messages that suggest a --rank write them.
  if (sel.ranks) o.push(`--rank ${shellWord(rankOption(sel.ranks, Number.POSITIVE_INFINITY) ?? sel.ranks.join(','))}`);
  if (sel.cores) o.push(`--core ${shellWord(sel.cores.join(','))}`);
  if (sel.match) o.push(`--match ${shellWord(sel.match.source)}`);
  if (sel.exclude) o.push(`--exclude ${shellWord(sel.exclude.source)}`);
  return o.join(' ');
}

function report(io: Io, p: Profile, strict: boolean | undefined, side: string): void {
  const skipped = p.ranks.reduce((n, r) => n + r.rowsSkipped, 0);
  io.stderr(
    warningLines(
      p.ranks.flatMap((r) => r.warnings),
      p.ranks.reduce((n, r) => n + r.warningCount, 0),
      skipped,
      { side },
    ),
  );
  strictCheck(strict, skipped);
}

/** Why a side has no kernel sequence, in words. */
function unavailableWhy(why: Unavailable, path: string): string {
  const file = relPath(path);
  switch (why) {
    case 'summary-json':
      return `${file} is a summary JSON: it holds totals per group, not the kernels in the order they ran`;
    case 'totals':
      return `${file} holds totals per type, not the kernels in the order they ran`;
    case 'no-step-column':
      return `${file} ${noStepsText(path)[0]}, so its steps cannot be told apart`;
    case 'no-step-ids':
      return `${file}: no compute kernel has a Step Id`;
    case 'no-compute-kernels':
      return `${file} has no compute kernel`;
    case 'no-types':
      return `${file} has no kernel types (Type is N/A in every row: a Level0 export); use --by name`;
  }
}

/** The fusion rewrites of the pair, or why the sequences cannot say (a summary JSON, op_statistic, no steps). */
function rewritesOf(base: Profile, pr: Profile, by: RulesBy): Rewrites | string {
  const b = profileSequences(base, by);
  if (!b.ok) return `the base: ${unavailableWhy(b.why, b.file)}`;
  const p = profileSequences(pr, by);
  if (!p.ok) return `the PR: ${unavailableWhy(p.why, p.file)}`;
  return findRewrites(b.seq, p.seq);
}

export async function rulesCommand(basePath: string, prPath: string, flags: RulesFlags, io: Io, progress: Progress): Promise<number> {
  // -o names the format of other commands' reports by its extension: rules are YAML only, which `x.json` would hide.
  const named = flags.out === undefined ? undefined : extensionFormat(flags.out);
  if (named !== undefined) {
    throw usageError(
      `-o ${escaped(flags.out!)}: kprof rules writes a YAML rules file, and this name says ${formatLabel(named)}. Name it .yaml or .yml (kprof check --rules reads it).`,
    );
  }
  const cutThresholdPct = parsePercent('--cut-threshold', flags.cutThreshold);
  if (cutThresholdPct <= 0 || cutThresholdPct > 100)
    throw usageError(`--cut-threshold: expected a percentage above 0 and at most 100; found ${inQuotes(shown(flags.cutThreshold))}.`);
  const marginPct = parsePercent('--margin', flags.margin);
  const { selection, prefer } = parseCommon(flags);
  const read = (input: PlannedProfile, recordBy: RulesBy, track: boolean): Promise<Profile> =>
    readProfile(input, {
      withShapes: false,
      ranks: selection.ranks,
      rawNames: selectionRawNames(selection),
      shortNames: flags.shortNames === true,
      ...(track ? { onBytes: progress.tracker(input.input) } : {}),
      prefer,
      // Each rank's kernels in order, for the sequence rules of the fusion rewrites.
      beside: { kind: SEQUENCE_RECORDER, options: { by: recordBy, steps: selection.steps } },
    });
  const givenBy = flags.by ?? (DEFAULT_BY as RulesBy);
  // The sequences are keyed by the grouping, which is told from the plans before the read (chooseBy says it after).
  const planned = planPair([basePath, prPath], { ranks: selection.ranks, prefer });
  const recordBy = plannedBy(flags.by !== undefined, givenBy, planned);
  const [base, pr] = await Promise.all([read(planned[0], recordBy, true), read(planned[1], recordBy, true)]);
  progress.done();
  requireSelectedSteps(base, selection);
  requireSelectedSteps(pr, selection);
  report(io, base, flags.strict, 'base');
  report(io, pr, flags.strict, 'PR');
  unreadNote([base, pr], io);
  const saved = savedSelectionOf(selection, flags.shortNames);
  const opts = {
    by: chooseBy(flags.by !== undefined, givenBy, [base, pr], io, ['name']),
    selection,
    ...(saved !== undefined ? { savedSelection: saved } : {}),
  };
  // The sequences follow the grouping used (read again by it only where the plans could not tell it).
  const [rb, rp] = await sequencesBy(opts.by, recordBy, [base, pr], (side) => read(planned[side], opts.by, false));
  const bs = summarize(base, opts);
  const ps = summarize(pr, opts);
  // The rules are verified on what they will be checked on: the same ranks, steps and kernels.
  const profiles = { base: scopeProfile(rb, selection, 'the base'), pr: scopeProfile(rp, selection, 'the PR') };
  // Per step when every rank of both sides has steps (what diff --per-step needs).
  const perStep = [bs, ps].every((x) => x.hasSteps && x.perRank.every((r) => r.steps.length > 0));
  const diff = diffSummaries(bs, ps, { normalization: perStep ? 'per-step' : 'none', timeTolerancePct: 2 });
  const text = generateRules(diff, bs, ps, profiles, {
    rewrites: rewritesOf(rb, rp, opts.by),
    cutThresholdPct,
    marginPct,
    marginText: flags.margin,
    basePath: relPath(basePath),
    prPath: relPath(prPath),
    checkOptions: [checkOptions(selection), ...(flags.shortNames === true ? ['--short-names'] : [])].filter((o) => o !== '').join(' '),
    steps: selection.steps,
    groups: selection.groups,
  });
  await emit(io, flags.out, text);
  return 0;
}
