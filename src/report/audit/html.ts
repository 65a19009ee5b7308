// `kprof audit --format html`: the audit as one self-contained HTML file, with the same page, Content-Security-Policy
// and escaping as the other HTML reports (report/html/page.ts, markup.ts): every text from input (paths, ranks,
// kernel types of user entries) goes through text(), and the page carries the audit's JSON (element kprof-audit).

import type { AuditSite, EntryAudit, ProfileAudit } from '../../analysis/audit/audit.js';
import { TICKS_PER_US } from '../../model/model.js';
import { fmtCount, fmtUs } from '../../util/format.js';
import { esc, text } from '../html/markup.js';
import { page } from '../html/page.js';
import { auditJsonObject, citation, siteText, type AuditView } from './audit.js';

const us = (ticks: number): number => ticks / TICKS_PER_US;

/** Most unfused sites listed per entry (all of them are in the JSON the page carries). */
export const MAX_HTML_SITES = 200;

const STATUS: Record<EntryAudit['status'], string> = { fused: 'fused', fallback: 'FALLBACK', unfused: 'not fused', absent: 'absent' };
const PHASE: Record<AuditSite['phase'], string> = { prefill: 'prefill', decode: 'decode', step: 'no phase', mtp: 'MTP' };

const q = (s: string): string => text(s, Number.POSITIVE_INFINITY);

function entriesTable(a: ProfileAudit, view: AuditView, n: number): string {
  const shown = view.all ? a.entries : a.entries.filter((e) => e.status !== 'absent');
  if (shown.length === 0) return '<p>No kernel of any catalogue entry ran.</p>';
  const head = ['entry', 'status', 'fused', 'fused µs', 'unfused chains', 'unfused µs', 'per phase (fused / unfused)'];
  const rows = shown.map((e) => {
    const phases = e.phases.map((f) => `${PHASE[f.phase]} ${fmtCount(f.fusedCount)} / ${fmtCount(f.unfusedCount)}`).join('; ');
    return `<tr><th scope="row" class="l"><code>${q(e.entry.id)}</code></th><td class="l">${e.status === 'fallback' ? `<strong>${STATUS[e.status]}</strong>` : STATUS[e.status]}</td><td data-v="${e.fusedCount}">${fmtCount(e.fusedCount)}</td><td data-v="${us(e.fusedTicks)}">${esc(fmtUs(us(e.fusedTicks)))}</td><td data-v="${e.unfusedCount}">${fmtCount(e.unfusedCount)}</td><td data-v="${us(e.unfusedTicks)}">${esc(fmtUs(us(e.unfusedTicks)))}</td><td class="l">${esc(phases)}</td></tr>`;
  });
  return [
    `<div class="scroll"><table id="audit-${n}">`,
    `<thead><tr>${head.map((h, i) => `<th scope="col"${i < 2 || i === 6 ? ' class="l"' : ''}>${esc(h)}</th>`).join('')}</tr></thead>`,
    `<tbody>${rows.join('\n')}</tbody></table></div>`,
  ].join('');
}

function sitesSection(a: ProfileAudit, n: number): string {
  const out: string[] = [];
  for (const e of a.entries) {
    if (e.unfusedSites.length === 0) continue;
    const sites = e.unfusedSites.slice(0, MAX_HTML_SITES);
    const rows = sites.map(
      (s) =>
        `<tr><td class="l">${q(siteText(s, (x) => x))}</td><td data-v="${s.count}">${fmtCount(s.count)}</td><td data-v="${us(s.ticks)}">${esc(fmtUs(us(s.ticks)))}</td><td class="l"><code>${q(citation(s, (x) => x))}</code></td><td class="l">${(s.types ?? []).map((t) => `<code>${q(t)}</code>`).join(' ')}</td></tr>`,
    );
    out.push(
      `<h3>${q(e.entry.id)} (${e.status === 'fallback' ? 'fused elsewhere' : 'never fused'})</h3>`,
      `<div class="scroll"><table id="sites-${n}-${esc(e.entry.id)}"><thead><tr><th scope="col" class="l">where</th><th scope="col">chains</th><th scope="col">µs</th><th scope="col" class="l">first kernel</th><th scope="col" class="l">chain as it ran</th></tr></thead><tbody>${rows.join('\n')}</tbody></table></div>`,
      sites.length < e.unfusedSites.length
        ? `<p class="note">The first ${MAX_HTML_SITES} of ${fmtCount(e.unfusedSites.length)} sites; all of them are in the JSON.</p>`
        : '',
    );
  }
  return out.length === 0 ? '' : `<h3 class="muted">Where the unfused chain ran</h3>${out.join('\n')}`;
}

function matrix(audits: ProfileAudit[], view: AuditView): string {
  const ids = audits[0]!.entries.map((e) => e.entry.id);
  const rows = ids
    .map((id, k) => ({ id, cells: audits.map((a) => a.entries[k]!.status) }))
    .filter((r) => view.all || r.cells.some((c) => c !== 'absent'))
    .map(
      (r) =>
        `<tr><th scope="row" class="l"><code>${q(r.id)}</code></th>${r.cells.map((c) => `<td class="l">${c === 'fallback' ? `<strong>${STATUS[c]}</strong>` : STATUS[c]}</td>`).join('')}</tr>`,
    );
  return [
    '<section aria-labelledby="matrix-h"><h2 id="matrix-h">Statuses by profile</h2>',
    `<ol>${audits.map((a) => `<li><code>${q(a.input)}</code></li>`).join('')}</ol>`,
    `<div class="scroll"><table id="audit-matrix"><thead><tr><th scope="col" class="l">entry</th>${audits.map((_, i) => `<th scope="col" class="l">[${i + 1}]</th>`).join('')}</tr></thead><tbody>${rows.join('\n')}</tbody></table></div></section>`,
  ].join('');
}

export function auditHtml(audits: ProfileAudit[], view: AuditView, lines: (a: ProfileAudit) => string[]): string {
  const body: string[] = ['<header>', '<h1>kprof audit: fusions of the catalogue</h1>', '</header>'];
  if (view.matrix) body.push(matrix(audits, view));
  audits.forEach((a, n) => {
    const [head, structure] = lines(a);
    body.push(
      `<section aria-labelledby="p${n}-h"><h2 id="p${n}-h">${q(a.input)}</h2>`,
      `<p>${q(head ?? '')}</p>`,
      `<p class="note">${q(structure ?? '')}</p>`,
      entriesTable(a, view, n),
      sitesSection(a, n),
      '</section>',
    );
  });
  body.push(
    '<footer><p class="note">Made by kprof. Counts and times are sums of the profile\'s rows (nothing estimated). The audit is in this file as JSON (the element <code>kprof-audit</code>), as <code>kprof audit --format json</code> writes it.</p></footer>',
  );
  return page({ title: esc('kprof audit'), body, data: { 'kprof-audit': auditJsonObject(audits) } });
}
