// Shared by the HTML report tests: the README example's reports, a large synthetic diff, hostile names, and the
// outline of a page (its structure without the styles, for snapshots).

import { createHash } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Diff, DiffRow } from '../src/analysis/diff.js';
import { diffHtmlPage, type DiffCharts } from '../src/report/html/diff.js';
import { kprof } from './helpers.js';

export const EXAMPLE = ['fixtures/fusion-example/base', 'fixtures/fusion-example/pr'];

/** The README example's diff in a format. */
export async function exampleDiff(format: string, ...more: string[]): Promise<string> {
  const r = await kprof(['diff', ...EXAMPLE, '--format', format, ...more]);
  if (r.code !== 0) throw new Error(r.stderr);
  return r.stdout;
}

/** Kernel names that try to break out of text, an attribute, a comment or the JSON script element. */
export const HOSTILE_NAMES = [
  '</script><script>alert(1)</script>',
  '<!--<script>alert(2)//',
  '"><img src=x onerror=alert(3)>',
  "';alert(4);'<svg onload=alert(5)>",
  '&lt;b&gt;not bold&lt;/b&gt; & <b>bold?</b>',
  'rtl\u202eevil\u2028line\u0007bell',
  `long${'x'.repeat(300)}`,
];

/** Two kernel_details.csv in a fresh folder whose names are HOSTILE_NAMES (the PR drops one, adds one, halves one). */
export function hostileProfiles(): { base: string; pr: string } {
  const dir = mkdtempSync(join(tmpdir(), 'kprof-html-hostile-'));
  const q = (s: string): string => `"${s.replace(/"/g, '""')}"`;
  const head = 'Step Id,Name,Type,Accelerator Core,Duration(us)\n';
  const rows = (names: string[], n: (i: number) => number): string =>
    names.flatMap((name, i) => Array.from({ length: n(i) }, (_, k) => `${(k % 2) + 1},${q(name)},${q(name)},AI_CORE,${10 + i}\n`)).join('');
  const base = join(dir, 'base.csv');
  const pr = join(dir, 'pr.csv');
  writeFileSync(base, head + rows(HOSTILE_NAMES.slice(0, -1), (i) => 2 + 2 * i));
  writeFileSync(pr, head + rows(HOSTILE_NAMES.slice(1), (i) => (i === 0 ? 2 : 2 + 2 * (i + 1)) - (i === 1 ? 2 : 0)));
  return { base, pr };
}

/** The text of the element `<script type="application/json" id="…">`, parsed. */
export function pageData(html: string, id: string): unknown {
  const m = new RegExp(`<script type="application/json" id="${id}">([^<]*)</script>`).exec(html);
  if (!m) throw new Error(`no ${id} data`);
  return JSON.parse(m[1]!);
}

/** The inline script and the hash the CSP allows. */
export function scriptAndPolicy(html: string): { script: string; sha256: string; csp: string } {
  const script = /<script>([\s\S]*?)<\/script>/.exec(html)![1]!;
  const csp = /<meta http-equiv="Content-Security-Policy" content="([^"]*)">/.exec(html)![1]!;
  return { script, sha256: `'sha256-${createHash('sha256').update(script).digest('base64')}'`, csp };
}

/**
 * A page's structure as lines: headings, sections, figures (id, accessible name, marks by class), tables (their
 * headings and row count), paragraphs' first words. What a reviewer reads in a snapshot diff; the style is left out.
 */
export function outline(html: string): string {
  const out: string[] = [];
  const body = html.replace(/<style>[\s\S]*?<\/style>/, '<style>…</style>');
  const head = /<head>([\s\S]*?)<\/head>/.exec(body)![1]!;
  for (const m of head.matchAll(/<(meta|title)([^>]*)>(?:([^<]*)<\/title>)?/g))
    out.push(`head: <${m[1]}${m[2]!.replace(/sha256-[^']+/, 'sha256-…')}>${m[3] ?? ''}`);
  for (const m of body.matchAll(
    /<(h1|h2|h3)[^>]*>([\s\S]*?)<\/\1>|<svg class="chart" id="([^"]+)"[^>]*viewBox="([^"]+)"[^>]*><title[^>]*>([^<]*)<\/title><desc[^>]*>([^<]*)<\/desc>([\s\S]*?)<\/svg>|<table[^>]*id="([^"]+)"[^>]*>([\s\S]*?)<\/table>|<p class="([^"]*)">([\s\S]*?)<\/p>|<script type="application\/json" id="([^"]+)">|<figure class="rw-chain" aria-label="([^"]*)">([\s\S]*?)<\/figure>|<dl class="rw-facts">([\s\S]*?)<\/dl>/g,
  )) {
    if (m[1]) out.push(`${m[1]}: ${m[2]!.replace(/<[^>]+>/g, '')}`);
    else if (m[3]) {
      const marks = new Map<string, number>();
      for (const x of m[7]!.matchAll(/<(rect|circle|polyline|polygon) class="([^"]+)"/g))
        marks.set(`${x[1]}.${x[2]}`, (marks.get(`${x[1]}.${x[2]}`) ?? 0) + 1);
      out.push(`  svg#${m[3]} [${m[4]}] "${m[5]}"`, `    desc: ${m[6]}`, `    marks: ${[...marks].map(([k, n]) => `${k}×${n}`).join(' ')}`);
    } else if (m[8]) {
      const heads = [...m[9]!.matchAll(/<th scope="col"[^>]*>([\s\S]*?)<\/th>/g)].map((x) => x[1]!.replace(/<[^>]+>/g, ''));
      const rows = [...m[9]!.matchAll(m[8].endsWith('-sites') ? /<tr><td/g : /<tr data-i=/g)].length;
      out.push(`  table#${m[8]}: ${heads.join(' | ')} (${rows} rows)`);
    } else if (m[10] !== undefined) out.push(`  p.${m[10]}: ${m[11]!.replace(/<[^>]+>/g, '').slice(0, 100)}`);
    else if (m[12]) out.push(`data: #${m[12]}`);
    else if (m[13] !== undefined) {
      const sides = [...m[14]!.matchAll(/<span class="rw-k">([^<]*)<\/span>([\s\S]*?)<\/div>/g)].map(
        (x) =>
          `${x[1]}: ${[...x[2]!.matchAll(/<(?:li|span) class="chip[^"]*">([\s\S]*?)<\/(?:li|span)>/g)].map((c) => c[1]!.replace(/<[^>]+>/g, '')).join(' | ')}`,
      );
      out.push(`  figure "${m[13]}"`, ...sides.map((x) => `    ${x}`));
    } else if (m[15] !== undefined)
      for (const x of m[15].matchAll(/<dt>([^<]*)<\/dt><dd>([\s\S]*?)<\/dd>/g)) out.push(`    ${x[1]}: ${x[2]!.replace(/<[^>]+>/g, '')}`);
  }
  return `${out.join('\n')}\n`;
}

/**
 * A diff of `groups` groups on `ranks` ranks over `steps` steps, made up (as diffSummaries would make it, with
 * a group in ten that changed differently on one rank), with the charts' figures: to measure a large report
 * without reading gigabytes of profile.
 */
export function largeDiff(groups: number, ranks: number, steps: number): { d: Diff; charts: DiffCharts } {
  const rankIds = Array.from({ length: ranks }, (_, i) => String(i));
  const rows: DiffRow[] = [];
  const rankFigures = new Map<string, { base: number[]; pr: number[] }>();
  for (let g = 0; g < groups; g++) {
    const key = `aclnnKernel_${String(g).padStart(4, '0')}_${'Op'.repeat(g % 7)}_${g % 3 === 0 ? 'MatMul' : 'Vector'}`;
    const perRank = steps * (1 + (g % 5));
    const prPerRank = g % 4 === 0 ? perRank : g % 4 === 1 ? perRank - steps : g % 4 === 2 ? 0 : perRank + steps;
    const odd = g % 10 === 1;
    const base = { count: perRank * ranks, us: perRank * ranks * (3 + (g % 11)) };
    const prCount = prPerRank * ranks + (odd ? steps : 0);
    const pr = { count: prCount, us: prCount * (3 + (g % 11)) * (g % 6 === 0 ? 1.01 : 0.97) };
    const deltaCount = pr.count - base.count;
    const deltaUs = pr.us - base.us;
    const deltaUsPct = (100 * deltaUs) / base.us;
    rows.push({
      key,
      type: key,
      status: deltaCount === 0 ? 'same' : pr.count === 0 ? 'removed' : deltaCount < 0 ? 'fewer' : 'more',
      base,
      pr,
      deltaCount,
      deltaCountPct: (100 * deltaCount) / base.count,
      deltaUs,
      deltaUsPct,
      timeNoise: Math.abs(deltaUsPct) <= 2 && pr.us > 0,
      // Figures made up without step samples: judged by the tolerance alone.
      timeTest: { verdict: pr.us > 0 ? 'no-steps' : 'zero', withinTolerance: Math.abs(deltaUsPct) <= 2 && pr.us > 0, test: null, strata: 0 },
      rankStatus: null,
      ranksCompared: ranks,
      rankMajority: null,
      disagreeingRanks: odd ? [{ rank: String(g % ranks), status: 'same', base: perRank, pr: perRank, deltaCount: 0, deltaCountPct: 0 }] : [],
      unevenSteps: [],
    });
    rankFigures.set(key, { base: rankIds.map(() => perRank), pr: rankIds.map((_, j) => (odd && j === g % ranks ? perRank : prPerRank)) });
  }
  rows.sort((a, b) => Math.abs(b.deltaCount) - Math.abs(a.deltaCount) || (a.key < b.key ? -1 : 1));
  const sum = (f: (r: DiffRow) => number): number => rows.reduce((n, r) => n + f(r), 0);
  const tb = { count: sum((r) => r.base.count), us: sum((r) => r.base.us) };
  const tp = { count: sum((r) => r.pr.count), us: sum((r) => r.pr.us) };
  const stepIds = Array.from({ length: steps }, (_, i) => i + 1);
  const side = (t: { count: number; us: number }) => ({
    input: 'profiles/run',
    ranks: rankIds,
    steps,
    rankSteps: rankIds.map((rank) => ({ rank, steps })),
    files: rankIds.map((r) => `profiles/run/rank${r}/kernel_details.csv`),
    skippedRows: 0,
    count: t.count,
    us: t.us,
  });
  const d: Diff = {
    groupBy: 'type',
    selection: '',
    normalization: 'none',
    timeTolerancePct: 2,
    alpha: 0.05,
    timeTestSummary: { alpha: 0.05, tooFew: 0, noSteps: rows.filter((r) => r.pr.us > 0).length + 1, noise: 0, tested: 0 },
    base: side(tb),
    pr: side(tp),
    stepMismatch: false,
    stepMismatchRanks: [],
    withoutStep: { base: 0, pr: 0 },
    rows,
    totals: {
      base: tb,
      pr: tp,
      deltaCount: tp.count - tb.count,
      deltaCountPct: (100 * (tp.count - tb.count)) / tb.count,
      deltaUs: tp.us - tb.us,
      deltaUsPct: (100 * (tp.us - tb.us)) / tb.us,
      timeNoise: false,
      timeTest: { verdict: 'no-steps', withinTolerance: false, test: null, strata: 0 },
    },
    ranksPerStep: false,
    unpairedSteps: [],
    pairedRanks: rankIds,
    unpairedRanks: { base: [], pr: [] },
  };
  // A warm-up step with twice the kernels, and a step of the PR with a few more.
  const perStep = (t: number, i: number): number => (i === 0 ? 2 : 1) * Math.round(t / steps) + (i === steps - 7 ? 40 : 0);
  const charts: DiffCharts = {
    steps: { base: stepIds.map((s, i) => [s, perStep(tb.count, i)]), pr: stepIds.map((s, i) => [s, perStep(tp.count, i)]) },
    perStep: { base: { count: tb.count / steps, us: tb.us / steps }, pr: { count: tp.count / steps, us: tp.us / steps } },
    ranks: rankIds,
    rankFigures,
  };
  return { d, charts };
}

export function largeHtml(): string {
  const { d, charts } = largeDiff(2_000, 16, 500);
  return diffHtmlPage(d, { sort: 'delta-count', only: null, top: null }, charts);
}

/**
 * Two kernel_details.csv whose one rewrite replaces a chain of three hostile names by a fourth, in each of 4 steps
 * (the fused kernel is faster).
 */
export function hostileRewriteProfiles(): { base: string; pr: string; chain: string[]; fused: string } {
  const dir = mkdtempSync(join(tmpdir(), 'kprof-html-rewrite-'));
  const [a, b, c, fused] = [HOSTILE_NAMES[0]!, HOSTILE_NAMES[2]!, HOSTILE_NAMES[5]!, HOSTILE_NAMES[1]!];
  const q = (s: string): string => `"${s.replace(/"/g, '""')}"`;
  const write = (file: string, chain: string[]): string => {
    let t = 0;
    const rows = ['Step Id,Name,Type,Accelerator Core,Start Time(us),Duration(us)'];
    for (let step = 1; step <= 4; step++)
      for (const k of ['MatMul', 'Add', ...chain, 'Softmax']) {
        rows.push(`${step},${q(k)},${q(k)},AI_CORE,${t},${k === fused ? 5 : 10}`);
        t += 20;
      }
    const path = join(dir, file);
    writeFileSync(path, `${rows.join('\n')}\n`);
    return path;
  };
  return { base: write('base.csv', [a, b, c]), pr: write('pr.csv', [fused]), chain: [a, b, c], fused };
}
