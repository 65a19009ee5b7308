// The part of a profile the rules look at: `check` and `rules` take --rank, --steps, --core, --match and
// --exclude as summary and diff do, and the rules are evaluated on what those leave. Pure: Profile in, Profile out.
//
// Nothing read, nothing passed: a profile where every row was skipped, or where the selection leaves no kernel,
// is an input error, never a gate that holds.

import { inputError } from '../util/errors.js';
import { inSteps, keepGroup, selectionText, stepsLabel, stepsWithin } from '../aggregate/group.js';
import { shellWord, shown } from '../util/inputText.js';
import { NO_RANK_ID, rankIdsText, rankOption, ranksNamed } from '../util/format.js';
import { compareRanks, type FineGroup, type Profile, type RankData, type Selection } from '../model/model.js';
import type { RuleSet } from './model.js';
import { ruleAt } from './slice.js';

/** Does the selection filter kernels (rather than keep every kernel of the ranks read)? */
function filters(sel: Selection): boolean {
  return sel.steps !== null || sel.cores !== null || sel.match !== null || sel.exclude !== null;
}

/** The filters of a selection as a summary JSON saves them (`core=AI_CORE; match=/x/`): user groups are no filter. */
function filterText(sel: Selection): string {
  return selectionText({ ...sel, groups: [] });
}

/** The filters a summary JSON rank was made with (its selection without user groups and `short-names`), or null. */
function savedFilters(rank: RankData): string | null {
  const snap = rank.snapshot;
  if (!snap) return null;
  return snap.selection
    .split('; ')
    .filter((part) => part !== '' && part !== 'short-names' && !part.startsWith('group '))
    .join('; ');
}

/**
 * The filters the rules see a rank through: the command's, or those a summary JSON was made with when the command
 * gives none. A summary JSON made with other filters than the command's is refused: its kernels were already cut.
 */
function effectiveFilters(rank: RankData, sel: Selection): string {
  const asked = filterText(sel);
  const saved = savedFilters(rank);
  if (saved === null || saved === '' || saved === asked) return asked;
  if (asked === '') return saved;
  throw inputError(
    `${rank.snapshot!.path}: this summary JSON was made with ${saved}, but this run asks for ${asked}. ` +
      'Expected a summary JSON made with the same filters as the command, or none; pass the options it was made with, or regenerate it with these.',
  );
}

/**
 * With a base, both sides must be seen through the same filters: a summary JSON made with `--core AI_CORE` holds
 * only those kernels, and compared with a base that holds every kernel every count would seem to fall. Throws
 * (exit 2) naming a file of each side.
 */
export function requireAlikeFilters(profile: Profile, base: Profile, sel: Selection, shortNames: boolean): void {
  // Every rank is looked at (a rank of other filters than the command's is refused); the first stands for its side.
  const sides = [profile, base].map((p) => {
    const filters = p.ranks.map((r) => effectiveFilters(r, sel));
    return p.ranks[0] ? { rank: p.ranks[0], filters: filters[0]! } : null;
  });
  const [a, b] = sides;
  if (!a || !b) return;
  const where = (p: Profile, r: RankData): string => r.snapshot?.path ?? p.input;
  // Shortened names (--short-names) are other kernels than full ones: a summary JSON keeps the names it was made with.
  const short = (r: RankData): boolean => (r.snapshot ? /(?:^|; )short-names$/.test(r.snapshot.selection) : shortNames);
  if (short(a.rank) !== short(b.rank)) {
    const [s, f] = short(a.rank) ? [where(profile, a.rank), where(base, b.rank)] : [where(base, b.rank), where(profile, a.rank)];
    throw inputError(
      `${s} holds kernel names shortened by --short-names, but ${f} holds them whole: against the base, each rule would compare other kernels. ` +
        'Expected both sides read alike: pass --short-names when only a summary JSON was made with it, or regenerate the summary JSON as the other side is read.',
    );
  }
  if (a.filters === b.filters) return;
  const said = (f: string): string => (f === '' ? 'every kernel (made with no filter)' : `only the kernels of ${f}`);
  const needs = a.filters === '' ? b.filters : b.filters === '' ? a.filters : '';
  throw inputError(
    `${where(base, b.rank)} (the base) holds ${said(b.filters)}, but ${where(profile, a.rank)} (the profile) holds ${said(a.filters)}: ` +
      'against the base, each rule would compare other kernels. Expected both sides made with the same filters; ' +
      (needs !== ''
        ? `pass them on the command (${optionsOf(needs)}), which the side made without filters then applies, or regenerate the summary JSON without them.`
        : 'regenerate one summary JSON with the options of the other.'),
  );
}

/** Saved filters (`steps=2-3; core=AI_CORE; match=/x/`) as the options that give them. */
function optionsOf(filters: string): string {
  return filters
    .split('; ')
    .map((part) => {
      const eq = part.indexOf('=');
      const key = part.slice(0, eq);
      const value = part.slice(eq + 1);
      const regex = (key === 'match' || key === 'exclude') && value.startsWith('/') && value.endsWith('/');
      return `--${key} ${shellWord(regex ? value.slice(1, -1) : value)}`;
    })
    .join(' ');
}

function scopeRank(rank: RankData, sel: Selection): RankData {
  // A summary JSON made with these very filters holds only the kernels they keep, under the grouping it was made
  // with (a snapshot by type has no core to filter on again): it is already in scope.
  const saved = savedFilters(rank);
  if (saved !== null && saved !== '' && effectiveFilters(rank, sel) === saved) return rank;
  const steps = sel.steps;
  if (steps && !rank.fields.steps) {
    throw inputError(
      `${rank.files[0]?.path ?? `rank ${rank.rank}`}: --steps needs a Step Id column, which this input${rank.rank === NO_RANK_ID ? '' : ` (${ranksNamed([rank.rank], shown)})`} has not. Drop --steps.`,
    );
  }
  if (sel.cores && !rank.fields.core) {
    throw inputError(
      `${rank.files[0]?.path ?? `rank ${rank.rank}`}: --core needs core types (Accelerator Core / Task Type), which this input${rank.rank === NO_RANK_ID ? '' : ` (${ranksNamed([rank.rank], shown)})`} has not. Drop --core.`,
    );
  }
  const groups = new Map<string, FineGroup>();
  let kernels = 0;
  for (const [key, g] of rank.groups) {
    if (!keepGroup(g, sel)) continue;
    let kept: FineGroup = g;
    if (steps) {
      const { total, steps: cells } = stepsWithin(g.steps, steps);
      // Field by field: a fine group read from a table is a view, whose fields a spread would not copy.
      kept = { name: g.name, type: g.type, core: g.core, shapes: g.shapes, total, steps: cells };
      if (g.rawName !== undefined) kept.rawName = g.rawName;
      if (g.savedKey !== undefined) kept.savedKey = g.savedKey;
      if (g.savedUserGroup !== undefined) kept.savedUserGroup = g.savedUserGroup;
    }
    if (kept.total.count === 0) continue;
    groups.set(key, kept);
    kernels += kept.total.count;
  }
  const stepIds = steps ? rank.stepIds.filter((s) => inSteps(steps, s)) : rank.stepIds;
  return { ...rank, groups, kernels, stepIds, rowsWithoutStep: steps ? 0 : rank.rowsWithoutStep };
}

function kernelsOf(p: Profile): number {
  return p.ranks.reduce((n, r) => n + [...r.groups.values()].reduce((m, g) => m + g.total.count, 0), 0);
}

/** Why rows gave no kernel, as the end of a sentence. */
function whyNothing(read: number, skipped: number): string {
  return skipped > 0
    ? `every one of its ${skipped} row${skipped === 1 ? '' : 's'} could not be read (see the warnings above)`
    : read > 0
      ? `its ${read} row${read === 1 ? '' : 's'} hold no kernel`
      : 'it has no kernel rows';
}

/** The selection's options as the user wrote them, for messages. */
function selectionFlags(sel: Selection): string {
  const o: string[] = [];
  if (sel.ranks) o.push(`--rank ${sel.ranks.join(',')}`);
  if (sel.steps) o.push(`--steps ${stepsLabel(sel.steps)}`);
  if (sel.cores) o.push(`--core ${sel.cores.join(',')}`);
  if (sel.match) o.push(`--match ${sel.match.source}`);
  if (sel.exclude) o.push(`--exclude ${sel.exclude.source}`);
  return o.join(' ');
}

/**
 * What a profile holds, for the message that the selection left nothing: "Step Id 50-50 on ranks 0, 1", and
 * under --core its cores: "cores AI_CORE, AI_VECTOR_CORE and Step Id 1-4 on rank 0".
 */
function holds(p: Profile, sel?: Selection): string {
  const steps = [...new Set(p.ranks.flatMap((r) => r.stepIds))].sort((a, b) => a - b);
  const ranks = p.ranks.map((r) => r.rank);
  const parts: string[] = [];
  if (sel?.cores) {
    const cores = [...new Set(p.ranks.flatMap((r) => [...r.groups.values()].flatMap((g) => (g.core === null ? [] : [g.core]))))].sort();
    const head = cores.slice(0, 8).map(shown).join(', ');
    parts.push(
      cores.length === 0 ? 'no core' : `core${cores.length === 1 ? '' : 's'} ${head}${cores.length > 8 ? ` and ${cores.length - 8} more` : ''}`,
    );
  }
  parts.push(steps.length > 0 ? `Step Id ${steps[0]}-${steps[steps.length - 1]}` : 'no Step Id');
  return ranks.length === 1 && ranks[0] === NO_RANK_ID ? parts.join(' and ') : `${parts.join(' and ')} on ${ranksNamed(ranks, shown)}`;
}

/**
 * The profile as the rules see it, after the selection. `what` names the input in messages ("the profile",
 * "the base"). Throws when nothing was read or nothing is left.
 */
export function scopeProfile(p: Profile, sel: Selection, what: string): Profile {
  if (kernelsOf(p) === 0) {
    const read = p.ranks.reduce((n, r) => n + r.rowsRead, 0);
    const skipped = p.ranks.reduce((n, r) => n + r.rowsSkipped, 0);
    throw inputError(`${what} ${p.input}: no kernel was read: ${whyNothing(read, skipped)}. A gate on nothing cannot pass; check the input.`);
  }
  // A rank where nothing was read is not a clean rank: every rule would hold on it. (A summary JSON rank whose
  // own filters left nothing was read; it is a selection, as --match leaving a rank empty is.)
  const dead = p.ranks.find((r) => kernelsOf({ ...p, ranks: [r] }) === 0 && (r.snapshot?.filteredKernels ?? 0) === 0);
  if (dead) {
    const path = dead.files[0]?.path ?? p.input;
    // The --rank that leaves it out: the ranks where kernels were read (a rank of no id cannot be named).
    const live = p.ranks.filter((r) => r !== dead && r.rank !== NO_RANK_ID && kernelsOf({ ...p, ranks: [r] }) > 0).map((r) => r.rank);
    const option = rankOption(live);
    const leave = option !== null ? `leave it out with --rank ${shellWord(option)}` : 'leave it out with --rank';
    throw inputError(
      `${what} ${p.input}: no kernel was read on ${ranksNamed([dead.rank], shown)} (${path}): ${whyNothing(dead.rowsRead, dead.rowsSkipped)}. ` +
        `A rank where nothing was read cannot pass a gate; check that rank's export, or ${leave}.`,
    );
  }
  // A rank folder with no kernel data (a profiler stopped before it wrote them) was left out with a note: nothing of
  // it was read, as of a rank whose file is empty.
  const empty = p.emptyRanks ?? [];
  if (empty.length > 0) {
    const ids = [...new Set(empty.map((e) => e.rank))].sort(compareRanks);
    const read = p.ranks.filter((r) => kernelsOf({ ...p, ranks: [r] }) > 0).map((r) => r.rank);
    // The one rank read has no id: `--rank -` names it.
    const option = read.length === 1 && read[0] === NO_RANK_ID ? NO_RANK_ID : rankOption(read.filter((r) => r !== NO_RANK_ID));
    // A folder of no rank id is no rank --rank can leave out: the folders read are passed by themselves.
    const leave = ids.includes(NO_RANK_ID)
      ? `pass the profile folders that hold kernels by themselves (kprof inspect ${shellWord(p.input)} lists them)`
      : option !== null
        ? `leave ${ids.length === 1 ? 'it' : 'them'} out with --rank ${shellWord(option)}`
        : `gate the ranks that were read with --rank (kprof inspect ${shellWord(p.input)} lists them)`;
    throw inputError(
      `${what} ${p.input}: nothing was read on ${ranksNamed(ids, shown)}: ${empty[0]!.dir}${empty.length > 1 ? ` (and ${empty.length - 1} more folder${empty.length === 2 ? '' : 's'})` : ''} ` +
        `holds no kernel export. A rank where nothing was read cannot pass a gate; check that rank's export, or ${leave}.`,
    );
  }
  if (!filters(sel)) return p;
  const scoped: Profile = { ...p, ranks: p.ranks.map((r) => scopeRank(r, sel)) };
  if (kernelsOf(scoped) === 0) {
    throw inputError(
      `${what} ${p.input}: the selection ${selectionFlags(sel)} leaves no kernel (it has ${holds(p, sel)}). ` +
        `A gate on nothing cannot pass; widen the selection.`,
    );
  }
  const stepless = sel.steps ? scoped.ranks.find((r) => r.stepIds.length === 0) : undefined;
  if (stepless) {
    throw inputError(
      `${what} ${p.input}: rank ${stepless.rank} has no step in the selection ${selectionFlags(sel)} ` +
        `(it has ${holds({ ...p, ranks: p.ranks.filter((r) => r.rank === stepless.rank) })}). A gate on nothing cannot pass; widen the selection.`,
    );
  }
  return scoped;
}

/**
 * A rule whose steps: lie wholly outside --steps sees no step: an input error that names both, before the
 * profile's steps are looked at (it would say the profile has only the selected steps, and to fix steps: alone).
 */
export function requireRuleStepsSelected(rules: RuleSet, sel: Selection): void {
  if (sel.steps === null) return;
  const selected = sel.steps;
  for (const rule of rules.rules) {
    if (rule.steps === null) continue;
    if (rule.steps.some((r) => selected.some((s) => r.from <= s.to && s.from <= r.to))) continue;
    throw inputError(
      `${ruleAt(rule)}: steps: ${stepsLabel(rule.steps)} lies outside --steps ${stepsLabel(selected)}, so the rule sees no step. ` +
        'Widen --steps to take them in, or fix steps: in the rule.',
    );
  }
}

/**
 * A rule's ranks: under --rank: the rule sees the ranks of both, as a rule's steps: under --steps (`ranks: [0, 1]`
 * with `--rank 0` checks rank 0; kprof rules writes such lists). `left`: the ranks of the profile --rank left out.
 * A rank the profile does not have at all stays in the rule (evaluate says so); one whose ranks: were all left out
 * sees no rank: an input error that names both (it said the profile lacked the ranks, and to fix ranks:, and a
 * sequence rule that its layer marker ran nowhere).
 */
export function selectRuleRanks(rules: RuleSet, left: readonly string[], selected: readonly string[]): RuleSet {
  if (left.length === 0) return rules;
  const out = new Set(left);
  return {
    ...rules,
    rules: rules.rules.map((rule) => {
      if (rule.ranks === null || !rule.ranks.some((r) => out.has(r))) return rule;
      const kept = rule.ranks.filter((r) => !out.has(r));
      if (kept.length === 0) {
        throw inputError(
          `${ruleAt(rule)}: ranks: ${rankIdsText(rule.ranks, shown)} ${rule.ranks.length === 1 ? 'lies' : 'lie'} outside --rank ` +
            `${rankIdsText(selected, shown)}, so the rule sees no rank. Widen --rank to take them in, or fix ranks: in the rule.`,
        );
      }
      return { ...rule, ranks: kept };
    }),
  };
}
