// A gate never passes by accident: a rule a summary JSON cannot answer is refused, a rank where nothing was read
// is not a clean rank, a rule's own steps: and ranks: leave it what --steps and --rank would, an error-level
// rule that matched nothing is not carried by a warn-level rule, and base ranks the profile lacks are said.
// Profiles are written at test time into a temp folder.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { kprof } from './helpers.js';

const tmp = mkdtempSync(join(tmpdir(), 'kprof-accident-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const HEADER = 'Step Id,Name,Type,Accelerator Core,Start Time(us),Duration(us),Wait Time(us),Block Dim';

let n = 0;
function file(name: string, text: string): string {
  const p = join(tmp, `${n++}-${name}`);
  writeFileSync(p, text);
  return p;
}

/** A profile folder with one kernel_details.csv per rank; rows are `step,name,type[,duration]`. */
function profile(name: string, ranks: Record<string, string[]>): string {
  const dir = join(tmp, name);
  for (const [rank, rows] of Object.entries(ranks)) {
    const out = join(dir, `rank${rank}_ascend_pt/ASCEND_PROFILER_OUTPUT`);
    mkdirSync(out, { recursive: true });
    const lines = rows.map((r, i) => {
      const [step, kname, type, dur = '2.0'] = r.split(',');
      return `${step},${kname},${type},AI_VECTOR_CORE,${i + 1}.0,${dur},0,8`;
    });
    writeFileSync(join(out, 'kernel_details.csv'), `${[HEADER, ...lines].join('\n')}${lines.length ? '\n' : ''}`);
  }
  return dir;
}

/** Rank 0 runs aclA (type A) and aclB (type B) in steps 1-4; rank 1 runs aclA in steps 1-2 only (twice), aclB in each. */
const RANK0 = ['1,aclA,A', '1,aclB,B', '2,aclA,A', '2,aclB,B', '3,aclA,A', '3,aclB,B', '4,aclA,A', '4,aclB,B'];
const RANK1 = ['1,aclA,A', '1,aclA,A', '1,aclB,B', '2,aclA,A', '2,aclA,A', '2,aclB,B', '3,aclB,B', '4,aclB,B'];
const UNEVEN = profile('uneven', { '0': RANK0, '1': RANK1 });

async function snapshot(name: string, args: string[]): Promise<string> {
  const out = join(tmp, name);
  const r = await kprof(['summary', UNEVEN, ...args, '--format', 'json', '-o', out]);
  expect(r.code, r.stderr).toBe(0);
  return out;
}

describe('a rule a summary JSON cannot answer is refused, as type: and name: are', () => {
  it('match: on names, asked of a snapshot grouped by type: exit 2, where the profile fails', async () => {
    const byType = await snapshot('by-type.json', ['--by', 'type']);
    const f = file('m.yaml', 'rules:\n  - match: ^aclA\n    absent: true\n  - type: B\n    present: true\n');
    expect((await kprof(['check', UNEVEN, '--rules', f])).code).toBe(1);
    const r = await kprof(['check', byType, '--rules', f]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('m.yaml:2: the rule selects kernels by a regular expression (/^aclA/), tested on name and type, but');
    expect(r.stderr).toContain(
      'is a summary JSON grouped by type, which keeps no kernel names: a kernel whose type is not selected may be selected by its name.',
    );
  });

  it('a match: the kept types answer for every kernel is answered', async () => {
    const byType = await snapshot('by-type-all.json', ['--by', 'type']);
    const f = file('mall.yaml', 'rules:\n  - match: ^[AB]$\n    count: { max: 7 }\n');
    const p = await kprof(['check', UNEVEN, '--rules', f]);
    const s = await kprof(['check', byType, '--rules', f]);
    expect(p.code).toBe(1);
    expect(s.code).toBe(1);
  });

  it('a group with a kernel name among its members, on a snapshot grouped by type: exit 2', async () => {
    const byType = await snapshot('by-type-g.json', ['--by', 'type']);
    const f = file('g.yaml', 'groups:\n  g: [aclA, B]\nrules:\n  - group: g\n    count: { per: step, max: 1 }\n');
    expect((await kprof(['check', UNEVEN, '--rules', f])).code).toBe(1);
    const r = await kprof(['check', byType, '--rules', f]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('g.yaml:4: the rule selects kernels by group "g" (matched on type or name), but');
    // A group of the types the snapshot keeps is answered by type, as on the profile.
    const types = file('gt.yaml', 'groups:\n  g: [A, B]\nrules:\n  - group: g\n    count: { per: step, max: 2 }\n');
    expect((await kprof(['check', UNEVEN, '--rules', types])).code).toBe(1);
    expect((await kprof(['check', byType, '--rules', types])).code).toBe(1);
  });

  it('match: on types, asked of a snapshot grouped by name: exit 2', async () => {
    const byName = await snapshot('by-name.json', ['--by', 'name']);
    const f = file('mn.yaml', 'rules:\n  - match: ^A$\n    absent: true\n');
    expect((await kprof(['check', UNEVEN, '--rules', f])).code).toBe(1);
    const r = await kprof(['check', byName, '--rules', f]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('grouped by name, which keeps no kernel types: a kernel whose name is not selected may be selected by its type.');
  });

  it("a snapshot saved with the rules file's group answers it; one saved with other members does not", async () => {
    const same = await snapshot('g-same.json', ['--groups', file('ga.yaml', 'g: [aclA]\n')]);
    const f = file('gs.yaml', 'groups:\n  g: [aclA]\nrules:\n  - group: g\n    count: { per: step, max: 1 }\n');
    expect((await kprof(['check', UNEVEN, '--rules', f])).code).toBe(1);
    expect((await kprof(['check', same, '--rules', f])).code).toBe(1);
    const other = await snapshot('g-other.json', ['--groups', file('gb.yaml', 'g: [aclB]\n')]);
    const r = await kprof(['check', other, '--rules', f]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('holds a user group of that name made with other members or beside other groups (group g=[aclB])');
  });
});

describe('a rank where nothing was read is not a clean rank', () => {
  const deadRank1 = RANK1.map((r) => `${r},N/A`);
  const DEAD = profile('dead', { '0': RANK0, '1': deadRank1 });
  const gate = (): string => file('dead.yaml', 'rules:\n  - type: B\n    count: { max: 4 }\n  - type: A\n    absent: true\n    ranks: [1]\n');

  it('check: exit 2 naming the rank, never "check passed"', async () => {
    const r = await kprof(['check', DEAD, '--rules', gate()]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(
      /the profile .*dead: no kernel was read on rank 1 \(.*rank1_ascend_pt.*kernel_details\.csv\): every one of its 8 rows could not be read/,
    );
    // The --rank that leaves it out is named: the ranks where kernels were read.
    expect(r.stderr).toMatch(/check that rank's export, or leave it out with --rank 0\.\n$/);
    // Leaving the rank out says which ranks the gate is on.
    expect((await kprof(['check', DEAD, '--rules', file('b.yaml', 'rules:\n  - type: B\n    count: { max: 4 }\n'), '--rank', '0'])).code).toBe(0);
  });

  it('a header with no rows on one rank: exit 2', async () => {
    const ho = profile('header-only', { '0': RANK0, '1': [] });
    const r = await kprof(['check', ho, '--rules', gate()]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('no kernel was read on rank 1');
    expect(r.stderr).toContain('it has no kernel rows');
  });

  it('a rank of no id where nothing was read is named "rank (no id)", not "rank -"', async () => {
    const dir = profile('no-id-dead', { '0': RANK0 });
    mkdirSync(join(dir, 'node', 'ASCEND_PROFILER_OUTPUT'), { recursive: true });
    writeFileSync(join(dir, 'node', 'ASCEND_PROFILER_OUTPUT', 'kernel_details.csv'), `${HEADER}\n`);
    const r = await kprof(['check', dir, '--rules', gate()]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/no kernel was read on rank \(no id\) \(.*node.*kernel_details\.csv\): it has no kernel rows\. .*--rank 0\.\n$/);
  });

  it('kprof rules: exit 2, no rules written from the dead rank', async () => {
    const base = profile('base-two', { '0': RANK0, '1': RANK0 });
    const r = await kprof(['rules', base, DEAD]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/the PR .*dead: no kernel was read on rank 1/);
  });

  it('a per-step rule on a rank whose rows with a Step Id were all skipped says so, not that every Step Id is empty', async () => {
    const half = profile('steps-skipped', { '0': [...deadRank1.slice(0, 2), ',aclB,B'] });
    const r = await kprof(['check', half, '--rules', file('ps.yaml', 'rules:\n  - type: B\n    count: { per: step, max: 1 }\n')]);
    expect(r.code).toBe(2);
    expect(r.stderr).not.toContain('every Step Id cell is empty');
    expect(r.stderr).toContain('has no steps (no row with a Step Id was read: 2 rows could not be read and the 1 read have an empty Step Id)');
  });
});

describe("a rule's own steps: and ranks: leave it what --steps and --rank leave", () => {
  it('steps: where the kernel does not run matches nothing, as --steps does: exit 2 both ways under --strict', async () => {
    const opt = await kprof(['check', UNEVEN, '--rules', file('a.yaml', 'rules:\n  - type: A\n    count: { max: 4 }\n'), '--steps', '3-']);
    expect(opt.code).toBe(0); // rank 0 runs A in steps 3 and 4
    const r1 = profile('r1-only', { '1': RANK1 });
    const a = await kprof(['check', r1, '--rules', file('a1.yaml', 'rules:\n  - type: A\n    count: { max: 4 }\n'), '--steps', '3-', '--strict']);
    const s = await kprof(['check', r1, '--strict', '--rules', file('s1.yaml', 'steps: 3-\nrules:\n  - type: A\n    count: { max: 4 }\n')]);
    expect(a.code).toBe(2);
    expect(s.code).toBe(2);
    expect(s.stderr).toContain('type A matches no kernel in the profile in steps 3-');
    expect(s.stderr).toContain('Under --strict a rule that matches nothing needs evidence.');
    expect(s.stdout).toBe('');
  });

  it('ranks: where the kernel does not run is said, as for --rank', async () => {
    const f = file('rk.yaml', 'rules:\n  - type: A\n    absent: true\n    steps: 3-\n    ranks: [1]\n  - type: B\n    present: true\n');
    const r = await kprof(['check', UNEVEN, '--rules', f]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('type A matches no kernel in the profile in steps 3- on rank 1');
  });
});

describe('an error-level rule that matched nothing, beside a warn-level rule that matched', () => {
  it('a warning naming it; exit 2 under --strict', async () => {
    const f = file('w.yaml', 'rules:\n  - type: Foo\n    absent: true\n  - type: A\n    present: true\n    severity: warn\n');
    const warned = await kprof(['check', UNEVEN, '--rules', f]);
    expect(warned.code).toBe(0);
    expect(warned.stderr).toMatch(/^kprof: warning: .*w\.yaml:2: type Foo matches no kernel in the profile, and the rule gives no evidence/m);
    const r = await kprof(['check', UNEVEN, '--rules', f, '--strict']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('type Foo matches no kernel in the profile');
    // An error-level rule that matched, or a file of warn-level rules only, raises no such doubt.
    expect(
      (await kprof(['check', UNEVEN, '--rules', file('w2.yaml', 'rules:\n  - type: Foo\n    absent: true\n  - type: B\n    present: true\n')])).code,
    ).toBe(0);
    expect((await kprof(['check', UNEVEN, '--rules', file('w3.yaml', 'rules:\n  - type: B\n    present: true\n    severity: warn\n')])).code).toBe(0);
  });
});

describe('base ranks the profile lacks', () => {
  it('exit 2 naming them, as diff names them; --rank checks the ranks the profile has', async () => {
    const base = profile('base01', { '0': RANK0, '1': RANK1 });
    const pr = profile('pr0', { '0': RANK0 });
    const f = file('cv.yaml', 'rules:\n  - type: A\n    count-vs-base: { rose-by-at-most: 0% }\n');
    const r = await kprof(['check', pr, '--rules', f, '--base', base]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(
      /the base .*base01 has rank 1, which the profile .*pr0 lacks \(it has 0\): a rank that was not profiled cannot be checked\. .*--rank 0/,
    );
    expect((await kprof(['check', pr, '--rules', f, '--base', base, '--rank', '0'])).code).toBe(0);
    // A rank of the profile alone is left out of the --rank suggested: --rank reads both sides, and the base lacks it.
    const pr02 = profile('pr02', { '0': RANK0, '2': RANK1 });
    const uneven = await kprof(['check', pr02, '--rules', f, '--base', base]);
    expect(uneven.code).toBe(2);
    expect(uneven.stderr).toMatch(
      /\(it has 0, 2\): a rank that was not profiled cannot be checked\. Pass the profile of every rank, or --rank 0 to check only the rank both have\.\n$/,
    );
    expect((await kprof(['check', pr02, '--rules', f, '--base', base, '--rank', '0'])).code).toBe(0);
    const none = await kprof(['check', profile('pr23', { '2': RANK0, '3': RANK1 }), '--rules', f, '--base', base]);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/Pass the profile of every rank, or a base of the same ranks \(the two share none\)\.\n$/);
    // A --rank the base lacks names the base and the ranks both have (--rank reads both sides).
    const r2 = await kprof(['check', pr02, '--rules', f, '--base', base, '--rank', '2']);
    expect(r2).toMatchObject({ code: 2, stdout: '' });
    expect(r2.stderr).toMatch(
      /^kprof: .*base01 \(the base\): rank 2 not found; the input has ranks 0, 1\. Use --rank with ranks both sides have \(--rank 0\), or --rank all\.\n$/,
    );
    // One rank against one rank is a pair whatever the ids.
    const other = profile('base1', { '1': RANK0 });
    expect((await kprof(['check', pr, '--rules', f, '--base', other])).code).toBe(0);
  });
});

describe('a rules file of many rules that match nothing', () => {
  it('says the first ten on stderr and how many more, and the report has every rule', async () => {
    const rules = ['version: 1', 'rules:'];
    for (let i = 0; i < 30; i++) rules.push(`  - rule: gone ${i}`, `    type: NoSuchKernel${i}`, '    absent: true');
    const r = await kprof(['check', 'fixtures/fusion-example/pr', '--rules', file('many.yaml', `${rules.join('\n')}\n`)]);
    expect(r.code).toBe(0);
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines.filter((l) => l.includes('matches no kernel in the profile'))).toHaveLength(10);
    expect(lines.at(-1)).toBe('kprof: warning: … and 20 more rules that match nothing, without evidence (the report has every rule).');
    for (let i = 0; i < 30; i++) expect(r.stdout).toContain(`gone ${i}`);
  });
});
