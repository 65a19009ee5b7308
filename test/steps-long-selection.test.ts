// A step selection of thousands of items (a script's --steps, a generated steps:) that names steps the profile
// lacks: the message names the first few and how many more, not every item (it was 169 kB on one line).

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { kprof } from './helpers.js';

const tmp = mkdtempSync(join(tmpdir(), 'kprof-steps-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const HEADER = 'Step Id,Name,Type,Accelerator Core,Start Time(us),Duration(us),Wait Time(us),Block Dim';
const profile = join(tmp, 'kernel_details.csv');
writeFileSync(profile, `${HEADER}\n1,Cast,Cast,AI_CORE,1,1,0,1\n2,Cast,Cast,AI_CORE,5,1,0,1\n`);
/** 1,3,5,…,19999: 10,000 items, of which only step 1 is in the profile. */
const odd = Array.from({ length: 10_000 }, (_, i) => 2 * i + 1).join(',');
const NAMED = 'no step 3, none 5, none 7, none 9, none 11, none 13, none 15, none 17, nor 9,991 more of the items; its steps are 1-2.';

describe('a long step selection naming steps the profile lacks', () => {
  it('--steps: the selection and the missing steps in short', async () => {
    const r = await kprof(['summary', profile, '--steps', odd, '-q']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`--steps 1,3,5,7,9,11,…,19999 (10,000 items): `);
    expect(r.stderr).toContain(NAMED);
    expect(r.stderr.length).toBeLessThan(600);
  });

  it("a rule's steps: the same", async () => {
    const rules = join(tmp, 'r.yaml');
    writeFileSync(rules, `rules:\n  - type: Cast\n    count: { per: step, max: 5 }\n    steps: ${odd}\n`);
    const r = await kprof(['check', profile, '--rules', rules, '-q']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('r.yaml:2: steps: 1,3,5,7,9,11,…,19999 (10,000 items): rank (no id) has ');
    expect(r.stderr).toContain(NAMED);
    expect(r.stderr.length).toBeLessThan(600);
  });

  it('a short selection is said whole, as before', async () => {
    const r = await kprof(['summary', profile, '--steps', '1,99', '-q']);
    expect(r.stderr).toContain('--steps 1,99: ');
    expect(r.stderr).toContain('has no step 99; its steps are 1-2.');
  });
});
