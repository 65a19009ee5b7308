// A groups or rules file holds at most MAX_PATTERNS /regular expressions/: each is tested against every distinct
// kernel, so a file of thousands took minutes on a large profile. Exact names and types are not counted.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MAX_PATTERNS } from '../src/aggregate/userGroups.js';
import { parseRules } from '../src/rules/parse.js';
import { kprof } from './helpers.js';

const tmp = mkdtempSync(join(tmpdir(), 'kprof-patterns-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const PR = 'fixtures/rules/one-rank/pr';

function file(name: string, text: string): string {
  const f = join(tmp, name);
  writeFileSync(f, text);
  return f;
}

/** The message of the input error parseRules raises, or null when the text reads. */
function refusal(text: string): string | null {
  try {
    parseRules('r.yaml', text);
    return null;
  } catch (e) {
    expect((e as Error).name).toBe('KprofError');
    return (e as Error).message;
  }
}

const TOO_MANY = `more than ${MAX_PATTERNS} /regular expressions/ in this file`;

describe('the patterns of one file', () => {
  it('a groups file of MAX_PATTERNS patterns reads; one more is refused at its line and column, before the profile is read', async () => {
    const lines = (n: number) => Array.from({ length: n }, (_, i) => `g${i}: ["/^k${i}$/", Exact${i}]`).join('\n');
    const ok = await kprof(['summary', PR, '--groups', file('ok.yaml', `${lines(MAX_PATTERNS)}\n`)]);
    expect(ok.code).toBe(0);
    const r = await kprof(['summary', 'no-such-profile', '--groups', file('many.yaml', `${lines(MAX_PATTERNS + 1)}\n`)]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(
      new RegExp(`^kprof: .*many\\.yaml:${MAX_PATTERNS + 1}:${`g${MAX_PATTERNS}: [`.length + 1}: ${TOO_MANY}: .*List exact kernel types or names`),
    );
    // Exact names are not counted, however many.
    const exact = Array.from({ length: 3 * MAX_PATTERNS }, (_, i) => `g${i}: [Exact${i}, Other${i}]`).join('\n');
    expect((await kprof(['summary', PR, '--groups', file('exact.yaml', `${exact}\n`)])).code).toBe(0);
  });

  it("a rules file counts its groups' patterns, match: and the /…/ members of no-new-types' allow together", () => {
    const groups = Array.from({ length: MAX_PATTERNS - 2 }, (_, i) => `  g${i}: ["/^k${i}$/"]`).join('\n');
    const rules = (extra: string) => `groups:\n${groups}\nrules:\n  - match: Rope\n    absent: true\n${extra}`;
    expect(refusal(rules('  - type: Cast\n    present: true\n'))).toBeNull();
    const chain = '  - no-new-types: { allow: [MlaPrologV3, "/^Mla/"] }\n';
    expect(refusal(rules(chain))).toBeNull();
    const line = MAX_PATTERNS - 2 + 6;
    expect(refusal(rules(`${chain}  - match: /Mul/\n    absent: true\n`))).toMatch(new RegExp(`^r\\.yaml:${line}:12: ${TOO_MANY}`));
    // A type or name selector is exact: not counted.
    const types = Array.from({ length: 3 * MAX_PATTERNS }, (_, i) => `  - type: T${i}\n    absent: true`).join('\n');
    expect(refusal(`rules:\n${types}\n`)).toBeNull();
  });
});
