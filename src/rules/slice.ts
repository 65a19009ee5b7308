// The kernels a rule selects on one rank, in its steps. A selector the rank cannot answer (names asked of a source
// that keeps types only, a user group a summary JSON was saved without) is an input error, never a silent miss.

import { inputError } from '../util/errors.js';
import { inQuotes, shellWord, shown } from '../util/inputText.js';
import { groupText, inSteps, kernelMatches, kernelNamed, userGroupOf } from '../aggregate/group.js';
import {
  emptyCell,
  forEachStepFigure,
  mergeCell,
  mergeFigures,
  type Cell,
  type FineGroup,
  type RankData,
  type Selection,
  type UserGroup,
} from '../model/model.js';
import { formatOf, passKernelTable } from '../input/formats/registry.js';
import { countIn, type KnownValues } from './unmatched.js';
import type { Rule, Selector } from './model.js';
import { groupsWithoutTypes, NO_TYPE } from '../analysis/rewrites/noTypes.js';

/** Where a rule is in the rules file, for messages: `kprof.rules.yaml:12`. */
export function ruleAt(rule: Rule): string {
  return `${rule.file}:${rule.line}`;
}

const EMPTY_SELECTION: Selection = { ranks: null, steps: null, cores: null, match: null, exclude: null, groups: [] };

/** Why a rank cannot say which kernels a rule selects: the source keeps no kernel `missing` (types or names). */
export function unanswerable(rule: Rule, rank: RankData, g: FineGroup, asked: string, missing: 'type' | 'name'): never {
  const file = rank.files[0];
  const path = file?.path ?? rank.rank;
  const head = `${ruleAt(rule)}: the rule selects kernels by ${asked}, but ${path}`;
  const fields = missing === 'type' ? 'types' : 'names';
  // A selector tested on name and type (match:, a group) cannot be answered by the one field the source kept:
  // a kernel the kept field does not select may be selected by the other.
  const both = asked !== 'type' && asked !== 'name';
  const kept = missing === 'type' ? 'name' : 'type';
  const unsure = both ? `: a kernel whose ${kept} is not selected may be selected by its ${missing}` : '';
  if (missing === 'type' && groupsWithoutTypes(rank.groups)) {
    // A Level0 export: the column is there, N/A in every compute kernel's row.
    const names = `kprof summary ${rank.snapshot ? '<profile>' : shellWord(path)} --by name lists them`;
    throw inputError(
      `${head} has no kernel types: Type is N/A for every compute kernel (a Level0 export writes none), so ${both ? 'whether a kernel whose name does not match has a type that does' : 'which kernels are of the type asked'} is unknown. ` +
        `Select by name${both ? ' only' : ''} (name: or a group of names; ${names}), or profile with profiler_level Level1 or above, which writes the types.`,
    );
  }
  if (rank.snapshot && g.savedUserGroup !== undefined) {
    throw inputError(
      `${head} holds "${g.savedUserGroup}" as a user group, so the kernels in it are unknown. ` +
        `Regenerate the summary JSON without --groups, or pass the profile itself.`,
    );
  }
  if (rank.snapshot) {
    const fix = both
      ? `Select by ${kept} (${kept}: or a group of the ${kept}s it keeps), or pass the profile itself.`
      : `Regenerate it with kprof summary <profile> --by ${missing} --format json, or pass the profile itself.`;
    throw inputError(`${head} is a summary JSON grouped by ${rank.snapshot.groupBy}, which keeps no kernel ${fields}${unsure}. ${fix}`);
  }
  if (missing === 'type' && file !== undefined && formatOf(file.format).answers.types === 'no') {
    // A trace names its kernels only.
    if (both) {
      // The input has no types at all: what it lacks is the type of the kernels whose names do not match.
      const re = rule.selector?.kind === 'match' ? rule.selector.re.source : null;
      const list = re !== null ? ` --match ${shellWord(re)}` : '';
      throw inputError(
        `${head} is ${formatOf(file.format).naming.title}, which names its kernels only (no op types), so whether a kernel whose name does not match has a type that does is unknown. ` +
          `Select by name only: name: with the kernel names to select (kprof summary ${shellWord(path)} --by name${list} lists them), ` +
          `or check it on a kernel table with op types (the same run's ${passKernelTable()}).`,
      );
    }
    throw inputError(
      `${head} is ${formatOf(file.format).naming.title}, which names its kernels only (no op types)${unsure}. Select by name (name: or a group of names).`,
    );
  }
  throw inputError(
    `${head} is ${file?.format ?? 'an export'} with no kernel ${fields} (aggregated per OP Type)${unsure}. ` +
      `Pass the same run's ${passKernelTable()}, or select by type.`,
  );
}

/**
 * Is every member of the group a value of the field the source kept (a kernel type of the profile or the base,
 * where names are missing)? Then the group is answered by that field; a pattern, or a member that is no such
 * value, might select kernels by the field the source lacks.
 */
function decidedBy(group: UserGroup, kept: ReadonlySet<string>): boolean {
  return group.patterns.length === 0 && [...group.exact].every((m) => kept.has(m));
}

/** Does a summary JSON hold the rule's group as it was saved: the same name and members, and no other group? */
function savedAsIs(rank: RankData, group: UserGroup): boolean {
  const saved = rank.snapshot?.selection.split('; ').filter((p) => p.startsWith('group ')) ?? [];
  return saved.length === 1 && saved[0] === groupText(group);
}

const savedGroups = new WeakMap<RankData, Set<string>>();

/** The user groups a summary JSON rank was saved with. */
function savedGroupsOf(rank: RankData): Set<string> {
  let out = savedGroups.get(rank);
  if (!out) {
    out = new Set();
    for (const g of rank.groups.values()) if (g.savedUserGroup !== undefined) out.add(g.savedUserGroup);
    savedGroups.set(rank, out);
  }
  return out;
}

/** The group with its type unknown (a view: a group read from a table has its fields as getters, which a spread would lose). */
function typeUnknown(fine: FineGroup): FineGroup {
  const view: FineGroup = {
    name: fine.name,
    type: null,
    core: fine.core,
    shapes: fine.shapes,
    get total() {
      return fine.total;
    },
    get steps() {
      return fine.steps;
    },
  };
  if (fine.rawName !== undefined) view.rawName = fine.rawName;
  if (fine.savedKey !== undefined) view.savedKey = fine.savedKey;
  if (fine.savedUserGroup !== undefined) view.savedUserGroup = fine.savedUserGroup;
  return view;
}

function matches(rule: Rule, sel: Selector, rank: RankData, fine: FineGroup, known: KnownValues): boolean {
  // A kernel of a Level0 export (Type N/A for every compute kernel) may be of any type: its type is unknown.
  const g = fine.type === NO_TYPE && groupsWithoutTypes(rank.groups) ? typeUnknown(fine) : fine;
  switch (sel.kind) {
    case 'all':
      return true;
    case 'type':
      if (g.type === null) unanswerable(rule, rank, g, 'type', 'type');
      return sel.values.includes(g.type);
    case 'name':
      if (g.name === null) unanswerable(rule, rank, g, 'name', 'name');
      return kernelNamed(g, sel.values);
    case 'match': {
      if (kernelMatches(sel.re, g)) return true;
      if (g.name !== null && g.type !== null) return false;
      return unanswerable(rule, rank, g, `a regular expression (/${sel.re.source}/), tested on name and type`, g.name === null ? 'name' : 'type');
    }
    case 'group': {
      const asked = `group ${inQuotes(shown(sel.group.name))} (matched on type or name)`;
      if (rank.snapshot) {
        // Saved with user groups: answered when the snapshot holds this group as the rules file defines it, and
        // no other (a kernel saved in another group could match this one's members too; the kernels saved under
        // their own key matched none).
        if (savedAsIs(rank, sel.group)) return g.savedUserGroup === sel.group.name;
        if (savedGroupsOf(rank).has(sel.group.name)) {
          throw inputError(
            `${ruleAt(rule)}: the rule selects kernels by group ${inQuotes(shown(sel.group.name))}, but ${rank.snapshot.path} holds a user group of that name made with other members or beside other groups (${rank.snapshot.selection}), so which of its kernels are in the rules file's group is unknown. ` +
              `Regenerate the summary JSON with the rules file's groups only, or pass the profile itself.`,
          );
        }
      }
      if (g.savedUserGroup !== undefined) unanswerable(rule, rank, g, asked, 'name');
      if (userGroupOf(g, { ...EMPTY_SELECTION, groups: [sel.group] }) !== null) return true;
      if (g.name !== null && g.type !== null) return false;
      const missing = g.name === null ? 'name' : 'type';
      if (decidedBy(sel.group, missing === 'name' ? known.types : known.names)) return false;
      return unanswerable(rule, rank, g, asked, missing);
    }
  }
}

/** The kernels a rule selects on one rank, in the rule's step range. */
export interface Slice {
  total: Cell;
  steps: Map<number, Cell>;
  /** The rank's steps in the rule's range (a step counts even where the selected kernels are absent). */
  stepIds: number[];
}

export function inRange(rule: Rule, step: number): boolean {
  return rule.steps === null || inSteps(rule.steps, step);
}

export function slice(rule: Rule, rank: RankData, sel: Selector | null, known: KnownValues): Slice {
  const total = emptyCell();
  const steps = new Map<number, Cell>();
  for (const g of rank.groups.values()) {
    if (sel !== null && !matches(rule, sel, rank, g, known)) continue;
    if (rule.steps === null) mergeCell(total, g.total);
    // Each cell's figures read in place (a group of many steps makes no Cell per step to be summed).
    forEachStepFigure(g.steps, (s, count, ticks, minTicks, maxTicks) => {
      if (!inRange(rule, s)) return;
      if (rule.steps !== null) mergeFigures(total, count, ticks, minTicks, maxTicks);
      let t = steps.get(s);
      if (!t) {
        t = emptyCell();
        steps.set(s, t);
      }
      mergeFigures(t, count, ticks, minTicks, maxTicks);
    });
  }
  return { total, steps, stepIds: rank.stepIds.filter((s) => inRange(rule, s)) };
}

/** The kernel types a rank ran (in the rule's steps). */
export function typesOf(rule: Rule, rank: RankData): Set<string> {
  const out = new Set<string>();
  for (const g of rank.groups.values()) {
    if (g.type === null || (g.type === NO_TYPE && groupsWithoutTypes(rank.groups))) unanswerable(rule, rank, g, 'type', 'type');
    if (countIn(rule, g) > 0) out.add(g.type);
  }
  return out;
}
