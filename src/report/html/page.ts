// The one self-contained HTML file every report is: a Content-Security-Policy that lets nothing load (no font,
// script, image or request from anywhere), the style, the sections, the report's data as JSON that is never run,
// and one small script that sorts and searches the tables, allowed by its hash alone. Without script the tables are
// whole and the search box stays hidden.

import { createRequire } from 'node:module';
import { esc, scriptJson } from './markup.js';

/**
 * Sorts a table by a column when its header button is pressed (numbers by their exact `data-v`, text by its
 * text; ties keep the report's order), shows the search box above a table and keeps the rows whose first cell
 * (the group) holds what is typed, and opens the folded sections before printing. Written as it is run: the
 * CSP allows exactly this text by its SHA-256.
 */
export const SORT_SCRIPT = `
for (const t of document.querySelectorAll('table.sortable')) {
  const heads = [...t.tHead.rows[0].cells];
  heads.forEach((th, col) => {
    const b = th.querySelector('button');
    if (!b) return;
    b.addEventListener('click', () => {
      const asc = th.getAttribute('aria-sort') !== 'ascending';
      for (const h of heads) h.removeAttribute('aria-sort');
      th.setAttribute('aria-sort', asc ? 'ascending' : 'descending');
      const num = th.dataset.type === 'num';
      const key = (r) => {
        const c = r.cells[col];
        if (!num) return c.textContent;
        return c.dataset.v === undefined || c.dataset.v === '' ? null : Number(c.dataset.v);
      };
      const body = t.tBodies[0];
      const rows = [...body.rows].map((r) => ({ r, k: key(r), i: Number(r.dataset.i) }));
      rows.sort((x, y) => {
        let d = 0;
        if (x.k === null || y.k === null) d = x.k === y.k ? 0 : x.k === null ? 1 : -1;
        else d = (asc ? 1 : -1) * (num ? x.k - y.k : x.k < y.k ? -1 : x.k > y.k ? 1 : 0);
        return d || x.i - y.i;
      });
      const f = document.createDocumentFragment();
      for (const x of rows) f.appendChild(x.r);
      body.appendChild(f);
    });
  });
}
for (const q of document.querySelectorAll('input[data-table]')) {
  const t = document.getElementById(q.dataset.table);
  const out = document.getElementById(q.id + '-n');
  if (!t) continue;
  q.closest('[hidden]')?.removeAttribute('hidden');
  q.addEventListener('input', () => {
    const s = q.value.trim().toLowerCase();
    let shown = 0;
    const rows = t.tBodies[0].rows;
    for (const r of rows) {
      const hit = s === '' || r.cells[0].textContent.toLowerCase().includes(s);
      r.hidden = !hit;
      if (hit) shown++;
    }
    if (out) out.textContent = s === '' ? '' : shown + ' of ' + rows.length + ' rows';
  });
}
addEventListener('beforeprint', () => {
  for (const d of document.querySelectorAll('details')) d.open = true;
});
`;

/** The CSP source of SORT_SCRIPT: `'sha256-…'` of its exact text. */
// node:crypto is required here, not imported: a static import of it would load it at every start of the bundle
// (~5 ms), while this module runs only when an HTML report is made.
const { createHash } = createRequire(import.meta.url)('node:crypto') as typeof import('node:crypto');
export const SORT_SCRIPT_HASH = `'sha256-${createHash('sha256').update(SORT_SCRIPT, 'utf8').digest('base64')}'`;

/** Nothing loads from anywhere: styles are inline, images data: URLs at most, the one script is allowed by hash. */
export const CSP = `default-src 'none'; style-src 'unsafe-inline'; img-src data:; script-src ${SORT_SCRIPT_HASH}; base-uri 'none'; form-action 'none'`;

const STYLE = `
:root {
  color-scheme: light dark;
  --bg: #ffffff; --fg: #1f2328; --muted: #59636e; --line: #d1d9e0; --panel: #f6f8fa;
  --fewer: #1a7f37; --more: #bc4c00; --added: #8250df; --removed: #0f5b2a; --up: #cf222e; --noise: #818b98;
  --base: #0969da; --pr: #bc4c00; --warn-bg: #fff8c5; --warn-line: #d4a72c; --fail: #cf222e; --pass: #1a7f37;
  --h-3: #1a7f37; --h-2: #4ac26b; --h-1: #aceebb; --h0: #eff2f5; --h1: #ffd8b5; --h2: #fb8f44; --h3: #bc4c00;
}
@media screen and (prefers-color-scheme: dark) {
  :root {
    --bg: #0d1117; --fg: #e6edf3; --muted: #9198a1; --line: #3d444d; --panel: #151b23;
    --fewer: #3fb950; --more: #f0883e; --added: #a371f7; --removed: #2ea043; --up: #f85149; --noise: #656c76;
    --base: #4493f8; --pr: #f0883e; --warn-bg: #2e2a1a; --warn-line: #9e6a03; --fail: #f85149; --pass: #3fb950;
    --h-3: #56d364; --h-2: #2ea043; --h-1: #1b4721; --h0: #21262d; --h1: #5a3a1e; --h2: #bd561d; --h3: #f0883e;
  }
}
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--fg); font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", sans-serif; }
main { max-width: 1040px; margin: 0 auto; padding: 24px 20px 48px; }
h1 { font-size: 1.5em; margin: 0 0 8px; }
h2 { font-size: 1.15em; margin: 32px 0 4px; padding-bottom: 4px; border-bottom: 1px solid var(--line); }
p { margin: 6px 0; }
code, .mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace; font-size: 0.92em; overflow-wrap: anywhere; }
.muted, .note { color: var(--muted); }
.note { font-size: 0.9em; }
.headline { font-size: 1.05em; }
.cards { display: grid; grid-template-columns: repeat(auto-fit, minmax(200px, 1fr)); gap: 12px; margin: 16px 0; padding: 0; list-style: none; }
.cards li { background: var(--panel); border: 1px solid var(--line); border-radius: 6px; padding: 10px 14px; }
.cards .k { color: var(--muted); font-size: 0.85em; display: block; }
.cards .v { font-size: 1.2em; font-weight: 600; font-variant-numeric: tabular-nums; }
.cards .d { display: block; font-variant-numeric: tabular-nums; }
.warning { background: var(--warn-bg); border-left: 4px solid var(--warn-line); padding: 8px 12px; margin: 8px 0; border-radius: 0 6px 6px 0; }
.verdict { font-weight: 700; }
.verdict.failed, .status-fail { color: var(--fail); }
.verdict.passed, .status-pass { color: var(--pass); }
.status-warn { color: var(--more); }
figure { margin: 8px 0 0; }
/* A chart is never narrower than its drawing (960 units): on a narrow screen it scrolls sideways in its wrapper and its text stays 11-12 px. */
.chart-wrap { overflow-x: auto; }
.chart-wrap:focus-visible { outline: 2px solid var(--base); outline-offset: 2px; }
svg.chart { width: 100%; min-width: 960px; height: auto; display: block; font-size: 12px; }
svg.chart text { fill: var(--fg); }
svg.chart .axis { stroke: var(--muted); stroke-width: 1; }
svg.chart .grid { stroke: var(--line); stroke-width: 1; }
svg.chart .lbl { fill: var(--muted); }
.fewer { fill: var(--fewer); } .more { fill: var(--more); } .added { fill: var(--added); } .removed { fill: var(--removed); }
.slower { fill: var(--up); } .faster { fill: var(--fewer); } .noise { fill: var(--noise); }
.line-base { stroke: var(--base); fill: none; stroke-width: 2; stroke-dasharray: 6 3; }
.line-pr { stroke: var(--pr); fill: none; stroke-width: 2; }
.base-bar { fill: var(--base); }
.dot-base { fill: var(--base); } .dot-pr { fill: var(--pr); }
.band-base { fill: var(--base); opacity: 0.18; } .band-pr { fill: var(--pr); opacity: 0.18; }
.h-3 { fill: var(--h-3); } .h-2 { fill: var(--h-2); } .h-1 { fill: var(--h-1); } .h0 { fill: var(--h0); }
.h1 { fill: var(--h1); } .h2 { fill: var(--h2); } .h3 { fill: var(--h3); } .hadd { fill: var(--added); } .hnone { fill: none; }
.hatch-line { stroke: var(--bg); stroke-width: 2; }
table { border-collapse: collapse; width: 100%; font-variant-numeric: tabular-nums; font-size: 0.9em; }
th, td { padding: 4px 8px; border-bottom: 1px solid var(--line); text-align: right; vertical-align: top; }
th:first-child, td:first-child, th.l, td.l { text-align: left; }
thead th { position: sticky; top: 0; background: var(--bg); }
thead th button { all: unset; cursor: pointer; font-weight: 600; }
thead th button:focus-visible { outline: 2px solid var(--base); outline-offset: 2px; }
/* The arrow is not part of the button's name (aria-sort says the order). */
thead th[aria-sort="ascending"] button::after { content: " \\25B2" / ""; }
thead th[aria-sort="descending"] button::after { content: " \\25BC" / ""; }
/* A group's name keeps its width in a table (the table scrolls in its wrapper) instead of breaking after every letter. */
th code, td code { overflow-wrap: break-word; }
@media (max-width: 600px) { main { padding: 16px 12px 32px; } }
tfoot td, tfoot th { font-weight: 600; border-top: 2px solid var(--line); }
.rewrite { border: 1px solid var(--line); border-radius: 6px; padding: 4px 14px 10px; margin: 12px 0; }
h3 { font-size: 1em; margin: 8px 0; }
.rw-side { display: flex; align-items: baseline; gap: 8px; }
.rw-k { color: var(--muted); font-size: 0.85em; min-width: 2.5em; }
.rw-arrow { color: var(--muted); padding-left: 3em; line-height: 1.2; }
ol.chips { display: flex; flex-wrap: wrap; gap: 4px; margin: 2px 0; padding: 0; list-style: none; }
.chip { background: var(--panel); border: 1px solid var(--line); border-left: 4px solid var(--base); border-radius: 4px; padding: 0 6px; }
.chip.pr { border-left-color: var(--added); font-weight: 600; }
.chip.gone, .chip.more-chips { border-left-color: var(--line); color: var(--muted); font-style: italic; display: inline-block; }
.chip .times { color: var(--muted); }
dl.rw-facts { display: grid; grid-template-columns: repeat(auto-fit, minmax(180px, 1fr)); gap: 4px 16px; margin: 8px 0; }
dl.rw-facts dt { color: var(--muted); font-size: 0.85em; }
dl.rw-facts dd { margin: 0; font-variant-numeric: tabular-nums; }
.rw-saving { grid-column: span 2; }
.rw-faster { color: var(--fewer); font-weight: 600; } .rw-slower { color: var(--up); font-weight: 600; } .rw-noise { color: var(--muted); }
details { margin: 8px 0; }
summary { cursor: pointer; font-weight: 600; }
.scroll { overflow-x: auto; }
.table-tools[hidden] { display: none; }
.table-tools { display: flex; flex-wrap: wrap; align-items: center; gap: 4px 8px; margin: 8px 0; }
.table-tools input { font: inherit; font-size: 16px; padding: 4px 8px; min-width: 0; width: 20em; max-width: 100%; color: var(--fg); background: var(--bg); border: 1px solid var(--muted); border-radius: 6px; }
.table-tools input:focus-visible { outline: 2px solid var(--base); outline-offset: 1px; }
.group-steps h3 { margin: 16px 0 0; overflow-wrap: anywhere; }
ul.lines { padding-left: 20px; }
footer { margin-top: 32px; }
@media print {
  :root { color-scheme: light; --bg: #fff; --fg: #000; --muted: #444; --line: #bbb; --panel: #fff; }
  body { font-size: 11pt; }
  main { max-width: none; padding: 0; }
  section, figure, tr, .rewrite { break-inside: avoid; }
  thead th { position: static; }
  svg.chart { min-width: 0; }
  .table-tools { display: none; }
  thead th button::after { content: "" !important; }
  summary { list-style: none; }
}
`;

/** The search box over a table: hidden until the page's script shows it (without script the table is whole). */
export function searchBox(table: string): string {
  return `<p class="table-tools" hidden><label for="${table}-q">Find a group</label><input type="search" id="${table}-q" data-table="${table}" autocomplete="off" spellcheck="false"><output id="${table}-q-n" for="${table}-q" aria-live="polite"></output></p>`;
}

export interface PageParts {
  /** The document title (text already escaped). */
  title: string;
  /** The body's sections, in order (markup). */
  body: string[];
  /** The JSON data the page carries, by element id. */
  data: Record<string, unknown>;
}

/** The whole document. Deterministic: the same parts make the same bytes. */
export function page(p: PageParts): string {
  const data = Object.entries(p.data).map(([id, v]) => `<script type="application/json" id="${esc(id)}">${scriptJson(v)}</script>`);
  return [
    '<!DOCTYPE html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${CSP}">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<meta name="color-scheme" content="light dark">',
    '<meta name="generator" content="kprof">',
    `<title>${p.title}</title>`,
    `<style>${STYLE}</style>`,
    '</head>',
    '<body>',
    '<main>',
    ...p.body,
    '</main>',
    ...data,
    `<script>${SORT_SCRIPT}</script>`,
    '</body>',
    '</html>',
    '',
  ].join('\n');
}
