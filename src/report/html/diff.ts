// `kprof diff --format html`: one self-contained page. Pure: Diff, view and the figures of the charts in, text out.
//
// Sections, in order (DIFF_SECTIONS): the headline and totals, the warnings, what changed differently across
// ranks and steps, the count and time bar charts, kernels per step, the rank × group heat map, then the full
// table and what was compared. A section is a function of the page's inputs that returns its markup ('' to leave
// it out), so a new one (a list of the rewrites a fusion made) is one more entry in DIFF_SECTIONS.
//
// Over 400 lines: one self-contained page, its sections in order; the page frame and charts it shares with the other
// pages are in their own modules.

import { sortDiffRows, viewDiff, type Diff, type DiffRow, type DiffView } from '../../analysis/diff.js';
import {
  compareRanks,
  groupLabel,
  forEachStepFigure,
  perStepCount,
  perStepUs,
  rankPerStep,
  steppedCell,
  ZERO_PER_STEP,
  type Group,
  type PerStep,
  type Summary,
} from '../../model/model.js';
import { summaryPerStep } from '../../aggregate/group.js';
import type { DiffJson, DiffRowJson } from '../../model/schema.js';
import type { Rewrite } from '../../analysis/rewrites/rewrites.js';
import { diffJsonObject } from '../diff/json.js';
import {
  chainTimeText,
  acrossText,
  conservationText,
  timeText,
  headingText,
  labelled,
  laneLines,
  layersText,
  markerText,
  noneText,
  scopeText,
  notesFirst,
  notesLast,
  unaligned,
  noteText,
  keptText,
  notFusedLines,
  pairedText,
  perChainSavingText,
  ranksText,
  perStepText,
  restLines,
  REWRITES_TITLE,
  rewriteTitle,
  savingText,
  totalSavingText,
  unavailableText,
} from '../diff/rewrites.js';
import {
  comparedLine,
  idsText,
  disagreementLines,
  headlineLines,
  noiseWhy,
  pctText,
  reportWarnings,
  timeFallbackNote,
  timePctText,
  unevenStepLines,
} from '../diff/shared.js';
import { fmtCount, fmtSignedCount, fmtSignedPct, fmtSignedUs, fmtUs, plural, ranksNamed } from '../../util/format.js';
import { groupHeading } from '../summary/shared.js';
import { clippedApart } from '../../util/apart.js';
import { CELL_WIDTH, clipped } from '../../util/inputText.js';
import { blockHtml, diffStepTimeBlock } from '../stepTime.js';
import { divergingBars, heatMap, MAX_BARS, MAX_STEP_POINTS, stepBuckets, stepLines, type Bar, type HeatRow } from './charts.js';
import { esc, text } from './markup.js';
import { page, searchBox } from './page.js';
import { sentence } from './sentence.js';

/** The figures the charts need beyond the Diff: each side's kernels per step, and each rank's figures per group. */
export interface DiffCharts {
  /** Kernels per Step Id, all ranks added up, by side; sorted by Step Id. Empty without steps. */
  steps: { base: [step: number, kernels: number][]; pr: [step: number, kernels: number][] };
  /** Kernel time and kernels per step (as `summary` defines it), by side; null without steps. */
  perStep: { base: { count: number; us: number } | null; pr: { count: number; us: number } | null };
  /** Paired ranks, in rank order (the heat map's columns). */
  ranks: string[];
  /** Per group key, each paired rank's figure on each side (per step of the rank when the diff compares ranks per step). */
  rankFigures: Map<string, { base: number[]; pr: number[] }>;
  /**
   * Kernels per Step Id of the groups whose count changed most (at most MAX_STEP_GROUPS, the diff's order), all
   * ranks added up, by side; sorted by Step Id. Absent or empty: no chart of them.
   */
  groupSteps?: { key: string; label: string; base: [step: number, kernels: number][]; pr: [step: number, kernels: number][] }[];
}

/** Most groups drawn per step (the groups whose count changed most). */
export const MAX_STEP_GROUPS = 4;

/** Most groups in the heat map, and ranks in it. */
export const MAX_HEAT_GROUPS = 40;
export const MAX_HEAT_RANKS = 64;

/** The chart figures of a diff from the two summaries it was made of. */
export function diffCharts(d: Diff, base: Summary, pr: Summary): DiffCharts {
  const stepCounts = (s: Summary, key?: string): [number, number][] => {
    const m = new Map<number, number>();
    const add = (step: number, count: number): void => {
      m.set(step, (m.get(step) ?? 0) + count);
    };
    for (const r of s.perRank) for (const g of r.groups) if (key === undefined || g.key === key) forEachStepFigure(g.steps, add);
    return [...m].sort((a, b) => a[0] - b[0]);
  };
  const groupSteps = d.rows
    .filter((r) => r.deltaCount !== 0)
    .slice(0, MAX_STEP_GROUPS)
    .map((r) => ({ key: r.key, label: groupLabel(d.groupBy, r), base: stepCounts(base, r.key), pr: stepCounts(pr, r.key) }));
  const perStep = (s: Summary): { count: number; us: number } | null => {
    const ps = summaryPerStep(s);
    return ps ? { count: perStepCount(ps.total), us: perStepUs(ps.total) } : null;
  };
  const ranks = [...d.pairedRanks].sort(compareRanks);
  const rankFigures = new Map<string, { base: number[]; pr: number[] }>();
  if (ranks.length >= 2) {
    const figure = (s: Summary, side: 'base' | 'pr'): void => {
      const byRank = new Map(s.perRank.map((r) => [r.rank, r]));
      ranks.forEach((rank, j) => {
        const r = byRank.get(rank);
        if (!r) return;
        for (const g of r.groups) {
          let f = rankFigures.get(g.key);
          if (!f) {
            f = { base: ranks.map(() => 0), pr: ranks.map(() => 0) };
            rankFigures.set(g.key, f);
          }
          f[side][j] = rankFigure(g, r.steps.length, d.ranksPerStep);
        }
      });
    };
    figure(base, 'base');
    figure(pr, 'pr');
  }
  return {
    steps: { base: stepCounts(base), pr: stepCounts(pr) },
    perStep: { base: perStep(base), pr: perStep(pr) },
    ranks,
    rankFigures,
    groupSteps,
  };
}

/** A rank's figure of a group: its count, or its kernels per step of that rank. */
function rankFigure(g: Group, steps: number, perStep: boolean): number {
  if (!perStep) return g.total.count;
  const p: PerStep = steps > 0 ? rankPerStep(steppedCell(g.steps), steps) : ZERO_PER_STEP;
  return perStepCount(p);
}

interface Inputs {
  d: Diff;
  view: DiffView;
  charts: DiffCharts;
  json: DiffJson;
}

type Section = (x: Inputs) => string;

function label(d: Diff, r: DiffRow): string {
  return groupLabel(d.groupBy, r);
}

const perStepDiff = (d: Diff): boolean => d.normalization === 'per-step';

function headerSection({ d, charts }: Inputs): string {
  const [first, second] = headlineLines(d, sentence.code);
  const t = d.totals;
  const card = (k: string, v: string, delta: string): string =>
    `<li><span class="k">${esc(k)}</span><span class="v">${esc(v)}</span><span class="d">${esc(delta)}</span></li>`;
  const ps = perStepDiff(d) ? ' per step' : '';
  const cards = [
    card(
      `kernels${ps}`,
      `${fmtCount(t.base.count)} → ${fmtCount(t.pr.count)}`,
      `${fmtSignedCount(t.deltaCount)} (${pctText(t.deltaCountPct, t.pr.count)})`,
    ),
    card(
      `kernel time${ps}`,
      `${fmtUs(t.base.us)} → ${fmtUs(t.pr.us)}`,
      `${fmtSignedUs(t.deltaUs)} (${t.timeNoise ? `~, ${noiseWhy(d, t)}` : pctText(t.deltaUsPct, t.pr.us)})`,
    ),
  ];
  const b = charts.perStep.base;
  const p = charts.perStep.pr;
  if (!perStepDiff(d) && b !== null && p !== null) {
    const pct = b.us === 0 ? (p.us > 0 ? 'new' : '-') : fmtSignedPct((100 * (p.us - b.us)) / b.us);
    cards.push(card('kernel time per step (all ranks)', `${fmtUs(b.us)} → ${fmtUs(p.us)}`, `${fmtSignedUs(p.us - b.us)} (${pct})`));
  }
  return [
    '<header>',
    '<h1>Kernel diff</h1>',
    `<p class="headline">${sentence.html(first!)}</p>`,
    `<p>${sentence.html(second!)}</p>`,
    `<ul class="cards" aria-label="Totals">${cards.join('')}</ul>`,
    '</header>',
  ].join('\n');
}

function warningsSection({ d }: Inputs): string {
  const ws = reportWarnings(d, sentence.code);
  if (ws.length === 0) return '';
  return `<section aria-label="Warnings">${ws.map((w) => `<p class="warning"><strong>Warning:</strong> ${sentence.html(w)}</p>`).join('')}</section>`;
}

function differentlySection({ d }: Inputs): string {
  const out: string[] = [];
  const dis = disagreementLines(d, sentence.code);
  if (dis.length > 0) {
    out.push('<section aria-labelledby="ranks-h"><h2 id="ranks-h">Changed differently across ranks</h2>');
    out.push('<p class="note">A change that did not take effect on every rank, or not by as much.</p>');
    out.push(`<ul class="lines">${dis.map((l) => `<li>${sentence.html(l)}</li>`).join('')}</ul></section>`);
  }
  const un = unevenStepLines(d, sentence.code);
  if (un.length > 0) {
    out.push('<section aria-labelledby="steps-h"><h2 id="steps-h">Changed differently across steps</h2>');
    out.push('<p class="note">Count of each step against the base: a change that did not take effect in every step.</p>');
    out.push(`<ul class="lines">${un.map((l) => `<li>${sentence.html(l)}</li>`).join('')}</ul></section>`);
  }
  return out.join('\n');
}

const MARK = { added: ' added', removed: ' removed', fewer: '', more: '', same: '' } as const satisfies Record<DiffRow['status'], string>;

function countChart({ d }: Inputs): string {
  const changed = d.rows.filter((r) => r.deltaCount !== 0);
  const ps = perStepDiff(d) ? ' per step' : '';
  const head = `<section aria-labelledby="count-h"><h2 id="count-h">Count change per group${ps}</h2>`;
  if (changed.length === 0) return `${head}<p>No group changed its kernel count.</p></section>`;
  const shown = changed.slice(0, MAX_BARS);
  const bars: Bar[] = shown.map((r) => ({
    label: label(d, r),
    value: r.deltaCount,
    valueText: `${fmtSignedCount(r.deltaCount)}${MARK[r.status]}`,
    cls: r.status,
    striped: r.status === 'added' || r.status === 'removed',
    tip: `${clipped(label(d, r))}: ${fmtCount(r.base.count)} → ${fmtCount(r.pr.count)}${ps} (${fmtSignedCount(r.deltaCount)}, ${r.status === 'added' || r.status === 'removed' ? r.status : pctText(r.deltaCountPct, r.pr.count)})`,
  }));
  const desc = `${changed.length} group${changed.length === 1 ? '' : 's'} changed ${changed.length === 1 ? 'its' : 'their'} kernel count${ps}, largest change first; bars left are fewer kernels, right more; striped bars are groups added or removed.`;
  const more = changed.length - shown.length;
  return [
    head,
    `<figure>${divergingBars('count-chart', `Kernel count change per group${ps}, base to PR`, desc, bars, fmtSignedCount)}`,
    `<figcaption class="note">Largest change first${more > 0 ? `; the first ${MAX_BARS} of ${fmtCount(changed.length)} changed groups (all of them in the table)` : ''}. Striped: added (only in the PR) or removed (only in the base).</figcaption></figure>`,
    '</section>',
  ].join('\n');
}

function timeChart({ d }: Inputs): string {
  const moved = sortDiffRows(d.rows, 'delta-time').filter((r) => r.deltaUs !== 0);
  const ps = perStepDiff(d) ? ' per step' : '';
  const head = `<section aria-labelledby="time-h"><h2 id="time-h">Time change per group${ps}</h2>`;
  if (moved.length === 0) return `${head}<p>No group's kernel time changed.</p></section>`;
  const shown = moved.slice(0, MAX_BARS);
  const bars: Bar[] = shown.map((r) => ({
    label: label(d, r),
    value: r.deltaUs,
    valueText: `${fmtSignedUs(r.deltaUs)}${r.timeNoise ? ' ~' : MARK[r.status]}`,
    cls: r.timeNoise ? 'noise' : r.deltaUs < 0 ? 'faster' : 'slower',
    striped: r.status === 'added' || r.status === 'removed',
    tip: `${clipped(label(d, r))}: ${fmtUs(r.base.us)} → ${fmtUs(r.pr.us)}${ps} (${fmtSignedUs(r.deltaUs)}, ${r.timeNoise ? `${noiseWhy(d, r)}: noise` : timePctText(r.deltaUsPct, r.pr.us, false)})`,
  }));
  const noise = moved.filter((r) => r.timeNoise).length;
  const desc = `Kernel time change of ${moved.length} group${moved.length === 1 ? '' : 's'}${ps}, largest first; bars left are faster, right slower; grey bars marked ~ moved within ±${d.timeTolerancePct}% or by what the per-step samples do not support (${noise} of them): noise, not a result.`;
  const more = moved.length - shown.length;
  return [
    head,
    `<figure>${divergingBars('time-chart', `Kernel time change per group${ps}, base to PR`, desc, bars, fmtSignedUs)}`,
    `<figcaption class="note">Largest change first${more > 0 ? `; the first ${MAX_BARS} of ${fmtCount(moved.length)} groups whose time moved (all of them in the table)` : ''}. Grey and marked ~: within ±${esc(String(d.timeTolerancePct))}% (--time-tolerance), or not supported by the per-step samples (Mann–Whitney U, p ≥ ${esc(String(d.alpha))}): noise. Striped: added or removed.</figcaption></figure>`,
    '</section>',
  ].join('\n');
}

function stepsChart({ charts }: Inputs): string {
  const head = '<section aria-labelledby="perstep-h"><h2 id="perstep-h">Kernels per step</h2>';
  const { base, pr } = charts.steps;
  if (base.length === 0 && pr.length === 0) return `${head}<p>Neither side has a Step Id: no figures per step.</p></section>`;
  const ids = [...new Set([...base.map(([s]) => s), ...pr.map(([s]) => s)])].sort((a, b) => a - b);
  const buckets = stepBuckets(ids);
  const thinned = buckets.length < ids.length;
  const per = buckets[0]!.length;
  const desc =
    `Kernels in each step, all ranks added up: base ${base.length} step${base.length === 1 ? '' : 's'}, PR ${pr.length} step${pr.length === 1 ? '' : 's'}, Step Ids ${ids[0]} to ${ids[ids.length - 1]}.` +
    (thinned
      ? ` ${fmtCount(ids.length)} steps drawn as ${buckets.length} points of ${per} consecutive steps each: the line is their mean, the band their lowest to highest.`
      : '');
  const chart = stepLines(
    'steps-chart',
    'Kernels per step, base and PR',
    desc,
    ids,
    [
      { side: 'base', legend: 'base', points: new Map(base) },
      { side: 'pr', legend: 'PR', points: new Map(pr) },
    ],
    fmtCount,
  );
  const note = thinned
    ? `More than ${MAX_STEP_POINTS} steps: each point is ${per} consecutive steps (line: their mean; band: lowest to highest), so a warm-up step still shows in the band.`
    : 'Every step is a point (hover for its figure). Steps are placed by Step Id; a side without a Step Id leaves a gap.';
  return `${head}<figure>${chart}<figcaption class="note">All ranks added up. ${note}</figcaption></figure></section>`;
}

/** Kernels per step of the groups whose count changed most: base and PR, one small chart a group. */
function groupStepsChart({ charts }: Inputs): string {
  const head = '<section aria-labelledby="group-steps-h"><h2 id="group-steps-h">Changed groups per step</h2>';
  const groups = charts.groupSteps ?? [];
  if (groups.length === 0) return '';
  if (groups.every((g) => g.base.length === 0 && g.pr.length === 0))
    return `${head}<p>Neither side has a Step Id: no figures per step of the changed groups.</p></section>`;
  const out = [
    head,
    `<p class="note">Kernels in each step of the ${groups.length === 1 ? 'group' : `${groups.length} groups`} whose count changed most, all ranks added up: where a change took effect, and whether in every step.</p>`,
    '<div class="group-steps">',
  ];
  groups.forEach((g, i) => {
    const name = g.label;
    const ids = [...new Set([...g.base.map(([s]) => s), ...g.pr.map(([s]) => s)])].sort((a, b) => a - b);
    const id = `group-steps-${i + 1}`;
    out.push(`<h3 id="${id}-h"><code>${text(name)}</code></h3>`);
    if (ids.length === 0) {
      out.push('<p>No Step Id on either side for this group.</p>');
      return;
    }
    const desc = `Kernels of ${clipped(name)} in each step, all ranks added up: base in ${plural(g.base.length, 'step')}, PR in ${plural(g.pr.length, 'step')}, Step Ids ${ids[0]} to ${ids[ids.length - 1]}.`;
    out.push(
      `<figure aria-labelledby="${id}-h">${stepLines(
        id,
        `Kernels per step of ${clipped(name)}, base and PR`,
        desc,
        ids,
        [
          { side: 'base', legend: 'base', points: new Map(g.base) },
          { side: 'pr', legend: 'PR', points: new Map(g.pr) },
        ],
        fmtCount,
        200,
      )}</figure>`,
    );
  });
  out.push('</div>', '</section>');
  return out.join('\n');
}

/** The heat map's colour class of one rank's change. */
function heatClass(b: number, p: number): string {
  if (b === 0 && p === 0) return 'hnone';
  if (b === 0) return 'hadd';
  const pct = (100 * (p - b)) / b;
  if (pct <= -50) return 'h-3';
  if (pct <= -10) return 'h-2';
  if (pct < 0) return 'h-1';
  if (pct === 0) return 'h0';
  if (pct < 10) return 'h1';
  if (pct < 50) return 'h2';
  return 'h3';
}

const HEAT_LEGEND = [
  { cls: 'h-3', text: '≤ -50%' },
  { cls: 'h-2', text: '-50% to -10%' },
  { cls: 'h-1', text: '-10% to 0%' },
  { cls: 'h0', text: 'same' },
  { cls: 'h1', text: '0% to +10%' },
  { cls: 'h2', text: '+10% to +50%' },
  { cls: 'h3', text: '≥ +50%' },
  { cls: 'hadd', text: 'added' },
];

function heatSection({ d, charts }: Inputs): string {
  const head = '<section aria-labelledby="heat-h"><h2 id="heat-h">Change by rank and group</h2>';
  if (charts.ranks.length < 2)
    return `${head}<p>${charts.ranks.length === 0 ? 'No rank is on both sides' : 'One rank on each side'}: nothing to compare across ranks.</p></section>`;
  // Groups whose change differs across ranks first, then the other changed groups, in the diff's order.
  const changed = d.rows.filter((r) => r.status !== 'same' || r.disagreeingRanks.length > 0);
  if (changed.length === 0) return `${head}<p>No group changed: every rank is the same.</p></section>`;
  const ordered = [...changed.filter((r) => r.disagreeingRanks.length > 0), ...changed.filter((r) => r.disagreeingRanks.length === 0)];
  const groups = ordered.slice(0, MAX_HEAT_GROUPS);
  // Ranks that disagree for a shown group come first when there are too many ranks to show them all.
  let cols = charts.ranks.map((_, j) => j);
  if (cols.length > MAX_HEAT_RANKS) {
    const odd = new Set(groups.flatMap((r) => r.disagreeingRanks.map((x) => x.rank)));
    const first = cols.filter((j) => odd.has(charts.ranks[j]!));
    cols = [...first, ...cols.filter((j) => !odd.has(charts.ranks[j]!))].slice(0, MAX_HEAT_RANKS).sort((a, b) => a - b);
  }
  const ps = d.ranksPerStep ? ' per step' : '';
  const rows: HeatRow[] = groups.map((r) => {
    const f = charts.rankFigures.get(r.key);
    return {
      label: label(d, r),
      cells: cols.map((j) => {
        const b = f?.base[j] ?? 0;
        const p = f?.pr[j] ?? 0;
        const what = b === 0 && p === 0 ? 'absent on both sides' : b === 0 ? 'added' : p === 0 ? 'removed' : pctText((100 * (p - b)) / b, p);
        return {
          cls: heatClass(b, p),
          v: b === 0 && p === 0 ? null : p - b,
          tip: `${ranksNamed([charts.ranks[j]!], (x) => clipped(x, 20))}, ${clipped(label(d, r))}: ${fmtCount(b)} → ${fmtCount(p)}${ps} (${what})`,
        };
      }),
    };
  });
  const leftOut = [
    ordered.length > groups.length ? `the first ${MAX_HEAT_GROUPS} of ${fmtCount(ordered.length)} changed groups` : '',
    cols.length < charts.ranks.length
      ? `${MAX_HEAT_RANKS} of ${fmtCount(charts.ranks.length)} ranks (those where a shown group changed differently first)`
      : '',
  ].filter(Boolean);
  const desc = `Each changed group's count change${ps} on each of ${cols.length} ranks, as a colour from fewer (green) to more (orange); a rank that differs from the others in its row stands out.`;
  const chart = heatMap(
    'heat-chart',
    `Kernel count change${ps} by rank and group`,
    desc,
    cols.map((j) => charts.ranks[j]!),
    rows,
    HEAT_LEGEND,
  );
  const note = `Rows: groups that changed differently across ranks first, then the other changed groups${leftOut.length > 0 ? `; shown: ${leftOut.join(', ')}` : ''}. Hover a cell for its figures.`;
  return `${head}<figure>${chart}<figcaption class="note">${esc(note)}</figcaption></figure></section>`;
}

/** Most chips drawn for one chain (the rest counted), and most not-fused sites listed one by one per rewrite. */
export const MAX_CHIPS = 48;
export const MAX_SITES = 64;

/** A chain as a row of kernel chips, runs of one kernel drawn once with their length (`RmsNorm ×2`). */
function chips(tokens: string[], side: 'base' | 'pr'): string {
  if (tokens.length === 0) return '<span class="chip gone">removed</span>';
  const runs: [string, number][] = [];
  for (const t of tokens) {
    const last = runs[runs.length - 1];
    if (last !== undefined && last[0] === t) last[1]++;
    else runs.push([t, 1]);
  }
  const shown = runs.slice(0, MAX_CHIPS);
  const more = runs.slice(MAX_CHIPS).reduce((n, [, k]) => n + k, 0);
  const items = shown.map(([t, k]) => `<li class="chip ${side}"><code>${text(t)}</code>${k > 1 ? `<span class="times"> ×${k}</span>` : ''}</li>`);
  if (more > 0) items.push(`<li class="chip more-chips">and ${esc(plural(more, 'more kernel'))}</li>`);
  return `<ol class="chips" data-kernels="${tokens.length}">${items.join('')}</ol>`;
}

/**
 * The fusion rewrites: each chain as a row of kernel chips → the fused kernel (or `removed`), with its count per
 * step, layers, ranks, the time of one chain on each side, the saving (with its noise verdict) and the sites not
 * fused; then the conservation line, what it leaves unexplained and the notes. The figures are the JSON report's
 * (`data-*`); the words are the terminal report's.
 */
function rewritesSection({ d, json }: Inputs): string {
  const head = `<section aria-labelledby="rewrites-h" id="rewrites"><h2 id="rewrites-h">${esc(REWRITES_TITLE)}</h2>`;
  const s = d.rewrites === undefined ? undefined : labelled(d, d.rewrites);
  const j = json.rewrites;
  if (s === undefined || j === null) return `${head}<p class="note">Not computed: --rewrites off.</p></section>`;
  if (s.status === 'unavailable')
    return `${head}<p class="rw-unavailable">${sentence.html(`Rewrites are ${unavailableText(s, sentence.code)}`)}</p></section>`;
  const r = s.result;
  const h = (x: string): string => sentence.html(x);
  const heading = headingText(r, s.by, sentence.code);
  const out: string[] = [
    head,
    `<p class="note">${h(`${heading.charAt(REWRITES_TITLE.length + 2).toUpperCase()}${heading.slice(REWRITES_TITLE.length + 3, -1)}`)}.</p>`,
  ];
  if (s.ranksPaired !== null) out.push(`<p>${h(pairedText(s.ranksPaired, sentence.code))}.</p>`);
  const scope = scopeText(s);
  if (scope !== null) out.push(`<p class="note rw-scope">${esc(scope)}</p>`);
  for (const n of notesFirst(r)) out.push(`<p class="note rw-coverage">Note: ${h(noteText(n, sentence.code))}.</p>`);
  const marker = markerText(r, sentence.code);
  if (marker !== null && r.rewrites.length > 0) out.push(`<p class="note">${h(`${marker[0]!.toUpperCase()}${marker.slice(1)}`)}.</p>`);
  const lanes = laneLines(r, heading, sentence.code);
  if (lanes.length > 0) out.push(`<ul class="lines">${lanes.map((l) => `<li>${h(l)}</li>`).join('')}</ul>`);
  if (r.rewrites.length === 0)
    out.push(`<p${unaligned(r) ? ' class="rw-unaligned"' : ''}>${h(noneText(r, sentence.code))}${unaligned(r) ? '.' : ''}</p>`);
  r.rewrites.forEach((w, i) => {
    const x = j.rewrites[i]!;
    const id = `rw${i + 1}`;
    const noise = !x.saving.significant;
    const time = (t: Rewrite['base'], fallback: string): string => (t === null ? fallback : chainTimeText(t, true));
    const row = (k: string, v: string, attrs = ''): string => `<div${attrs}><dt>${esc(k)}</dt><dd>${v}</dd></div>`;
    const total = totalSavingText(w);
    const facts = [
      row('how often', h(perStepText(w, sentence.code)), ` data-min="${x.perStep.min}" data-max="${x.perStep.max}" class="rw-per-step"`),
      ...(x.layers === null ? [] : [row('layers', esc(layersText(w) ?? ''), ' class="rw-layers"')]),
      row('ranks', h(ranksText(w.ranks, sentence.code)), ' class="rw-ranks"'),
      row('base, one chain', esc(time(w.base, 'no timed chain')), ` class="rw-base" data-v="${x.base?.medianUs ?? ''}"`),
      row(
        'PR, one chain',
        esc(time(w.pr, x.added.length === 0 ? '0 µs (removed)' : 'no timed chain')),
        ` class="rw-pr" data-v="${x.pr?.medianUs ?? ''}"`,
      ),
      row(
        'saved',
        w.chains === 0 || w.saving.reason === 'unplaced'
          ? `<span class="rw-noise">${esc(savingText(w))}</span>`
          : `<strong>${esc(total)}</strong> measured over ${esc(plural(x.chains, 'chain'))} (per chain <span class="${noise ? 'rw-noise' : x.saving.perChainUs < 0 ? 'rw-faster' : 'rw-slower'}">${esc(perChainSavingText(w))}</span>${noise ? '' : ', the median'})`,
        ` class="rw-saving" data-chains="${x.chains}" data-per-chain="${x.saving.perChainUs}" data-total="${x.saving.totalUs}" data-significant="${x.saving.significant}"`,
      ),
    ];
    const kept = keptText(w, sentence.code);
    if (kept !== null)
      facts.push(
        row('kept', h(`${kept[0]!.toUpperCase()}${kept.slice(1)}`), ` class="rw-kept" data-kernels="${x.kept.kernels}" data-steps="${x.kept.steps}"`),
      );
    const label = `Rewrite ${i + 1}: ${plural(x.removed.length, 'kernel')} of the base replaced by ${x.added.length === 0 ? 'nothing' : plural(x.added.length, 'kernel')} in the PR`;
    const parts = [
      `<article class="rewrite" id="${id}" aria-labelledby="${id}-h" data-i="${i}">`,
      `<h3 id="${id}-h">#${i + 1} ${h(rewriteTitle(w, sentence.code))}</h3>`,
      `<figure class="rw-chain" aria-label="${esc(label)}">`,
      `<div class="rw-side"><span class="rw-k">base</span>${chips(w.removed, 'base')}</div>`,
      '<div class="rw-arrow" aria-hidden="true">↓</div>',
      `<div class="rw-side"><span class="rw-k">PR</span>${chips(w.added, 'pr')}</div>`,
      '</figure>',
      `<dl class="rw-facts">${facts.join('')}</dl>`,
    ];
    const across = acrossText(w, sentence.code);
    if (across !== null) parts.push(`<p class="note rw-across">${h(`${across[0]!.toUpperCase()}${across.slice(1)}`)}.</p>`);
    const nf = notFusedLines(w, r.lanes, sentence.code);
    if (x.notFused.length === 0)
      parts.push(
        `<p class="rw-fused-all">Fused everywhere: the removed chain runs nowhere in the PR${x.notFusedEdits > 0 ? `, nor anything within ${esc(plural(x.notFusedEdits, 'edit'))} of it` : ''}.</p>`,
      );
    else {
      parts.push(`<p><strong>Not fused</strong> (where the removed chain still runs in the PR, within ${esc(plural(x.notFusedEdits, 'edit'))}):</p>`);
      parts.push(`<ul class="lines rw-not-fused">${nf.map((l) => `<li>${h(l)}</li>`).join('')}</ul>`);
      const sites = x.notFused.slice(0, MAX_SITES);
      const cells = sites.map(
        (site) =>
          `<tr><td class="l"><code>${text(site.rank, 20)}</code></td><td class="l"><code>${text(site.stream, 20)}</code></td><td class="l" data-steps="${esc(site.steps.join(','))}">${esc(idsText(site.steps))}</td><td data-v="${site.layer ?? ''}">${site.layer === null ? '-' : site.layer}</td><td data-v="${site.position}">${fmtCount(site.position)}</td><td data-v="${site.edits}">${fmtCount(site.edits)}</td></tr>`,
      );
      parts.push(
        `<details><summary>The ${esc(plural(x.notFused.length, 'site'))} not fused${sites.length < x.notFused.length ? ` (the first ${MAX_SITES} here, all of them in --format json)` : ''}</summary>`,
        `<div class="scroll"><table class="rw-sites" id="${id}-sites"><thead><tr><th scope="col" class="l">rank</th><th scope="col" class="l">stream</th><th scope="col" class="l">steps</th><th scope="col">layer</th><th scope="col">kernel</th><th scope="col">edits</th></tr></thead>`,
        `<tbody>${cells.join('')}</tbody></table></div></details>`,
      );
    }
    parts.push('</article>');
    out.push(parts.join('\n'));
  });
  const c = unaligned(r) ? null : j.conservation;
  if (c !== null)
    out.push(
      `<p class="rw-conservation" data-removed="${c.removed}" data-added="${c.added}" data-removed-accounted="${c.removedAccounted}" data-added-accounted="${c.addedAccounted}">${esc(conservationText(r))}</p>`,
    );
  const time = timeText(r);
  if (time !== null && c !== null)
    out.push(
      `<p class="rw-time" data-named="${c.time.namedUs}" data-rewrites="${c.time.rewritesUs}" data-outside="${c.time.outsideUs}" data-unpaired="${c.time.unpairedUs}">${esc(time)}</p>`,
    );
  const rest = c === null ? [] : restLines(r, sentence.code);
  if (rest.length > 0) out.push(`<p>Not accounted for:</p><ul class="lines">${rest.map((l) => `<li>${h(l)}</li>`).join('')}</ul>`);
  for (const n of notesLast(r)) out.push(`<p class="note">Note: ${h(noteText(n, sentence.code))}.</p>`);
  out.push('</section>');
  return out.join('\n');
}

/** Base vs PR step time (--step-time). */
function stepTimeSection(x: Inputs): string {
  return x.d.stepTime ? blockHtml(diffStepTimeBlock(x.d.stepTime, clipped)) : '';
}

interface Column {
  head: string;
  num: boolean;
  /** The cell: its text (safe markup) and its exact figure. */
  cell: (r: DiffRow, j: DiffRowJson) => { text: string; v?: number | null };
}

function columns(d: Diff): Column[] {
  const ps = perStepDiff(d) ? ' per step' : '';
  return [
    {
      head: 'status',
      num: false,
      cell: (r) => ({
        text: esc(`${r.status}${r.disagreeingRanks.length > 0 ? ', ranks differ' : ''}${r.unevenSteps.length > 0 ? ', steps differ' : ''}`),
      }),
    },
    { head: `base${ps}`, num: true, cell: (r, j) => ({ text: fmtCount(r.base.count), v: j.base.count }) },
    { head: `PR${ps}`, num: true, cell: (r, j) => ({ text: fmtCount(r.pr.count), v: j.pr.count }) },
    { head: 'Δ', num: true, cell: (r, j) => ({ text: fmtSignedCount(r.deltaCount), v: j.deltaCount }) },
    { head: 'Δ%', num: true, cell: (r, j) => ({ text: esc(pctText(r.deltaCountPct, r.pr.count)), v: j.deltaCountPct }) },
    { head: `base time${ps}`, num: true, cell: (r, j) => ({ text: fmtUs(r.base.us), v: j.base.totalUs }) },
    { head: `PR time${ps}`, num: true, cell: (r, j) => ({ text: fmtUs(r.pr.us), v: j.pr.totalUs }) },
    { head: 'Δ time', num: true, cell: (r, j) => ({ text: fmtSignedUs(r.deltaUs), v: j.deltaUs }) },
    { head: 'Δ% time', num: true, cell: (r, j) => ({ text: esc(timePctText(r.deltaUsPct, r.pr.us, r.timeNoise)), v: j.deltaUsPct }) },
  ];
}

function td(c: { text: string; v?: number | null }): string {
  return c.v === undefined ? `<td class="l">${c.text}</td>` : `<td data-v="${c.v === null ? '' : esc(String(c.v))}">${c.text}</td>`;
}

function tableSection({ d, view, json }: Inputs): string {
  const v = viewDiff(d, view);
  const cols = columns(d);
  const head = `<tr><th scope="col"><button type="button">${esc(groupHeading(d.groupBy, d.rows))}</button></th>${cols
    .map((c) => `<th scope="col"${c.num ? ' data-type="num"' : ' class="l"'}><button type="button">${esc(c.head)}</button></th>`)
    .join('')}</tr>`;
  const names = clippedApart(
    v.rows.map((r) => label(d, r)),
    CELL_WIDTH,
  );
  const body = v.rows.map(
    (r, i) =>
      `<tr data-i="${i}"><th scope="row" class="l"><code>${esc(names[i]!)}</code></th>${cols.map((c) => td(c.cell(r, json.rows[i]!))).join('')}</tr>`,
  );
  const foot: string[] = [];
  const t = json.totals;
  if (v.others && json.others) {
    const o = v.others;
    const j = json.others;
    foot.push(
      `<tr><th scope="row" class="l">(${esc(fmtCount(o.groups))} more group${o.groups === 1 ? '' : 's'})</th><td class="l"></td>` +
        `<td data-v="${j.base.count}">${fmtCount(o.base.count)}</td><td data-v="${j.pr.count}">${fmtCount(o.pr.count)}</td><td data-v="${j.deltaCount}">${fmtSignedCount(o.deltaCount)}</td><td></td>` +
        `<td data-v="${j.base.totalUs}">${fmtUs(o.base.us)}</td><td data-v="${j.pr.totalUs}">${fmtUs(o.pr.us)}</td><td data-v="${j.deltaUs}">${fmtSignedUs(o.deltaUs)}</td><td></td></tr>`,
    );
  }
  const dt = d.totals;
  foot.push(
    `<tr><th scope="row" class="l">total</th><td class="l"></td>` +
      `<td data-v="${t.base.count}">${fmtCount(dt.base.count)}</td><td data-v="${t.pr.count}">${fmtCount(dt.pr.count)}</td><td data-v="${t.deltaCount}">${fmtSignedCount(dt.deltaCount)}</td>` +
      `<td data-v="${t.deltaCountPct ?? ''}">${esc(pctText(dt.deltaCountPct, dt.pr.count))}</td>` +
      `<td data-v="${t.base.totalUs}">${fmtUs(dt.base.us)}</td><td data-v="${t.pr.totalUs}">${fmtUs(dt.pr.us)}</td><td data-v="${t.deltaUs}">${fmtSignedUs(dt.deltaUs)}</td>` +
      `<td data-v="${t.deltaUsPct ?? ''}">${esc(timePctText(dt.deltaUsPct, dt.pr.us, dt.timeNoise))}</td></tr>`,
  );
  const n = v.rows.length;
  return [
    '<section aria-labelledby="table-h"><h2 id="table-h">All figures</h2>',
    `<details id="table"><summary>Table of ${fmtCount(n)} group${n === 1 ? '' : 's'}${v.others ? ' and the rest in one row' : ''} (press a heading to sort)</summary>`,
    searchBox('diff-table'),
    '<div class="scroll"><table class="sortable" id="diff-table">',
    `<caption class="note">${esc(`One row per group on either side${perStepDiff(d) ? ', per step' : ''}; the totals row is the sum of the rows. Δ% time is ~ within ±${d.timeTolerancePct}% or where the per-step samples do not support the change (p ≥ ${d.alpha}).`)}</caption>`,
    `<thead>${head}</thead>`,
    `<tbody>${body.join('\n')}</tbody>`,
    `<tfoot>${foot.join('')}</tfoot>`,
    '</table></div></details></section>',
  ].join('\n');
}

function footerSection({ d }: Inputs): string {
  const note = timeFallbackNote(d);
  return `<footer>${note === null ? '' : `<p class="note">${esc(note)}</p>`}<p class="note">${sentence.html(comparedLine(d, sentence.code, true))}</p><p class="note">Made by kprof. The report's figures are in this file as JSON (the element <code>kprof-diff</code>): those of <code>kprof diff --format json</code>, without each row's per-rank and per-step detail.</p></footer>`;
}

/** The page's sections, in order. */
const DIFF_SECTIONS: Section[] = [
  headerSection,
  warningsSection,
  countChart,
  timeChart,
  stepsChart,
  groupStepsChart,
  heatSection,
  differentlySection,
  rewritesSection,
  stepTimeSection,
  tableSection,
  footerSection,
];

/** The JSON the page carries: the report's figures (per-rank and per-step detail left to --format json). */
function pageJson(json: DiffJson): unknown {
  const strip = ({
    disagreeingRanks,
    unevenSteps,
    ...rest
  }: DiffRowJson): Omit<DiffRowJson, 'disagreeingRanks' | 'unevenSteps'> & { ranksDiffer: boolean; stepsDiffer: boolean } => ({
    ...rest,
    ranksDiffer: disagreeingRanks.length > 0,
    stepsDiffer: unevenSteps.length > 0,
  });
  return {
    ...json,
    rows: json.rows.map(strip),
    others: json.others ? { ...json.others, changedDifferently: json.others.changedDifferently.map(strip) } : null,
  };
}

/**
 * `kprof diff --format html`: the charts come from the two summaries in `view.sides`, which the command gives;
 * a view without them is a bug of ours.
 */
export function diffHtml(d: Diff, view: DiffView): string {
  if (view.sides === undefined) throw new Error('the HTML diff needs the two summaries (DiffView.sides)');
  return diffHtmlPage(d, view, diffCharts(d, view.sides.base, view.sides.pr));
}

/** The HTML diff page from a Diff and its chart figures. */
export function diffHtmlPage(d: Diff, view: DiffView, charts: DiffCharts): string {
  const json = diffJsonObject(d, view);
  const x: Inputs = { d, view, charts, json };
  const changed = d.rows.filter((r) => r.status !== 'same').length;
  const title = `kprof diff: ${fmtCount(changed)} group${changed === 1 ? '' : 's'} changed, ${fmtCount(d.totals.base.count)} → ${fmtCount(d.totals.pr.count)} kernels`;
  return page({
    title: esc(title),
    body: DIFF_SECTIONS.map((s) => s(x)).filter((s) => s !== ''),
    data: { 'kprof-diff': pageJson(json) },
  });
}
