// How kprof words what it prints: a bad option value names the option, the value once (escaped), what is
// expected; ranks are named plainly (a rank of no id, a thousand ranks); advice fits the case it is given in.

import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { kprof } from './helpers.js';
import { rankIdsText, ranksCounted, ranksNamed } from '../src/util/format.js';

const P = 'fixtures/cluster/base';
const Q = 'fixtures/cluster/pr';

/** How often `needle` occurs in `text`. */
const times = (text: string, needle: string): number => text.split(needle).length - 1;

describe('a bad option value', () => {
  const cases: [string[], string, string][] = [
    [['summary', P, '--steps', 'abc'], '--steps', 'abc'],
    [['summary', P, '--steps', '3-1'], '--steps', '3-1'],
    [['summary', P, '--steps', '1-2-3'], '--steps', '1-2-3'],
    [['summary', P, '--steps', '7,x'], '--steps', '7,x'],
    [['summary', P, '--steps', '99999999999999999999'], '--steps', '99999999999999999999'],
    [['summary', P, '--steps', 'a\u001bb'], '--steps', 'a\\x1bb'],
    [['summary', P, '--by', 'bogus'], '--by', 'bogus'],
    [['summary', P, '--by', 'x\u001b[2Jy'], '--by', 'x\\x1b[2Jy'],
    [['summary', P, '--sort', 'size'], '--sort', 'size'],
    [['summary', P, '--format', 'xml'], '--format', 'xml'],
    [['summary', P, '--prefer', 'sqlite'], '--prefer', 'sqlite'],
    [['summary', P, '--top', '0'], '--top', '0'],
    [['summary', P, '--rank', '0,\u0001'], '--rank', '0,\\x01'],
    [['diff', P, Q, '--only', 'same'], '--only', 'same'],
    [['diff', P, Q, '--rewrites', 'maybe'], '--rewrites', 'maybe'],
    [['diff', P, Q, '--time-tolerance', 'abc'], '--time-tolerance', 'abc'],
    [['diff', P, Q, '--time-tolerance', '101'], '--time-tolerance', '101'],
    [['diff', P, Q, '--time-tolerance', '100.5%'], '--time-tolerance', '100.5%'],
    [['diff', P, Q, '--alpha', '2'], '--alpha', '2'],
    [['rules', P, Q, '--by', 'core'], '--by', 'core'],
    [['rules', P, Q, '--cut-threshold', '150'], '--cut-threshold', '150'],
    [['rules', P, Q, '--margin', 'qq'], '--margin', 'qq'],
    [['rules', P, Q, '--margin', '1000000000000000000000000'], '--margin', '1000000000000000000000000'],
    [['inspect', P, '--format', 'csv'], '--format', 'csv'],
  ];
  it.each(cases)('%j names the option, the value once, and what is expected', async (args, flag, found) => {
    const r = await kprof(args);
    expect(r.code).toBe(2);
    const line = r.stderr.split('\n')[0]!;
    expect(line.startsWith(`kprof: ${flag}: `), line).toBe(true);
    expect(times(line, `"${found}"`), line).toBe(1);
    expect(times(line, found), line).toBe(1);
    expect(line).toMatch(/expected|Expected/);
    expect(r.stderr).not.toMatch(/\u001b|\u0001/);
  });

  it('an empty --steps is taken for an unset variable, and says how to read every step', async () => {
    const r = await kprof(['summary', P, '--steps', ' ']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--steps: found an empty value (an unset variable?).');
    expect(r.stderr).toContain('Leave --steps out for every step.');
  });

  it('a value among choices is worded as the other bad values are: the choices, then the value', async () => {
    const r = await kprof(['diff', P, Q, '--rewrites', 'maybe']);
    expect(r.stderr).toBe('kprof: --rewrites: expected on or off; found "maybe".\n(run with --help for usage)\n');
    const by = await kprof(['summary', P, '--by', 'shape']);
    expect(by.stderr).toContain('kprof: --by: expected one of type, name, core, type+core or type+shapes; found "shape".');
  });
});

describe('ranks named plainly', () => {
  it('ids in runs are ranges, long lists are cut, the rank of no id is (no id)', () => {
    const ids = (n: number, step = 1) => Array.from({ length: n }, (_, i) => String(i * step));
    expect(rankIdsText(ids(1000))).toBe('0–999');
    expect(ranksCounted(ids(1000))).toBe('1,000 ranks (0–999)');
    expect(rankIdsText(ids(2))).toBe('0, 1');
    expect(rankIdsText(['0', '1', '2', '5', '7', '8', '9', 'node-a'])).toBe('0–2, 5, 7–9, node-a');
    expect(rankIdsText(ids(500, 2))).toBe('0, 2, 4, 6, 8, 10, …, 998');
    expect(ranksCounted(['-'])).toBe('1 rank');
    expect(ranksNamed(['-'])).toBe('rank (no id)');
    expect(ranksNamed(['3'])).toBe('rank 3');
    expect(ranksNamed(['0', '1', '2', '3'], (s) => `\`${s}\``)).toBe('ranks `0`–`3`');
  });

  it('a profile with no rank id: "1 rank" in every text format, the id kept in JSON', async () => {
    const F = 'fixtures/bad-empty-step-id';
    for (const format of ['table', 'markdown', 'html']) {
      const r = await kprof(['summary', F, '-q', '--format', format]);
      expect(r.code).toBe(0);
      expect(r.stdout, format).toMatch(/ 1 rank, 0 rows skipped/);
      expect(r.stdout, format).not.toMatch(/rank \(-\)|rank \(`-`\)|rank \(<code>-<\/code>\)/);
    }
    expect(JSON.parse((await kprof(['summary', F, '-q', '--format', 'json'])).stdout).ranks).toEqual(['-']);
    const inspect = await kprof(['inspect', F, '-q']);
    expect(inspect.stdout).toMatch(/^fixtures\/bad-empty-step-id: 1 rank, 4 kernels$/m);
    expect(inspect.stdout).toMatch(/^rank \(no id\)$/m);
    for (const format of ['table', 'markdown', 'html']) {
      const d = await kprof(['diff', F, 'fixtures/formats/torch-block-num', '-q', '--format', format]);
      expect(d.stdout, format).toMatch(/\(1 file; 1 rank; 2 steps\)|; 1 rank; 2 steps\)/);
      expect(d.stdout, format).not.toMatch(/rank -|rank `-`|rank <code>-<\/code>|stream - /);
    }
  });
});

/** A folder of torch_npu rank folders, one per id, each with the same small kernel table. */
function rankFolders(ids: readonly number[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'kprof-ranks-'));
  const kd = 'fixtures/formats/torch-level0/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/kernel_details.csv';
  for (const i of ids) {
    const out = join(dir, `rank${i}_ascend_pt`, 'ASCEND_PROFILER_OUTPUT');
    mkdirSync(out, { recursive: true });
    copyFileSync(kd, join(out, 'kernel_details.csv'));
    writeFileSync(join(dir, `rank${i}_ascend_pt`, `profiler_info_${i}.json`), JSON.stringify({ rank_id: i }));
  }
  return dir;
}

describe('many ranks: their ids cut short in every text format', () => {
  const dir = rankFolders(Array.from({ length: 11 }, (_, i) => 2 * i));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const list = '0, 2, 4, 6, 8, 10, …, 20';

  it('summary, inspect and diff', async () => {
    for (const [format, ids] of [
      ['table', list],
      ['markdown', '`0`, `2`, `4`, `6`, `8`, `10`, …, `20`'],
      ['html', '<code>0</code>, <code>2</code>, <code>4</code>, <code>6</code>, <code>8</code>, <code>10</code>, …, <code>20</code>'],
    ] as const) {
      const r = await kprof(['summary', dir, '-q', '--format', format]);
      expect(r.stdout, format).toContain(`11 ranks (${ids})`);
      const d = await kprof(['diff', dir, dir, '-q', '--format', format]);
      expect(d.stdout, format).toContain(`ranks ${ids}`);
    }
    expect((await kprof(['inspect', dir, '-q'])).stdout.split('\n')[0]).toMatch(/: 11 ranks \(0, 2, 4, 6, 8, 10, …, 20\), 132 kernels$/);
    const bad = await kprof(['summary', dir, '-q', '--rank', '5']);
    expect(bad.stderr).toContain(`rank 5 not found; the input has ranks ${list}. Use --rank with one of those, or --rank all.`);
  });
});

describe('a summary JSON too large to write: the advice fits how it was made', () => {
  const LIMIT = { KPROF_SNAPSHOT_LIMIT: '100' };
  const advice = async (args: string[]): Promise<string> => {
    const r = await kprof([...args, '--format', 'json', '-q'], LIMIT);
    expect(r.code).toBe(2);
    return /Make it smaller: (.*)\.\n/.exec(r.stderr)![1]!;
  };

  it('by type already: no --by type; one rank: no --rank; few steps: no --steps', async () => {
    expect(await advice(['summary', 'fixtures/formats/torch-level0'])).toBe('leave out the kernels not needed (--exclude <regex>, --core)');
    const ranks = await advice(['summary', 'fixtures/formats/multi-rank']);
    expect(ranks).not.toContain('--by type');
    expect(ranks).toContain('summarise fewer ranks per file (--rank 0, one file per rank)');
  });

  it('by name on an input with types: --by type first', async () => {
    expect(await advice(['summary', 'fixtures/formats/multi-rank', '--by', 'name'])).toMatch(/^group by type rather than name \(--by type\); or /);
  });

  it('an input of kernel names only (no types): never --by type or --core', async () => {
    for (const by of [[], ['--by', 'name']]) {
      const a = await advice(['summary', 'fixtures/trace/trace-view-steps', ...by]);
      expect(a).toBe('leave out the kernels not needed (--exclude <regex>)');
    }
  });

  it('many steps: --steps with ten of its own Step Ids', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kprof-steps-'));
    try {
      const rows = Array.from({ length: 12 }, (_, i) => `${i + 5},aclnnMm_MatMulV2,MatMulV2,AI_CORE,${1000 + 100 * i}.000,10.000,1.000,24`);
      writeFileSync(
        join(dir, 'kernel_details.csv'),
        `Step Id,Name,Type,Accelerator Core,Start Time(us),Duration(us),Wait Time(us),Block Dim\n${rows.join('\n')}\n`,
      );
      expect(await advice(['summary', dir])).toBe(
        'summarise fewer steps (--steps 5-14: 10 of its 12); or leave out the kernels not needed (--exclude <regex>, --core)',
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('merge is told what merge can do, not the options of summary', async () => {
    const r = await kprof(['merge', 'fixtures/cluster/base'], LIMIT);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('Make it smaller: merge fewer files into each (one per node or per rack), or leave them unmerged');
    expect(r.stderr).not.toMatch(/--by|--steps|--rank/);
  });
});

describe('a rank whose kernel table has its header only', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kprof-header-only-'));
  const MULTI = 'fixtures/formats/multi-rank';
  const one = 'localhost.localdomain_140831_20251120093000123_ascend_pt';
  for (const r of ['localhost.localdomain_140830_20251120093000123_ascend_pt', one]) {
    mkdirSync(join(dir, r, 'ASCEND_PROFILER_OUTPUT'), { recursive: true });
    for (const f of readdirSync(join(MULTI, r))) if (f.endsWith('.json')) copyFileSync(join(MULTI, r, f), join(dir, r, f));
    const kd = readFileSync(join(MULTI, r, 'ASCEND_PROFILER_OUTPUT', 'kernel_details.csv'), 'utf8');
    writeFileSync(join(dir, r, 'ASCEND_PROFILER_OUTPUT', 'kernel_details.csv'), r === one ? `${kd.split('\n')[0]}\n` : kd);
  }
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('has no kernels, not "no Step Id": in the totals, inspect and a --per-step diff', async () => {
    const s = await kprof(['summary', dir, '-q']);
    expect(s.code).toBe(0);
    expect(s.stdout).toContain('2 steps on rank 0, no kernels on rank 1, 2 ranks (0, 1)');
    expect(s.stdout).not.toContain('no Step Id');
    const i = await kprof(['inspect', dir, '-q']);
    expect(i.stdout).toMatch(/rank 1\n(?:.*\n)*? {2}steps {4}none \(no kernel rows\)\n/);
    const d = await kprof(['diff', dir, MULTI, '-q', '--per-step']);
    expect(d.code).toBe(2);
    expect(d.stderr).toContain('but rank 1 of the base has no kernels at all (no kernel row was read from its files; see the warnings).');
    const raw = await kprof(['diff', dir, MULTI, '-q']);
    expect(raw.stderr).toContain('the base has 2 steps on rank 0, no kernels on rank 1, the PR has 2 steps on each rank');
  });

  it('a gate on it reads nothing there, and does not pass', async () => {
    const rules = join(dir, 'r.yaml');
    writeFileSync(rules, 'rules:\n  - type: Cast\n    count: {max: 100}\n');
    const c = await kprof(['check', dir, '--rules', rules, '-q']);
    expect(c.code).toBe(2);
    expect(c.stderr).toContain('no kernel was read on rank 1');
  });
});

describe('a rule tested on name and type, on an input of kernel names only', () => {
  const T = 'fixtures/trace/trace-view-steps';
  const rulesFile = (text: string): string => {
    const dir = mkdtempSync(join(tmpdir(), 'kprof-rules-'));
    writeFileSync(join(dir, 'r.yaml'), text);
    return join(dir, 'r.yaml');
  };

  it('says what the input lacks and how to select by name instead', async () => {
    for (const [text, list] of [
      ['rules:\n  - match: /Mat/\n    count: {max: 5}\n', ` --by name --match Mat lists them`],
      ['groups:\n  mm: ["/Mat/"]\nrules:\n  - group: mm\n    count: {max: 5}\n', ' --by name lists them'],
    ] as const) {
      const f = rulesFile(text);
      const r = await kprof(['check', T, '--rules', f, '-q']);
      rmSync(join(f, '..'), { recursive: true, force: true });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(
        'which names its kernels only (no op types), so whether a kernel whose name does not match has a type that does is unknown.',
      );
      expect(r.stderr).toContain(`Select by name only: name: with the kernel names to select (kprof summary ${T}/trace_view.json${list})`);
      expect(r.stderr).toContain('or check it on a kernel table with op types (the same run');
      expect(r.stderr).not.toContain('may be selected by its type');
    }
  });

  it('--core on it names no rank of no id', async () => {
    const f = rulesFile('rules:\n  - name: MatMulV2\n    count: {max: 5}\n');
    const r = await kprof(['check', T, '--rules', f, '-q', '--core', 'AI_CORE']);
    rmSync(join(f, '..'), { recursive: true, force: true });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--core needs core types (Accelerator Core / Task Type), which this input has not. Drop --core.');
  });
});

describe('an empty --core', () => {
  it('is a usage error (an unset variable?), not a filter that keeps no kernel', async () => {
    for (const core of ['', ' , ']) {
      const r = await kprof(['summary', 'fixtures/formats/multi-rank', '--core', core, '-q']);
      expect(r.code).toBe(2);
      expect(r.stderr).toBe(
        'kprof: --core: expected a core type or a comma-separated list of them (AI_CORE,MIX_AIC); found an empty value (an unset variable?). Leave --core out for every core.\n',
      );
    }
  });
});

describe('an empty value where a pattern, a kernel or a path is expected (an unset variable?)', () => {
  it('--match or --exclude "": a usage error, not a pattern that matches every kernel', async () => {
    for (const [cmd, flag] of [
      [['summary', P], '--match'],
      [['summary', P], '--exclude'],
      [['diff', P, Q], '--match'],
      [['check', P, '--rules', 'fixtures/rules/multi-rank-one-breaks/kprof.rules.yaml'], '--match'],
    ] as const) {
      const r = await kprof([...cmd, flag, '']);
      expect(r).toMatchObject({ code: 2, stdout: '' });
      expect(r.stderr).toMatch(new RegExp(`^kprof: ${flag}: expected a regular expression; found an empty value \\(an unset variable\\?\\)`));
    }
  });

  it('audit --only "" or a list with an empty id: said for what it is, not "no catalogue entry ""', async () => {
    for (const args of [
      ['audit', P],
      ['audit', '--list'],
    ]) {
      const r = await kprof([...args, '--only', '']);
      expect(r).toMatchObject({ code: 2, stdout: '' });
      expect(r.stderr).toBe(
        'kprof: --only: expected catalogue entry ids (comma-separated); found an empty value (an unset variable?). Leave --only out for every entry.\n',
      );
    }
    const r = await kprof(['audit', '--list', '--only', 'mla-prolog,']);
    expect(r).toMatchObject({ code: 2, stdout: '' });
    expect(r.stderr).toBe(
      'kprof: --only: expected catalogue entry ids (mla-prolog,rope) separated by single commas; found an empty item in "mla-prolog,". Remove the stray comma.\n',
    );
  });

  it('an empty number (--top, --time-tolerance, --alpha, --cut-threshold, --margin) or choice is said to be empty, not quoted as ""', async () => {
    for (const [cmd, flag] of [
      [['summary', P], '--top'],
      [['diff', P, Q], '--top'],
      [['diff', P, Q], '--time-tolerance'],
      [['diff', P, Q], '--alpha'],
      [['rules', P, Q], '--cut-threshold'],
      [['rules', P, Q], '--margin'],
      // A value among choices, and --prefer: the choices, then that the value is empty.
      [['summary', P], '--by'],
      [['summary', P], '--sort'],
      [['summary', P], '--prefer'],
      [['diff', P, Q], '--only'],
      [['diff', P, Q], '--rewrites'],
    ] as const) {
      const r = await kprof([...cmd, flag, ' ', '-q']);
      expect(r).toMatchObject({ code: 2, stdout: '' });
      expect(r.stderr).toMatch(
        new RegExp(`^kprof: ${flag}: expected .*; found an empty value \\(an unset variable\\?\\)\\.\n(\\(run with --help for usage\\)\n)?$`),
      );
    }
  });

  it('--layer-marker "": a usage error, not a marker that runs nowhere', async () => {
    const r = await kprof(['diff', P, Q, '--layer-marker', '']);
    expect(r).toMatchObject({ code: 2, stdout: '' });
    expect(r.stderr).toMatch(/^kprof: --layer-marker: expected a kernel type or name; found an empty value \(an unset variable\?\)/);
  });

  it('an empty path names its option or argument, never ": no such file"', async () => {
    const rules = 'fixtures/fusion-example/kprof.rules.yaml';
    for (const [args, what] of [
      [['summary', ''], '<profile>'],
      [['diff', '', Q], '<base>'],
      [['diff', P, ''], '<pr>'],
      [['summary', P, '--groups', ''], '--groups'],
      [['check', P, '--rules', ''], '--rules'],
      [['check', P, '--rules', rules, '--base', ''], '--base'],
      [['diff', P, Q, '--save-fusions', ''], '--save-fusions'],
      [['check', P, '--rules', rules, '--markdown-out', ''], '--markdown-out'],
      [['merge', ''], '<summary...>'],
      [['audit', P, '--catalogue', ''], '--catalogue'],
    ] as const) {
      const r = await kprof([...args]);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr, args.join(' ')).toMatch(/^kprof: (\S+): found an empty value \(an unset variable\?\); expected a path\./);
      expect(r.stderr.split(':')[1]!.trim(), args.join(' ')).toBe(what);
      // A path that must be given is asked for; an optional one may be left out.
      expect(r.stderr.includes(`or leave ${what} out`), args.join(' ')).toBe(what.startsWith('--') && what !== '--rules');
    }
  });
});

describe('a rules file value that is not there or not a kernel', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kprof-wording-rules-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('an empty value is "nothing", an item of a list is said to be one; a tab, a key given twice, a ": " in a value or a YAML list of steps is said plainly', async () => {
    for (const [body, want] of [
      ['  - type:\n    absent: true\n', 'rules.yaml:2:10: type: expected a kernel type or a list of them; found nothing (an empty value).'],
      ['  - type: Cast\n    absent:\n', 'rules.yaml:3:12: absent: expected true; found nothing (an empty value).'],
      ['  - type: [[Cast]]\n    absent: true\n', 'rules.yaml:2:12: type: expected each item of the list to be a kernel type; found a list.'],
      ['\t- type: Cast\n\t  absent: true\n', 'rules.yaml:2:1: a tab indents this line; YAML indents with spaces only. Replace the tabs at the start'],
      [
        '  - type: Cast\n    absent: true\n    type: Add\n',
        'rules.yaml:4:5: the key "type" is given twice in one mapping; expected each key once. Keep one, or start another rule with "- "',
      ],
      ['  - "\\x1b::error x": 1\n    "\\x1b::error x": 2\n', 'rules.yaml:3:5: a key is given twice in one mapping;'],
      [
        '  - type: Cast\n    absent: true\n    why: fused: into MlaPrologV3\n',
        'rules.yaml:4:10: a value holds ": " (a key: value inside a value, which YAML does not take); expected a text there. Quote the value',
      ],
      ['  - type: Cast\n    absent: true\n    steps: [1, 3]\n', 'found a YAML list: write the list as one text, as in steps: 13,15,20-30.'],
    ] as const) {
      const f = join(dir, 'rules.yaml');
      writeFileSync(f, `rules:\n${body}`);
      const r = await kprof(['check', 'fixtures/rules/one-rank/pr', '--rules', f]);
      expect(r.code, body).toBe(2);
      expect(r.stderr, body).toContain(want);
    }
  });
});
