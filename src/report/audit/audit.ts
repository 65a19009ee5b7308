// `kprof audit`'s reports: table (terminal), markdown and JSON, of one or more profiles' audits, and the
// catalogue listing of `--list`. Every text from input (ranks, paths, kernel types of user entries) is escaped.

import type { CatalogueEntry } from '../../analysis/audit/catalogue.js';
import { chainText } from '../../analysis/audit/catalogue.js';
import { stepRanges, type AuditSite, type EntryAudit, type ProfileAudit } from '../../analysis/audit/audit.js';
import { TICKS_PER_US } from '../../model/model.js';
import { MAX_LANES } from '../../analysis/rewrites/sequence.js';
import type { AuditJson, AuditSiteJson } from '../../model/schema.js';
import { clipped, jsonSafe } from '../../util/inputText.js';
import { fmtCount, fmtUs, plural, ranksNamed } from '../../util/format.js';
import { arrays, jsonChunks, lazyLists, mapped, type ListOf } from '../json.js';
import { MARKDOWN_LIMIT, markdownTable, mdCode, textTable, type RenderContext } from '../render.js';

export { AUDIT_FORMATS, AUDIT_SCHEMA, type AuditFormat } from './formats.js';
import { AUDIT_SCHEMA, type AuditFormat } from './formats.js';

export interface AuditView {
  /** Show entries whose kernels never ran too. */
  all: boolean;
  /** One table of statuses, entry × profile. */
  matrix: boolean;
}

const us = (ticks: number): number => ticks / TICKS_PER_US;

const STATUS_WORD: Record<EntryAudit['status'], string> = {
  fused: 'fused',
  fallback: 'FALLBACK',
  unfused: 'not fused',
  absent: 'absent',
};

/** Where: `rank 0 decode layer 2 steps 1-4`, `rank 0 MTP layer steps 21-24`, `rank (no id) step 13`. */
export function siteText(s: AuditSite, text: (x: string) => string): string {
  const layer = s.phase === 'mtp' ? ' MTP layer' : `${s.phase === 'step' ? '' : ` ${s.phase}`}${s.layer !== null ? ` layer ${s.layer}` : ''}`;
  return `${ranksNamed([s.rank], text)}${layer} ${s.steps.length === 1 ? 'step' : 'steps'} ${stepRanges(s.steps)}`;
}

/** Where a site's first kernel is: `kernel_details.csv:123` (its row), else `step 21 stream 2 #47`. */
export function citation(s: AuditSite, text: (x: string) => string): string {
  if (s.at.file !== null && s.at.line !== null) return `${text(s.at.file.slice(s.at.file.lastIndexOf('/') + 1))}:${s.at.line}`;
  return `step ${s.at.step} stream ${text(s.at.stream)} #${s.at.index}`;
}

const PHASE_WORD: Record<AuditSite['phase'], string> = { prefill: 'prefill', decode: 'decode', mtp: 'MTP', step: 'no phase' };

/** Per phase, what the entry did: `decode 16 fused / 0 unfused; MTP 0 fused / 8 unfused`. */
function phaseText(e: EntryAudit): string {
  return e.phases
    .map((f) => `${PHASE_WORD[f.phase]} ${fmtCount(f.fusedCount)} fused / ${fmtCount(f.unfusedCount)} unfused (${fmtUs(us(f.unfusedTicks))})`)
    .join('; ');
}

function shownEntries(a: ProfileAudit, view: AuditView): EntryAudit[] {
  return view.all ? a.entries : a.entries.filter((e) => e.status !== 'absent');
}

/** The compute kernels read but not audited, as the headline says them (nothing when all were). */
function notAuditedText(a: ProfileAudit): string {
  const { withoutStep, pastLaneLimit } = a.notAudited;
  return (
    (withoutStep > 0 ? ` (and ${fmtCount(withoutStep)} with an empty Step Id, in no step: not audited)` : '') +
    (pastLaneLimit > 0 ? ` (and ${fmtCount(pastLaneLimit)} past the ${fmtCount(MAX_LANES)} rank and stream lanes kprof follows: not audited)` : '')
  );
}

export function headline(a: ProfileAudit, text: (x: string) => string): string {
  const fallbacks = a.entries.filter((e) => e.status === 'fallback').length;
  return (
    `Fusion audit of ${text(a.input)}: ${a.entries.length} catalogue entr${a.entries.length === 1 ? 'y' : 'ies'}, ${plural(a.ranks.length, 'rank')}, ` +
    `${plural(a.steps.length, 'step')}, ${plural(a.kernels, 'compute kernel')}${notAuditedText(a)}${a.skippedRows > 0 ? `, ${plural(a.skippedRows, 'row')} skipped (not read: their kernels are in no site)` : ''}; ` +
    `${fallbacks} entr${fallbacks === 1 ? 'y falls' : 'ies fall'} back to the unfused chain somewhere`
  );
}

const SOURCE_WORD: Record<ProfileAudit['phaseSource'], string> = {
  stage: 'Phases (by the Stage column of the step-time file)',
  kernels: 'Phases (by the attention kernels)',
  none: 'Phases: none told (no Stage word, no prefill or decode attention kernel)',
};

/** `Phases (by the attention kernels): prefill steps 1, decode steps 2-4, MTP layer in steps 2-4. Layers by LightningIndexer.` */
export function structureLine(a: ProfileAudit, text: (x: string) => string): string {
  const phases = a.phaseSteps
    .filter((p) => p.phase !== 'step' || a.phaseSource !== 'none')
    .map((p) => (p.phase === 'mtp' ? `MTP layer in steps ${stepRanges(p.steps)}` : `${PHASE_WORD[p.phase]} steps ${stepRanges(p.steps)}`));
  const marks = [...new Set(a.markers.map((m) => m.marker))];
  const layers =
    marks.length === 1 && marks[0] === null
      ? "No layer marker (no per-layer entry ran twice in a step): a per-layer entry's n-th site in a step is layer n."
      : `Layers by ${marks.map((m) => (m === null ? 'no marker' : text(m))).join(', ')} (once per layer).`;
  return `${SOURCE_WORD[a.phaseSource]}${phases.length > 0 ? `${a.phaseSource === 'none' ? ';' : ':'} ${phases.join(', ')}` : ''}. ${layers}`;
}

function rows(a: ProfileAudit, view: AuditView, code: (x: string) => string, entries = shownEntries(a, view)): string[][] {
  return entries.map((e) => [
    code(e.entry.id),
    STATUS_WORD[e.status],
    fmtCount(e.fusedCount),
    fmtUs(us(e.fusedTicks)),
    fmtCount(e.unfusedCount),
    fmtUs(us(e.unfusedTicks)),
  ]);
}

const HEAD = ['entry', 'status', 'fused', 'fused µs', 'unfused chains', 'unfused µs'];
const ALIGN = ['left', 'left', 'right', 'right', 'right', 'right'] as const;

/**
 * Most unfused sites listed per entry in the table and Markdown (a site is a rank and layer: a chain unfused in
 * every layer of 64 ranks is thousands); the rest are counted with their chains and time, and JSON lists all.
 */
export const MAX_TEXT_SITES = 20;

/** The lines naming where each entry's unfused chain ran: the first `most` sites, then the rest counted. */
function siteLines(a: ProfileAudit, text: (x: string) => string, bullet: string, most = MAX_TEXT_SITES, entries = a.entries): string[] {
  const lines: string[] = [];
  const item = bullet === '' ? '  ' : '  - ';
  for (const e of entries) {
    if (e.unfusedSites.length === 0) continue;
    lines.push(
      `${bullet}${text(e.entry.id)} (${e.status === 'fallback' ? 'fused elsewhere' : 'never fused'}): ${phaseText(e)}; unfused chain ran at`,
    );
    for (const s of e.unfusedSites.slice(0, most)) {
      lines.push(
        `${item}${siteText(s, text)}: ${fmtCount(s.count)} chain${s.count === 1 ? '' : 's'}, ${fmtUs(us(s.ticks))}` +
          `${s.chain !== null && s.chain > 0 ? ` (variant ${s.chain})` : ''} at ${citation(s, text)}: ${(s.types ?? []).map(text).join(' ')}`,
      );
    }
    const rest = e.unfusedSites.slice(most);
    if (rest.length > 0) {
      let chains = 0;
      let ticks = 0;
      for (const s of rest) {
        chains += s.count;
        ticks += s.ticks;
      }
      lines.push(
        `${item}${most === 0 ? plural(rest.length, 'site') : `and ${plural(rest.length, 'more site')}`}: ${plural(chains, 'chain')}, ${fmtUs(us(ticks))} (--format json lists every site)`,
      );
    }
  }
  return lines;
}

function matrixRows(audits: ProfileAudit[], view: AuditView, code: (x: string) => string): string[][] {
  const ids = audits[0]!.entries.map((e) => e.entry.id);
  return ids
    .map((id, k) => [code(id), ...audits.map((a) => STATUS_WORD[a.entries[k]!.status])])
    .filter((r, k) => view.all || audits.some((a) => a.entries[k]!.status !== 'absent') || r.length === 0);
}

export function auditTable(audits: ProfileAudit[], view: AuditView, ctx: RenderContext): string {
  const text = (x: string) => clipped(x);
  const out: string[] = [];
  if (view.matrix) {
    out.push(`Fusion audit of ${audits.length} profiles (FALLBACK: fused in some places, the unfused chain in others)`);
    audits.forEach((a, i) => {
      out.push(`  [${i + 1}] ${text(a.input)}`);
    });
    out.push('');
    out.push(
      textTable(ctx, ['entry', ...audits.map((_, i) => `[${i + 1}]`)], matrixRows(audits, view, text), [
        'left',
        ...audits.map(() => 'left' as const),
      ]),
    );
    return `${out.join('\n')}\n`;
  }
  for (const a of audits) {
    if (out.length > 0) out.push('');
    out.push(headline(a, text), structureLine(a, text), '');
    const r = rows(a, view, text);
    out.push(r.length > 0 ? textTable(ctx, HEAD, r, [...ALIGN]) : 'No kernel of any catalogue entry ran (kprof audit --list shows the entries).');
    const hidden = a.entries.length - shownEntries(a, view).length;
    if (hidden > 0)
      out.push(
        `(${hidden} ${hidden === 1 ? 'entry whose kernels never ran is' : 'entries whose kernels never ran are'} not shown; --all shows them)`,
      );
    const sl = siteLines(a, text, '');
    if (sl.length > 0) out.push('', ...sl);
  }
  return `${out.join('\n')}\n`;
}

export function auditMarkdown(audits: ProfileAudit[], view: AuditView): string {
  const code = (x: string) => mdCode(x);
  // Within GitHub's comment limit: fewer sites listed per entry, then fewer entries (rows of the matrix), until it fits.
  const fits = (text: string): boolean => text.length <= MARKDOWN_LIMIT - MARKDOWN_RESERVE;
  if (view.matrix) {
    const all = matrixRows(audits, view, code);
    const matrix = (n: number): string => {
      const out = ['## Fusion audit', '', ...audits.map((a, i) => `${i + 1}. ${mdCode(a.input)}`), ''];
      out.push(markdownTable(['entry', ...audits.map((_, i) => `${i + 1}`)], all.slice(0, n), ['left', ...audits.map(() => 'left' as const)]));
      if (n < all.length)
        out.push(
          '',
          `(${plural(all.length - n, 'more entry', 'more entries')} not shown, to keep this report within GitHub's comment limit: --format json or html lists them)`,
        );
      return `${out.join('\n')}\n`;
    };
    return matrix(largestFitting(all.length, (n) => fits(matrix(n))));
  }
  for (const most of [MAX_TEXT_SITES, 10, 5, 2, 1, 0]) {
    const text = profilesMarkdown(audits, view, most, Number.POSITIVE_INFINITY);
    if (fits(text)) return text;
  }
  const most = Math.max(...audits.map((a) => shownEntries(a, view).length));
  return profilesMarkdown(
    audits,
    view,
    0,
    largestFitting(most, (n) => fits(profilesMarkdown(audits, view, 0, n))),
  );
}

/** The largest n from 0 to `most` that `fits` (all of them when they fit; the report grows with n). */
function largestFitting(most: number, fits: (n: number) => boolean): number {
  if (fits(most)) return most;
  let lo = 0;
  let hi = most - 1;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (fits(mid)) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** Room left for what a CI step adds around the report (a heading, a link). */
const MARKDOWN_RESERVE = 2_000;

/** The Markdown of each profile's audit: its entries' table (the first `entries`), and `most` sites of each. */
function profilesMarkdown(audits: ProfileAudit[], view: AuditView, most: number, entries: number): string {
  const code = (x: string) => mdCode(x);
  const out: string[] = [];
  for (const a of audits) {
    out.push(`## ${headline(a, code)}`, '', structureLine(a, code), '');
    const shown = shownEntries(a, view);
    const kept = shown.slice(0, entries);
    const r = rows(a, view, code, kept);
    out.push(r.length > 0 ? markdownTable(HEAD, r, [...ALIGN]) : 'No kernel of any catalogue entry ran.');
    if (kept.length < shown.length) {
      out.push(
        '',
        `(${plural(shown.length - kept.length, 'more entry', 'more entries')} not shown, to keep this report within GitHub's comment limit: --format json or html lists them)`,
      );
    }
    const sl = siteLines(a, code, '- ', most, kept);
    if (sl.length > 0) out.push('', ...sl);
    if (most < MAX_TEXT_SITES && sl.length > 0) {
      out.push(
        '',
        `(${most === 0 ? 'No site' : `At most ${plural(most, 'site')}`} listed per entry, to keep this report within GitHub's comment limit: --format json or html lists them.)`,
      );
    }
    out.push('');
  }
  return `${out.join('\n')}`;
}

function siteJson(s: AuditSite): AuditSiteJson {
  return {
    rank: s.rank,
    phase: s.phase,
    layer: s.layer,
    chain: s.chain,
    steps: s.steps,
    count: s.count,
    time_us: us(s.ticks),
    ...(s.types !== null ? { types: s.types } : {}),
    first: { step: s.at.step, stream: s.at.stream, index: s.at.index, file: s.at.file, line: s.at.line },
  };
}

/** The JSON report, in chunks (see report/json.ts): its profiles, entries and sites made as they are written. */
export function auditJson(audits: ProfileAudit[]): Iterable<string> {
  return mapped(jsonChunks(auditJsonWith(audits, lazyLists)), jsonSafe);
}

/** The audit's JSON document (schema AuditJson in model/schema.ts). */
export function auditJsonObject(audits: ProfileAudit[]): AuditJson {
  return auditJsonWith(audits, arrays);
}

/** The audit's JSON document, its lists made by `list` (see ListOf). */
function auditJsonWith(audits: ProfileAudit[], list: ListOf): AuditJson {
  return {
    schema: AUDIT_SCHEMA,
    profiles: list(
      mapped(audits, (a) => ({
        input: a.input,
        ranks: a.ranks,
        steps: a.steps,
        phases: a.phaseSteps.map((p) => ({ phase: p.phase, steps: p.steps })),
        phase_source: a.phaseSource,
        layer_markers: a.markers,
        kernels: a.kernels,
        skipped_rows: a.skippedRows,
        not_audited: { without_step: a.notAudited.withoutStep, past_lane_limit: a.notAudited.pastLaneLimit },
        entries: list(
          mapped(a.entries, (e) => ({
            id: e.entry.id,
            fused_types: e.entry.fused,
            status: e.status,
            phases: e.phases.map((f) => ({
              phase: f.phase,
              fused: { count: f.fusedCount, time_us: us(f.fusedTicks) },
              unfused: { count: f.unfusedCount, time_us: us(f.unfusedTicks) },
            })),
            fused: { count: e.fusedCount, time_us: us(e.fusedTicks), sites: list(mapped(e.fusedSites, siteJson)) },
            unfused: { count: e.unfusedCount, time_us: us(e.unfusedTicks), sites: list(mapped(e.unfusedSites, siteJson)) },
          })),
        ),
      })),
    ),
  };
}

/** `kprof audit --list`: the catalogue, one block per entry. */
export function catalogueListing(entries: CatalogueEntry[], format: AuditFormat): string {
  if (format === 'json') {
    return `${jsonSafe(
      JSON.stringify(
        {
          schema: 'kprof.catalogue/1',
          entries: entries.map((e) => ({
            id: e.id,
            file: e.file,
            fused: e.fused,
            api: e.api,
            versions: e.versions,
            per_layer: e.perLayer,
            chains: e.chains.map(chainText),
            chain_source: e.chainSource,
            type_source: e.typeSource,
            sources: e.sources,
          })),
        },
        null,
        2,
      ),
    )}\n`;
  }
  const text = format === 'markdown' ? (x: string) => mdCode(x) : (x: string) => clipped(x);
  const out: string[] = [`Fusion catalogue: ${plural(entries.length, 'entry', 'entries')}`];
  for (const e of entries) {
    out.push('');
    out.push(`${format === 'markdown' ? '### ' : ''}${text(e.id)} (${text(e.file)})`);
    const item = format === 'markdown' ? '- ' : '  ';
    out.push(`${item}fused: ${e.fused.map(text).join(', ')}   api: ${text(e.api)}`);
    if (e.chains.length === 0) out.push(`${item}chain: none (counts the fused kernel only)`);
    e.chains.forEach((c, i) => {
      out.push(`${item}${i === 0 ? 'chain' : `variant ${i}`}: ${text(chainText(c))}`);
    });
    out.push(`${item}chain source: ${text(e.chainSource)}`);
    for (const s of e.sources) {
      const where =
        s.url !== undefined
          ? s.url
          : s.profile !== undefined
            ? `profile ${s.profile}`
            : `${s.repo}:${s.path}${s.commit !== undefined ? `@${s.commit.slice(0, 12)}` : ''}`;
      out.push(`${item}source: ${text(where)}: ${text(s.says)}`);
    }
  }
  return `${out.join('\n')}\n`;
}
