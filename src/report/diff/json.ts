// `kprof diff --format json`: the declared diff schema (see schema.ts). Pure: Diff (+ view) in, chunks out.

import { viewDiff, type Diff, type DiffRow, type DiffSideInfo, type DiffView, type Side } from '../../analysis/diff.js';
import { isTimeNoise, type TimeJudgement } from '../../analysis/timeTest.js';
import { SCHEMA_VERSION, type DiffCellJson, type DiffInputJson, type DiffJson, type DiffRowJson, type DiffTimeTestJson } from '../../model/schema.js';
import { round4, round4OrNull } from '../../util/format.js';
import { jsonSafe } from '../../util/inputText.js';
import { diffStepTimeJson } from '../stepTime.js';
import { relPath } from '../../util/paths.js';
import { arrays, jsonChunks, lazyLists, mapped, type ListOf } from '../json.js';
import { rewritesJson } from './rewrites.js';
import { differs, timeFallbackNote } from './shared.js';

// Numbers rounded to 4 decimals (0.1 ns for times), percentages null against a zero base (CSV is made from it).

function cellJson(s: Side): DiffCellJson {
  return { count: round4(s.count), totalUs: round4(s.us) };
}

function timeTestJson(j: TimeJudgement): DiffTimeTestJson {
  const t = j.test;
  return {
    verdict: j.verdict,
    test: t === null ? null : 'mann-whitney-u',
    method: t === null ? null : t.method,
    strata: j.strata,
    n: { base: t?.n1 ?? 0, pr: t?.n2 ?? 0 },
    u: t === null ? null : round4(t.u),
    p: t === null ? null : t.p,
  };
}

function inputJson(s: DiffSideInfo): DiffInputJson {
  return {
    input: relPath(s.input),
    files: s.files.map(relPath),
    ranks: s.ranks,
    steps: s.steps,
    skippedRows: s.skippedRows,
    totals: { count: s.count, totalUs: round4(s.us) },
  };
}

function rowJson(r: DiffRow): DiffRowJson {
  return {
    key: r.key,
    ...(r.type !== undefined ? { type: r.type } : {}),
    ...(r.name !== undefined ? { name: r.name } : {}),
    ...(r.core !== undefined ? { core: r.core } : {}),
    ...(r.shapes !== undefined ? { shapes: r.shapes } : {}),
    ...(r.userGroup !== undefined ? { userGroup: r.userGroup } : {}),
    status: r.status,
    base: cellJson(r.base),
    pr: cellJson(r.pr),
    deltaCount: round4(r.deltaCount),
    deltaCountPct: round4OrNull(r.deltaCountPct),
    deltaUs: round4(r.deltaUs),
    deltaUsPct: round4OrNull(r.deltaUsPct),
    timeWithinTolerance: r.timeTest.withinTolerance,
    timeNoise: r.timeNoise,
    timeTest: timeTestJson(r.timeTest),
    rankStatus: r.rankStatus,
    disagreeingRanks: r.disagreeingRanks.map((x) => ({
      rank: x.rank,
      status: x.status,
      base: round4(x.base),
      pr: round4(x.pr),
      deltaCount: round4(x.deltaCount),
      deltaCountPct: round4OrNull(x.deltaCountPct),
    })),
    unevenSteps: r.unevenSteps.map((u) => ({
      rank: u.rank,
      stepsCompared: u.stepsCompared,
      reference: u.reference === null ? null : { deltaCount: round4(u.reference.deltaCount), steps: u.reference.steps },
      steps: u.steps.map((c) => ({ step: c.step, baseStep: c.baseStep, base: round4(c.base), pr: round4(c.pr), deltaCount: round4(c.deltaCount) })),
    })),
  };
}

/** Rows a view folds into `others` whose change differs across ranks or steps, in the default order. */
function foldedDiffering(d: Diff, shown: readonly DiffRow[]): DiffRow[] {
  const kept = new Set(shown);
  return d.rows.filter((r) => !kept.has(r) && differs(r));
}

/** The declared diff schema (see schema.ts). Rows follow --sort/--only/--top; what they leave out is `others`. */
export function diffJsonObject(d: Diff, view: DiffView): DiffJson {
  return diffJsonWith(d, view, arrays);
}

/**
 * The diff's JSON with its lists (rows, others.changedDifferently) made as they are read: each read once, in
 * order, as diffCsv reads them (a diff by name may have a million rows).
 */
export function diffJsonOnce(d: Diff, view: DiffView): DiffJson {
  return diffJsonWith(d, view, (items) => items as never);
}

/** The diff's JSON, its rows made by `list` (see ListOf). */
function diffJsonWith(d: Diff, view: DiffView, list: ListOf): DiffJson {
  const v = viewDiff(d, view);
  const t = d.totals;
  return {
    schemaVersion: SCHEMA_VERSION,
    kind: 'diff',
    groupBy: d.groupBy,
    selection: d.selection,
    normalization: d.normalization,
    timeTolerancePct: d.timeTolerancePct,
    timeTest: {
      test: 'mann-whitney-u',
      alpha: d.alpha,
      sample: 'kernel time of one rank in one step',
      tested: d.timeTestSummary.tested,
      noise: d.timeTestSummary.noise,
      tooFew: d.timeTestSummary.tooFew,
      noSteps: d.timeTestSummary.noSteps,
      fallback: timeFallbackNote(d),
    },
    base: inputJson(d.base),
    pr: inputJson(d.pr),
    stepMismatch: d.stepMismatch,
    ranksComparedPerStep: d.ranksPerStep,
    pairedRanks: d.pairedRanks,
    unpairedRanks: d.unpairedRanks,
    totals: {
      base: cellJson(t.base),
      pr: cellJson(t.pr),
      deltaCount: round4(t.deltaCount),
      deltaCountPct: round4OrNull(t.deltaCountPct),
      deltaUs: round4(t.deltaUs),
      deltaUsPct: round4OrNull(t.deltaUsPct),
      timeWithinTolerance: t.timeTest.withinTolerance,
      timeNoise: t.timeNoise,
      timeTest: timeTestJson(t.timeTest),
    },
    rows: list(mapped(v.rows, rowJson)),
    others: v.others
      ? {
          groups: v.others.groups,
          base: cellJson(v.others.base),
          pr: cellJson(v.others.pr),
          deltaCount: round4(v.others.deltaCount),
          deltaUs: round4(v.others.deltaUs),
          timeNoise: isTimeNoise(v.others.timeTest),
          timeTest: timeTestJson(v.others.timeTest),
          changedDifferently: list(mapped(foldedDiffering(d, v.rows), rowJson)),
        }
      : null,
    rewrites: d.rewrites === undefined ? null : rewritesJson(d.rewrites),
    ...(d.stepTime ? { stepTime: diffStepTimeJson(d.stepTime) } : {}),
  };
}

/** The JSON report, in chunks: each row is made as it is written (see json.ts). */
export function diffJson(d: Diff, view: DiffView): Iterable<string> {
  return mapped(jsonChunks(diffJsonWith(d, view, lazyLists)), jsonSafe);
}
