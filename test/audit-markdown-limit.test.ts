// `kprof audit --format markdown` stays under GitHub's limit on a comment (65,536 characters): a catalogue of many
// entries whose chains ran (210 here, as several `diff --save-fusions` files give) made a 115 KB report, 20 sites
// per entry, that GitHub refuses to post. Fewer sites are listed per entry, then fewer entries, and a line says so;
// --matrix likewise. A report that fits is as it was.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { kprof } from './helpers.js';

const FE = 'fixtures/fusion-example';
const dir = mkdtempSync(join(tmpdir(), 'kprof-audit-md-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// Kernel types of the example's PR: every ordered pair is a chain that runs (the second may be missing).
const TYPES = [
  'QuantBatchMatmulV3',
  'RmsNorm',
  'DynamicQuant',
  'BatchMatMulV3',
  'InterleaveRope',
  'Cast',
  'DynamicBlockQuant',
  'ScatterNdUpdate',
  'MatMulV3',
  'GroupedMatmul',
  'AddRmsNorm',
  'SwiGlu',
  'MoeGatingTopK',
  'GatherV2',
  'ArgMaxV2',
];

function catalogue(n: number): string {
  const lines = ['entries:'];
  let k = 0;
  for (const a of TYPES) {
    for (const b of TYPES) {
      if (a === b || k >= n) continue;
      k++;
      lines.push(
        `  - id: e${k}-${a.toLowerCase()}`,
        `    fused: [Fused${k}]`,
        '    api: a',
        '    versions: v',
        `    chain: [${a}, "${b}|${a}?"]`,
        '    max_gap: 16',
        '    chain_source: c',
        '    type_source: t',
        "    sources: [{url: 'https://example.invalid', says: s}]",
      );
    }
  }
  const file = join(dir, `c${n}.yaml`);
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

const LIMIT = 65_536 - 2_000;

describe('audit --format markdown of a catalogue of many entries', () => {
  it('lists fewer sites per entry to stay under the limit, and says so; every entry is in the table', async () => {
    const cat = catalogue(210);
    const r = await kprof(['audit', `${FE}/pr`, '--catalogue', cat, '--format', 'markdown', '-q']);
    expect(r.code).toBe(0);
    const table = await kprof(['audit', `${FE}/pr`, '--catalogue', cat, '-q']);
    // The terminal table keeps 20 sites per entry: that much in Markdown would not fit.
    expect(table.stdout.length).toBeGreaterThan(65_536);
    expect(r.stdout.length).toBeLessThanOrEqual(LIMIT);
    expect(r.stdout).toMatch(/\((At most \d+ sites?|No site) listed per entry, to keep this report within GitHub's comment limit/);
    // Every entry that ran is a row of the table still.
    const json = JSON.parse((await kprof(['audit', `${FE}/pr`, '--catalogue', cat, '--format', 'json', '-q'])).stdout);
    const ran = json.profiles[0].entries.filter((e: { status: string }) => e.status !== 'absent').length;
    expect(ran).toBeGreaterThan(150);
    expect(r.stdout.split('\n').filter((l) => l.startsWith('| `')).length).toBe(ran);
  });

  it('--matrix leaves rows out past the limit, counted (a catalogue of 1,000 entries, every one shown with --all)', async () => {
    const lines = ['entries:'];
    for (let k = 0; k < 1000; k++) {
      lines.push(
        `  - id: entry-${String(k).padStart(4, '0')}-${'x'.repeat(50)}`,
        `    fused: [Never${k}]`,
        '    api: a',
        '    versions: v',
        '    chain_source: c',
        '    type_source: t',
        "    sources: [{url: 'https://example.invalid', says: s}]",
      );
    }
    const cat = join(dir, 'matrix.yaml');
    writeFileSync(cat, `${lines.join('\n')}\n`);
    const args = ['audit', `${FE}/base`, `${FE}/pr`, '--matrix', '--all', '--catalogue', cat];
    const table = await kprof([...args, '-q']);
    expect(table.stdout.length).toBeGreaterThan(65_536);
    const m = await kprof([...args, '--format', 'markdown', '-q']);
    expect(m.code).toBe(0);
    expect(m.stdout.length).toBeLessThanOrEqual(LIMIT);
    const rows = m.stdout.split('\n').filter((l) => l.startsWith('| `'));
    const left = Number(/\((\d+) more entries not shown, to keep this report within GitHub's comment limit/.exec(m.stdout)?.[1]);
    expect(rows.length + left).toBe(1030);
  });

  it('a report that fits is unchanged: 20 sites per entry, no note', async () => {
    const r = await kprof(['audit', `${FE}/pr`, '--format', 'markdown', '-q']);
    expect(r.code).toBe(0);
    expect(r.stdout).not.toContain("within GitHub's comment limit");
    expect(r.stdout).toContain('- `mla-prolog` (fused elsewhere)');
  });
});
