// A summary JSON read back must say what kprof writes: its top level (ranks, steps, stepIds, groups) and the
// derived figures of its groups (avgUs, sharePct, countPerStep …) are computed again from its "perRank" entries, by
// the same summary and JSON mapping that wrote them, and a file where they disagree is refused (it was edited, and
// its figures cannot all be right). The reader (input/formats/summary/snapshot.ts) is given this check by the CLI.

import { summarize } from '../aggregate/group.js';
import type { GroupBy, RankData, Selection } from '../model/model.js';
import type { SummaryGroupJson } from '../model/schema.js';
import { fail, GROUP_TEXT_FIELDS, quoteJson, quoteText } from '../input/formats/summary/snapshot.js';
import { summaryJsonObject } from './summary/json.js';

/** The figures of a saved group that must be what kprof computes from the ranks (those the file has). */
const GROUP_FIGURES = ['count', 'totalUs', 'avgUs', 'minUs', 'maxUs', 'sharePct', 'countPerStep', 'byStep'] as const;

/** Two saved values as JSON text, to compare numbers, lists and absence exactly. */
function sameJson(a: unknown, b: unknown): boolean {
  return plainSame(a, b) ?? JSON.stringify(a) === JSON.stringify(b);
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && Object.getPrototypeOf(v) === Object.prototype;
}

/**
 * Whether two values are the same JSON text, decided without writing it where that is certain (numbers, strings,
 * booleans, null, and lists and objects of them with their keys in the same order); undefined where only the
 * text can tell (an absent value, keys in another order). A summary holds a few hundred thousand such figures:
 * writing each twice as JSON was most of the time of reading a folder of snapshots back.
 */
function plainSame(a: unknown, b: unknown): boolean | undefined {
  if (typeof a === 'number' && typeof b === 'number') return a === b || (!Number.isFinite(a) && !Number.isFinite(b));
  if ((typeof a === 'string' && typeof b === 'string') || (typeof a === 'boolean' && typeof b === 'boolean')) return a === b;
  if (a === null && b === null) return true;
  if (Array.isArray(a) && Array.isArray(b)) {
    if (a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) {
      const r = plainSame(a[i], b[i]);
      if (r !== true) return r;
    }
    return true;
  }
  if (isPlainObject(a) && isPlainObject(b)) {
    const ka = Object.keys(a);
    const kb = Object.keys(b);
    if (ka.length !== kb.length) return undefined;
    for (let i = 0; i < ka.length; i++) {
      const k = ka[i]!;
      if (k !== kb[i]) return undefined;
      const r = plainSame(a[k], b[k]);
      if (r !== true) return r;
    }
    return true;
  }
  return undefined;
}

/** Does a saved group (its fields, and the figures it has) say what kprof writes for that key? */
function groupDiffers(saved: Record<string, unknown>, want: SummaryGroupJson): string | null {
  for (const f of ['key', ...GROUP_TEXT_FIELDS, 'userGroup'] as const) if (!sameJson(saved[f], want[f])) return `"${f}"`;
  // countPerStep counted kernels with no Step Id too before it became the stepped kernels per step: a group
  // with such kernels may hold either figure, and it is not read back (it is computed again), so it is left.
  const stepless = want.byStep.reduce((n, c) => n + c.count, 0) !== want.count;
  for (const f of GROUP_FIGURES) {
    if (f === 'countPerStep' && stepless) continue;
    // A number is quoted (`"avgUs" 12345`); a list or an object by its name alone (`"byStep"`).
    if (saved[f] !== undefined && !sameJson(saved[f], want[f]))
      return typeof saved[f] === 'object' && saved[f] !== null ? `"${f}"` : `"${f}" ${quoteJson(saved[f])}`;
  }
  return null;
}

/**
 * The top level (ranks, steps, stepIds, groups) and the derived figures of the ranks' groups (avgUs, sharePct,
 * countPerStep) are what kprof computes from the "perRank" entries, which are what is read: a file where they
 * disagree was edited, and its figures cannot all be right, so it is refused rather than silently recomputed.
 */
export function checkSavedFigures(path: string, o: Record<string, unknown>, ranks: RankData[], groupBy: GroupBy): void {
  const asRead = ranks.map((r) => ({ ...r, snapshot: { ...r.snapshot!, selection: '' } }));
  const noSelection: Selection = { ranks: null, steps: null, cores: null, match: null, exclude: null, groups: [] };
  const perRank = o.perRank as Record<string, unknown>[];
  const stepTime = o.stepTime !== undefined || perRank.some((r) => r.stepTime !== undefined);
  const want = summaryJsonObject(summarize({ input: path, ranks: asRead, notes: [] }, { by: groupBy, selection: noSelection, stepTime }), {
    sort: 'time',
    top: null,
  });
  const top = 'the top-level';
  if (o.ranks !== undefined && !sameJson(o.ranks, want.ranks))
    fail(path, `${top} "ranks" are not the ranks of "perRank" (${want.ranks.map(quoteText).slice(0, 8).join(', ')})`);
  if (o.stepIds !== undefined && !sameJson(o.stepIds, want.stepIds))
    fail(path, `${top} "stepIds" are not the steps of the ranks in "perRank", in order`);
  if (o.steps !== undefined && !sameJson(o.steps, want.steps))
    fail(path, `${top} "steps" ${quoteJson(o.steps)} is not the number of the ranks' distinct steps (${want.steps})`);
  if (o.groups !== undefined) {
    if (!Array.isArray(o.groups)) fail(path, `${top} "groups" is not a list`);
    const byKey = new Map(want.groups.map((g) => [g.key, g]));
    const seen = new Set<string>();
    for (const gu of o.groups as unknown[]) {
      const g = (typeof gu === 'object' && gu !== null ? gu : {}) as Record<string, unknown>;
      const key = typeof g.key === 'string' ? g.key : undefined;
      const w = key === undefined ? undefined : byKey.get(key);
      if (key === undefined || w === undefined) fail(path, `${top} group ${quoteJson(g.key)} is in no rank of "perRank"`);
      if (seen.has(key)) fail(path, `${top} group ${quoteText(key)} is in "groups" twice`);
      seen.add(key);
      const bad = groupDiffers(g, w);
      if (bad !== null) fail(path, `${top} group ${quoteText(key)}: its ${bad} is not what its ranks in "perRank" add up to`);
    }
    const lost = want.groups.find((g) => !seen.has(g.key));
    if (lost) fail(path, `${top} "groups" lack the group ${quoteText(lost.key)} of "perRank"`);
  }
  if (o.stepTime !== undefined && !sameJson(o.stepTime, want.stepTime))
    fail(path, `${top} "stepTime" is not what the step times of the ranks in "perRank" give`);
  perRank.forEach((r, i) => {
    const wr = want.perRank[i]!;
    if (r.stepTime !== undefined && !sameJson(r.stepTime, wr.stepTime))
      fail(path, `the "stepTime" of rank ${quoteText(wr.rank)}: its median, min, max or gap contradicts its steps`);
    const byKey = new Map(wr.groups.map((g) => [g.key, g]));
    for (const g of r.groups as Record<string, unknown>[]) {
      const bad = groupDiffers(g, byKey.get(g.key as string)!);
      if (bad !== null) fail(path, `group ${quoteText(g.key as string)} in rank ${quoteText(wr.rank)}: its ${bad} contradicts its other figures`);
    }
  });
}
