// `kprof summary --format html`: one self-contained page of a profile. Pure: Summary and view in, text out.

import { summaryPerStep } from '../../aggregate/group.js';
import { forEachStepFigure, groupLabel, perStepCount, perStepUs, type Summary } from '../../model/model.js';
import type { SummaryGroupJson, SummaryJson } from '../../model/schema.js';
import { fmtCount, fmtPct, fmtUs, plural, ticksToUs } from '../../util/format.js';
import { summaryJsonObject } from '../summary/json.js';
import { groupHeading, totalsLine, type SummaryView } from '../summary/shared.js';
import { clippedApart } from '../../util/apart.js';
import { CELL_WIDTH, clipped } from '../../util/inputText.js';
import { divergingBars, stepLines, stepBuckets, MAX_BARS, MAX_STEP_POINTS, type Bar } from './charts.js';
import { esc } from './markup.js';
import { page, searchBox } from './page.js';
import { sentence } from './sentence.js';
import { blockHtml, summaryStepTimeBlock } from '../stepTime.js';

function timeChart(s: Summary, json: SummaryJson): string {
  const head = '<section aria-labelledby="time-h"><h2 id="time-h">Kernel time per group</h2>';
  const groups = json.groups.filter((g) => g.totalUs > 0).sort((a, b) => b.totalUs - a.totalUs || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  if (groups.length === 0) return `${head}<p>No kernel time.</p></section>`;
  const shown = groups.slice(0, MAX_BARS);
  const bars: Bar[] = shown.map((g) => ({
    label: groupLabel(s.groupBy, g),
    value: g.totalUs,
    valueText: `${fmtUs(g.totalUs)}${g.sharePct !== null ? ` (${fmtPct(g.sharePct)})` : ''}`,
    cls: 'base-bar',
    striped: false,
    tip: `${clipped(groupLabel(s.groupBy, g))}: ${plural(g.count, 'kernel')}, ${fmtUs(g.totalUs)}${g.sharePct !== null ? `, ${fmtPct(g.sharePct)} of the kernel time` : ''}`,
  }));
  const more = groups.length - shown.length;
  const desc = `Kernel time of ${groups.length} group${groups.length === 1 ? '' : 's'}, largest first, of ${fmtUs(ticksToUs(s.totals.ticks))} in all.`;
  return [
    head,
    `<figure>${divergingBars('time-chart', 'Kernel time per group', desc, bars, fmtUs)}`,
    `<figcaption class="note">Largest first${more > 0 ? `; the first ${MAX_BARS} of ${fmtCount(groups.length)} groups (all of them in the table)` : ''}.</figcaption></figure>`,
    '</section>',
  ].join('\n');
}

function stepsChart(s: Summary): string {
  const head = '<section aria-labelledby="perstep-h"><h2 id="perstep-h">Kernels per step</h2>';
  const m = new Map<number, number>();
  const add = (step: number, count: number): void => {
    m.set(step, (m.get(step) ?? 0) + count);
  };
  for (const r of s.perRank) for (const g of r.groups) forEachStepFigure(g.steps, add);
  if (m.size === 0) return `${head}<p>No Step Id: no figures per step.</p></section>`;
  const ids = [...m.keys()].sort((a, b) => a - b);
  const buckets = stepBuckets(ids);
  const per = buckets[0]!.length;
  const thinned = buckets.length < ids.length;
  const desc = `Kernels in each of ${ids.length} steps, all ranks added up, Step Ids ${ids[0]} to ${ids[ids.length - 1]}.${thinned ? ` Drawn as ${buckets.length} points of ${per} consecutive steps each: the line is their mean, the band their lowest to highest.` : ''}`;
  const chart = stepLines('steps-chart', 'Kernels per step', desc, ids, [{ side: 'pr', legend: 'kernels', points: m }], fmtCount);
  const note = thinned
    ? `More than ${MAX_STEP_POINTS} steps: each point is ${per} consecutive steps (line: their mean; band: lowest to highest).`
    : 'Every step is a point (hover for its figure).';
  return `${head}<figure>${chart}<figcaption class="note">All ranks added up. ${note}</figcaption></figure></section>`;
}

function tableSection(s: Summary, view: SummaryView, json: SummaryJson): string {
  const withSteps = summaryPerStep(s) !== null;
  const cols: { head: string; cell: (g: SummaryGroupJson) => [string, number | null] }[] = [
    { head: 'count', cell: (g) => [fmtCount(g.count), g.count] },
    { head: 'total', cell: (g) => [fmtUs(g.totalUs), g.totalUs] },
    { head: 'avg', cell: (g) => [g.avgUs === null ? '-' : fmtUs(g.avgUs), g.avgUs] },
    { head: 'min', cell: (g) => [g.minUs === null ? '-' : fmtUs(g.minUs), g.minUs] },
    { head: 'max', cell: (g) => [g.maxUs === null ? '-' : fmtUs(g.maxUs), g.maxUs] },
    { head: 'share', cell: (g) => [g.sharePct === null ? '-' : fmtPct(g.sharePct), g.sharePct] },
  ];
  if (withSteps)
    cols.push({
      head: s.ranks.length > 1 ? 'per step (all ranks)' : 'per step',
      cell: (g) => [g.countPerStep === null ? '-' : fmtCount(g.countPerStep), g.countPerStep],
    });
  const head = `<tr><th scope="col"><button type="button">${esc(groupHeading(s.groupBy, s.groups))}</button></th>${cols.map((c) => `<th scope="col" data-type="num"><button type="button">${esc(c.head)}</button></th>`).join('')}</tr>`;
  const shown = view.top !== null ? json.groups.slice(0, view.top) : json.groups;
  const names = clippedApart(
    shown.map((g) => groupLabel(s.groupBy, g)),
    CELL_WIDTH,
  );
  const body = shown.map(
    (g, i) =>
      `<tr data-i="${i}"><th scope="row" class="l"><code>${esc(names[i]!)}</code></th>${cols
        .map((c) => {
          const [t, v] = c.cell(g);
          return `<td data-v="${v === null ? '' : esc(String(v))}">${esc(t)}</td>`;
        })
        .join('')}</tr>`,
  );
  const foot: string[] = [];
  const rest = json.groups.slice(shown.length);
  if (rest.length > 0) {
    const count = rest.reduce((n, g) => n + g.count, 0);
    const us = rest.reduce((n, g) => n + g.totalUs, 0);
    foot.push(
      `<tr><th scope="row" class="l">(${fmtCount(rest.length)} more group${rest.length === 1 ? '' : 's'})</th><td>${fmtCount(count)}</td><td>${fmtUs(us)}</td>${'<td></td>'.repeat(cols.length - 2)}</tr>`,
    );
  }
  const t = s.totals;
  const ps = summaryPerStep(s);
  foot.push(
    `<tr><th scope="row" class="l">total</th><td data-v="${json.totals.count}">${fmtCount(t.count)}</td><td data-v="${json.totals.totalUs}">${fmtUs(ticksToUs(t.ticks))}</td>` +
      `<td>${t.count > 0 ? fmtUs(ticksToUs(t.ticks) / t.count) : '-'}</td><td></td><td></td><td>${t.ticks > 0 ? '100.0%' : '-'}</td>${withSteps ? `<td>${ps ? fmtCount(perStepCount(ps.total)) : '-'}</td>` : ''}</tr>`,
  );
  return [
    '<section aria-labelledby="table-h"><h2 id="table-h">All figures</h2>',
    `<details id="table"><summary>Table of ${fmtCount(shown.length)} group${shown.length === 1 ? '' : 's'} (press a heading to sort)</summary>`,
    searchBox('summary-table'),
    '<div class="scroll"><table class="sortable" id="summary-table">',
    `<caption class="note">One row per group; the totals row is the sum of the rows.</caption>`,
    `<thead>${head}</thead>`,
    `<tbody>${body.join('\n')}</tbody>`,
    `<tfoot>${foot.join('')}</tfoot>`,
    '</table></div></details></section>',
  ].join('\n');
}

/** The JSON the page carries: the groups' figures of `--format json`, without the per-rank and per-step detail. */
function pageJson(json: SummaryJson): unknown {
  const { perRank: _perRank, ...rest } = json;
  return { ...rest, groups: json.groups.map(({ byStep: _byStep, ...g }) => g) };
}

export function summaryHtml(s: Summary, view: SummaryView): string {
  // The table follows --sort (the JSON's order); the time chart is always by time.
  const json = summaryJsonObject(s, view);
  const ps = summaryPerStep(s);
  const card = (k: string, v: string): string => `<li><span class="k">${esc(k)}</span><span class="v">${esc(v)}</span></li>`;
  const cards = [card('kernels', fmtCount(s.totals.count)), card('kernel time', fmtUs(ticksToUs(s.totals.ticks)))];
  if (ps)
    cards.push(
      card(`kernels per step${s.ranks.length > 1 ? ' (all ranks)' : ''}`, fmtCount(perStepCount(ps.total))),
      card(`kernel time per step${s.ranks.length > 1 ? ' (all ranks)' : ''}`, fmtUs(perStepUs(ps.total))),
    );
  cards.push(card('ranks', fmtCount(s.ranks.length)));
  const header = [
    '<header>',
    '<h1>Kernel summary</h1>',
    `<p>${sentence.html(`${totalsLine(s, sentence.code)}.`)}</p>`,
    `<ul class="cards" aria-label="Totals">${cards.join('')}</ul>`,
    '</header>',
  ].join('\n');
  const footer = `<footer><p class="note">${sentence.html(`Source: ${sentence.code(s.input, Infinity)} (${plural(s.files.length, 'file')}), grouped by ${s.groupBy}${s.selection ? `, ${sentence.code(s.selection, Infinity)}` : ''}.`)}</p><p class="note">Made by kprof. The figures are in this file as JSON (the element <code>kprof-summary</code>): those of <code>kprof summary --format json</code>, without the per-rank and per-step detail.</p></footer>`;
  return page({
    title: esc(`kprof summary: ${plural(s.totals.count, 'kernel')}, ${fmtUs(ticksToUs(s.totals.ticks))}`),
    body: [
      header,
      timeChart(s, json),
      stepsChart(s),
      tableSection(s, view, json),
      ...(s.stepTime ? [blockHtml(summaryStepTimeBlock(s.stepTime, clipped))] : []),
      footer,
    ],
    data: { 'kprof-summary': pageJson(json) },
  });
}
