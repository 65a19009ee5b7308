// `kprof summary --format json`: the declared summary schema (see schema.ts), which kprof reads back exactly as
// a snapshot. Pure: Summary (+ view) in, chunks out.

import { groupPerStep, sortGroups } from '../../aggregate/group.js';
import { forEachStepFigure, perStepCount, rankPerStep, steppedCell, type Cell, type Group, type PerStep, type Summary } from '../../model/model.js';
import { SCHEMA_VERSION, type CellJson, type StepJson, type SummaryGroupJson, type SummaryJson } from '../../model/schema.js';
import { exactUs, round4, ticksToUs } from '../../util/format.js';
import { jsonSafe } from '../../util/inputText.js';
import { arrays, jsonChunks, lazyLists, mapped, type ListOf } from '../json.js';
import type { SummaryView } from './shared.js';
import { rankStepTimeJson, summaryStepTimeJson } from '../stepTime.js';

export function cellJson(c: Cell): CellJson {
  return { count: c.count, totalUs: exactUs(c.ticks) };
}

export function groupJson(s: Summary, g: Group, perStep: PerStep | null, list: ListOf = arrays): SummaryGroupJson {
  return { ...groupFields(s, g, perStep), byStep: list(byStepJson(g.steps)) };
}

/** A group's figures as its JSON gives them, but its cells per step (the CSV's columns). */
export function groupFields(s: Summary, g: Group, perStep: PerStep | null): Omit<SummaryGroupJson, 'byStep'> {
  const c = g.total;
  return {
    key: g.key,
    ...(g.type !== undefined ? { type: g.type } : {}),
    ...(g.name !== undefined ? { name: g.name } : {}),
    ...(g.core !== undefined ? { core: g.core } : {}),
    ...(g.shapes !== undefined ? { shapes: g.shapes } : {}),
    ...(g.userGroup !== undefined ? { userGroup: g.userGroup } : {}),
    count: c.count,
    totalUs: exactUs(c.ticks),
    avgUs: c.count > 0 ? round4(ticksToUs(c.ticks) / c.count) : null,
    minUs: Number.isFinite(c.minTicks) ? exactUs(c.minTicks) : null,
    maxUs: Number.isFinite(c.maxTicks) ? exactUs(c.maxTicks) : null,
    sharePct: s.totals.ticks > 0 ? round4((100 * c.ticks) / s.totals.ticks) : null,
    countPerStep: perStep ? round4(perStepCount(perStep)) : null,
  };
}

/**
 * A group's cells per step, in step order, each made as it is read: the figures are read in place (a worker's
 * packed cells are not made into a Map of Cell objects) into three columns, so a group of 100,000 steps costs 2.4 MB
 * while it is written, not an entry, a cell and an object a step made at once.
 */
function* byStepJson(steps: Map<number, Cell>): Generator<StepJson> {
  const n = steps.size;
  const step = new Float64Array(n);
  const count = new Float64Array(n);
  const ticks = new Float64Array(n);
  let k = 0;
  let sorted = true;
  forEachStepFigure(steps, (st, c, t) => {
    if (k > 0 && st < step[k - 1]!) sorted = false;
    step[k] = st;
    count[k] = c;
    ticks[k] = t;
    k++;
  });
  if (k !== n) throw new Error(`internal error: a group's step cells gave ${k} figures for ${n} cells`);
  const order = sorted ? null : Uint32Array.from({ length: n }, (_, i) => i).sort((a, b) => step[a]! - step[b]!);
  for (let i = 0; i < n; i++) {
    const j = order === null ? i : order[i]!;
    yield { step: step[j]!, count: count[j]!, totalUs: exactUs(ticks[j]!) };
  }
}

/** A group's kernels per step in the whole profile (ranks combined), null without steps. */
export function profilePerStep(s: Summary, g: Group): PerStep | null {
  return groupPerStep(s, g);
}

/** The declared summary schema (see schema.ts). All groups are written: --top applies to text formats only. */
export function summaryJsonObject(s: Summary, view: SummaryView): SummaryJson {
  return summaryJsonWith(s, view, arrays);
}

/** The summary's JSON, its groups made by `list` (see ListOf). */
function summaryJsonWith(s: Summary, view: SummaryView, list: ListOf): SummaryJson {
  const groups = sortGroups(s.groups, view.sort);
  const stepTime = s.stepTime;
  const rankStepTime = new Map(stepTime?.ranks.map((r) => [r.rank, r]));
  return {
    schemaVersion: SCHEMA_VERSION,
    kind: 'summary',
    groupBy: s.groupBy,
    selection: s.selection,
    inputs: view.inputs ? [...view.inputs] : [s.input],
    steps: s.hasSteps ? s.stepIds.length : null,
    stepIds: s.stepIds,
    ranks: s.ranks,
    rowsRead: s.rowsRead,
    skippedRows: s.skippedRows,
    ...(s.rowsOnNoRank > 0 ? { rowsOnNoRank: s.rowsOnNoRank } : {}),
    filteredKernels: s.filteredKernels,
    totals: cellJson(s.totals),
    groups: list(mapped(groups, (g) => groupJson(s, g, profilePerStep(s, g), list))),
    perRank: list(
      mapped(s.perRank, (r) => ({
        rank: r.rank,
        steps: r.steps,
        rowsRead: r.rowsRead,
        skippedRows: r.skippedRows,
        filteredKernels: r.filteredKernels,
        totals: cellJson(r.totals),
        groups: list(
          mapped(sortGroups(r.groups, view.sort), (g) =>
            groupJson(s, g, s.hasSteps && r.steps.length > 0 ? rankPerStep(steppedCell(g.steps), r.steps.length) : null, list),
          ),
        ),
        ...(stepTime ? { stepTime: rankStepTimeJson(rankStepTime.get(r.rank)!) } : {}),
      })),
    ),
    ...(stepTime ? { stepTime: summaryStepTimeJson(stepTime) } : {}),
  };
}

/** The JSON report, in chunks: each group is made as it is written (see json.ts). */
export function summaryJson(s: Summary, view: SummaryView): Iterable<string> {
  return mapped(jsonChunks(summaryJsonWith(s, view, lazyLists)), jsonSafe);
}
