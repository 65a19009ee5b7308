// Fine groups → the groups the user asked for (--by, --groups), after the filters (--rank, --steps, --core,
// --match, --exclude). Pure: Profile in, Summary out.
//
// Over 400 lines: one stage read top to bottom (filters, groups, per-step figures); the --steps parsing and labels
// at its end are the part to move out next.

import { exactTotals } from '../input/accumulator.js';
import { savedOptions } from '../util/savedOptions.js';
import { FineGroupTable, groupOfRow, isRowGroup, shareName, sortedByTime, totalFigure } from '../model/fineGroups.js';
import { GrowingSteps } from '../model/growingSteps.js';
import { KeyIndex } from './keyIndex.js';
import { stepTimeOf } from './stepTime.js';
import { inputError, listItems, usageError } from '../util/errors.js';
import { shellWord, shown, inQuotes } from '../util/inputText.js';
import { briefList, formatOf, passKernelTable } from '../input/formats/registry.js';
import {
  GROUP_BY_FIELDS,
  GROUP_BYS,
  groupKey,
  cloneCell,
  emptyCell,
  addPerStep,
  lazyProperty,
  forEachStepFigure,
  StepCells,
  ZERO_PER_STEP,
  mergeCell,
  mergeFigures,
  rankPerStep,
  steppedCell,
  rowsOnNoRank,
  type Cell,
  type Fields,
  type FineGroup,
  type Group,
  type GroupBy,
  type PerStep,
  type Profile,
  type RankData,
  type RankSummary,
  type Selection,
  type StepRange,
  type Summary,
  type UserGroup,
} from '../model/model.js';

export const SUMMARY_SORTS = ['time', 'count', 'name'] as const;
export type SummarySort = (typeof SUMMARY_SORTS)[number];

export interface GroupOptions {
  by: GroupBy;
  selection: Selection;
  /**
   * The selection text summary JSONs were made with, taken as this run's (kprof merge: the ranks are saved
   * groups, already filtered, and `selection` is empty).
   */
  savedSelection?: string;
  /** Add each rank's step time (--step-time: the ranks were read with it). */
  stepTime?: boolean;
  /**
   * The groups of a profile of one rank by name, when each is alone in its name, as a list that makes each group
   * when it is read (FineGroupTable.namedGroups: no object a group held; a diff's rows read their groups from the
   * lists by position). For a run that reads each group a few times (kprof summary and diff).
   */
  groupsOnRead?: boolean;
}

/** The canonical text of a selection, saved in summary JSON so snapshots can be compared. Ranks excluded. */
export function selectionText(sel: Selection): string {
  const parts: string[] = [];
  if (sel.steps) parts.push(`steps=${stepsText(sel.steps)}`);
  if (sel.cores) parts.push(`core=${[...sel.cores].sort().join(',')}`);
  if (sel.match) parts.push(`match=/${sel.match.source}/`);
  if (sel.exclude) parts.push(`exclude=/${sel.exclude.source}/`);
  for (const g of sel.groups) parts.push(groupText(g));
  return parts.join('; ');
}

/** The canonical text of one user group, as in selectionText. */
export function groupText(g: UserGroup): string {
  const members = [...[...g.exact].sort(), ...g.patterns.map((p) => `/${p.source}/`)];
  return `group ${g.name}=[${members.join(',')}]`;
}

const FIELD_LABEL = {
  name: 'kernel names',
  type: 'kernel types',
  core: 'core types (Accelerator Core / Task Type)',
  shapes: 'input shapes',
  steps: 'Step Id',
} as const satisfies Record<keyof Fields, string>;

/** Why a rank cannot answer a question about `field`, naming its files. */
function missingField(rank: RankData, field: keyof Fields, asked: string): never {
  const f = rank.files[0];
  const path = f?.path ?? '(input)';
  const holds = f === undefined ? null : formatOf(f.format).holds;
  const answer = { name: 'names', type: 'types', core: 'cores', shapes: 'shapes', steps: 'steps' } as const;
  const facts = f === undefined ? null : formatOf(f.format);
  if (facts !== null && facts.answers[answer[field]] === 'no' && facts.answers.names !== 'no' && facts.answers.types === 'no') {
    // A format of kernel names only (a trace): what it has instead. A grouping asks for another grouping; a filter
    // (--core, --steps) is dropped (--by name does not give it cores).
    const instead = asked.startsWith('--by ') ? ' Use --by name (the default for this input).' : ` Drop ${asked}.`;
    throw inputError(`${path}: ${asked} needs ${FIELD_LABEL[field]}, but ${facts.naming.title} has none: it names its kernels only.${instead}`);
  }
  if (facts !== null && holds === 'kernels' && facts.answers[answer[field]] === 'no') {
    // A format that never has it (no profiler level records it): what it can be asked instead.
    const can = GROUP_BYS.filter((by) => GROUP_BY_FIELDS[by].every((x) => facts.answers[answer[x]] !== 'no')).map((by) => `--by ${by}`);
    const or = can.length > 1 ? `${can.slice(0, -1).join(', ')} or ${can[can.length - 1]}` : can.join('');
    const instead = asked.startsWith('--by ') && can.length > 0 ? ` Use ${or}.` : ` Drop ${asked}.`;
    throw inputError(`${path}: ${asked} needs ${FIELD_LABEL[field]}, but ${facts.naming.title} has none (its files never do).${instead}`);
  }
  if (holds === 'totals') {
    throw inputError(
      `${path}: ${asked} needs ${FIELD_LABEL[field]}, but ${facts!.naming.brief} is already aggregated per OP Type + Core Type ` +
        `and has none. Use the same run's ${passKernelTable(true)}, or group by type, core or type+core.`,
    );
  }
  if (holds === 'summary') {
    throw inputError(
      `${path}: ${asked} needs ${FIELD_LABEL[field]}, which this summary JSON did not keep. ` +
        `Regenerate it with the same options, or pass the profile itself.`,
    );
  }
  // A format whose steps are not a column (a trace's ProfilerStep#N windows) says in `missing` why it has none.
  const why = field === 'steps' ? f?.missing.find((m) => m.startsWith('steps (') && m.endsWith(')')) : undefined;
  if (why !== undefined) {
    const what = why.slice('steps ('.length, -1);
    const plain = what === 'no ProfilerStep#N' ? 'it holds no ProfilerStep#N events, so no kernel is in a step' : what;
    throw inputError(
      `${path}: ${asked} needs steps, but the file has none (${plain}). Drop that option, or profile with steps (prof.step() each iteration).`,
    );
  }
  throw inputError(
    `${path}: ${asked} needs ${FIELD_LABEL[field]}, but the file has no such column (columns: ${(f?.columns ?? []).slice(0, 12).join(', ')}). ` +
      `Drop that option, or profile with a level that records it.`,
  );
}

function checkFields(profile: Profile, opts: GroupOptions): void {
  const sel = opts.selection;
  for (const rank of profile.ranks) {
    if (rank.snapshot) {
      checkSnapshot(rank, opts);
      continue;
    }
    for (const field of GROUP_BY_FIELDS[opts.by]) {
      if (!rank.fields[field]) missingField(rank, field, `--by ${opts.by}`);
    }
    if (sel.steps && !rank.fields.steps) missingField(rank, 'steps', '--steps');
    if (sel.cores && !rank.fields.core) missingField(rank, 'core', '--core');
  }
}

/**
 * A user group may not be named like a kernel type, name or group key of the profile: its row could not be told
 * from that kernel's (and a kernel that matched no group, keeping its own key, would be merged into it).
 */
function checkUserGroupNames(profile: Profile, opts: GroupOptions): void {
  const groups = opts.selection.groups;
  if (groups.length === 0) return;
  const names = new Map(groups.map((g) => [g.name, g]));
  for (const rank of profile.ranks) {
    if (rank.snapshot) continue;
    for (const g of rank.groups.values()) {
      for (const [what, v] of [
        ['kernel type', g.type],
        ['kernel name', g.name],
        [`--by ${opts.by} key`, groupKey(opts.by, g)],
      ] as const) {
        const ug = v !== null ? names.get(v) : undefined;
        if (ug === undefined) continue;
        throw inputError(
          `${ug.at ?? 'groups'}: group ${inQuotes(shown(ug.name))} is named like a ${what} of ${rank.files[0]?.path ?? profile.input}` +
            `${rank.rank !== '-' ? ` (rank ${shown(rank.rank)})` : ''}, so its row could not be told from that kernel's. Rename the group (e.g. ${inQuotes(`${shown(ug.name)} (group)`)}).`,
        );
      }
    }
  }
}

function checkSnapshot(rank: RankData, opts: GroupOptions): void {
  const snap = rank.snapshot!;
  const want = opts.savedSelection ?? selectionText(opts.selection);
  if (snap.groupBy !== opts.by || snap.selection !== want) {
    // Each as the options that make it (`--steps 21-22`, not the saved `steps=21-22`).
    const made = savedOptions(snap.groupBy, snap.selection);
    const asked = savedOptions(opts.by, want);
    throw inputError(
      `${snap.path}: this summary JSON was made with ${made}, but this run asks for ${asked}. ` +
        `Regenerate it with the same options (kprof summary <profile> ${formatOptions(opts.by, opts.selection)} --format json), ` +
        `or pass the options it was made with.`,
    );
  }
}

function formatOptions(by: GroupBy, sel: Selection): string {
  const o = [`--by ${by}`];
  if (sel.steps) o.push(`--steps ${stepsText(sel.steps)}`);
  if (sel.cores) o.push(`--core ${shellWord(sel.cores.join(','))}`);
  if (sel.match) o.push(`--match ${shellWord(sel.match.source)}`);
  if (sel.exclude) o.push(`--exclude ${shellWord(sel.exclude.source)}`);
  if (sel.groups.length) o.push('--groups <file>');
  return o.join(' ');
}

/** Does the fine group pass the kernel filters (--core, --match, --exclude)? */
export function keepGroup(g: FineGroup, sel: Selection): boolean {
  if (sel.cores && !(g.core !== null && sel.cores.includes(g.core))) return false;
  if (sel.match && !kernelMatches(sel.match, g)) return false;
  if (sel.exclude && kernelMatches(sel.exclude, g)) return false;
  return true;
}

/**
 * Does a regular expression match the kernel's type, its name, or its name as the file wrote it (a communication
 * kernel's `hcom_allReduce__586_0_1` as well as its folded `hcom_allReduce__*`)? For --match, --exclude,
 * user-group patterns and rule `match:` selectors.
 */
export function kernelMatches(re: RegExp, g: FineGroup): boolean {
  return test(re, g.name) || (g.rawName !== undefined && test(re, g.rawName)) || test(re, g.type);
}

/** Is the kernel named `text`: its name, normalised or as the file wrote it? For rule `name:` selectors. */
export function kernelNamed(g: FineGroup, names: readonly string[]): boolean {
  return (g.name !== null && names.includes(g.name)) || (g.rawName !== undefined && names.includes(g.rawName));
}

function test(re: RegExp, s: string | null): boolean {
  if (s === null) return false;
  re.lastIndex = 0;
  return re.test(s);
}

/** The user group a fine group belongs to (first match in file order), or null. */
export function userGroupOf(g: FineGroup, sel: Selection): string | null {
  for (const ug of sel.groups) {
    if (
      (g.type !== null && ug.exact.has(g.type)) ||
      (g.name !== null && ug.exact.has(g.name)) ||
      (g.rawName !== undefined && ug.exact.has(g.rawName))
    )
      return ug.name;
    for (const p of ug.patterns) if (kernelMatches(p, g)) return ug.name;
  }
  return null;
}

/** The group key and the single-valued fields of a fine group under a grouping. */
export function keyOf(g: FineGroup, by: GroupBy, sel: Selection): { key: string; fields: Partial<Group> } {
  if (g.savedKey !== undefined) {
    const fields: Partial<Group> = {};
    // The fields as saved: a user group has none of type/name/core/shapes, unless it shared its key with a group.
    if (g.savedUserGroup !== undefined) fields.userGroup = g.savedUserGroup;
    copyFields(g, by, fields);
    return { key: g.savedKey, fields };
  }
  const ug = userGroupOf(g, sel);
  if (ug !== null) return { key: ug, fields: { userGroup: ug } };
  const fields: Partial<Group> = {};
  copyFields(g, by, fields);
  return { key: groupKey(by, g), fields };
}

function copyFields(g: FineGroup, by: GroupBy, out: Partial<Group>): void {
  for (const f of GROUP_BY_FIELDS[by]) {
    const v = g[f as 'type' | 'name' | 'core' | 'shapes'];
    if (v !== null) out[f as 'type' | 'name' | 'core' | 'shapes'] = v;
  }
}

/** The display key of a group (in model.ts, which summary JSONs are checked against when read back). */
export { groupKey };

/** Where a group's per-step cells come from: a fine group, or its cells within --steps. */
interface StepSource {
  readonly steps: Map<number, Cell>;
}

/**
 * The groups being formed, by key, and the step sources of each group of more than one fine group (a group of one
 * holds its source's cells as its `steps`, and no list: most groups of a profile by name are of one fine group).
 */
interface Forming {
  groups: Map<string, Group>;
  sources: Map<Group, StepSource[]>;
  /** Groups known to be of one fine group with a key of its own (alone in its name, by name), in no Map. */
  alone: Group[];
}

function forming(): Forming {
  return { groups: new Map(), sources: new Map(), alone: [] };
}

/** The cell of a fine group within the step range (or its total), and its step cells there. */
function cellIn(g: FineGroup, sel: Selection): { cell: Cell; steps: StepSource } {
  if (!sel.steps) return { cell: g.total, steps: g };
  const { total, steps } = stepsWithin(g.steps, sel.steps);
  return { cell: total, steps: { steps } };
}

/**
 * The step cells within `ranges`, copied as figures into packed cells (a Map of Cell objects cost ~150 bytes a cell:
 * 4,000 names over 300 selected steps, 180 MB), and their sum.
 */
export function stepsWithin(cells: Map<number, Cell>, ranges: readonly StepRange[]): { total: Cell; steps: GrowingSteps } {
  const total = emptyCell();
  const steps = new GrowingSteps();
  forEachStepFigure(cells, (step, count, ticks, minTicks, maxTicks) => {
    if (!inSteps(ranges, step)) return;
    mergeFigures(total, count, ticks, minTicks, maxTicks);
    steps.setFigures(step, count, ticks, minTicks, maxTicks);
  });
  return { total, steps };
}

function addGroup(into: Forming, key: string, fields: Partial<Group>, cell: Cell, steps: StepSource, fine: FineGroup | null): void {
  let t = into.groups.get(key);
  if (!t) {
    // A group of one fine group of a table reads its row (fineGroups.ts: most groups by name are of one), else
    // shares its cell and step cells (plain properties: every group of a snapshot rank is of one fine group, and
    // a copy or an accessor on each of them would cost more than the cells). Nothing writes to a group's cells
    // but this function, which copies the total first.
    const row = fine !== null ? groupOfRow(key, fields, fine) : null;
    into.groups.set(key, row ?? { key, ...fields, total: cell, steps: steps.steps });
    return;
  }
  if (isRowGroup(t)) {
    // A second fine group: the group becomes an object of its own (its first fine group's cells shared).
    const own: Group = { key, total: t.total, steps: t.steps };
    for (const f of ['type', 'name', 'core', 'shapes'] as const) {
      const v = t[f];
      if (v !== undefined) own[f] = v;
    }
    into.groups.set(key, own);
    t = own;
  }
  let sources = into.sources.get(t);
  if (sources === undefined) {
    // The per-step cells of several fine groups are merged when first read: a diff reads only totals, and
    // merging the tens of thousands of step cells of a large profile would be most of what grouping it costs.
    const list: StepSource[] = [{ steps: t.steps }];
    sources = list;
    into.sources.set(t, list);
    t.total = cloneCell(t.total);
    lazyProperty(t, 'steps', () => mergeSteps(list));
  }
  // A field that differs between merged fine groups is not single-valued any more.
  for (const f of ['type', 'name', 'core', 'shapes'] as const) {
    if (t[f] !== undefined && t[f] !== fields[f]) delete t[f];
  }
  mergeCell(t.total, cell);
  sources.push(steps);
}

/**
 * The step cells of a group. From one fine group, its own Map: shared, not copied (nothing writes to it). From
 * several, their sums per step packed as a worker packs cells (StepCells.packed: step, count, ticks, min and max,
 * in the order the steps were first seen): no Map and no cell object per step, and read in place by what walks
 * every group's cells once a diff (forEachStepFigure: the noise test, the per-step check).
 */
function mergeSteps(sources: StepSource[]): Map<number, Cell> {
  if (sources.length === 1) return sources[0]!.steps;
  const at = new Map<number, number>();
  let buf = new Float64Array(5 * 16);
  let n = 0;
  const add = (step: number, count: number, ticks: number, minTicks: number, maxTicks: number): void => {
    const k = at.get(step);
    if (k === undefined) {
      if (5 * n + 5 > buf.length) {
        const grown = new Float64Array(2 * buf.length);
        grown.set(buf);
        buf = grown;
      }
      const o = 5 * n;
      buf[o] = step;
      buf[o + 1] = count;
      buf[o + 2] = ticks;
      buf[o + 3] = minTicks;
      buf[o + 4] = maxTicks;
      at.set(step, n++);
      return;
    }
    // mergeCell's sums and bounds, in place.
    const o = 5 * k;
    buf[o + 1]! += count;
    buf[o + 2]! += ticks;
    if (minTicks < buf[o + 3]!) buf[o + 3] = minTicks;
    if (maxTicks > buf[o + 4]!) buf[o + 4] = maxTicks;
  };
  for (const src of sources) forEachStepFigure(src.steps, add);
  return StepCells.packed(buf, 0, n);
}

/**
 * Groups sorted by time (default) or count descending (ties by the other), or name ascending; then by key. Groups
 * in this order: `groups` itself when they are in it already (a summary's come sorted by time), else a sorted copy.
 * Read it, never write to it.
 */
export function sortGroups(groups: readonly Group[], sort: SummarySort): readonly Group[] {
  if (sort === 'time' && sortedByTime(groups)) return groups;
  const cmp = groupOrder(sort);
  for (let i = 1; i < groups.length; i++) if (cmp(groups[i - 1]!, groups[i]!) > 0) return [...groups].sort(cmp);
  return groups;
}

/**
 * The order of sortGroups. A group's figures are read with totalFigure: a group of a row of fine groups makes a
 * cell at each read of its total, and a million groups meet some twenty million times in a sort.
 */
function groupOrder(sort: SummarySort): (a: Group, b: Group) => number {
  const byKey = (a: Group, b: Group): number => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);
  return sort === 'count'
    ? (a: Group, b: Group) => totalFigure(b, 0) - totalFigure(a, 0) || totalFigure(b, 1) - totalFigure(a, 1) || byKey(a, b)
    : sort === 'time'
      ? (a: Group, b: Group) => totalFigure(b, 1) - totalFigure(a, 1) || totalFigure(b, 0) - totalFigure(a, 0) || byKey(a, b)
      : byKey;
}

/**
 * Under type+core or type+shapes a key joins two fields, so a field that holds the joint makes the key of others:
 * `Add @ X` on core `Y` and `Add` on core `X @ Y` are both `Add @ X @ Y`. Their kernels would be one row that no
 * field names, and whose summary JSON would not read back: refused, as a user group named like a kernel is. Only a
 * group of several fine groups can be such a row; one whose fields still make its key merged kernels of an empty
 * and a missing cell, which are one key by design.
 */
function checkKeysApart(formed: Forming, by: GroupBy, where: string): void {
  if (GROUP_BY_FIELDS[by].length < 2) return;
  for (const g of formed.sources.keys()) {
    if (g.userGroup !== undefined) continue;
    if (groupKey(by, { type: g.type ?? null, name: g.name ?? null, core: g.core ?? null, shapes: g.shapes ?? null }) === g.key) continue;
    const [pair, why, instead] =
      by === 'type+core'
        ? ['(type, core)', 'a type or a core holds " @ "', 'by type or by core']
        : ['(type, input shapes)', 'a type or its shapes hold "[" or "]"', 'by type or by name'];
    throw inputError(
      `${shown(where)}: kernels of different ${pair} have the same --by ${by} key ${inQuotes(shown(g.key))} (${why}), so their figures ` +
        `would be one row that names neither. Group ${instead}, or leave those kernels out with --exclude.`,
    );
  }
}

/**
 * A group of the base and one of the PR under one key must hold the same kernels: under type+core or type+shapes a
 * type holding the joint gives other fields the same key (checkKeysApart), and they would be compared as one row.
 */
export function checkPairedKeys(by: GroupBy, base: Group, pr: Group, sides: { base: string; pr: string }): void {
  const fields = GROUP_BY_FIELDS[by];
  if (fields.length < 2 || base.userGroup !== undefined || pr.userGroup !== undefined) return;
  if (fields.every((f) => (base[f] ?? '') === (pr[f] ?? ''))) return;
  const text = (g: Group): string => fields.map((f) => `${f} ${inQuotes(shown(g[f] ?? ''))}`).join(', ');
  throw inputError(
    `the base ${shown(sides.base)} has kernels of ${text(base)} and the PR ${shown(sides.pr)} kernels of ${text(pr)}, and both have the ` +
      `--by ${by} key ${inQuotes(shown(base.key))}, so they would be compared as one row. Group ${by === 'type+core' ? 'by type or by core' : 'by type or by name'}, ` +
      'or leave those kernels out with --exclude.',
  );
}

/**
 * The groups formed, sorted by time (the list of groups alone in their key, grown: nothing else holds it), with the
 * groups by name of `rows` of `table` (alone in their names, kept as rows for a list made on read that was not made).
 */
function groupsOf(formed: Forming, table: FineGroupTable | null = null, rows: Int32Array | null = null): Group[] {
  const out = formed.alone;
  if (table !== null && rows !== null) for (const i of rows) out.push(table.aloneGroup(table.at(i))!);
  for (const g of formed.groups.values()) out.push(g);
  return out.sort(groupOrder('time'));
}

function stepsIn(rank: RankData, sel: Selection): number[] {
  if (!sel.steps) return rank.stepIds;
  return rank.stepIds.filter((s) => inSteps(sel.steps!, s));
}

/** Group one profile. Groups come sorted by time (descending), ties by key. */
export function summarize(profile: Profile, opts: GroupOptions): Summary {
  checkFields(profile, opts);
  checkUserGroupNames(profile, opts);
  const sel = opts.selection;
  const all = forming();
  const perRank: RankSummary[] = [];
  const totals = emptyCell();
  let filtered = 0;
  const stepSet = new Set<number>();
  const single = profile.ranks.length === 1;
  for (const rank of profile.ranks) {
    const groups = forming();
    const rankTotals = emptyCell();
    let rankFiltered = rank.snapshot ? rank.snapshot.filteredKernels : 0;
    // By name, a fine group alone in its name is a group of its own: no index by key of a million names to make.
    const byName = !rank.snapshot && opts.by === 'name' && sel.groups.length === 0 && rank.groups instanceof FineGroupTable ? rank.groups : null;
    // Their rows, to be made a list of groups made on read (groupsOnRead) when every group is alone in its name:
    // a column of the table's size (a list grown to a million left its past copies to the collector, ~24 MB).
    const rowsOf = byName !== null && single && opts.groupsOnRead === true ? new Int32Array(byName.size) : null;
    let nRows = 0;
    for (const g of rank.groups.values()) {
      if (!rank.snapshot && !keepGroup(g, sel)) {
        rankFiltered += g.total.count;
        continue;
      }
      const { cell, steps } = rank.snapshot ? { cell: g.total, steps: g } : cellIn(g, sel);
      rankFiltered += g.total.count - cell.count;
      if (cell.count === 0) continue;
      const { key, fields } = keyOf(g, opts.by, sel);
      // The group reads the fine group's row only when it holds all of it (its cells, not those within --steps).
      const whole = steps === g ? g : null;
      const row = whole !== null && rowsOf !== null ? byName!.aloneRow(g) : -1;
      const alone = row < 0 && whole !== null && byName !== null ? byName.aloneGroup(g) : null;
      if (row >= 0) rowsOf![nRows++] = row;
      else if (alone !== null) groups.alone.push(alone);
      else addGroup(groups, key, fields, cell, steps, whole);
      // With one rank the profile's groups are that rank's groups: share them rather than copy every step cell.
      if (!single) addGroup(all, key, fields, cell, steps, whole);
      mergeCell(rankTotals, cell);
    }
    checkKeysApart(groups, opts.by, rank.files[0]?.path ?? profile.input);
    const rows = rowsOf?.subarray(0, nRows) ?? null;
    const rankSteps = rank.snapshot ? rank.stepIds : stepsIn(rank, sel);
    for (const s of rankSteps) stepSet.add(s);
    mergeCell(totals, rankTotals);
    filtered += rankFiltered;
    perRank.push({
      rank: rank.rank,
      totals: rankTotals,
      groups: rows !== null && groups.groups.size === 0 && groups.alone.length === 0 ? byName!.namedGroups(rows) : groupsOf(groups, byName, rows),
      steps: rankSteps,
      rowsRead: rank.rowsRead,
      skippedRows: rank.rowsSkipped,
      filteredKernels: rankFiltered,
    });
  }
  checkKeysApart(all, opts.by, profile.input);
  const onNoRank = rowsOnNoRank(profile.ranks);
  // One file can hold several ranks (msprof devices): list it once.
  const files = [...new Map(profile.ranks.flatMap((r) => r.files).map((f) => [f.path, f])).values()];
  const warnings = profile.ranks.flatMap((r) => r.warnings);
  // Counts that large come from files of totals (their Count column): named as the registry names their formats.
  const totalsFormats = [...new Set(files.map((f) => f.format))].map(formatOf).filter((f) => f.holds === 'totals');
  exactTotals(profile.input, totals, filtered, totalsFormats.length === 0 ? null : briefList(totalsFormats, 'and'));
  return {
    input: profile.input,
    groupBy: opts.by,
    selection: opts.savedSelection ?? selectionText(sel),
    ranks: profile.ranks.map((r) => r.rank),
    stepIds: [...stepSet].sort((a, b) => a - b),
    hasSteps: profile.ranks.every((r) => r.fields.steps),
    files,
    rowsRead: profile.ranks.reduce((n, r) => n + r.rowsRead, 0) + onNoRank,
    skippedRows: profile.ranks.reduce((n, r) => n + r.rowsSkipped, 0) + onNoRank,
    rowsOnNoRank: onNoRank,
    filteredKernels: filtered,
    totals,
    // One rank: its sorted groups are the profile's (the same objects, in the same order), held once.
    groups: single ? perRank[0]!.groups : groupsOf(all),
    perRank,
    warnings,
    warningCount: profile.ranks.reduce((n, r) => n + r.warningCount, 0),
    ...(opts.stepTime === true ? { stepTime: stepTimeOf(profile, (step) => sel.steps === null || inSteps(sel.steps, step)) } : {}),
  };
}

/** A summary's figures per step (see "Per step" in model.ts): of each group, and of all of them. */
export interface SummaryPerStep {
  /** By group key (made on first read: see groupPerStep for one group's). */
  readonly groups: Map<string, PerStep>;
  total: PerStep;
}

const perStepCache = new WeakMap<Summary, SummaryPerStep | null>();

/**
 * The figures per step of a summary: each rank's kernels with a Step Id over its own steps, summed over the
 * ranks. null when the summary has no Step Id, or no rank has a step. The Map of every group's figure is made
 * when first read: of a million groups it holds three big integers each, and a report of one rank reads each
 * group's figure once (groupPerStep).
 */
export function summaryPerStep(s: Summary): SummaryPerStep | null {
  const cached = perStepCache.get(s);
  if (cached !== undefined) return cached;
  let out: SummaryPerStep | null = null;
  if (s.hasSteps && s.perRank.some((r) => r.steps.length > 0)) {
    let total = rankPerStep({ count: 0, ticks: 0 }, 0);
    for (const r of s.perRank) {
      const rankTotal = { count: 0, ticks: 0 };
      for (const g of r.groups) {
        const c = steppedCell(g.steps);
        rankTotal.count += c.count;
        rankTotal.ticks += c.ticks;
      }
      total = addPerStep(total, rankPerStep(rankTotal, r.steps.length));
    }
    out = lazyProperty({ total }, 'groups', () => perStepByGroup(s));
  }
  perStepCache.set(s, out);
  return out;
}

/** Every group's figure per step, by key (see summaryPerStep). */
function perStepByGroup(s: Summary): Map<string, PerStep> {
  const groups = new Map<string, PerStep>();
  for (const r of s.perRank) {
    for (const g of r.groups) {
      const f = rankPerStep(steppedCell(g.steps), r.steps.length);
      const had = groups.get(g.key);
      groups.set(g.key, had ? addPerStep(had, f) : f);
    }
  }
  return groups;
}

/**
 * One group's figure per step in the whole profile (ranks combined; zero in a rank that lacks it), null when the
 * summary has none (see summaryPerStep). Of a summary of one rank it is made from the group itself, with no Map
 * of every group's.
 */
export function groupPerStep(s: Summary, g: Group): PerStep | null {
  const ps = summaryPerStep(s);
  if (ps === null) return null;
  if (s.perRank.length === 1 && s.groups === s.perRank[0]!.groups) return rankPerStep(steppedCell(g.steps), s.perRank[0]!.steps.length);
  return ps.groups.get(g.key) ?? ZERO_PER_STEP;
}

const indexCache = new WeakMap<readonly Group[], KeyIndex>();

/**
 * Groups by key, made once per list of groups and kept while it is: a diff looks a rank's groups up by key in
 * several passes (the rows, the noise test, the per-rank and per-step checks): a KeyIndex (8 MB of a million groups,
 * where a Map cost some 50 MB). A summary of one rank has one list for the profile and the rank (summarize), so one.
 */
export function groupsByKey(groups: readonly Group[]): KeyIndex {
  let m = indexCache.get(groups);
  if (m === undefined) {
    m = new KeyIndex(groups);
    indexCache.set(groups, m);
  }
  return m;
}

/**
 * The PR's groups hold the base's strings of the keys both sides have, where they can (shareName): a diff by name
 * of a million names then holds each name once. Nothing read changes (the strings are equal).
 */
export function shareKeys(base: Summary, pr: Summary): void {
  const index = groupsByKey(base.groups);
  for (const g of pr.groups) {
    const b = index.get(g.key);
    if (b !== undefined) shareName(g, b.key);
  }
}

/** Let go of the indexes groupsByKey made of a summary's lists of groups (made again if asked for). */
export function forgetGroupsByKey(s: Summary): void {
  indexCache.delete(s.groups);
  for (const r of s.perRank) indexCache.delete(r.groups);
}

/** Kernels of a summary that have a Step Id (the rest are in no step). */
export function totalStepped(s: Summary): number {
  let n = 0;
  for (const r of s.perRank) for (const g of r.groups) n += steppedCell(g.steps).count;
  return n;
}

/** Ranks of a summary that have no step (their kernels are in no per-step figure). */
export function ranksWithoutSteps(s: Summary): string[] {
  return s.perRank.filter((r) => r.steps.length === 0).map((r) => r.rank);
}

/** Is a Step Id within the selected ranges? */
export function inSteps(ranges: readonly StepRange[], step: number): boolean {
  for (const r of ranges) if (step >= r.from && step <= r.to) return true;
  return false;
}

/**
 * The canonical text of step ranges, as saved in summary JSON and as `--steps` takes it back: ranges sorted and
 * merged, each `from-to` (`7-7` for one step, `14-` for an open end), joined by commas. A single range keeps the
 * text it always had (`5-20`).
 */
export function stepsText(ranges: readonly StepRange[]): string {
  return ranges.map((r) => `${r.from}-${r.to === Number.POSITIVE_INFINITY ? '' : r.to}`).join(',');
}

/** Step ranges as a person reads them: `13`, `5-20`, `14-`, joined by commas (`13,15,20-30`). */
export function stepsLabel(ranges: readonly StepRange[]): string {
  return ranges.map((r) => (r.from === r.to ? `${r.from}` : `${r.from}-${r.to === Number.POSITIVE_INFINITY ? '' : r.to}`)).join(',');
}

const STEP_PART = /^(\d{1,15})?\s*(-)?\s*(\d{1,15})?$/;

/**
 * Parse `--steps`: a Step Id (`7`), a range (`5-20`), an open range (`14-`: from 14 on; `-8`: up to 8), or a
 * comma-separated list of those (`13,15,20-30`). Returns the ranges sorted, with overlapping and adjacent ones
 * merged, so that one selection has one canonical text however it was written.
 */
export function parseSteps(text: string): StepRange[] {
  const expected = 'Expected a Step Id (7), a range (5-20), an open range (14- or -8) or a list of them (13,15,20-30).';
  // An empty value is most often an unset variable (`--steps "$STEPS"`).
  if (text.trim() === '') throw usageError(`--steps: found an empty value (an unset variable?). ${expected} Leave --steps out for every step.`);
  const parts = listItems('--steps', text, 'Step Ids or ranges (13,15,20-30)');
  // The value is quoted once: an item is named on its own only when it is not the whole value.
  const bad = (why: string): never => {
    throw usageError(`--steps: ${why}; found ${inQuotes(shown(text))}. ${expected}`);
  };
  const ranges: StepRange[] = [];
  for (const raw of parts) {
    const part = raw.trim();
    const item = parts.length > 1 ? ` ${inQuotes(shown(part))}` : '';
    const notStep = (): never =>
      bad(
        /\d{16}/.test(part)
          ? `the number${item} has more than 15 digits`
          : parts.length > 1
            ? `the item${item} is not a Step Id or a range`
            : 'not a Step Id or a range',
      );
    const m = STEP_PART.exec(part);
    if (!m || (m[1] === undefined && m[3] === undefined)) notStep();
    const [, a, dash, b] = m!;
    if (dash === undefined && b !== undefined) notStep();
    const from = a !== undefined ? Number(a) : 0;
    const to = dash === undefined ? from : b !== undefined ? Number(b) : Number.POSITIVE_INFINITY;
    if (to < from) bad(`the range${parts.length > 1 ? ` ${part}` : ''} ends before it starts (write it as ${to}-${from})`);
    ranges.push({ from, to });
  }
  ranges.sort((x, y) => x.from - y.from || x.to - y.to);
  const merged: StepRange[] = [];
  for (const r of ranges) {
    const last = merged[merged.length - 1];
    if (last && r.from <= last.to + 1) last.to = Math.max(last.to, r.to);
    else merged.push({ ...r });
  }
  return merged;
}
