// The HTML reports without a browser: structure (snapshot of the outline), determinism, the CSP and its script
// hash, escaping of hostile names, the embedded JSON against --format json, and the size limits.

import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { scriptJson } from '../src/report/html/markup.js';
import { SORT_SCRIPT, SORT_SCRIPT_HASH } from '../src/report/html/page.js';
import { kprof, ROOT } from './helpers.js';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DiffJson } from '../src/model/schema.js';
import {
  EXAMPLE,
  exampleDiff,
  HOSTILE_NAMES,
  hostileProfiles,
  hostileRewriteProfiles,
  largeHtml,
  outline,
  pageData,
  scriptAndPolicy,
} from './htmlReport.js';

const golden = (name: string): string => resolve(ROOT, 'test/transcripts', name);

describe('kprof diff --format html', () => {
  it('has the outline of the snapshot, and the same bytes on every run', async () => {
    const a = await exampleDiff('html');
    const b = await exampleDiff('html');
    expect(a).toBe(b);
    await expect(outline(a)).toMatchFileSnapshot(golden('html-diff-outline.txt'));
  });

  it('is one file that loads nothing: a CSP of default-src none, and the one inline script allowed by its hash', async () => {
    const html = await exampleDiff('html');
    const { script, sha256, csp } = scriptAndPolicy(html);
    expect(script).toBe(SORT_SCRIPT);
    expect(SORT_SCRIPT_HASH).toBe(sha256);
    expect(csp).toBe(`default-src 'none'; style-src 'unsafe-inline'; img-src data:; script-src ${sha256}; base-uri 'none'; form-action 'none'`);
    // No URL to fetch: no src= or href= anywhere, and no other script than the data and the sort script.
    expect(html).not.toMatch(/\s(src|href)=/);
    expect([...html.matchAll(/<script/g)]).toHaveLength(2);
  });

  it('carries the figures of --format json', async () => {
    const html = await exampleDiff('html');
    const json = JSON.parse(await exampleDiff('json')) as { rows: Record<string, unknown>[] };
    const data = pageData(html, 'kprof-diff') as { rows: Record<string, unknown>[] };
    const strip = ({ disagreeingRanks, unevenSteps, ...r }: Record<string, unknown>) => ({
      ...r,
      ranksDiffer: (disagreeingRanks as unknown[]).length > 0,
      stepsDiffer: (unevenSteps as unknown[]).length > 0,
    });
    expect(data).toEqual({ ...json, rows: json.rows.map(strip) });
  });

  it('shows hostile names as text only, and the JSON gives them back exactly', async () => {
    const { base, pr } = hostileProfiles();
    const r = await kprof(['diff', base, pr, '--by', 'name', '--format', 'html']);
    expect(r.code).toBe(0);
    const html = r.stdout;
    // Only our elements: two scripts, no img, no element a name could open.
    expect([...html.matchAll(/<script/g)]).toHaveLength(2);
    expect(html).not.toMatch(/<img|<b>|<svg onload/);
    expect(html).not.toContain('\u202e');
    expect(html).not.toContain('\u2028');
    // The one `<!--` is none: comments cannot open.
    expect(html).not.toContain('<!--');
    // The names are in the table as escaped text, and whole in the JSON.
    expect(html).toContain('<code>&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;</code>');
    expect(html).toContain('<code>rtl\\u202eevil\\u2028line\\x07bell</code>');
    const data = pageData(html, 'kprof-diff') as { rows: { key: string }[] };
    expect(data.rows.map((x) => x.key).sort()).toEqual([...HOSTILE_NAMES].sort());
  });

  it('writes JSON that no string can end or comment out', () => {
    const value = { k: '</script><!-- \u2028 & >', '</script>': 1 };
    const text = scriptJson(value);
    expect(text).not.toMatch(/[<>&\u2028]/);
    expect(JSON.parse(text)).toEqual(value);
  });

  it('writes no ##[ (a workflow command to a CI log) in the JSON it holds, which still reads back', () => {
    const value = { 'v ##[error]x': 'a ##[group]b \\##[c', list: ['##[', '#[', '##'] };
    const text = scriptJson(value);
    expect(text).not.toContain('##[');
    expect(JSON.parse(text)).toEqual(value);
  });

  it('is under 150 KB for the README example', async () => {
    const html = await exampleDiff('html');
    expect(Buffer.byteLength(html)).toBeLessThan(150_000);
  });

  it('is under 2 MB for 2,000 groups × 16 ranks × 500 steps, the step chart thinned and saying so', () => {
    const html = largeHtml();
    expect(Buffer.byteLength(html)).toBeLessThan(2_000_000);
    expect(html).toContain('500 steps drawn as 167 points of 3 consecutive steps each');
    expect([...html.matchAll(/<tr data-i=/g)]).toHaveLength(2_000);
    expect(html).toContain('the first 30 of 1,500 changed groups (all of them in the table)');
  });

  it("--per-step, --top and --only are the JSON report's view", async () => {
    const html = await exampleDiff('html', '--per-step', '--top', '3', '--only', 'changed');
    const json = JSON.parse(await exampleDiff('json', '--per-step', '--top', '3', '--only', 'changed')) as {
      rows: unknown[];
      others: { groups: number };
    };
    expect([...html.matchAll(/<tr data-i=/g)]).toHaveLength(3);
    expect(html).toContain(`(${json.others.groups} more groups)`);
    expect(html).toContain('<th scope="col" data-type="num"><button type="button">base per step</button></th>');
  });
});

/** The rewrites section of a page. */
const rewritesOf = (html: string): string => /<section aria-labelledby="rewrites-h" id="rewrites">[\s\S]*?<\/section>/.exec(html)?.[0] ?? '';

describe('kprof diff --format html: the fusion rewrites', () => {
  it("draws each chain as chips with the JSON report's figures, and the sites not fused", async () => {
    const html = await exampleDiff('html');
    const j = (JSON.parse(await exampleDiff('json')) as DiffJson).rewrites!;
    const sec = rewritesOf(html);
    const w = j.rewrites[0]!;
    expect([...sec.matchAll(/<article class="rewrite"/g)]).toHaveLength(j.rewrites.length);
    // The base chain's chips are its kernels with runs written once; the PR's the fused kernel.
    const chipText = (side: string): string[] =>
      [...sec.matchAll(new RegExp(`<li class="chip ${side}"><code>([^<]*)</code>(?:<span class="times"> ×(\\d+)</span>)?`, 'g'))].flatMap((m) =>
        Array.from({ length: Number(m[2] ?? 1) }, () => m[1]!),
      );
    expect(chipText('base')).toEqual(w.removed);
    expect(chipText('pr')).toEqual(w.added);
    expect(sec).toContain(
      `data-chains="${w.chains}" data-per-chain="${w.saving.perChainUs}" data-total="${w.saving.totalUs}" data-significant="true"`,
    );
    expect(sec).toContain('<strong>-627.42 µs</strong> measured over 16 chains (per chain <span class="rw-faster">-39.01 µs</span>, the median)');
    expect(sec).toContain(`<div class="rw-base" data-v="${w.base!.medianUs}">`);
    expect(sec).toContain('<dd>layers 0-1 of 0-2</dd>');
    expect(sec).toContain('<li>layer 2 (the last) in every step of ranks <code>0</code>, <code>1</code>: 2 edits from the chain</li>');
    expect([...sec.matchAll(/<td class="l" data-steps="([^"]*)">/g)].map((m) => m[1])).toEqual(w.notFused.map((n) => n.steps.join(',')));
    const c = j.conservation!;
    expect(sec).toContain(
      `data-removed="${c.removed}" data-added="${c.added}" data-removed-accounted="${c.removedAccounted}" data-added-accounted="${c.addedAccounted}">Accounted for: 208 of 208 removed`,
    );
    // The time line adds up, and its figures are the JSON's.
    expect(c.time.rewritesUs).toBeCloseTo(w.saving.totalUs, 6);
    expect(c.time.namedUs).toBeCloseTo(c.time.rewritesUs + c.time.outsideUs + c.time.unpairedUs, 6);
    expect(sec).toContain(`<p class="rw-time" data-named="${c.time.namedUs}" data-rewrites="${c.time.rewritesUs}"`);
  });

  it('shows hostile kernel names in the chips as text only', async () => {
    const { base, pr, chain, fused } = hostileRewriteProfiles();
    const r = await kprof(['diff', base, pr, '--by', 'name', '--format', 'html']);
    expect(r.code).toBe(0);
    const sec = rewritesOf(r.stdout);
    expect(sec).toContain('<li class="chip base"><code>&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;</code></li>');
    expect(sec).toContain('<li class="chip base"><code>&quot;&gt;&lt;img src=x onerror=alert(3)&gt;</code></li>');
    expect(sec).toContain('<li class="chip base"><code>rtl\\u202eevil\\u2028line\\x07bell</code></li>');
    expect(sec).toContain('<li class="chip pr"><code>&lt;!--&lt;script&gt;alert(2)//</code></li>');
    expect(sec).not.toMatch(/<script|<img|<!--|\u202e|\u2028|\u0007/);
    const j = (pageData(r.stdout, 'kprof-diff') as DiffJson).rewrites!;
    expect(j.rewrites.map((w) => [w.removed, w.added])).toEqual([[chain, [fused]]]);
  });

  it('says why there are none: --rewrites off, or a side that holds no kernel order', async () => {
    expect(rewritesOf(await exampleDiff('html', '--rewrites', 'off'))).toContain('<p class="note">Not computed: --rewrites off.</p>');
    const snap = join(mkdtempSync(join(tmpdir(), 'kprof-html-rw-')), 'base.json');
    expect((await kprof(['summary', EXAMPLE[0]!, '--format', 'json', '-o', snap])).code).toBe(0);
    const r = await kprof(['diff', snap, EXAMPLE[1]!, '--format', 'html']);
    expect(r.code).toBe(0);
    expect(rewritesOf(r.stdout)).toMatch(
      /<p class="rw-unavailable">Rewrites are unavailable: the base&#39;s <code>[^<]*base\.json<\/code> is a summary JSON: it holds totals per group/,
    );
  });
});

describe('kprof summary and check --format html', () => {
  it('summary: outline, and the figures of --format json', async () => {
    const r = await kprof(['summary', EXAMPLE[1]!, '--format', 'html']);
    expect(r.code).toBe(0);
    await expect(outline(r.stdout)).toMatchFileSnapshot(golden('html-summary-outline.txt'));
    const json = JSON.parse((await kprof(['summary', EXAMPLE[1]!, '--format', 'json'])).stdout) as { groups: Record<string, unknown>[] };
    const { perRank: _p, ...rest } = json as unknown as Record<string, unknown>;
    expect(pageData(r.stdout, 'kprof-summary')).toEqual({ ...rest, groups: json.groups.map(({ byStep: _b, ...g }) => g) });
  });

  it('check: outline, the verdict and exit code, and the JSON of --format json', async () => {
    const args = ['check', EXAMPLE[1]!, '--rules', 'fixtures/fusion-example/kprof.rules.yaml', '--base', EXAMPLE[0]!];
    const r = await kprof([...args, '--format', 'html']);
    expect(r.code).toBe(0);
    await expect(outline(r.stdout)).toMatchFileSnapshot(golden('html-check-outline.txt'));
    expect(pageData(r.stdout, 'kprof-check')).toEqual(JSON.parse((await kprof([...args, '--format', 'json'])).stdout));
    // A broken rule: the page says failed, and the exit code is still the gate's.
    const broken = await kprof([
      'check',
      EXAMPLE[0]!,
      '--rules',
      'fixtures/fusion-example/kprof.rules.yaml',
      '--base',
      EXAMPLE[1]!,
      '--format',
      'html',
    ]);
    expect(broken.code).toBe(1);
    expect(broken.stdout).toContain('<h1>kprof check: <span class="verdict failed">failed</span></h1>');
  });
});

describe('HTML charts: labels apart, per-step chart of the changed groups', () => {
  it("leaves out an axis end label that would run into the 0, and keeps those that don't", async () => {
    const { divergingBars } = await import('../src/report/html/charts.js');
    const bar = (value: number) => ({ label: 'g', value, valueText: String(value), cls: 'fewer', striped: false, tip: 't' });
    const labels = (svg: string): string[] => [...svg.matchAll(/<text class="lbl"[^>]*>([^<]*)<\/text>/g)].map((m) => m[1]!);
    // A side 1/1000 the other's: its end is next to the zero line.
    expect(labels(divergingBars('c', 't', 'd', [bar(-1), bar(1000)], (v) => `${v} us`))).toEqual(['0', '1000 us']);
    expect(labels(divergingBars('c', 't', 'd', [bar(1000), bar(-1)], (v) => `${v} us`))).toEqual(['0', '1000 us']);
    expect(labels(divergingBars('c', 't', 'd', [bar(-500), bar(400)], (v) => `${v} us`))).toEqual(['0', '-500 us', '400 us']);
  });

  it('draws kernels per step of the most-changed groups, or says there are no Step Ids', async () => {
    const html = await exampleDiff('html');
    expect(html).toContain('<h2 id="group-steps-h">Changed groups per step</h2>');
    expect(html.match(/<svg class="chart" id="group-steps-\d"/g)).toHaveLength(4);
    const { diffHtmlPage } = await import('../src/report/html/diff.js');
    const { largeDiff } = await import('./htmlReport.js');
    const { d, charts } = largeDiff(20, 2, 3);
    const view = { sort: 'delta-count', only: null, top: null } as const;
    const none = diffHtmlPage(d, view, { ...charts, groupSteps: [{ key: 'a', label: 'a', base: [], pr: [] }] });
    expect(none).toContain('Neither side has a Step Id: no figures per step of the changed groups.');
    expect(none).not.toContain('id="group-steps-1"');
  });

  it('puts a search box over the tables, hidden until the script shows it, and the script is the one the CSP hashes', async () => {
    const html = await exampleDiff('html');
    expect(html).toContain(
      '<p class="table-tools" hidden><label for="diff-table-q">Find a group</label><input type="search" id="diff-table-q" data-table="diff-table"',
    );
    expect(SORT_SCRIPT).toContain("querySelectorAll('input[data-table]')");
    expect(scriptAndPolicy(html).sha256).toBe(SORT_SCRIPT_HASH);
  });
});
