// What every text format of `kprof diff` says (the terminal table, Markdown, HTML): the headline, the warnings
// that belong in the report, the rows that changed differently across ranks or steps, what was compared. Pure.

import { isAbsolute, relative, sep } from 'node:path';
import {
  headline,
  type Diff,
  type DiffFigures,
  type DiffOthers,
  type DiffRow,
  type DiffSideInfo,
  type RankDisagreement,
  type StepChange,
  type UnevenSteps,
} from '../../analysis/diff.js';
import { isTimeNoise, type TimeVerdict } from '../../analysis/timeTest.js';
import { fmtCount, fmtP, fmtSignedCount, fmtSignedPct, fmtUs, listed, NO_RANK_ID, plural, ranksNamed, stepCountsText } from '../../util/format.js';
import { groupLabel, keyLabel } from '../../model/model.js';
import { WHOLE, clipped } from '../../util/inputText.js';
import { relPath } from '../../util/paths.js';
import { skippedRowsWarning, skippedStepsText } from './skipped.js';

/** The label of a row: its key, with `(empty)` for an empty key or an empty part of one (model.ts groupLabel). */
export function label(d: Pick<Diff, 'groupBy'>, r: DiffRow): string {
  return groupLabel(d.groupBy, r);
}

/** A percentage change; against a zero base it is `new` (or `-` when both are zero), never a number. */
export function pctText(p: number | null, pr: number): string {
  if (p !== null) return fmtSignedPct(p);
  return pr > 0 ? 'new' : '-';
}

/** A time change's percentage, or `~` when it is within the time tolerance. */
export function timePctText(p: number | null, pr: number, noise: boolean): string {
  return noise ? '~' : pctText(p, pr);
}

export function perStep(d: Diff): boolean {
  return d.normalization === 'per-step';
}

// Text from input goes through `code`: clipped() for the terminal, a code span for Markdown.

/** The fusion story in two lines: what appeared, went away or was cut; then the net change. */
export function headlineLines(d: Diff, code: (s: string, max?: number) => string = clipped): string[] {
  const h = headline(d);
  const items: string[] = [
    ...h.added.map((r) => `${code(label(d, r))} appears (${fmtSignedCount(r.deltaCount)})`),
    ...h.removed.map((r) => `${code(label(d, r))} removed (${fmtSignedCount(r.deltaCount)})`),
    ...[...h.fewer, ...h.more].map(
      (r) => `${code(label(d, r))} ${pctText(r.deltaCountPct, r.pr.count)} (${fmtCount(r.base.count)} → ${fmtCount(r.pr.count)})`,
    ),
  ];
  if (h.unnamed > 0) items.push(`${plural(h.unnamed, 'more changed group')}`);
  const first = items.length > 0 ? `${items.join(', ')}.` : 'No group changed its kernel count.';
  const t = d.totals;
  const what = perStep(d) ? ['Kernels per step', 'kernel time per step'] : ['Total kernels', 'kernel time'];
  const timeChange = t.timeNoise ? `${pctText(t.deltaUsPct, t.pr.us)}, ${noiseWhy(d, t)}` : pctText(t.deltaUsPct, t.pr.us);
  const second =
    `${what[0]} ${fmtCount(t.base.count)} → ${fmtCount(t.pr.count)} (${pctText(t.deltaCountPct, t.pr.count)}); ` +
    `${what[1]} ${fmtUs(t.base.us)} → ${fmtUs(t.pr.us)} (${timeChange}).`;
  return [first, second];
}

/** Why a time change is `~`: `within ±2%`, or `within the step noise, p = 0.31`. */
export function noiseWhy(d: Diff, f: DiffFigures): string {
  const t = f.timeTest;
  if (t.withinTolerance || t.test === null) return `within ±${d.timeTolerancePct}%`;
  return `within the step noise, p = ${fmtP(t.test.p)}`;
}

/** Each rank's own steps (never the distinct Step Ids across ranks, which offset or lost steps inflate). */
export function stepsText(s: DiffSideInfo, code: (s: string) => string): string {
  return s.steps === null ? 'no Step Id' : stepCountsText(s.rankSteps, code);
}

/** Step Ids in short: `1-4`, `2, 4-6`. */
export function idsText(ids: number[]): string {
  const parts: string[] = [];
  for (let i = 0; i < ids.length; ) {
    let j = i;
    while (j + 1 < ids.length && ids[j + 1] === ids[j]! + 1) j++;
    parts.push(j > i ? `${ids[i]}-${ids[j]}` : String(ids[i]));
    i = j + 1;
  }
  return listed(parts, 6);
}

/**
 * Warnings that belong in the report itself (and on stderr): rows that could not be read (the report's alone: stderr
 * says so in its own words), unequal steps, ranks on one side only.
 */
export function reportWarnings(d: Diff, code: (s: string, max?: number) => string = clipped, onStderr = false): string[] {
  const out: string[] = [];
  const skipped = onStderr ? null : skippedRowsWarning(d);
  if (skipped !== null) out.push(skipped);
  if (d.stepMismatch) {
    const ranks = d.stepMismatchRanks;
    // Per rank, unless every rank shows the same difference as the sides do (each side's ranks alike).
    const alike = (x: DiffSideInfo): number | null =>
      x.rankSteps.every((r) => r.steps === x.rankSteps[0]?.steps) ? (x.rankSteps[0]?.steps ?? null) : null;
    const sides = ranks.length === d.pairedRanks.length && ranks.every((r) => r.base === alike(d.base) && r.pr === alike(d.pr));
    const byRank =
      ranks.length > 0 && !sides
        ? ` (${listed(
            ranks.map((r) => `${ranksNamed([r.rank], code)}: ${fmtCount(r.base)} → ${fmtCount(r.pr)}`),
            6,
          )})`
        : '';
    out.push(
      `Step counts differ: the base has ${stepsText(d.base, code)}, the PR has ${stepsText(d.pr, code)}${byRank}.${skippedStepsText(d)} Raw counts compare ` +
        `different amounts of work; ${d.base.steps !== null && d.pr.steps !== null ? 'rerun with --per-step.' : 'compare runs profiled alike.'}`,
    );
  }
  const ws = d.withoutStep;
  if (ws.base > 0 || ws.pr > 0) {
    out.push(
      `Kernels with an empty Step Id are in no step, so not in the figures per step: ${plural(ws.base, 'kernel')} of the base, ` +
        `${plural(ws.pr, 'kernel')} of the PR (they are in the inputs' totals).`,
    );
  }
  const us = d.unpairedSteps;
  if (us.length > 0) {
    const rowOf = new Map(d.rows.map((r) => [r.key, r]));
    const keyText = (k: string): string => {
      const r = rowOf.get(k);
      return r !== undefined ? label(d, r) : keyLabel(k);
    };
    const ranks = us.slice(0, 4).map((x) => {
      const names = listed(
        x.varying.map((k) => code(keyText(k))),
        4,
      );
      return `${x.rank === '-' ? 'the rank' : `${ranksNamed([x.rank], code)}`} (base steps ${idsText(x.base)}, PR steps ${idsText(x.pr)}: ${names})`;
    });
    const notCompared = us.reduce((n, x) => n + x.notCompared.length, 0);
    out.push(
      `Step Ids differ where groups run a different number of times from step to step: ${ranks.join('; ')}` +
        `${us.length > 4 ? `; and ${plural(us.length - 4, 'more rank')}` : ''}. Their figures depend on which steps each side profiled, ` +
        `and their steps are compared one by one under the same Step Id only` +
        `${notCompared > 0 ? ` (PR steps without one are not compared: ${plural(notCompared, 'group')} on ${plural(us.filter((x) => x.notCompared.length > 0).length, 'rank')})` : ''}.` +
        (d.stepMismatch ? '' : skippedStepsText(d)),
    );
  }
  const u = d.unpairedRanks;
  if (u.base.length > 0 || u.pr.length > 0) {
    // `rank 2 in the base only`, not `base 2`, which read as two ranks.
    const sides = [
      ...(u.base.length > 0 ? [`${ranksNamed(u.base, (x) => code(x))} in the base only`] : []),
      ...(u.pr.length > 0 ? [`${ranksNamed(u.pr, (x) => code(x))} in the PR only`] : []),
    ];
    out.push(
      `Ranks on one side only: ${sides.join('; ')}. Their kernels are in the counts, but they ` +
        `were not checked for a change that differs between ranks.`,
    );
  }
  return out;
}

export const disagreeing = (d: Diff): DiffRow[] => d.rows.filter((r) => r.disagreeingRanks.length > 0);
export const uneven = (d: Diff): DiffRow[] => d.rows.filter((r) => r.unevenSteps.length > 0);

/** A rank's change in words: `removed (-4)`, `same`, `-112 per step (-50.0%)`. */
export function changeText(x: RankDisagreement, ps: string): string {
  if (x.status === 'added' || x.status === 'removed') return `${x.status} (${fmtSignedCount(x.deltaCount)}${ps})`;
  if (x.status === 'same') return 'same';
  return `${fmtSignedCount(x.deltaCount)}${ps} (${pctText(x.deltaCountPct, x.pr)})`;
}

/** The change most ranks show: its factor, which ranks of different sizes share (`-50.0%`). */
export function majorityText(x: RankDisagreement): string {
  if (x.status === 'fewer' || x.status === 'more') return pctText(x.deltaCountPct, x.pr);
  return x.status;
}

/** One line per row whose change is not the same on every rank (in status or size), for the first groups. */
export function disagreementLines(d: Diff, code: (s: string, max?: number) => string = clipped): string[] {
  const ps = perStep(d) || d.ranksPerStep ? ' per step' : '';
  const rows = disagreeing(d);
  const lines = rows.slice(0, MAX_DISAGREE_GROUPS).map((r) => {
    const m = r.rankMajority;
    const most = m !== null ? `${majorityText(m.change)} on ${m.ranks} of ${r.ranksCompared} ranks` : 'ranks differ';
    // Ranks of one change in one item (`ranks 100, 102, …, 400 -5 (-20.0%): 25 → 20`); past 8 changes, counted.
    const alike = new Map<string, string[]>();
    for (const x of r.disagreeingRanks) {
      const t = `${changeText(x, ps)}: ${fmtCount(x.base)} → ${fmtCount(x.pr)}`;
      alike.get(t)?.push(x.rank) ?? alike.set(t, [x.rank]);
    }
    const items = [...alike].map(([t, rs]) => `${ranksNamed(rs, code)} ${t}`);
    const ranks = [...items.slice(0, 8), ...(items.length > 8 ? [`and ${plural(items.length - 8, 'other change')}`] : [])].join(', ');
    return `${code(label(d, r))}: ${most}; ${ranks}`;
  });
  const more = rows.length - MAX_DISAGREE_GROUPS;
  return more > 0 ? [...lines, `and ${plural(more, 'more group')} (all of them in --format json)`] : lines;
}

/** Steps that show the same change, in words: `-56 in 2 of 4 steps (52, 53: 224 → 168)`. */
export function stepGroupText(changes: StepChange[], of: number): string {
  const ids = listed(
    changes.map((c) => String(c.step)),
    8,
  );
  const first = changes[0]!;
  const alike = changes.every((c) => c.base === first.base && c.pr === first.pr);
  const figures = alike ? `: ${fmtCount(first.base)} → ${fmtCount(first.pr)}` : '';
  const what = changes.length === 1 ? `step ${ids}${figures}` : `${changes.length} of ${of} steps (${ids}${figures})`;
  return `${fmtSignedCount(first.deltaCount)} in ${what}`;
}

export function unevenText(u: UnevenSteps, code: (s: string) => string): string {
  const groups = new Map<number, StepChange[]>();
  for (const c of u.steps) groups.set(c.deltaCount, [...(groups.get(c.deltaCount) ?? []), c]);
  const parts = [...groups.values()].map((g) => stepGroupText(g, u.stepsCompared));
  if (u.reference !== null) parts.unshift(`${fmtSignedCount(u.reference.deltaCount)} in ${u.reference.steps} of ${u.stepsCompared} steps`);
  return `${u.rank === '-' ? 'steps differ' : `${ranksNamed([u.rank], code)} steps differ`}: ${parts.join('; ')}`;
}

/**
 * How many groups the text formats list under "Changed differently across ranks" and "… steps" (a rank that lost
 * its layers makes every group differ: thousands of lines), then how many more; JSON has them all.
 */
export const MAX_DISAGREE_GROUPS = 20;
export const MAX_UNEVEN_GROUPS = 20;

/** One line per row and rank whose change is not the same in every step (PR vs base), for the first groups. */
export function unevenStepLines(d: Diff, code: (s: string) => string = clipped): string[] {
  const rows = uneven(d);
  const lines = rows.slice(0, MAX_UNEVEN_GROUPS).flatMap((r) => {
    const shown = r.unevenSteps.slice(0, 8).map((u) => `${code(label(d, r))}: ${unevenText(u, code)}`);
    const more = r.unevenSteps.length - shown.length;
    return more > 0 ? [...shown, `${code(label(d, r))}: and ${plural(more, 'more rank')}`] : shown;
  });
  const more = rows.length - MAX_UNEVEN_GROUPS;
  return more > 0 ? [...lines, `and ${plural(more, 'more group')} (all of them in --format json)`] : lines;
}

export const DISAGREE_TITLE = 'Changed differently across ranks (a change that did not take effect on every rank, or not by as much):';
/** The ranks' title; raw counts with ranks compared per step say why. */
export function disagreeTitle(d: Diff): string {
  return d.ranksPerStep && !perStep(d) ? DISAGREE_TITLE.replace(/:$/, '; each rank per step, as step counts differ:') : DISAGREE_TITLE;
}
export const UNEVEN_TITLE =
  'Changed differently across steps (count of each step against the base; a change that did not take effect in every step):';

/** Paths as shown: relative to the input folder when inside it, else relative to the working directory. */
export function fileNames(s: DiffSideInfo): string[] {
  return s.files.map((f) => {
    const r = relative(s.input, f);
    return r !== '' && !r.startsWith('..') && !isAbsolute(r) ? r.split(sep).join('/') : relPath(f);
  });
}

export function sideText(s: DiffSideInfo, code: (s: string, max?: number) => string, listFiles: boolean): string {
  const files = fileNames(s);
  const fileText = listFiles && files.length > 0 && files.length <= 4 ? files.map((f) => code(f, WHOLE)).join(', ') : plural(files.length, 'file');
  // The one rank of no id is counted, as the summary's totals line counts it.
  const ranks = s.ranks.length === 1 && s.ranks[0] === NO_RANK_ID ? '1 rank' : ranksNamed(s.ranks, code);
  const skipped = s.skippedRows > 0 ? `; ${plural(s.skippedRows, 'row')} skipped` : '';
  return `${code(relPath(s.input), WHOLE)} (${fileText}; ${ranks}; ${stepsText(s, code)}${skipped})`;
}

/** Which inputs, files, ranks, steps, grouping and normalisation were compared. */
export function comparedLine(d: Diff, code: (s: string, max?: number) => string = clipped, listFiles = false): string {
  const norm = perStep(d)
    ? 'counts and times per step (each rank divided by its own number of steps, ranks added up)'
    : 'counts and times summed over all steps and ranks (not normalised)';
  const sel = d.selection
    ? ` (${d.selection
        .split('; ')
        .map((x) => code(x, WHOLE))
        .join(', ')})`
    : '';
  return (
    `Compared base ${sideText(d.base, code, listFiles)} with PR ${sideText(d.pr, code, listFiles)}. ` +
    `Grouped by ${d.groupBy}${sel}; ${norm}; time changes within ±${d.timeTolerancePct}% shown as ~${testedText(d)}.`
  );
}

/** `the time changes of all groups and the totals`, `… of 3 groups`, `… of the totals`. */
function whose(d: Diff, v: TimeVerdict): string | null {
  const rows = d.rows.filter((r) => r.timeTest.verdict === v).length;
  const totals = d.totals.timeTest.verdict === v;
  if (rows === 0 && !totals) return null;
  if (rows === d.rows.length && totals) return 'all time changes are';
  const groups = rows === 0 ? '' : `of ${plural(rows, 'group')}`;
  const one = rows + (totals ? 1 : 0) === 1;
  return `the time change${one ? '' : 's'} ${groups}${groups && totals ? ' and ' : ''}${totals ? 'of the totals' : ''} ${one ? 'is' : 'are'}`;
}

/**
 * Said once when the test over per-step samples could not judge some time changes, which --time-tolerance alone
 * then judges (never silently); null when every change was tested (or a side has no kernel time).
 */
export function timeFallbackNote(d: Diff): string | null {
  const alpha = String(d.alpha);
  const parts: string[] = [];
  const noStep = [d.base.steps === null ? 'the base' : null, d.pr.steps === null ? 'the PR' : null].filter((x) => x !== null);
  if (noStep.length > 0) {
    const all = whose(d, 'no-steps');
    if (all === null) return null;
    return `Time test: ${noStep.join(' and ')} ${noStep.length === 1 ? 'has' : 'have'} no Step Id, so no per-step samples: ${all === 'all time changes are' ? 'time changes are' : all} judged by --time-tolerance alone.`;
  }
  const few = whose(d, 'too-few');
  if (few !== null) {
    const j = d.totals.timeTest.verdict === 'too-few' ? d.totals.timeTest : d.rows.find((r) => r.timeTest.verdict === 'too-few')?.timeTest;
    const t = j?.test ?? null;
    const within = j !== undefined && j.strata > 1 ? `, compared within each of ${fmtCount(j.strata)} ranks` : '';
    const n =
      t === null ? '' : `: ${fmtCount(t.n1)} against ${plural(t.n2, 'sample')} (one per rank and step${within}) cannot give a p below ${alpha}`;
    parts.push(`${few} judged by --time-tolerance alone${n}`);
  }
  const out = whose(d, 'no-steps');
  const u = d.unpairedRanks;
  // No rank pairs (one rank against one always does): the test compares a rank with the same rank, so none is tested.
  const noPair = d.pairedRanks.length === 0 && u.base.length > 0 && u.pr.length > 0;
  const why = noPair
    ? 'no rank id is on both sides, so no rank can be compared with its own steps (see the warning on ranks)'
    : 'some of their kernels are in no step or on a rank of one side only';
  if (out !== null) parts.push(`${out} judged by --time-tolerance alone: ${why}`);
  return parts.length === 0 ? null : `Time test: ${parts.join('; ')}.`;
}

/** What the compared line adds when the test made changes beyond the tolerance `~`. */
function testedText(d: Diff): string {
  const n = d.timeTestSummary.noise;
  if (n === 0) return '';
  return `, and so ${n === 1 ? 'is 1 change' : `are ${fmtCount(n)} changes`} the steps do not support (Mann–Whitney U over each rank's kernel time per step, rank by rank, p ≥ ${d.alpha})`;
}

/** The stderr warnings of a diff (the report carries the same facts). */
export function diffWarnings(d: Diff): string {
  const lines = reportWarnings(d, clipped, true).map((w) => `kprof: warning: ${w}`);
  const dis = disagreeing(d);
  if (dis.length > 0) {
    const names = dis
      .slice(0, 5)
      .map((r) => clipped(label(d, r)))
      .join(', ');
    lines.push(
      `kprof: warning: ${plural(dis.length, 'group')} changed differently across ranks (${names}${dis.length > 5 ? ', …' : ''}); see the report.`,
    );
  }
  const un = uneven(d);
  if (un.length > 0) {
    const names = un
      .slice(0, 5)
      .map((r) => clipped(label(d, r)))
      .join(', ');
    lines.push(
      `kprof: warning: ${plural(un.length, 'group')} changed differently across steps (${names}${un.length > 5 ? ', …' : ''}); see the report.`,
    );
  }
  return lines.length > 0 ? `${lines.join('\n')}\n` : '';
}

/** A printed row: a group, the folded others, or the totals. */
export interface Line extends DiffFigures {
  label: string;
  status: string;
}

export function othersLine(o: DiffOthers): Line {
  const deltaUsPct = o.base.us === 0 ? null : (100 * o.deltaUs) / o.base.us;
  return {
    label: `(${plural(o.groups, 'more group')})`,
    base: o.base,
    pr: o.pr,
    deltaCount: o.deltaCount,
    deltaCountPct: o.base.count === 0 ? null : (100 * o.deltaCount) / o.base.count,
    deltaUs: o.deltaUs,
    deltaUsPct,
    timeNoise: isTimeNoise(o.timeTest),
    timeTest: o.timeTest,
    status: '',
  };
}

export function rowLine(d: Pick<Diff, 'groupBy'>, r: DiffRow): Line {
  // Field by field, not {...r}: a diff's rows are views of its columns (analysis/diffRows.ts), their fields getters.
  return {
    base: r.base,
    pr: r.pr,
    deltaCount: r.deltaCount,
    deltaCountPct: r.deltaCountPct,
    deltaUs: r.deltaUs,
    deltaUsPct: r.deltaUsPct,
    timeNoise: r.timeNoise,
    timeTest: r.timeTest,
    label: label(d, r),
    status: differs(r) ? `${r.status}*` : r.status,
  };
}

/** The row's change was not the same on every rank or in every step. */
export function differs(r: DiffRow): boolean {
  return r.disagreeingRanks.length > 0 || r.unevenSteps.length > 0;
}
