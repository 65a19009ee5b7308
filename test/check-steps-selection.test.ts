// A rule's steps: wholly outside --steps: the rule sees no step. The message names both; it said the profile
// had only the selected steps (it has more) and to fix steps: in the rule alone.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { kprof } from './helpers.js';

const tmp = mkdtempSync(join(tmpdir(), 'kprof-stepsel-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const HEADER = 'Step Id,Name,Type,Accelerator Core,Start Time(us),Duration(us),Wait Time(us),Block Dim';
const profile = join(tmp, 'kernel_details.csv');
writeFileSync(profile, `${HEADER}\n${[1, 2, 3].map((s) => `${s},Cast,Cast,AI_CORE,${s * 10},1,0,1`).join('\n')}\n`);

function rules(text: string): string {
  const p = join(tmp, `r${text.length}.yaml`);
  writeFileSync(p, text);
  return p;
}

it.each([
  ['a rule of its own steps:', 'rules:\n  - type: Cast\n    count: { per: step, max: 5 }\n    steps: 3\n', 2],
  ["the file's steps:", 'steps: 3\nrules:\n  - type: Cast\n    count: { per: total, max: 5 }\n', 3],
])('%s outside --steps: exit 2 naming both', async (_, text, line) => {
  const r = await kprof(['check', profile, '--rules', rules(text), '--steps', '1-2', '-q']);
  expect(r.code).toBe(2);
  expect(r.stdout).toBe('');
  expect(r.stderr).toMatch(
    new RegExp(
      `r\\d+\\.yaml:${line}: steps: 3 lies outside --steps 1-2, so the rule sees no step\\. Widen --steps to take them in, or fix steps: in the rule\\.\\n$`,
    ),
  );
});

it('a rule whose steps: overlap --steps is checked on the steps of both', async () => {
  const r = await kprof([
    'check',
    profile,
    '--rules',
    rules('rules:\n  - type: Cast\n    count: { per: total, exactly: 1 }\n    steps: 2-3\n'),
    '--steps',
    '1-2',
    '-q',
  ]);
  expect(r.code).toBe(0);
});
