/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
// The HTML reports in a real browser: Debian's Chromium (/usr/bin/chromium) driven by playwright-core. Each
// page must load nothing beyond its own file, log no error (a script the CSP refused would), name every chart,
// pass axe-core's WCAG 2 A/AA rules in light and dark, show the figures of the JSON report, sort its table,
// open its folded parts to print, and show hostile kernel names as text.
//
// Without /usr/bin/chromium these tests are skipped with a notice; under CI (CI=true) a missing browser fails.

import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clipped } from '../../src/util/inputText.js';
import { diffJsonObject } from '../../src/report/diff/json.js';
import { fmtCount, fmtSignedCount, fmtSignedUs, fmtUs } from '../../src/util/format.js';
import type { DiffJson } from '../../src/model/schema.js';
import { kprof } from '../helpers.js';
import { exampleDiff, HOSTILE_NAMES, hostileProfiles, largeDiff } from '../htmlReport.js';
import { diffHtmlPage } from '../../src/report/html/diff.js';

const CHROMIUM = '/usr/bin/chromium';
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];
const HAS_CHROMIUM = existsSync(CHROMIUM);
const IN_CI = process.env.CI === 'true';

if (!HAS_CHROMIUM && !IN_CI) {
  console.warn(`\n*** browser tests SKIPPED: ${CHROMIUM} not found (apt-get install -y chromium). They run, and must pass, in CI. ***\n`);
}

describe('browser', () => {
  it.runIf(IN_CI)('Chromium is there in CI', () => {
    expect(existsSync(CHROMIUM), `${CHROMIUM} is missing: .ci/run installs it (apt-get install -y chromium)`).toBe(true);
  });
});

const tmp = mkdtempSync(join(tmpdir(), 'kprof-browser-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

interface Loaded {
  page: Page;
  requests: string[];
  errors: string[];
  dialogs: string[];
}

describe.runIf(HAS_CHROMIUM)('HTML reports in Chromium', () => {
  let browser: Browser;
  const pages: Page[] = [];
  beforeAll(async () => {
    const { chromium } = await import('playwright-core');
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
  }, 60_000);
  afterAll(async () => {
    for (const p of pages) await p.close();
    await browser?.close();
  }, 60_000);

  /** Open a report from a file, recording every request, console error, page error and dialog. */
  async function open(
    name: string,
    html: string,
    opts: { colorScheme?: 'light' | 'dark'; bypassCSP?: boolean; width?: number; script?: boolean } = {},
  ): Promise<Loaded> {
    const file = join(tmp, name);
    writeFileSync(file, html);
    const context = await browser.newContext({
      colorScheme: opts.colorScheme ?? 'light',
      bypassCSP: opts.bypassCSP ?? false,
      javaScriptEnabled: opts.script ?? true,
      ...(opts.width === undefined ? {} : { viewport: { width: opts.width, height: 900 } }),
    });
    const page = await context.newPage();
    pages.push(page);
    const loaded: Loaded = { page, requests: [], errors: [], dialogs: [] };
    page.on('request', (r) => loaded.requests.push(r.url()));
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning') loaded.errors.push(`${m.type()}: ${m.text()}`);
    });
    page.on('pageerror', (e) => loaded.errors.push(`pageerror: ${e.message}`));
    page.on('dialog', (d) => {
      loaded.dialogs.push(d.message());
      void d.dismiss();
    });
    await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });
    return loaded;
  }

  /** axe-core's WCAG 2 A/AA violations of the page with its folded parts open (injected past the CSP). */
  async function axe(page: Page): Promise<string[]> {
    await page.evaluate(() => document.querySelectorAll('details').forEach((d) => (d.open = true)));
    await page.addScriptTag({ content: axeSource });
    const result = (await page.evaluate(() =>
      (globalThis as unknown as { axe: { run(c: unknown, o: unknown): Promise<unknown> } }).axe.run(document, {
        runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa'] },
      }),
    )) as { violations: { id: string; nodes: { target: unknown }[] }[] };
    return result.violations.map(
      (v) =>
        `${v.id}: ${v.nodes
          .slice(0, 3)
          .map((n) => JSON.stringify(n.target))
          .join(', ')}`,
    );
  }

  /** Every chart's accessible name and description, as the page's own ids give them. */
  async function chartNames(page: Page): Promise<{ id: string; role: string | null; name: string; desc: string }[]> {
    return page.evaluate(() =>
      [...document.querySelectorAll('svg')].map((s) => {
        const [t, d] = (s.getAttribute('aria-labelledby') ?? '').split(' ');
        return {
          id: s.id,
          role: s.getAttribute('role'),
          name: document.getElementById(t ?? '')?.textContent ?? '',
          desc: document.getElementById(d ?? '')?.textContent ?? '',
        };
      }),
    );
  }

  /** The rows of the table as the DOM has them: the header cell's text, each cell's text and data-v. */
  async function tableRows(page: Page, id: string): Promise<{ key: string; cells: { text: string; v: string | null }[] }[]> {
    return page.evaluate((tableId) => {
      const t = document.getElementById(tableId) as HTMLTableElement;
      return [...t.tBodies[0]!.rows].map((r) => ({
        key: r.cells[0]!.textContent ?? '',
        cells: [...r.cells].slice(1).map((c) => ({ text: c.textContent ?? '', v: (c as HTMLElement).dataset.v ?? null })),
      }));
    }, id);
  }

  /** The table of a diff page equals the JSON report, figure for figure, and shows them as the text formats do. */
  async function expectTableIsJson(page: Page, json: DiffJson): Promise<void> {
    const rows = await tableRows(page, 'diff-table');
    expect(rows).toHaveLength(json.rows.length);
    rows.forEach((r, i) => {
      const j = json.rows[i]!;
      expect(r.key).toBe(clipped(j.key === '' ? '(empty)' : j.key));
      const v = r.cells.slice(1).map((c) => (c.v === '' || c.v === null ? null : Number(c.v)));
      expect(v).toEqual([j.base.count, j.pr.count, j.deltaCount, j.deltaCountPct, j.base.totalUs, j.pr.totalUs, j.deltaUs, j.deltaUsPct]);
      expect(r.cells[0]!.text.split(',')[0]).toBe(j.status);
      const t = r.cells.map((c) => c.text);
      expect([t[1], t[2], t[3], t[5], t[6], t[7]]).toEqual([
        fmtCount(j.base.count),
        fmtCount(j.pr.count),
        fmtSignedCount(j.deltaCount),
        fmtUs(j.base.totalUs),
        fmtUs(j.pr.totalUs),
        fmtSignedUs(j.deltaUs),
      ]);
    });
    const foot = await page.evaluate(() =>
      [...document.querySelectorAll('#diff-table tfoot tr:last-child td')].map((c) => (c as HTMLElement).dataset.v ?? null),
    );
    const tj = json.totals;
    expect(foot.slice(1).map((x) => (x === '' ? null : Number(x)))).toEqual([
      tj.base.count,
      tj.pr.count,
      tj.deltaCount,
      tj.deltaCountPct,
      tj.base.totalUs,
      tj.pr.totalUs,
      tj.deltaUs,
      tj.deltaUsPct,
    ]);
  }

  /** Only the page's own file was requested, nothing failed, no dialog opened. */
  function expectQuiet(l: Loaded, file: string): void {
    expect(l.requests.every((u) => u.startsWith('file://'))).toBe(true);
    expect(l.requests).toEqual([pathToFileURL(join(tmp, file)).href]);
    expect(l.errors).toEqual([]);
    expect(l.dialogs).toEqual([]);
  }

  it("the README example: offline, no error, named charts, the JSON report's figures, bars and cards", async () => {
    const html = await exampleDiff('html');
    const json = JSON.parse(await exampleDiff('json')) as DiffJson;
    const l = await open('example.html', html);
    expectQuiet(l, 'example.html');
    const charts = await chartNames(l.page);
    expect(charts.map((c) => c.id)).toEqual([
      'count-chart',
      'time-chart',
      'steps-chart',
      'group-steps-1',
      'group-steps-2',
      'group-steps-3',
      'group-steps-4',
      'heat-chart',
    ]);
    for (const c of charts) {
      expect(c.role).toBe('img');
      expect(c.name.length).toBeGreaterThan(10);
      expect(c.desc.length).toBeGreaterThan(10);
    }
    await expectTableIsJson(l.page, json);
    // The count bars are the rows whose count changed, in the report's order, each as long as its Δ.
    const bars = await l.page.evaluate(() =>
      [...document.querySelectorAll('#count-chart g.bar rect[data-v]')].map((r) => Number((r as SVGElement).dataset.v)),
    );
    expect(bars).toEqual(json.rows.filter((r) => r.deltaCount !== 0).map((r) => r.deltaCount));
    const tips = await l.page.evaluate(() => [...document.querySelectorAll('#count-chart g.bar > title')].map((t) => t.textContent));
    expect(tips[0]).toBe('QuantBatchMatmulV3: 88 → 56 (-32, -36.4%)');
    const cards = await l.page.evaluate(() => [...document.querySelectorAll('.cards li .v')].map((c) => c.textContent));
    expect(cards.slice(0, 2)).toEqual([
      `${fmtCount(json.totals.base.count)} → ${fmtCount(json.totals.pr.count)}`,
      `${fmtUs(json.totals.base.totalUs)} → ${fmtUs(json.totals.pr.totalUs)}`,
    ]);
    // Kernels per step: each dot is the step's kernels of all ranks (the summary JSON's byStep, added up).
    const summary = JSON.parse((await kprof(['summary', 'fixtures/fusion-example/pr', '--format', 'json'])).stdout) as {
      groups: { byStep: { step: number; count: number }[] }[];
    };
    const perStep = new Map<number, number>();
    for (const g of summary.groups) for (const s of g.byStep) perStep.set(s.step, (perStep.get(s.step) ?? 0) + s.count);
    const dots = await l.page.evaluate(() =>
      [...document.querySelectorAll('#steps-chart circle.dot-pr')].map((c) => [
        Number((c as SVGElement).dataset.step),
        Number((c as SVGElement).dataset.v),
      ]),
    );
    expect(dots).toEqual([...perStep].sort((a, b) => a[0] - b[0]));
    // The heat map: each cell is the rank's PR count less its base count (the summary JSONs' perRank).
    const rankCounts = async (side: string): Promise<Map<string, number>> => {
      const s = JSON.parse((await kprof(['summary', side, '--format', 'json'])).stdout) as {
        perRank: { rank: string; groups: { key: string; count: number }[] }[];
      };
      return new Map(s.perRank.flatMap((r) => r.groups.map((g) => [`${r.rank}/${g.key}`, g.count] as [string, number])));
    };
    const [b, p] = [await rankCounts('fixtures/fusion-example/base'), await rankCounts('fixtures/fusion-example/pr')];
    const heat = await l.page.evaluate(() =>
      [...document.querySelectorAll('#heat-chart rect[data-v]')].map(
        (r) => [r.querySelector('title')!.textContent!, Number((r as SVGElement).dataset.v)] as [string, number],
      ),
    );
    expect(heat.length).toBe(2 * json.rows.filter((r) => r.status !== 'same').length);
    for (const [tip, v] of heat) {
      const [, rank, key] = /^rank (\S+), (\S+):/.exec(tip)!;
      expect(v, tip).toBe((p.get(`${rank}/${key}`) ?? 0) - (b.get(`${rank}/${key}`) ?? 0));
    }
  });

  it("the README example's fusion rewrites in the DOM are the JSON report's: chains, count, saving, sites not fused", async () => {
    const j = (JSON.parse(await exampleDiff('json')) as DiffJson).rewrites!;
    const l = await open('rewrites.html', await exampleDiff('html'));
    expectQuiet(l, 'rewrites.html');
    const dom = await l.page.evaluate(() => {
      const chain = (ol: Element | null): string[] =>
        ol === null
          ? []
          : [...ol.querySelectorAll('li.chip > code')].flatMap((c) => {
              const n = Number(/×(\d+)/.exec(c.parentElement!.querySelector('.times')?.textContent ?? '')?.[1] ?? 1);
              return Array.from({ length: n }, () => c.textContent ?? '');
            });
      const data = (a: Element, k: string): string => (a.querySelector(`.rw-${k}`) as HTMLElement).dataset.v ?? '';
      const rewrites = [...document.querySelectorAll('#rewrites article.rewrite')].map((a) => {
        const sides = a.querySelectorAll('figure.rw-chain ol.chips');
        const s = (a.querySelector('.rw-saving') as HTMLElement).dataset;
        const p = (a.querySelector('.rw-per-step') as HTMLElement).dataset;
        return {
          name: a.querySelector('figure')!.getAttribute('aria-label'),
          removed: chain(sides[0] ?? null),
          added: chain(sides[1] ?? null),
          perStep: { min: Number(p.min), max: Number(p.max) },
          chains: Number(s.chains),
          saving: [Number(s.perChain), Number(s.total), s.significant === 'true'],
          times: [Number(data(a, 'base')), Number(data(a, 'pr'))],
          sites: [...a.querySelectorAll('table.rw-sites tbody tr')].map((r) => {
            const c = [...r.querySelectorAll('td')];
            return [
              c[0]!.textContent,
              c[1]!.textContent,
              (c[2] as HTMLElement).dataset.steps,
              Number((c[3] as HTMLElement).dataset.v),
              Number((c[5] as HTMLElement).dataset.v),
            ];
          }),
        };
      });
      const c = (document.querySelector('#rewrites .rw-conservation') as HTMLElement).dataset;
      return { rewrites, conservation: [c.removed, c.added, c.removedAccounted, c.addedAccounted].map(Number) };
    });
    expect(dom.rewrites).toEqual(
      j.rewrites.map((w, i) => ({
        name: `Rewrite ${i + 1}: ${w.removed.length} kernels of the base replaced by ${w.added.length} kernel in the PR`,
        removed: w.removed,
        added: w.added,
        perStep: w.perStep,
        chains: w.chains,
        saving: [w.saving.perChainUs, w.saving.totalUs, w.saving.significant],
        times: [w.base!.medianUs, w.pr!.medianUs],
        sites: w.notFused.map((n) => [n.rank, n.stream, n.steps.join(','), n.layer, n.edits]),
      })),
    );
    expect(dom.rewrites).toHaveLength(1);
    const c = j.conservation!;
    expect(dom.conservation).toEqual([c.removed, c.added, c.removedAccounted, c.addedAccounted]);
  });

  it('sorts its table with the script the CSP allows, and opens the table to print', async () => {
    const l = await open('sort.html', await exampleDiff('html'));
    await l.page.click('#table > summary');
    await l.page.getByRole('button', { name: 'Δ', exact: true }).click();
    const v = (await tableRows(l.page, 'diff-table')).map((r) => Number(r.cells[3]!.v));
    expect(v).toEqual([...v].sort((a, b) => a - b));
    expect(v[0]).toBeLessThan(0);
    expect(await l.page.getAttribute('#diff-table thead th:nth-child(5)', 'aria-sort')).toBe('ascending');
    await l.page.getByRole('button', { name: 'Δ', exact: true }).click();
    expect(await l.page.getAttribute('#diff-table thead th:nth-child(5)', 'aria-sort')).toBe('descending');
    const l2 = await open('print.html', await exampleDiff('html'));
    expect(await l2.page.evaluate(() => (document.getElementById('table') as HTMLDetailsElement).open)).toBe(false);
    await l2.page.emulateMedia({ media: 'print' });
    await l2.page.evaluate(() => dispatchEvent(new Event('beforeprint')));
    expect(await l2.page.evaluate(() => (document.getElementById('table') as HTMLDetailsElement).open)).toBe(true);
    expect(l.errors).toEqual([]);
    expect(l2.errors).toEqual([]);
  });

  it('searches its table by group name with the script the CSP allows; without script the box stays hidden and the table whole', async () => {
    const html = await exampleDiff('html');
    const json = JSON.parse(await exampleDiff('json')) as DiffJson;
    const l = await open('search.html', html);
    await l.page.click('#table > summary');
    const box = l.page.getByRole('searchbox', { name: 'Find a group' });
    expect(await box.isVisible()).toBe(true);
    const shown = (): Promise<string[]> =>
      l.page.evaluate(() =>
        [...(document.getElementById('diff-table') as HTMLTableElement).tBodies[0]!.rows]
          .filter((r) => !r.hidden)
          .map((r) => r.cells[0]!.textContent ?? ''),
      );
    expect(await shown()).toHaveLength(json.rows.length);
    await box.fill('MATMUL');
    const want = json.rows.map((r) => r.key).filter((k) => k.toLowerCase().includes('matmul'));
    expect(want.length).toBeGreaterThan(1);
    expect(want.length).toBeLessThan(json.rows.length);
    expect(await shown()).toEqual(want);
    expect(await l.page.textContent('#diff-table-q-n')).toBe(`${want.length} of ${json.rows.length} rows`);
    // Sorting keeps the filter: the shown rows in the new order.
    await l.page.getByRole('button', { name: 'PR', exact: true }).click();
    const prOf = new Map(json.rows.map((r) => [r.key, r.pr.count]));
    const sorted = await shown();
    expect(sorted.map((k) => prOf.get(k))).toEqual(want.map((k) => prOf.get(k)!).sort((a, b) => a - b));
    await box.fill('');
    expect(await shown()).toHaveLength(json.rows.length);
    expect(await l.page.textContent('#diff-table-q-n')).toBe('');
    expect(l.errors).toEqual([]);
    const bare = await open('search-no-script.html', html, { script: false });
    await bare.page.click('#table > summary');
    expect(await bare.page.locator('#diff-table-q').isVisible()).toBe(false);
    expect(await bare.page.locator('#diff-table tbody tr').count()).toBe(json.rows.length);
  });

  for (const width of [390, 1280])
    for (const scheme of ['light', 'dark'] as const)
      it(`reads at ${width} CSS px in the ${scheme} scheme: no text under 11 px, no sideways page scroll, no labels over each other`, async () => {
        const l = await open(`width-${width}-${scheme}.html`, await exampleDiff('html'), { colorScheme: scheme, width });
        await l.page.evaluate(() => document.querySelectorAll('details').forEach((d) => (d.open = true)));
        // Saved for a person to look at (the test's temp folder, not the repo).
        await l.page.screenshot({ path: join(tmp, `diff-${width}-${scheme}.png`), fullPage: true });
        const m = await l.page.evaluate(() => {
          const sizes: { text: string; px: number }[] = [];
          const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
          for (let n = walker.nextNode(); n !== null; n = walker.nextNode()) {
            const e = n.parentElement;
            if (!e || (n.textContent ?? '').trim() === '' || e.closest('script, title, desc, [hidden]') || e.getClientRects().length === 0) continue;
            const css = Number.parseFloat(getComputedStyle(e).fontSize);
            // SVG text is drawn at its font size times the scale the chart is drawn at.
            const scale = e instanceof SVGGraphicsElement ? (e.getScreenCTM()?.a ?? 1) : 1;
            sizes.push({ text: (n.textContent ?? '').trim().slice(0, 30), px: Math.round(css * scale * 100) / 100 });
          }
          const overlaps: string[] = [];
          for (const svg of document.querySelectorAll('svg.chart')) {
            const boxes = [...svg.querySelectorAll('text')].map((t) => ({ t: t.textContent ?? '', r: t.getBoundingClientRect() }));
            boxes.forEach((a, i) => {
              for (const b of boxes.slice(i + 1)) {
                const w = Math.min(a.r.right, b.r.right) - Math.max(a.r.left, b.r.left);
                const h = Math.min(a.r.bottom, b.r.bottom) - Math.max(a.r.top, b.r.top);
                if (w > 0.5 && h > 0.5) overlaps.push(`${svg.id}: "${a.t}" over "${b.t}"`);
              }
            });
          }
          const wraps = [...document.querySelectorAll('.chart-wrap')].map((w) => ({
            scrolls: w.scrollWidth > w.clientWidth,
            focusable: w.getAttribute('tabindex') === '0',
          }));
          return { sizes, overlaps, pageWidth: document.documentElement.scrollWidth, viewport: innerWidth, wraps };
        });
        expect(m.sizes.length).toBeGreaterThan(100);
        expect(m.sizes.filter((s) => s.px < 11)).toEqual([]);
        expect(m.overlaps).toEqual([]);
        expect(m.pageWidth).toBeLessThanOrEqual(m.viewport);
        // On a phone the charts scroll sideways in their own wrapper, which the keyboard can reach; on a wide screen they fit.
        expect(m.wraps.every((w) => w.focusable)).toBe(true);
        expect(m.wraps.every((w) => w.scrolls === width < 960)).toBe(true);
        expect(l.errors).toEqual([]);
      });

  it('prints in the light palette on white also where the system is dark: charts and heat map too', async () => {
    const html = await exampleDiff('html');
    const palette = async (scheme: 'light' | 'dark', media: 'screen' | 'print'): Promise<string[]> => {
      const l = await open(`palette-${scheme}-${media}.html`, html, { colorScheme: scheme });
      await l.page.emulateMedia({ media, colorScheme: scheme });
      const names = ['--bg', '--fewer', '--added', '--noise', '--base', '--pr', '--h-3', '--h-1', '--h0', '--h3'];
      const got = await l.page.evaluate((ns) => ns.map((n) => getComputedStyle(document.documentElement).getPropertyValue(n).trim()), names);
      expect(l.errors).toEqual([]);
      return got;
    };
    const light = await palette('light', 'screen');
    expect(await palette('dark', 'screen')).not.toEqual(light);
    expect(await palette('dark', 'print')).toEqual(light.map((v, i) => (i === 0 ? '#fff' : v)));
  });

  for (const scheme of ['light', 'dark'] as const) {
    it(`passes axe-core WCAG 2 A/AA in the ${scheme} scheme: the diff, summary and check reports`, async () => {
      const pagesToCheck = [
        ['diff', await exampleDiff('html')],
        ['summary', (await kprof(['summary', 'fixtures/fusion-example/pr', '--format', 'html'])).stdout],
        [
          'check',
          (
            await kprof([
              'check',
              'fixtures/fusion-example/base',
              '--rules',
              'fixtures/fusion-example/kprof.rules.yaml',
              '--base',
              'fixtures/fusion-example/pr',
              '--format',
              'html',
            ])
          ).stdout,
        ],
      ] as const;
      for (const [name, html] of pagesToCheck) {
        const quiet = await open(`${name}-${scheme}.html`, html, { colorScheme: scheme });
        expectQuiet(quiet, `${name}-${scheme}.html`);
        const l = await open(`${name}-${scheme}-axe.html`, html, { colorScheme: scheme, bypassCSP: true });
        expect(await axe(l.page), `${name} (${scheme})`).toEqual([]);
      }
    });
  }

  it('hostile kernel names render as text: no element, script or dialog of theirs', async () => {
    const { base, pr } = hostileProfiles();
    const r = await kprof(['diff', base, pr, '--by', 'name', '--format', 'html']);
    const json = JSON.parse((await kprof(['diff', base, pr, '--by', 'name', '--format', 'json'])).stdout) as DiffJson;
    const l = await open('hostile.html', r.stdout);
    await l.page.waitForTimeout(200);
    expectQuiet(l, 'hostile.html');
    const found = await l.page.evaluate(() => ({
      scripts: document.scripts.length,
      imgs: document.images.length,
      bold: document.querySelectorAll('b').length,
      handlers: [...document.querySelectorAll('*')].filter((e) => [...e.attributes].some((a) => a.name.startsWith('on'))).length,
      svgs: [...document.querySelectorAll('svg')].filter((s) => !s.classList.contains('chart')).length,
    }));
    expect(found).toEqual({ scripts: 2, imgs: 0, bold: 0, handlers: 0, svgs: 0 });
    await expectTableIsJson(l.page, json);
    const keys = (await tableRows(l.page, 'diff-table')).map((x) => x.key).sort();
    expect(keys).toEqual(HOSTILE_NAMES.map((n) => clipped(n)).sort());
    // The embedded JSON gives every name back exactly.
    const data = await l.page.evaluate(() => JSON.parse(document.getElementById('kprof-diff')!.textContent!) as { rows: { key: string }[] });
    expect(data.rows.map((x) => x.key).sort()).toEqual([...HOSTILE_NAMES].sort());
    const l2 = await open('hostile-axe.html', r.stdout, { bypassCSP: true });
    expect(await axe(l2.page)).toEqual([]);
  });

  it("a large report (2,000 groups × 16 ranks × 500 steps): offline, no error, the JSON report's figures (axe-core runs on the smaller pages: on 22,000 cells it takes minutes)", async () => {
    const { d, charts } = largeDiff(2_000, 16, 500);
    const view = { sort: 'delta-count', only: null, top: null } as const;
    const l = await open('large.html', diffHtmlPage(d, view, charts));
    expectQuiet(l, 'large.html');
    await expectTableIsJson(l.page, diffJsonObject(d, view));
    expect((await chartNames(l.page)).every((c) => c.role === 'img' && c.name !== '' && c.desc !== '')).toBe(true);
    const heatRows = await l.page.evaluate(() => document.querySelectorAll('#heat-chart rect[data-v]').length);
    expect(heatRows).toBe(40 * 16);
  }, 120_000);
});
