// The selection options from the command line: --steps lists and open ranges, --rank by folder path, filters
// that select nothing, --match/--exclude on raw communication names.

import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { kprof } from './helpers.js';

const MULTI = 'fixtures/formats/multi-rank';

function json(stdout: string): { selection: string; stepIds: number[]; totals: { count: number }; filteredKernels: number } {
  return JSON.parse(stdout);
}

describe('--steps lists and open ranges', () => {
  it('an open range, a list and a range select the same rows when they name the same steps', async () => {
    const range = await kprof(['summary', MULTI, '--steps', '7-8', '--format', 'json']);
    const list = await kprof(['summary', MULTI, '--steps', '8,7', '--format', 'json']);
    const open = await kprof(['summary', MULTI, '--steps', '7-', '--format', 'json']);
    expect([range.code, list.code, open.code]).toEqual([0, 0, 0]);
    expect(json(list.stdout)).toEqual(json(range.stdout));
    expect(json(list.stdout).selection).toBe('steps=7-8');
    expect(json(open.stdout).stepIds).toEqual([7, 8]);
    expect(json(open.stdout).selection).toBe('steps=7-');
    const upTo = json((await kprof(['summary', MULTI, '--steps=-7', '--format', 'json'])).stdout);
    expect(upTo.stepIds).toEqual([7]);
    expect(upTo.selection).toBe('steps=0-7');
  });

  it('a snapshot made with a list is read back with the same list written another way', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kprof-'));
    try {
      const snap = join(dir, 's.json');
      // Steps 21-24: steps 21, 23 and 24.
      expect((await kprof(['summary', 'fixtures/fusion-example/base', '--steps', '21,23-', '--format', 'json', '-o', snap])).code).toBe(0);
      const again = await kprof(['summary', snap, '--steps', '23-, 21', '--format', 'json']);
      expect(again.code).toBe(0);
      expect(json(again.stdout).totals.count).toBe(624);
      const other = await kprof(['summary', snap, '--steps', '21']);
      expect(other.code).toBe(2);
      expect(other.stderr).toMatch(/made with --by type --steps 21-21,23-, but this run asks for --by type --steps 21-21\. .*--steps 21-21/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a bad list is a usage error that shows what is accepted', async () => {
    const r = await kprof(['summary', MULTI, '--steps', '7,x']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /--steps: the item "x" is not a Step Id or a range; found "7,x"\. Expected a Step Id \(7\), a range \(5-20\), an open range \(14- or -8\)/,
    );
  });

  it('an empty item in any list option is the same usage error, naming the option, the value and the list to give', async () => {
    const lists = [
      [['summary', MULTI], '--core', 'AI_CORE,', 'core types (AI_CORE,MIX_AIC)'],
      [['summary', MULTI], '--core', ',AI_CORE', 'core types (AI_CORE,MIX_AIC)'],
      [['diff', MULTI, MULTI], '--core', 'AI_CORE,,MIX_AIC', 'core types (AI_CORE,MIX_AIC)'],
      [['summary', MULTI], '--steps', '7,', 'Step Ids or ranges (13,15,20-30)'],
      [['summary', MULTI], '--steps', '7,,8', 'Step Ids or ranges (13,15,20-30)'],
      [['summary', MULTI], '--rank', '0,', 'rank ids or folder paths (0,3)'],
      [['inspect', MULTI], '--rank', '0,,1', 'rank ids or folder paths (0,3)'],
      [['audit', MULTI], '--rank', ',0', 'rank ids or folder paths (0,3)'],
      [['audit', '--list'], '--only', 'mla-prolog,', 'catalogue entry ids (mla-prolog,rope)'],
    ] as const;
    for (const [cmd, flag, value, items] of lists) {
      const r = await kprof([...cmd, flag, value]);
      expect(r, `${flag} ${value}`).toMatchObject({ code: 2, stdout: '' });
      expect(r.stderr, `${flag} ${value}`).toBe(
        `kprof: ${flag}: expected ${items} separated by single commas; found an empty item in "${value}". Remove the stray comma.\n`,
      );
    }
  });
});

describe('--rank by folder path', () => {
  const KD = `${MULTI}/localhost.localdomain_140830_20251120093000123_ascend_pt/ASCEND_PROFILER_OUTPUT/kernel_details.csv`;

  /** Two rank folders with no profiler_info and no rank in their names: kprof names them by their paths. */
  function unnamedRanks(): string {
    const dir = mkdtempSync(join(tmpdir(), 'kprof-'));
    for (const job of ['job-a', 'job-b']) {
      mkdirSync(join(dir, job, 'node', 'ASCEND_PROFILER_OUTPUT'), { recursive: true });
      copyFileSync(KD, join(dir, job, 'node', 'ASCEND_PROFILER_OUTPUT', 'kernel_details.csv'));
    }
    return dir;
  }

  it('selects a rank named by its folder path, as the listing and the error show it', async () => {
    const dir = unnamedRanks();
    try {
      const all = await kprof(['summary', dir, '--format', 'json']);
      expect(JSON.parse(all.stdout).ranks).toEqual(['job-a/node', 'job-b/node']);
      const missing = await kprof(['summary', dir, '--rank', '7']);
      expect(missing.code).toBe(2);
      expect(missing.stderr).toMatch(/the input has ranks job-a\/node, job-b\/node\. Use --rank with one of those/);
      for (const spelling of ['job-b/node', './job-b/node/', 'job-b\\node']) {
        const one = await kprof(['summary', dir, '--rank', spelling, '--format', 'json']);
        expect(one.code, spelling).toBe(0);
        expect(JSON.parse(one.stdout).ranks).toEqual(['job-b/node']);
        expect(JSON.parse(one.stdout).totals.count).toBe(12);
      }
      const both = await kprof(['inspect', dir, '--rank', 'job-a/node,job-b/node']);
      expect(both.code).toBe(0);
      expect(both.stdout).toMatch(/^.*: 2 ranks \(job-a\/node, job-b\/node\)/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a control character is still a usage error', async () => {
    for (const bad of ['0,\u001b[2J', '\u001b']) {
      const r = await kprof(['summary', MULTI, '--rank', bad]);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/--rank: expected a rank id, a rank's folder path/);
      expect(r.stderr).not.toMatch(/\u001b/);
    }
  });
});

describe('a filter a trace cannot answer', () => {
  it('--core on a trace of kernel names only: drop --core (--by name gives it no cores)', async () => {
    for (const input of ['fixtures/trace/kineto-no-step', 'fixtures/nsys/gpu-trace-preamble']) {
      const r = await kprof(['summary', input, '--core', 'AI_CORE']);
      expect(r.code, input).toBe(2);
      expect(r.stderr, input).toMatch(
        /: --core needs core types \(Accelerator Core \/ Task Type\), but .* has none: it names its kernels only\. Drop --core\.\n$/,
      );
    }
    const byType = await kprof(['summary', 'fixtures/trace/kineto-no-step', '--by', 'type']);
    expect(byType.stderr).toMatch(/--by type needs kernel types, .* Use --by name \(the default for this input\)\.\n$/);
  });
});

describe('an empty --rank', () => {
  it('is a usage error on every command, never every rank (an unset $RANK)', async () => {
    for (const value of ['', ' ']) {
      for (const args of [
        ['summary', MULTI],
        ['check', MULTI, '--rules', 'fixtures/rules/one-rank/every-kind.rules.yaml', '--base', MULTI],
        ['inspect', MULTI],
      ]) {
        const r = await kprof([...args, '--rank', value]);
        expect(r.code, `${args[0]} --rank '${value}'`).toBe(2);
        expect(r.stderr).toContain('--rank: expected a rank id, a comma-separated list (0,3) or "all"; found an empty value');
        expect(r.stdout).toBe('');
      }
    }
  });
});

describe('--match, --exclude and rules on raw communication names', () => {
  const HEAD = 'Step Id,Name,Type,Accelerator Core,Start Time(us),Duration(us)';
  const ROWS = [
    '1,hcom_allGather__097_7_1,hcom_allGather_,COMMUNICATION,1000.0,10.0',
    '1,hcom_allGather__612_7_1,hcom_allGather_,COMMUNICATION,1100.0,20.0',
    '1,hcom_allReduce__586_0_1,hcom_allReduce_,COMMUNICATION,1200.0,30.0',
    '1,aclnnCast_Cast_Cast,Cast,AI_VECTOR_CORE,1300.0,5.0',
    '2,hcom_allGather__097_7_1,hcom_allGather_,COMMUNICATION,2000.0,10.0',
  ];

  function profileDir(): string {
    const dir = mkdtempSync(join(tmpdir(), 'kprof-'));
    writeFileSync(join(dir, 'kernel_details.csv'), `${[HEAD, ...ROWS].join('\n')}\n`);
    return dir;
  }

  async function groups(dir: string, args: string[]): Promise<Record<string, number>> {
    const r = await kprof(['summary', join(dir, 'kernel_details.csv'), '--by', 'name', '--format', 'json', ...args]);
    expect(r.code, r.stderr).toBe(0);
    return Object.fromEntries(JSON.parse(r.stdout).groups.map((g: { key: string; count: number }) => [g.key, g.count]));
  }

  it('selects by the raw name and by the normalised one; grouping still merges the raw names', async () => {
    const dir = profileDir();
    try {
      expect(await groups(dir, [])).toEqual({ 'hcom_allGather__*': 3, 'hcom_allReduce__*': 1, aclnnCast_Cast_Cast: 1 });
      expect(await groups(dir, ['--match', '^hcom_allGather__612_7_1$'])).toEqual({ 'hcom_allGather__*': 1 });
      expect(await groups(dir, ['--match', '__097_'])).toEqual({ 'hcom_allGather__*': 2 });
      expect(await groups(dir, ['--match', 'hcom_allGather__\\*$'])).toEqual({ 'hcom_allGather__*': 3 });
      expect(await groups(dir, ['--exclude', '__612_'])).toEqual({ 'hcom_allGather__*': 2, 'hcom_allReduce__*': 1, aclnnCast_Cast_Cast: 1 });
      expect(await groups(dir, ['--exclude', '^hcom_allReduce__586_0_1$'])).toEqual({ 'hcom_allGather__*': 3, aclnnCast_Cast_Cast: 1 });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('rule name: and match: select by the raw name too', async () => {
    const dir = profileDir();
    try {
      const rules = join(dir, 'r.yaml');
      writeFileSync(
        rules,
        [
          'version: 1',
          'rules:',
          '  - rule: one 612 gather',
          '    name: hcom_allGather__612_7_1',
          '    count: { exactly: 1 }',
          '  - rule: normalised name too',
          '    name: hcom_allGather__*',
          '    count: { exactly: 3 }',
          '  - rule: raw counter by regex',
          '    match: __586_',
          '    count: { exactly: 1 }',
          '',
        ].join('\n'),
      );
      const r = await kprof(['check', join(dir, 'kernel_details.csv'), '--rules', rules]);
      expect(r.stderr).toBe('');
      expect(r.code, r.stdout).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('filters that select nothing', () => {
  it('summary warns which filter kept nothing and what the profile has instead (exit 0, report still written)', async () => {
    const core = await kprof(['summary', MULTI, '--core', 'ai_core']);
    expect(core.code).toBe(0);
    expect(core.stdout).toMatch(/^0 kernels/m);
    expect(core.stderr).toBe(
      'kprof: warning: --core ai_core selects no kernel: no kernel of the profile ran on that core (did you mean AI_CORE? core names are case-sensitive); its cores are AI_CORE, AI_VECTOR_CORE, COMMUNICATION, MIX_AIC.\n',
    );
    const part = await kprof(['summary', MULTI, '--steps', '7', '--match', 'zzz']);
    expect(part.code).toBe(0);
    expect(part.stderr).toBe('kprof: warning: --match zzz selects no kernel: it matches no kernel name or type of the profile.\n');
  });

  it('summary warns of a user group that got no kernel: its members match none, or an earlier group took them', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kprof-groups-'));
    try {
      const groups = join(dir, 'groups.yaml');
      writeFileSync(groups, 'matmul: ["/Mat/"]\nall-mm: [MatMulV3]\ntypo: [FlashAtention]\nnorm: [RmsNorm]\n');
      const r = await kprof(['summary', MULTI, '--groups', groups]);
      expect(r.code).toBe(0);
      expect(r.stderr).toBe(
        'kprof: warning: --groups: group "all-mm" holds no kernel: its members match none that no earlier group took (a kernel joins the first group it matches).\n' +
          'kprof: warning: --groups: group "typo" holds no kernel: its members match none that no earlier group took (a kernel joins the first group it matches).\n',
      );
      // Every group with kernels: no warning.
      writeFileSync(groups, 'matmul: ["/Mat/"]\nnorm: [RmsNorm]\n');
      expect((await kprof(['summary', MULTI, '--groups', groups])).stderr).toBe('');
      // Hundreds of empty groups: the first 8 named, the rest counted in one line.
      writeFileSync(groups, `matmul: ["/Mat/"]\n${Array.from({ length: 300 }, (_, i) => `none${i}: [Nothing${i}]`).join('\n')}\n`);
      const many = (await kprof(['summary', MULTI, '--groups', groups])).stderr.split('\n').filter((l) => l !== '');
      expect(many).toHaveLength(9);
      expect(many[7]).toContain('group "none7" holds no kernel');
      expect(many[8]).toBe('kprof: warning: --groups: 292 more groups of the file hold no kernel, as the 8 above.');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('filters that each keep kernels but together none are named together', async () => {
    const r = await kprof(['summary', MULTI, '--match', 'Flash', '--exclude', 'Score']);
    expect(r.stderr).toBe('kprof: warning: the filters (--match Flash, --exclude Score) keep none of the 24 kernels read.\n');
    const all = await kprof(['summary', MULTI, '--exclude', '.']);
    expect(all.stderr).toBe('kprof: warning: --exclude . leaves out every kernel of the profile.\n');
  });

  it('a filter that selects something gives no warning', async () => {
    for (const args of [
      ['--core', 'AI_CORE'],
      ['--steps', '8'],
      ['--match', 'Cast'],
      ['--exclude', 'Cast'],
    ]) {
      expect((await kprof(['summary', MULTI, ...args])).stderr, args.join(' ')).toBe('');
    }
  });

  it('diff warns per side, once for both when both sides miss alike', async () => {
    const both = await kprof(['diff', MULTI, MULTI, '--core', 'ai_core']);
    expect(both.code).toBe(0);
    expect(both.stderr).toMatch(/^kprof: warning: base and PR: --core ai_core selects no kernel/);
    expect(both.stderr.match(/ai_core/g)).toHaveLength(1);
    const one = await kprof(['diff', MULTI, MULTI, '--core', 'AI_CORE', '--match', 'zzz']);
    expect(one.code).toBe(0);
    expect(one.stderr).toBe('kprof: warning: base and PR: --match zzz selects no kernel: it matches no kernel name or type of the profile.\n');
  });
});

describe('--steps naming a step the profile does not have is a usage error, as --rank naming a rank it lacks', () => {
  const STEPS = '; its steps are 7-8. Select steps it has, or leave --steps out for every step.\n';
  it('summary: exit 2, naming the steps the profile has (no report: its footer would say "no Step Id")', async () => {
    const one = await kprof(['summary', MULTI, '--steps', '999']);
    expect([one.code, one.stdout]).toEqual([2, '']);
    expect(one.stderr).toBe(`kprof: --steps 999: ${MULTI} has no step 999${STEPS}`);
    // A list is refused when any of its items matches no step (as --rank 0,9 is when rank 9 is missing), each named.
    const list = await kprof(['summary', MULTI, '--steps', '7,99-100,200-']);
    expect(list.code).toBe(2);
    expect(list.stderr).toBe(`kprof: --steps 7,99-100,200-: ${MULTI} has no step in 99-100, none from 200 on${STEPS}`);
    const ranks = await kprof(['summary', MULTI, '--rank', '0,9']);
    expect(ranks.code).toBe(2);
    // A range that holds one step of the profile selects it.
    expect((await kprof(['summary', MULTI, '--steps', '8-100'])).code).toBe(0);
  });

  it('a profile of one step is said to have that one step', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kprof-'));
    try {
      const file = join(dir, 'kernel_details.csv');
      writeFileSync(file, 'Step Id,Name,Type,Accelerator Core,Start Time(us),Duration(us)\n13,k,MatMulV3,AI_CORE,1.000,2.000\n');
      const r = await kprof(['summary', file, '--steps', '1-2']);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('has no step in 1-2; its one step is 13.');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('diff, check and rules: exit 2 naming the side that lacks the step, also when the other side has it', async () => {
    const pr = 'fixtures/fusion-example/pr';
    const diff = await kprof(['diff', MULTI, pr, '--steps', '8']);
    expect([diff.code, diff.stdout]).toEqual([2, '']);
    expect(diff.stderr).toBe(
      `kprof: --steps 8: ${pr} has no step 8; its steps are 21-24. Select steps it has, or leave --steps out for every step.\n`,
    );
    const both = await kprof(['diff', pr, pr, '--steps', '999']);
    expect(both.code).toBe(2);
    expect(both.stderr).not.toMatch(/Step Id \(|no Step Id/);
    const rules = 'fixtures/fusion-example/kprof.rules.yaml';
    const check = await kprof(['check', pr, '--base', 'fixtures/fusion-example/base', '--rules', rules, '--steps', '21,999']);
    expect([check.code, check.stdout]).toEqual([2, '']);
    expect(check.stderr).toBe(
      `kprof: --steps 21,999: ${pr} has no step 999; its steps are 21-24. Select steps it has, or leave --steps out for every step.\n`,
    );
    const made = await kprof(['rules', 'fixtures/fusion-example/base', pr, '--steps', '25']);
    expect([made.code, made.stdout]).toEqual([2, '']);
    expect(made.stderr).toMatch(/^kprof: --steps 25: fixtures\/fusion-example\/base has no step 25; its steps are 21-24\./);
  });
});
