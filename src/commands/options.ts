// Command-line option values → the typed options the stages take. Validation errors are usage errors.

import { inputError, listItems, usageError } from '../util/errors.js';
import { parseSteps, selectionText } from '../aggregate/group.js';
import { GROUP_BY_FIELDS, GROUP_BYS, type GroupBy, type Selection } from '../model/model.js';
import { compilePattern, quotePattern } from '../util/regex.js';
import { readGroupsFile } from '../aggregate/userGroups.js';
import { EXPORT_KINDS, formatOf, ranksInFile } from '../input/formats/registry.js';
import type { PlannedProfile } from '../input/read.js';
import type { Profile, RankData } from '../model/model.js';
import type { Io } from '../util/io.js';
import { clipped, given, shellWord, shown, WHOLE, inQuotes } from '../util/inputText.js';
import { relPath } from '../util/paths.js';
import { fmtCount, fmtUs } from '../util/format.js';
import { githubAnnotation } from '../report/failure.js';
import type { Prefer } from '../input/formats/resolve.js';

/** Options shared by summary, diff, check and rules. */
export interface CommonFlags {
  /** Undefined: not given (chooseBy decides once the input is read). */
  by?: string | undefined;
  groups?: string;
  rank?: string;
  steps?: string;
  core?: string;
  match?: string;
  exclude?: string;
  /** --short-names: shorten CUDA/ROCm kernel names of traces. */
  shortNames?: boolean;
  prefer?: string;
}

export interface Common {
  by: GroupBy;
  /** --by was given (else `by` is the default, which chooseBy may change for an input of names only). */
  byGiven: boolean;
  selection: Selection;
  withShapes: boolean;
  /** Which export to read where a folder holds both the text and the db export of one run; null: the default (text). */
  prefer: Prefer | null;
}

/** The choices of `--prefer`: the kinds of export the registry declares (text, db). */
export const PREFER_CHOICES: readonly string[] = EXPORT_KINDS;

/** `--prefer db|text` → which export to read where a folder holds both; null when not given. */
export function parsePrefer(text: string | undefined): Prefer | null {
  if (text === undefined) return null;
  if (!PREFER_CHOICES.includes(text)) throw usageError(`--prefer: expected ${[...PREFER_CHOICES].sort().join(' or ')}; found ${given(text)}.`);
  return text as Prefer;
}

export function parseRegex(flag: string, text: string): RegExp {
  // An empty value is most often an unset variable (`--match "$PATTERN"`): as a pattern it matches every kernel.
  if (text === '') {
    throw usageError(
      `${flag}: expected a regular expression; found an empty value (an unset variable?), which would ${flag === '--exclude' ? 'leave out' : 'select'} every kernel. Leave ${flag} out, or pass the pattern.`,
    );
  }
  try {
    return compilePattern(text);
  } catch (e) {
    throw usageError(`${flag}: bad regular expression ${quotePattern(text, '"')}: ${e instanceof Error ? e.message : String(e)}.`);
  }
}

/**
 * `--rank 0`, `--rank 0,3`, `--rank all` → rank ids or null (all). A rank with no id of its own is named by its
 * folder below the input (`run-a/node3`), and that name is taken as it is printed (`./run-a/node3/` and
 * `run-a\node3` name it too).
 */
export function parseRanks(text: string | undefined): string[] | null {
  if (text === undefined || text.trim() === 'all') return null;
  // An empty value is most often an unset variable (`--rank "$RANK"`): taking it as every rank would gate ranks
  // the run meant to leave out.
  if (text.trim() === '') {
    throw usageError(
      '--rank: expected a rank id, a comma-separated list (0,3) or "all"; found an empty value (an unset variable?). Pass --rank all for every rank, or leave --rank out.',
    );
  }
  const ranks = [...new Set(listItems('--rank', text, 'rank ids or folder paths (0,3)').flatMap(rankRange).map(normaliseRankPath))];
  for (const r of ranks) {
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this pattern finds
    if (r === '' || /[\u0000-\u001f\u007f]/.test(r)) {
      throw usageError(
        `--rank: expected a rank id, a rank's folder path as kprof inspect shows it, a comma-separated list (0,3) or "all"; found ${inQuotes(shown(text))}.`,
      );
    }
  }
  return ranks;
}

/** The most ranks one `--rank A-B` names: a cluster's ranks, not a typo's billion. */
const MAX_RANK_RANGE = 1 << 16;

/**
 * `8-511` (or `8–511`, as reports print ranges) → the rank ids 8 to 511, so that a 512-rank run leaves one rank
 * out as `--rank 0-6,8-511`; any other item as it is.
 */
function rankRange(item: string): string[] {
  const m = /^(\d{1,9})\s*[-\u2013]\s*(\d{1,9})$/.exec(item);
  if (m === null) return [item];
  const [from, to] = [Number(m[1]), Number(m[2])];
  if (from > to || to - from >= MAX_RANK_RANGE) {
    throw usageError(
      `--rank: expected a range of rank ids from the lower to the higher, of at most ${MAX_RANK_RANGE.toLocaleString('en-US')} ranks (0-6,8-511); ` +
        `found ${inQuotes(shown(item))}. ${from > to ? 'Write the range the other way round' : 'Name fewer ranks, or pass --rank all'}.`,
    );
  }
  return Array.from({ length: to - from + 1 }, (_, i) => String(from + i));
}

/** A folder path written the way a shell completes it (`./a/b/`, `a\b`) → the way ranks are named (`a/b`). */
function normaliseRankPath(r: string): string {
  if (!/[/\\]/.test(r)) return r;
  return r
    .replace(/\\/g, '/')
    .replace(/^(\.\/)+/, '')
    .replace(/\/+$/, '')
    .replace(/\/{2,}/g, '/');
}

export function parseCommon(flags: CommonFlags): Common {
  const given = flags.by;
  if (given !== undefined && !(GROUP_BYS as readonly string[]).includes(given)) {
    throw usageError(`--by: expected one of ${GROUP_BYS.join(', ')}; found ${inQuotes(shown(given))}.`);
  }
  const by = (given ?? DEFAULT_BY) as GroupBy;
  // An empty value is most often an unset variable (`--core "$CORES"`): it would select no kernel at all.
  if (flags.core !== undefined && flags.core.split(',').every((c) => c.trim() === '')) {
    throw usageError(
      '--core: expected a core type or a comma-separated list of them (AI_CORE,MIX_AIC); found an empty value (an unset variable?). Leave --core out for every core.',
    );
  }
  const selection: Selection = {
    ranks: parseRanks(flags.rank),
    steps: flags.steps !== undefined ? parseSteps(flags.steps) : null,
    cores: flags.core !== undefined ? listItems('--core', flags.core, 'core types (AI_CORE,MIX_AIC)') : null,
    match: flags.match !== undefined ? parseRegex('--match', flags.match) : null,
    exclude: flags.exclude !== undefined ? parseRegex('--exclude', flags.exclude) : null,
    groups: flags.groups !== undefined ? readGroupsFile(flags.groups) : [],
  };
  return { by, byGiven: given !== undefined, selection, withShapes: by === 'type+shapes', prefer: parsePrefer(flags.prefer) };
}

/** The grouping when --by is not given, unless the input holds kernel names only (see chooseBy). */
/** The part of a summary JSON's "selection" that says its trace kernel names were shortened (--short-names). */
export const SHORT_NAMES_TEXT = 'short-names';

/**
 * The selection text a summary JSON saves and a snapshot read is compared with, when it is not the filters' alone:
 * with --short-names, the filters' and then `short-names` (a trace's shortened names are other group keys than
 * its full names, so snapshots made with and without it must not be merged or compared). Undefined without it.
 */
export function savedSelectionOf(selection: Selection, shortNames: boolean | undefined): string | undefined {
  if (shortNames !== true) return undefined;
  const text = selectionText(selection);
  return text === '' ? SHORT_NAMES_TEXT : `${text}; ${SHORT_NAMES_TEXT}`;
}

export const DEFAULT_BY = 'type';

/** Does a format name its kernels only (a trace: no op types)? */
function namesOnly(format: string): boolean {
  const a = formatOf(format).answers;
  return a.types === 'no' && a.names !== 'no';
}

/** A rank read from an export of kernel names only (a trace: no op types), or null; its file when it is one. */
function nameOnlyFile(r: RankData): string | null {
  if (r.snapshot !== null || r.files.length === 0) return null;
  return r.files.every((f) => namesOnly(f.format)) ? r.files[0]!.path : null;
}

/** Does the profile hold a rank read from an export of kernel names only (no op types to group by)? */
export function namesOnlyProfile(p: Profile): boolean {
  return p.ranks.some((r) => nameOnlyFile(r) !== null);
}

/**
 * Does grouping by `by` with this selection read kernel names? (--by name, or a --match, --exclude or user group,
 * which test names.) When it does not, the read keeps no names for kernels that have a type (ReadOptions
 * .kernelNames), and a command whose grouping turns out to need them once read (chooseBy) reads the input again.
 */
export function namesNeeded(by: string, sel: Selection): boolean {
  const fields: readonly string[] = (GROUP_BY_FIELDS as Record<string, readonly string[]>)[by] ?? ['name'];
  return fields.includes('name') || sel.match !== null || sel.exclude !== null || sel.groups.length > 0;
}

/**
 * Did a read with kernelNames false leave out names that the grouping turns out to need? (A rank that answers
 * names, with a fine group that has none.) A false alarm costs a read, never a figure.
 */
export function namesLeftOut(profiles: readonly Profile[]): boolean {
  for (const p of profiles) {
    for (const r of p.ranks) {
      if (r.snapshot || !r.fields.name) continue;
      for (const g of r.groups.values()) if (g.name === null) return true;
    }
  }
  return false;
}

/**
 * The grouping chooseBy will choose, told from the rank plans before the read (no note): `name` when a plan is of a
 * format of kernel names only. What the read keys by the grouping (the kernel sequences beside the kernels) is keyed
 * by it, so each input is read once. The plans cannot tell it where the read can (a summary JSON's own grouping, a
 * plan left out once read by --rank): sequencesBy reads such a side again, when it has sequences to key.
 */
export function plannedBy<B extends string>(given: boolean, by: B, planned: readonly PlannedProfile[]): B | 'name' {
  if (given || by === 'name') return by;
  return planned.some((p) => p.plans.some((plan) => !ranksInFile(plan.format) && namesOnly(plan.format))) ? 'name' : by;
}

/**
 * Both sides with their kernel sequences keyed by the grouping chosen: each as read when it was read by it (by
 * plannedBy's grouping, which is chooseBy's but for what only the read tells) or holds no sequences (a rank read
 * from a summary JSON has none, whatever the key), else read again by `reread`.
 */
export async function sequencesBy<P extends Profile>(
  by: string,
  recordedBy: string,
  sides: readonly [P, P],
  reread: (side: 0 | 1) => Promise<P>,
): Promise<[P, P]> {
  const keyed = (p: P, side: 0 | 1): P | Promise<P> => (by === recordedBy || p.ranks.some((r) => r.beside === undefined) ? p : reread(side));
  return Promise.all([keyed(sides[0], 0), keyed(sides[1], 1)]);
}

/**
 * --by as given; when it is not, `type`, or `name` when a profile holds kernel names only (trace_view.json, a
 * kineto trace, an Nsight CSV: none has op types), or the grouping of the summary JSONs the profiles are made of
 * when they were all made with one (of those `follow` lists: `rules` writes rules by type or name only). A note on
 * stderr says so. An explicit --by type on such an input is refused when grouping (group.ts).
 */
export function chooseBy<B extends string, F extends GroupBy>(
  given: boolean,
  by: B,
  profiles: readonly Profile[],
  io: Io,
  follow: readonly F[],
): B | F | 'name' {
  if (given || by === 'name') return by;
  const ranks = profiles.flatMap((p) => p.ranks);
  const file = ranks.map(nameOnlyFile).find((f) => f !== null);
  if (file !== undefined) {
    io.stderr(`kprof: note: grouped by name: ${clipped(relPath(file), WHOLE)} names its kernels only (no op types); pass --by to choose.\n`);
    return 'name';
  }
  const saved = ranks.filter((r) => r.snapshot !== null);
  const made = saved[0]?.snapshot?.groupBy;
  const other = saved.map((r) => r.snapshot!).find((s) => s.groupBy !== made);
  if (made !== undefined && other !== undefined && saved.length === ranks.length) {
    // Summary JSONs of two groupings, and no --by to say which: the run cannot follow both (it took the default
    // and said "this run asks for --by type", which was not asked).
    const first = saved[0]!.snapshot!;
    throw inputError(
      `${shown(relPath(first.path))} was made with --by ${made} and ${shown(relPath(other.path))} with --by ${other.groupBy}; ` +
        'summary JSONs are compared only when made with the same grouping. Pass --by to choose one, and regenerate the others with it ' +
        `(kprof summary <profile> --by ${made} --format json).`,
    );
  }
  if (made !== undefined && made !== by && saved.length !== ranks.length) {
    // A summary JSON beside a profile, and no --by: the profile is grouped by the default (it said "this run asks
    // for --by type", which was not asked).
    const read = profiles.find((p) => p.ranks.some((r) => r.snapshot === null))!;
    throw inputError(
      `${shown(relPath(saved[0]!.snapshot!.path))} was made with --by ${made}, and ${shown(relPath(read.input))} is a profile, grouped by ${by} ` +
        `when no --by is given. Pass --by ${made} to compare by ${made}, or regenerate the summary JSON (kprof summary <profile> --by ${by} --format json).`,
    );
  }
  if (made === undefined || made === by || saved.length !== ranks.length) return by;
  if (!(follow as readonly GroupBy[]).includes(made)) return by;
  io.stderr(`kprof: note: grouped by ${made}, as ${shown(relPath(saved[0]!.snapshot!.path))} was made; pass --by to choose.\n`);
  return made as F;
}

/**
 * `--step-time` adds a section, which the CSV report (rows of groups only) has no field for: refused there rather
 * than read and left out unsaid.
 */
export function stepTimeFits(stepTime: boolean | undefined, format: string): void {
  if (stepTime === true && format === 'csv') {
    throw usageError(
      '--step-time: the CSV report holds rows of groups only and has no field for the step time. Use --format json (or table, markdown, html), or leave --step-time out.',
    );
  }
}

/** `--top N`. */
export function parseTop(text: string | undefined): number | null {
  if (text === undefined) return null;
  if (!/^\d+$/.test(text) || Number(text) < 1) throw usageError(`--top: expected a whole number of at least 1; found ${given(text)}.`);
  return Number(text);
}

/**
 * One stderr line per profile that has folders or files looking like a profile that were not read (a rank folder
 * with no kernel data, a PROF_ folder with no output …): the first of them (whose text ends in what became of it:
 * `not read`, `rank 1 left out`), how many more; kprof inspect lists them all.
 * Under `github` (check --format github) the line is a `::warning` annotation.
 */
export function unreadNote(profiles: readonly Profile[], io: Io, github = false): void {
  for (const p of profiles) {
    const unread = p.unread ?? [];
    if (unread.length === 0) continue;
    const more = unread.length > 1 ? ` (and ${fmtCount(unread.length - 1)} more)` : '';
    const text = `${endKept(unread[0]!, 240)}${more}; kprof inspect ${shellWord(p.input)} lists ${unread.length > 1 ? 'them' : 'it'}.`;
    io.stderr(github ? githubAnnotation('warning', text, 'not read', null, io.env.GITHUB_WORKSPACE) : `kprof: note: ${text}\n`);
  }
}

/** A note clipped to `max` characters before its last clause (`; rank 1 left out`), which is kept whole. */
function endKept(note: string, max: number): string {
  const at = note.lastIndexOf('; ');
  if (note.length <= max || at < 0 || note.length - at > max / 2) return clipped(note, max);
  return `${clipped(note.slice(0, at), max - (note.length - at))}${note.slice(at)}`;
}

/**
 * With --short-names, one stderr line when a short name stands for kernels of different full names (the same
 * function with other template arguments): they are one group in the figures. It names the short names with the
 * most full names (counted over every file of the profiles, different names only) and how to see them apart.
 */
export function shortenedNote(profiles: readonly Profile[], io: Io): void {
  const names = new Map<string, Set<string>>();
  for (const f of new Set(profiles.flatMap((p) => p.ranks.flatMap((r) => r.files)))) {
    for (const m of f.shortened ?? []) {
      const set = names.get(m.name) ?? new Set<string>();
      for (const n of m.names) set.add(n);
      names.set(m.name, set);
    }
  }
  if (names.size === 0) return;
  const most = [...names].map(([name, set]) => ({ name, n: set.size })).sort((a, b) => b.n - a.n || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const listedNames = most.slice(0, 3).map((m) => `${shown(m.name)} (${fmtCount(m.n)} names)`);
  const more = most.length > 3 ? ` and ${fmtCount(most.length - 3)} more` : '';
  io.stderr(
    `kprof: note: --short-names put kernels of different full names in one group: ${listedNames.join(', ')}${more}; without --short-names they are apart.\n`,
  );
}

/**
 * One stderr line for what the profiles' files held that is not kernels (a trace's memory copies and sets …):
 * left out of the figures, summed per label over every file; kprof inspect lists them per file.
 */
export function apartNote(profiles: readonly Profile[], io: Io): void {
  const sum = new Map<string, { count: number; ticks: number; files: number }>();
  // A file that holds several devices (ranks) is each rank's: its copies count once.
  for (const f of new Set(profiles.flatMap((p) => p.ranks.flatMap((r) => r.files)))) {
    for (const a of f.apart ?? []) {
      const s = sum.get(a.label) ?? { count: 0, ticks: 0, files: 0 };
      s.count += a.count;
      s.ticks += a.ticks;
      s.files++;
      sum.set(a.label, s);
    }
  }
  if (sum.size === 0) return;
  const what = [...sum]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([label, s]) => `${fmtCount(s.count)} ${shown(label)} (${fmtUs(s.ticks / 10_000)})`);
  io.stderr(`kprof: note: not kernels, left out of the figures: ${what.join(', ')}; kprof inspect lists them per file.\n`);
}
