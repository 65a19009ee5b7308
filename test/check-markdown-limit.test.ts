// `kprof check --format markdown` stays under GitHub's limit on a comment: a rules file of many rules (1,800 here,
// 200 KB) made a 320 KB report that GitHub refuses to post. The rules broken come first, then the others as fit.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { kprof } from './helpers.js';

const PR = 'fixtures/fusion-example/pr';
const dir = mkdtempSync(join(tmpdir(), 'kprof-check-md-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** n rules on Cast (32 kernels in the PR): odd ones broken (max 0), even ones held; every fifth odd one a warning. */
function rulesFile(n: number): string {
  const lines = ['rules:'];
  for (let i = 0; i < n; i++) {
    lines.push(
      `  - rule: rule ${i} keeps Cast under a bound, a label long enough to matter`,
      '    type: Cast',
      `    count: { max: ${i % 2 === 1 ? 0 : 1000} }`,
    );
    if (i % 10 === 1) lines.push('    severity: warn');
  }
  const file = join(dir, `r${n}.yaml`);
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

describe('check --format markdown of many rules', () => {
  it("is under 60,000 characters (a comment of the GitHub Action, under GitHub's 65,536): the broken rules first (errors, then warnings), the rest counted by outcome", async () => {
    const r = await kprof(['check', PR, '--rules', rulesFile(1800), '--format', 'markdown']);
    expect(r.code).toBe(1);
    expect(r.stdout.length).toBeLessThanOrEqual(60_000);
    const rows = r.stdout.split('\n').filter((l) => /^\| (❌|⚠️|✅) \|/.test(l));
    // Only errors fit, of 720 (the odd rules, less every fifth one, a warning), in the file's order.
    expect(rows.every((l) => l.startsWith('| ❌ |'))).toBe(true);
    const numbers = rows.map((l) => Number(/rule (\d+) keeps/.exec(l)![1]));
    expect(numbers).toEqual([...numbers].sort((a, b) => a - b));
    expect(numbers.every((x) => x % 2 === 1 && x % 10 !== 1)).toBe(true);
    const errors = 720;
    expect(r.stdout).toContain(
      `\n\n${(1800 - rows.length).toLocaleString('en-US')} more rules not shown, to keep this under 60,000 characters for a comment ` +
        `(${(errors - rows.length).toLocaleString('en-US')} broken, 180 warnings, 900 held): every rule is in --format text, json or junit.\n\n`,
    );
    expect(r.stdout.endsWith('**check failed: 720 of 1,800 rules broken; 180 warnings; 900 held.**\n')).toBe(true);
  });

  it('of a few rules, every rule in the file order, with no line of rules not shown', async () => {
    const r = await kprof(['check', PR, '--rules', rulesFile(20), '--format', 'markdown']);
    const rows = r.stdout.split('\n').filter((l) => /^\| (❌|⚠️|✅) \|/.test(l));
    expect(rows.map((l) => Number(/rule (\d+) keeps/.exec(l)![1]))).toEqual([...Array(20).keys()]);
    expect(r.stdout).not.toContain('not shown');
  });
});
