// `kprof audit --format json` (report/audit/audit.ts): written in chunks, byte for byte the one string it was.

import { describe, expect, it } from 'vitest';
import { stepRanges, type AuditSite, type EntryAudit, type ProfileAudit } from '../src/analysis/audit/audit.js';
import { auditJson, auditJsonObject, auditMarkdown, auditTable, MAX_TEXT_SITES } from '../src/report/audit/audit.js';
import { CHUNK_CHARS } from '../src/report/json.js';
import { jsonSafe } from '../src/util/inputText.js';
import { fmtUs } from '../src/util/format.js';
import { TICKS_PER_US } from '../src/model/model.js';

/** An audit of one entry with `n` unfused sites, its ranks and files named with text that jsonSafe escapes. */
function audit(n: number): ProfileAudit {
  const site = (i: number): AuditSite => ({
    rank: `r${i % 7}\u202e##[x]`,
    phase: i % 2 === 0 ? 'decode' : 'prefill',
    layer: i % 61,
    chain: 0,
    steps: [i, i + 1],
    count: 2,
    ticks: 1234 + i,
    types: ['RmsNorm', 'MatMulV2', 'Cast\u00a0'],
    at: { step: i, stream: '2', index: i * 10, file: `run\u2028${i}/kernel_details.csv`, line: i + 2 },
    shapes: [],
  });
  return {
    input: 'profiles/pr\u0085',
    ranks: ['0', '1'],
    steps: [1, 2, 3],
    phaseSteps: [{ phase: 'decode', steps: [1, 2, 3] }],
    phaseSource: 'kernels',
    markers: [{ rank: '0', marker: 'RmsNorm' }],
    kernels: 10 * n,
    skippedRows: 0,
    notAudited: { withoutStep: 0, pastLaneLimit: 0 },
    entries: [
      {
        entry: {
          id: 'mla-prolog',
          file: 'catalogue/mla.yaml',
          fused: ['MlaProlog'],
          api: 'npu_mla_prolog',
          versions: 'any',
          perLayer: true,
          chains: [[{ types: ['RmsNorm'], optional: false }]],
          maxGap: null,
          chainSource: 'x',
          typeSource: 'y',
          sources: [],
        },
        fusedCount: 0,
        fusedTicks: 0,
        unfusedCount: 2 * n,
        unfusedTicks: 1234 * n,
        status: 'unfused',
        phases: [{ phase: 'decode', fusedCount: 0, fusedTicks: 0, unfusedCount: 2 * n, unfusedTicks: 1234 * n }],
        fusedSites: [],
        unfusedSites: Array.from({ length: n }, (_, i) => site(i)),
        byStep: new Map(),
      },
    ],
  };
}

describe('auditJson', () => {
  it('writes a large audit in chunks of about a chunk each, that join to the text of the whole', () => {
    const audits = [audit(3000), audit(0)];
    const report = auditJson(audits);
    expect(typeof report).not.toBe('string');
    const chunks = [...report];
    expect(chunks.length).toBeGreaterThan(10);
    // About CHUNK_CHARS each, longer by jsonSafe's escapes (6 characters for each escaped one).
    for (const c of chunks) expect(c.length).toBeLessThan(2 * CHUNK_CHARS);
    expect(chunks.join('')).toBe(`${jsonSafe(JSON.stringify(auditJsonObject(audits), null, 2))}\n`);
    expect(chunks.join('')).not.toMatch(/[\u0085\u00a0\u2028\u202e]|##\[/);
  });
});

describe('auditTable', () => {
  it('says one compute kernel and one hidden entry in the singular', () => {
    const one = audit(0);
    const first = one.entries[0]!;
    const absent: EntryAudit = { ...first, entry: { ...first.entry, id: 'other' }, unfusedCount: 0, unfusedTicks: 0, phases: [] };
    const a: ProfileAudit = { ...one, kernels: 1, entries: [{ ...absent, status: 'absent' }] };
    const e = a.entries[0]!;
    const out = auditTable([a], { all: false, matrix: false }, { color: false });
    expect(out).toContain(', 1 compute kernel; ');
    expect(out).toContain('(1 entry whose kernels never ran is not shown; --all shows them)');
    const two = auditTable([{ ...a, kernels: 2, entries: [e, e] }], { all: false, matrix: false }, { color: false });
    expect(two).toContain(', 2 compute kernels; ');
    expect(two).toContain('(2 entries whose kernels never ran are not shown; --all shows them)');
  });
});

describe('audit site lists', () => {
  it('lists the first sites of an entry and counts the rest with their chains and time, in the table and Markdown', () => {
    // 3,000 sites: a chain unfused in every layer of many ranks was one line per rank and layer, with no end.
    const a = audit(3000);
    const view = { all: false, matrix: false };
    const rest = a.entries[0]!.unfusedSites.slice(MAX_TEXT_SITES);
    const ticks = rest.reduce((t, s) => t + s.ticks, 0);
    const more = `and 2,980 more sites: 5,960 chains, ${fmtUs(ticks / TICKS_PER_US)} (--format json lists every site)`;
    const table = auditTable([a], view, { color: false }).split('\n');
    expect(table.filter((l) => / at kernel_details\.csv:/.test(l))).toHaveLength(MAX_TEXT_SITES);
    expect(table).toContain(`  ${more}`);
    const md = auditMarkdown([a], view).split('\n');
    expect(md.filter((l) => l.startsWith('  - ') && l.includes('kernel_details.csv'))).toHaveLength(MAX_TEXT_SITES);
    expect(md).toContain(`  - ${more}`);
    // A list that fits is whole, with no count line.
    const few = auditTable([audit(MAX_TEXT_SITES)], view, { color: false });
    expect(few).not.toContain('more site');
  });
});

describe('stepRanges', () => {
  it('writes ranges, and of more than 8 the first 6, the last and how many steps', () => {
    expect(stepRanges([1, 2, 3, 4, 7])).toBe('1-4,7');
    expect(stepRanges([1, 3, 5, 7, 9, 11, 13, 15])).toBe('1,3,5,7,9,11,13,15');
    // Every other step of 2,000: it was one line of 1,000 ranges (4.5 KB; 600 KB for 100,000 steps).
    const odd = Array.from({ length: 1000 }, (_, i) => 2 * i + 1);
    expect(stepRanges(odd)).toBe('1,3,5,7,9,11,…,1999 (1,000 steps)');
    expect(stepRanges([1, 2, 4, 5, 7, 8, 10, 11, 13, 14, 16, 17, 19, 20, 22, 23, 25, 26])).toBe('1-2,4-5,7-8,10-11,13-14,16-17,…,25-26 (18 steps)');
  });
});
