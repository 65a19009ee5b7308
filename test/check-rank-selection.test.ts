// A rule's ranks: under --rank (a damaged rank left out of the gate, as docs/ci.md advises): the rule sees the ranks
// of both, as steps: under --steps, so the rules kprof rules writes per rank (`ranks: [r0, r1]`) check the ranks
// selected. A rule whose ranks: --rank left out entirely sees no rank: exit 2 naming both. It said the profile
// lacked the rank and to fix ranks:, and a sequence rule that its layer marker ran nowhere in the profile.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { CheckJson } from '../src/model/schema.js';
import { CHAIN, decodePair, writeDecodeCsv } from './decodeGen.js';
import { kprof } from './helpers.js';

const HEADER = 'Step Id,Device_id,Model ID,Task ID,Stream ID,Name,Type,OP State,Accelerator Core,Start Time(us),Duration(us),Wait Time(us),Block Dim';
const dir = mkdtempSync(join(tmpdir(), 'kprof-ranksel-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// Three ranks; rank 2 fused half its layers, the others all of them.
writeDecodeCsv(
  dir,
  HEADER,
  decodePair({ layers: 4, dense: 1, mtp: false, dup: true, ranks: 3, steps: 2, fused: (r, _s, l) => r < 2 || l < 2 }).steps,
);
const PR = join(dir, 'pr');
const [R0, R1, R2] = ['node_0_ascend_pt', 'node_1_ascend_pt', 'node_2_ascend_pt'];

function rules(name: string, text: string): string {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
}

const chain = `[${CHAIN.join(', ')}]`;

describe("a rule's ranks: under --rank", () => {
  it('ranks: [r0, r2] with --rank r0,r1: checked on r0', async () => {
    const f = rules(
      'both.yaml',
      `rules:\n  - type: ${chain}\n    sequence: { per: step, max: 0, layer-marker: LightningIndexer }\n    ranks: [${R0}, ${R2}]\n`,
    );
    const r = await kprof(['check', PR, '--rules', f, '--rank', `${R0},${R1}`, '--format', 'json']);
    expect(r.code, r.stderr).toBe(0);
    expect((JSON.parse(r.stdout) as CheckJson).results[0]).toMatchObject({ passed: true, observed: 0 });
    // Without --rank, rank 2 breaks it.
    expect((await kprof(['check', PR, '--rules', f])).code).toBe(1);
  });

  it.each([
    ['a count rule', `  - type: MlaPrologV3\n    count: { per: step, min: 2 }\n    ranks: [${R2}]\n`],
    [
      'a sequence rule with a layer marker',
      `  - type: ${chain}\n    sequence: { per: step, max: 2, layer-marker: LightningIndexer }\n    ranks: [${R2}]\n`,
    ],
  ])('%s on a rank --rank left out: exit 2 naming both', async (_, rule) => {
    const f = rules(`out${rule.length}.yaml`, `rules:\n${rule}`);
    const r = await kprof(['check', PR, '--rules', f, '--rank', R0]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(
      new RegExp(
        `\\.yaml:2: ranks: ${R2} lies outside --rank ${R0}, so the rule sees no rank\\. Widen --rank to take them in, or fix ranks: in the rule\\.`,
      ),
    );
    expect(r.stderr).not.toContain('is no compute kernel');
  });

  it.each([
    ['a count rule', '  - type: MlaPrologV3\n    present: true\n    ranks: [node_7_ascend_pt]\n'],
    [
      'a sequence rule with a layer marker',
      `  - type: ${chain}\n    sequence: { per: step, max: 2, layer-marker: LightningIndexer }\n    ranks: [node_7_ascend_pt]\n`,
    ],
  ])('%s on a rank the profile does not have at all is said as such, with or without --rank', async (_, rule) => {
    const f = rules(`lost${rule.length}.yaml`, `rules:\n${rule}`);
    for (const args of [['--rank', R0], []]) {
      const r = await kprof(['check', PR, '--rules', f, ...args]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('.yaml:2: the rule applies to rank node_7_ascend_pt, but');
    }
  });
});
