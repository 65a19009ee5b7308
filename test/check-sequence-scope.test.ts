// A sequence rule with `ranks:` or `steps:` whose chain's kernels still run, but only on a rank or in a step the rule
// does not look at (a fusion that landed on some ranks or steps only): the rule is checked on its own ranks and steps,
// and the kernels are not taken for communication kernels (which are in no kernel sequence, so could never form a
// chain). `kprof rules` writes such a rule for the ranks that fused, with their base's chains as its evidence.

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { CheckJson } from '../src/model/schema.js';
import { CHAIN, decodePair, writeDecodeCsv } from './decodeGen.js';
import { kprof } from './helpers.js';

const HEADER = 'Step Id,Device_id,Model ID,Task ID,Stream ID,Name,Type,OP State,Accelerator Core,Start Time(us),Duration(us),Wait Time(us),Block Dim';
const dir = mkdtempSync(join(tmpdir(), 'kprof-seqscope-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// Rank 1 fused nothing, and rank 0 fused every layer but those of its first step: ScatterNdUpdate (of the chain only,
// without the MTP layer) runs in the PR on rank 1 and in step 1 of rank 0, and nowhere else.
const SPEC = { layers: 4, dense: 1, mtp: false, dup: true, ranks: 2, steps: 3 };
const pair = decodePair({ ...SPEC, fused: (rank, step) => rank === 0 && step > 0 });
writeDecodeCsv(dir, HEADER, pair.steps);
const PR = join(dir, 'pr');
const R0 = 'node_0_ascend_pt';

function rules(name: string, scope: string): string {
  const p = join(dir, name);
  writeFileSync(
    p,
    `rules:\n  - rule: the prolog chain stays gone\n    type: [${CHAIN.join(', ')}]\n    sequence: { per: step, max: 0, layer-marker: LightningIndexer }\n${scope}    evidence: { base-count: 8 }\n`,
  );
  return p;
}

describe('a sequence rule whose chain runs only outside its ranks or steps', () => {
  it('ranks: the rank that fused passes, though another rank runs the chain (exit 0)', async () => {
    const r = await kprof(['check', PR, '--rules', rules('ranks.yaml', `    ranks: [${R0}]\n    steps: 2-3\n`), '--format', 'json']);
    expect(r.stderr).not.toContain('not in the kernel sequence');
    expect(r.code, r.stderr).toBe(0);
    expect((JSON.parse(r.stdout) as CheckJson).results[0]).toMatchObject({ passed: true, observed: 0 });
  });

  it('steps: the steps that fused pass, though an earlier step runs the chain (exit 0)', async () => {
    const r = await kprof(['check', PR, '--rules', rules('steps.yaml', '    steps: 2-3\n'), '--rank', R0, '--format', 'json']);
    expect(r.stderr).not.toContain('not in the kernel sequence');
    expect(r.code, r.stderr).toBe(0);
  });

  it('the same rule on the rank that did not fuse breaks (exit 1)', async () => {
    const r = await kprof(['check', PR, '--rules', rules('other.yaml', '    ranks: [node_1_ascend_pt]\n'), '--format', 'json']);
    expect(r.code, r.stderr).toBe(1);
    expect((JSON.parse(r.stdout) as CheckJson).results[0]).toMatchObject({ passed: false, rank: 'node_1_ascend_pt', observed: 4 });
  });

  it('kprof rules writes the chain rule for the rank that fused whole, with the chains of that rank as evidence', async () => {
    // Rank 0 fused every layer; rank 1 all but one layer of one step, which runs the chain in the PR. The base ran
    // the chain in 4 layers of 3 steps on each rank: 12 on rank 0, 24 in all.
    const d = join(dir, 'rules');
    writeDecodeCsv(d, HEADER, decodePair({ ...SPEC, fused: (rank, step, layer) => rank === 0 || step !== 1 || layer !== 2 }).steps);
    const out = join(dir, 'written.rules.yaml');
    const r = await kprof(['rules', join(d, 'base'), join(d, 'pr'), '-o', out]);
    expect(r.code, r.stderr).toBe(0);
    const text = readFileSync(out, 'utf8');
    expect(text).not.toContain('would take a kernel of the chain for a misspelling');
    expect(text).toMatch(
      /sequence: \{ per: step, max: 0, layer-marker: LightningIndexer \}\n {4}ranks: \[node_0_ascend_pt\]\n {4}evidence: \{ base-count: 12 \}/,
    );
  });
});
