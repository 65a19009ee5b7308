// kprof rules: the generated rules lock in what a change achieved, so they hold on the PR they were made from
// and break on its base.

import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parse } from 'yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { readProfile } from '../src/input/read.js';
import { SEQUENCE_RECORDER } from '../src/analysis/rewrites/recorderSink.js';
import { evaluate, exitCodeOf } from '../src/rules/evaluate.js';
import { yamlString } from '../src/rules/generate.js';
import { parseRules } from '../src/rules/parse.js';
import { relPath } from '../src/util/paths.js';
import { expectTranscript, kprof, REAL_REL, ROOT, realData } from './helpers.js';

const HAS_REAL = realData(import.meta.url);

const tmp = mkdtempSync(join(tmpdir(), 'kprof-rules-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** Generate rules from base → pr, then check both sides with them. */
async function roundTrip(base: string, pr: string, extra: string[] = []) {
  const out = join(tmp, `${base.replace(/\W+/g, '_')}${extra.join('_')}.rules.yaml`);
  const gen = await kprof(['rules', base, pr, '--out', out, ...extra]);
  expect(gen).toEqual({ code: 0, stdout: '', stderr: '' });
  const set = parseRules('generated.rules.yaml', readFileSync(out, 'utf8'));
  // As kprof check reads for sequence rules: each rank's kernels in order, by the rules' grouping.
  const by = extra.includes('name') ? 'name' : 'type';
  const read = (p: string) => readProfile(resolve(ROOT, p), { withShapes: false, ranks: null, beside: { kind: SEQUENCE_RECORDER, options: { by } } });
  const [b, p] = await Promise.all([read(base), read(pr)]);
  return { set, onPr: evaluate(p, null, set), onBase: evaluate(b, null, set), file: out };
}

describe('kprof rules round-trips', () => {
  it('one rank: the rules hold on the PR and break on the base', async () => {
    const { set, onPr, onBase } = await roundTrip('fixtures/rules/one-rank/base', 'fixtures/rules/one-rank/pr');
    expect(set.rules.map((r) => r.label)).toEqual([
      'InterleaveRope stays removed',
      'DynamicBlockQuant stays removed',
      'ScatterNdUpdate stays removed',
      'MlaPrologV3 runs at least 1 time per step',
      // Counts are exact: the PR's 1 Cast per step is a limit of 1, not 1 + 10% rounded up.
      'Cast stays at most 1 per step',
      // The fusion rewrites of the kernel sequences: the chain the change replaced (a Cast of it still runs beside the
      // fused kernel), and what replaced it.
      'the chain of 7 kernels fused into MlaPrologV3 stays gone',
      'MlaPrologV3 runs in place of the chain, at least 1 per step',
      'total kernels stay at most 5 per step',
    ]);
    expect(onPr.results.filter((r) => !r.passed)).toEqual([]);
    expect(exitCodeOf(onPr)).toBe(0);
    expect(onBase.results.map((r) => r.passed)).toEqual([false, false, false, false, false, false, false, false]);
    expect(exitCodeOf(onBase)).toBe(1);
  });

  it('grouped by name: rules select kernels by name', async () => {
    const { set, onPr, onBase } = await roundTrip('fixtures/rules/one-rank/base', 'fixtures/rules/one-rank/pr', ['--by', 'name']);
    expect(set.rules[0]!.selector).toEqual({ kind: 'name', values: ['aclnnInterleaveRope_InterleaveRope_InterleaveRope'] });
    expect(onPr.passed).toBe(true);
    expect(onBase.passed).toBe(false);
  });

  it('a larger --cut-threshold leaves out smaller cuts; --margin is for time only', async () => {
    const strict = await roundTrip('fixtures/rules/one-rank/base', 'fixtures/rules/one-rank/pr', ['--cut-threshold', '70%', '--margin', '50']);
    expect(strict.set.rules.map((r) => r.label)).not.toContain('Cast stays at most 1 per step');
    expect(strict.set.rules.at(-1)!.check).toEqual({ kind: 'count', per: 'step', bounds: { min: null, max: 5 } });
    expect(strict.onPr.passed).toBe(true);
    // 127 µs + 50% does not break on the base's 137 µs: no time rule is written, and the file says why.
    expect(strict.set.rules.some((r) => r.check.kind === 'time')).toBe(false);
    expect(readFileSync(strict.file, 'utf8')).toContain(
      "  # Not written: a time maximum of 190.50 µs per step (the PR's highest + 50%); the base holds it too, so it would not catch the change coming undone.\n",
    );
    // 127 µs + 5% does: a warn-level time rule, which holds on the PR and breaks on the base.
    const tight = await roundTrip('fixtures/rules/one-rank/base', 'fixtures/rules/one-rank/pr', ['--margin', '5']);
    const time = tight.set.rules.at(-1)!;
    expect(time).toMatchObject({ check: { kind: 'time', per: 'step', bounds: { min: null, max: 133.35 } }, severity: 'warn' });
    expect(tight.onPr.results.at(-1)!.passed).toBe(true);
    expect(tight.onBase.results.at(-1)!.passed).toBe(false);
  });

  it('the header says what was verified', async () => {
    const { file } = await roundTrip('fixtures/rules/one-rank/base', 'fixtures/rules/one-rank/pr', ['--margin', '5']);
    expect(readFileSync(file, 'utf8')).toContain('# Verified before writing: all 9 rules hold on the PR and 9 of them break on the base.\n');
  });

  it.skipIf(!existsSync(resolve(ROOT, 'fixtures/fusion-example/pr')))(
    'the fusion example (two ranks): hold on the PR, break on the base',
    async () => {
      const { onPr, onBase } = await roundTrip('fixtures/fusion-example/base', 'fixtures/fusion-example/pr');
      expect(onPr.results.filter((r) => !r.passed)).toEqual([]);
      expect(onPr.results.every((r) => r.ranksChecked.length === 2)).toBe(true);
      expect(onBase.results.every((r) => !r.passed)).toBe(true);
    },
  );

  it('a source without steps gets per: total bounds', async () => {
    const gen = await kprof(['rules', 'fixtures/rules/one-rank/base', 'fixtures/rules/no-steps/kernel_details.csv']);
    const set = parseRules('g.yaml', gen.stdout);
    expect(set.rules.every((r) => !('per' in r.check) || r.check.per === 'total')).toBe(true);
    const noSteps = await readProfile(resolve(ROOT, 'fixtures/rules/no-steps/kernel_details.csv'), { withShapes: false, ranks: null });
    expect(evaluate(noSteps, null, set).passed).toBe(true);
  });
});

describe('kprof rules -o', () => {
  it('refuses a name whose extension says another format (rules are YAML), before reading, and writes nothing', async () => {
    for (const name of ['rules.json', 'rules.md', 'rules.csv.gz', 'rules.xml']) {
      const out = join(tmp, name);
      const r = await kprof(['rules', 'fixtures/cluster/base', 'fixtures/cluster/pr', '-o', out]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('kprof rules writes a YAML rules file');
      expect(r.stderr).toContain('Name it .yaml or .yml');
      expect(existsSync(out)).toBe(false);
    }
    const out = join(tmp, 'cluster.rules.yml');
    expect((await kprof(['rules', 'fixtures/cluster/base', 'fixtures/cluster/pr', '-q', '-o', out])).code).toBe(0);
    expect(parseRules(out, readFileSync(out, 'utf8')).rules.length).toBeGreaterThan(0);
  });
});

describe('kprof rules takes the selection and grouping options of summary and diff', () => {
  it('--rank, --steps, --match and --groups: the file and its check line carry them, and check agrees', async () => {
    const FE = 'fixtures/fusion-example';
    const out = join(tmp, 'selected.rules.yaml');
    const flags = ['--rank', '1', '--steps', '21-22', '--match', 'Rope|Quant|Cast|RmsNorm|Attention', '--groups', 'fixtures/groups/attention.yaml'];
    expect(await kprof(['rules', `${FE}/base`, `${FE}/pr`, ...flags, '-o', out])).toEqual({ code: 0, stdout: '', stderr: '' });
    const text = readFileSync(out, 'utf8');
    expect(text).toContain("#   kprof check <profile> --rules <this file> --rank 1 --match 'Rope|Quant|Cast|RmsNorm|Attention'\n");
    expect(text).toContain('groups:\n  attention: [FlashAttentionScore, RmsNorm]\n  communication: ["/^hcom_/"]\nsteps: 21-22\nrules:\n');
    expect(text).toMatch(/\n {4}group: attention\n/);
    const check = ['--rules', out, '--rank', '1', '--match', 'Rope|Quant|Cast|RmsNorm|Attention'];
    expect((await kprof(['check', `${FE}/pr`, ...check])).code).toBe(0);
    expect((await kprof(['check', `${FE}/base`, ...check])).code).toBe(1);
  });
});

describe('kprof rules: what kprof check would take for a typo', () => {
  it('a removed kernel whose name is close to one that runs is written by its type, with the evidence that it ran', async () => {
    const header = 'Step Id,Name,Type,Accelerator Core,Start Time(us),Duration(us),Wait Time(us),Block Dim';
    const row = (step: number, type: string) => `${step},aclnn${type}_${type}_${type},${type},AI_VECTOR_CORE,${step}.0,2.0,0,8`;
    const { mkdirSync, writeFileSync } = await import('node:fs');
    for (const [side, types] of [
      ['base', ['SoftmaxGrad', 'SoftMaxGrad']],
      ['pr', ['SoftmaxGrad']],
    ] as const) {
      mkdirSync(join(tmp, 'case', side), { recursive: true });
      writeFileSync(
        join(tmp, 'case', side, 'kernel_details.csv'),
        [header, ...[1, 2].flatMap((st) => types.map((t) => row(st, t)))].join('\n') + '\n',
      );
    }
    const base = join(tmp, 'case', 'base');
    const pr = join(tmp, 'case', 'pr');
    const out = join(tmp, 'case.rules.yaml');
    expect((await kprof(['rules', base, pr, '-o', out])).code).toBe(0);
    expect(readFileSync(out, 'utf8')).toContain(
      '  - rule: SoftMaxGrad stays removed\n    type: SoftMaxGrad\n    absent: true\n    evidence: { base-count: 2 }\n',
    );
    // Without its evidence, type: SoftMaxGrad would be "did you mean SoftmaxGrad" on the PR; with it, the rule holds
    // there and breaks on the base.
    expect((await kprof(['check', pr, '--rules', out])).code).toBe(0);
    expect((await kprof(['check', base, '--rules', out])).code).toBe(1);
  });
});

describe('kprof rules: uneven ranks', () => {
  it('every comment on a maximum not written is true of its rank: steps that differ in number are said', async () => {
    // Rank 0 fused RmsNorm in every step (48 → 20); rank 1 of the PR profiled 2 steps, not 4, and fused in its
    // second only: its highest step did not fall, and its total (68) is lower only because it ran fewer steps.
    const header = 'Device_id,Step Id,Name,Type,Accelerator Core,Start Time(us),Duration(us),Wait Time(us),Block Dim';
    const { mkdirSync, writeFileSync } = await import('node:fs');
    const write = (side: string, rank: number, perStep: number[]) => {
      const dir = join(tmp, 'uneven', side, `rank${rank}_ascend_pt`, 'ASCEND_PROFILER_OUTPUT');
      mkdirSync(dir, { recursive: true });
      let t = 0;
      const rows = perStep.flatMap((n, i) =>
        [...Array(n).fill('RmsNorm'), ...Array(10).fill('Add')].map(
          (type) => `${rank},${i + 1},aclnn${type},${type},AI_VECTOR_CORE,${(t += 3)}.0,2.0,0,8`,
        ),
      );
      writeFileSync(join(dir, 'kernel_details.csv'), `${[header, ...rows].join('\n')}\n`);
    };
    write('base', 0, [48, 48, 48, 48]);
    write('base', 1, [48, 48, 48, 48]);
    write('pr', 0, [20, 20, 20, 20]);
    write('pr', 1, [48, 20]);
    const r = await kprof(['rules', join(tmp, 'uneven', 'base'), join(tmp, 'uneven', 'pr')]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('  - rule: RmsNorm stays at most 20 per step on rank 0\n');
    expect(r.stdout).toContain(
      '  # Not written: a maximum on RmsNorm on rank 1; its highest step did not fall, and the base and the PR profiled 4 and 2 steps there, so their totals do not compare.\n',
    );
    expect(r.stdout).not.toContain('no count of it in a step or in the run is lower');
  });

  it('when the number of ranks changed, the comment says the change per rank, not the sum over the ranks alone', async () => {
    const header = 'Device_id,Step Id,Name,Type,Accelerator Core,Start Time(us),Duration(us),Wait Time(us),Block Dim';
    const { mkdirSync, writeFileSync } = await import('node:fs');
    const write = (root: string, side: string, rank: number, rms: number) => {
      const dir = join(tmp, root, side, `rank${rank}_ascend_pt`, 'ASCEND_PROFILER_OUTPUT');
      mkdirSync(dir, { recursive: true });
      let t = 0;
      const rows = [1, 2].flatMap((step) =>
        [...Array(rms).fill('RmsNorm'), ...Array(10).fill('Add')].map(
          (type) => `${rank},${step},aclnn${type},${type},AI_VECTOR_CORE,${(t += 3)}.0,2.0,0,8`,
        ),
      );
      writeFileSync(join(dir, 'kernel_details.csv'), `${[header, ...rows].join('\n')}\n`);
    };
    // Only the ranks changed: 3 ranks in the base, 2 in the PR, each running the same kernels.
    for (const rank of [0, 1, 2]) write('fewer-ranks', 'base', rank, 48);
    for (const rank of [0, 1]) write('fewer-ranks', 'pr', rank, 48);
    const same = await kprof(['rules', join(tmp, 'fewer-ranks', 'base'), join(tmp, 'fewer-ranks', 'pr')]);
    expect(same.code).toBe(0);
    // Unchanged per rank: not a kernel the change cut, so neither a rule nor a comment on why none was written (a
    // PR of one rank fewer wrote two lines for every kernel of the run).
    expect(same.stdout).not.toMatch(/RmsNorm|Add\b/);
    expect(same.stdout).not.toContain('Not written: a maximum on');
    expect(same.stdout).not.toMatch(/-33\.3% per step over 2 ranks/);
    expect(same.stdout).not.toMatch(/^ {2}- rule: (RmsNorm|Add) stays at most/m);
    // The ranks and the kernels changed: both said.
    for (const rank of [0, 1, 2]) write('fewer-ranks-fused', 'base', rank, 48);
    for (const rank of [0, 1]) write('fewer-ranks-fused', 'pr', rank, 20);
    const fused = await kprof(['rules', join(tmp, 'fewer-ranks-fused', 'base'), join(tmp, 'fewer-ranks-fused', 'pr')]);
    expect(fused.stdout).toContain('(-58.3% per step per rank; -72.2% per step summed over the ranks, as the base has 3 ranks and the PR 2).\n');
    expect(fused.stdout).toContain('  - rule: RmsNorm stays at most 20 per step\n');
  });
});

describe('kprof rules: ranks named by their folder path', () => {
  it('msprof runs in a group of PROF_ folders: a rule for some of them names them quoted, and kprof check reads it', async () => {
    // vllm-ascend's layout: PROF_GROUP/PROF_<metric>/PROF_000001_…/mindstudio_profiler_output/op_summary_*.csv; each
    // run is a rank named by its path, which a rule's ranks: refused (kprof rules stopped: "generated rules:…").
    const head = 'Device_id,Model ID,Task ID,Stream ID,Op Name,OP Type,OP State,Task Type,Task Start Time(us),Task Duration(us),Task Wait Time(us)';
    const side = (name: string, casts: number): string => {
      for (const [run, n] of [
        ['PROF_a b', casts],
        ['PROF_c', 1],
      ] as const) {
        const out = join(tmp, name, 'PROF_GROUP', run, 'PROF_000001_x', 'mindstudio_profiler_output');
        mkdirSync(out, { recursive: true });
        const rows = Array.from({ length: n }, (_, i) => `0,1,${i},2,c${i},Cast,dynamic,AI_VECTOR_CORE,${10 * i},4,0`);
        writeFileSync(join(out, 'op_summary_1.csv'), [head, ...rows, '0,1,9,2,m,MatMul,dynamic,AI_CORE,99,4,0', ''].join('\n'));
      }
      return join(tmp, name);
    };
    const base = side('group-base', 4);
    const pr = side('group-pr', 1);
    const out = join(tmp, 'group.rules.yaml');
    const gen = await kprof(['rules', base, pr, '-o', out]);
    expect(gen).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(readFileSync(out, 'utf8')).toContain('    ranks: ["PROF_GROUP/PROF_a b/PROF_000001_x"]\n');
    expect((await kprof(['check', pr, '--rules', out, '-q'])).code).toBe(0);
    expect((await kprof(['check', base, '--rules', out, '-q'])).code).toBe(1);
  });
});

describe('kprof rules: the rank of no id', () => {
  it('a rule for it names it quoted, "-" (plain, - is a YAML block indicator, and the file did not parse)', async () => {
    const header = 'Step Id,Name,Type,Accelerator Core,Start Time(us),Duration(us)';
    const side = (name: string, casts: number): string => {
      for (const [folder, n] of [
        ['rank0_ascend_pt', 1],
        ['other_ascend_pt', casts],
      ] as const) {
        const out = join(tmp, name, folder, 'ASCEND_PROFILER_OUTPUT');
        mkdirSync(out, { recursive: true });
        const rows = [1, 2].flatMap((st) => [
          ...Array.from({ length: n }, (_, i) => `${st},c,Cast,AI_CORE,${st * 100 + i},1`),
          `${st},m,MatMul,AI_CORE,${st * 100 + 50},2`,
        ]);
        writeFileSync(join(out, 'kernel_details.csv'), `${[header, ...rows].join('\n')}\n`);
      }
      return join(tmp, name);
    };
    const base = side('no-id-base', 3);
    const pr = side('no-id-pr', 1);
    const out = join(tmp, 'no-id.rules.yaml');
    expect(await kprof(['rules', base, pr, '-o', out])).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(readFileSync(out, 'utf8')).toContain('    ranks: ["-"]\n');
    // Labels and comments name it as reports do.
    expect(readFileSync(out, 'utf8')).toContain('  - rule: "Cast stays at most 1 per step on rank (no id)"\n');
    expect(readFileSync(out, 'utf8')).not.toMatch(/rank -[ ,]/);
    expect((await kprof(['check', pr, '--rules', out, '-q'])).code).toBe(0);
    expect((await kprof(['check', base, '--rules', out, '-q'])).code).toBe(1);
  });
});

describe('kprof rules: long kernel names', () => {
  // kprof check reads a rules file of at most 256 KiB; a kernel name may be 64 KiB. The generated file must be
  // one kprof check reads: names are whole in selectors only, and cut in comments and rule labels.
  const write = async (side: string, names: string[]): Promise<string> => {
    const { mkdirSync, writeFileSync } = await import('node:fs');
    const dir = join(tmp, 'long', side, 'ASCEND_PROFILER_OUTPUT');
    mkdirSync(dir, { recursive: true });
    let t = 0;
    const rows = [1, 2].flatMap((step) => names.map((n) => `${step},${n},${n.slice(0, 20)},AI_CORE,${(t += 3)}.0,2.0,0,8`));
    writeFileSync(
      join(dir, 'kernel_details.csv'),
      `Step Id,Name,Type,Accelerator Core,Start Time(us),Duration(us),Wait Time(us),Block Dim\n${rows.join('\n')}\n`,
    );
    return join(tmp, 'long', side);
  };

  it('a removed kernel with a 60,000-character name: kprof check reads the file, which holds on the PR and breaks on the base', async () => {
    const long = `Long${'A'.repeat(60_000)}`;
    const base = await write('base', ['MatMul', long]);
    const pr = await write('pr', ['MatMul']);
    const out = join(tmp, 'long.rules.yaml');
    expect(await kprof(['rules', base, pr, '--by', 'name', '-o', out])).toEqual({ code: 0, stdout: '', stderr: '' });
    const text = readFileSync(out, 'utf8');
    // Whole in the selectors (the absent rule and the sequence rule), nowhere else.
    expect(text.split(long).length - 1).toBe(2);
    expect(Buffer.byteLength(text)).toBeLessThan(256 << 10);
    expect(text.includes(`  - rule: "Long${'A'.repeat(115)}… stays removed"\n`)).toBe(true);
    const onPr = await kprof(['check', pr, '--rules', out]);
    expect(onPr.stderr).toBe('');
    expect(onPr.code).toBe(0);
    expect((await kprof(['check', base, '--rules', out])).code).toBe(1);
  });

  it('names too long to fit a rules file: exit 2, with what to do, and nothing written', async () => {
    const names = ['B', 'C', 'D'].map((c) => c.repeat(60_000));
    const base = await write('base3', ['MatMul', ...names]);
    const pr = await write('pr3', ['MatMul']);
    const out = join(tmp, 'long3.rules.yaml');
    const r = await kprof(['rules', base, pr, '--by', 'name', '-o', out]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('more than the 256 KiB kprof check reads');
    expect(r.stderr).toContain('--exclude');
    expect(existsSync(out)).toBe(false);
  });
});

describe('kprof rules: transcripts', () => {
  it('prints a commented starter rules file', async () => {
    const r = await expectTranscript('rules-one-rank', ['rules', 'fixtures/rules/one-rank/base', 'fixtures/rules/one-rank/pr']);
    expect(r.code).toBe(0);
    // Each rule carries a comment with the numbers it came from.
    expect(r.stdout).toContain('  # Cast: base 3 in every step, PR 1 in every step (-66.7% per step).\n  - rule: Cast stays at most 1 per step\n');
  });

  it.skipIf(!existsSync(resolve(ROOT, 'fixtures/fusion-example/pr')))('the fusion example', async () => {
    const r = await expectTranscript('rules-fusion-example', ['rules', 'fixtures/fusion-example/base', 'fixtures/fusion-example/pr']);
    expect(r.code).toBe(0);
  });

  it('bad options are usage errors', async () => {
    const r = await expectTranscript('rules-error-threshold', [
      'rules',
      'fixtures/rules/one-rank/base',
      'fixtures/rules/one-rank/pr',
      '--cut-threshold',
      'half',
    ]);
    expect(r).toEqual({ code: 2, stdout: '', stderr: 'kprof: --cut-threshold: expected a percentage such as 20 or 20%; found "half".\n' });
    expect((await kprof(['rules', 'fixtures/rules/one-rank/base', 'fixtures/rules/one-rank/pr', '--by', 'core'])).code).toBe(2);
    // A margin that makes the time maximum larger than a rules file takes is the user's error, named as such.
    const huge = await kprof(['rules', 'fixtures/rules/one-rank/base', 'fixtures/rules/one-rank/pr', '--margin', '9'.repeat(400)]);
    expect(huge.code).toBe(2);
    expect(huge.stderr).toMatch(/^kprof: --margin: expected a percentage such as 20 or 20%; found "9{59}…"\.\n$/);
    const big = await kprof(['rules', 'fixtures/rules/one-rank/base', 'fixtures/rules/one-rank/pr', '--margin', '100000000000000']);
    expect(big).toMatchObject({ code: 2, stdout: '' });
    expect(big.stderr).toMatch(
      /^kprof: --margin: expected a percentage that keeps the time maximum \(the PR's highest, [^)]+, plus the margin\) at most 2\^51 ticks/,
    );
    expect(big.stderr).toContain('found "100000000000000". Give a smaller --margin (the default is 10).');
    expect(big.stderr).not.toContain('generated rules');
    expect((await kprof(['rules', 'fixtures/rules/one-rank/base'])).code).toBe(2);
  });
});

describe('kprof rules on summary JSONs', () => {
  it('a rule the PR cannot answer (a snapshot holding user groups) is left out for that reason, not as one that would not hold', async () => {
    const groups = join(tmp, 'two.groups.yaml');
    writeFileSync(groups, 'rope: [InterleaveRope]\nnorms: [RmsNorm, Cast]\n');
    const snaps: string[] = [];
    for (const side of ['base', 'pr']) {
      const out = join(tmp, `groups-${side}.json`);
      const r = await kprof(['summary', `fixtures/fusion-example/${side}`, '--groups', groups, '--format', 'json', '-o', out]);
      expect(r.code, r.stderr).toBe(0);
      snaps.push(out);
    }
    const gen = await kprof(['rules', snaps[0]!, snaps[1]!, '--groups', groups]);
    expect(gen.code, gen.stderr).toBe(0);
    // `type: ScatterNdUpdate` cannot be answered by a snapshot whose kernels are partly in user groups.
    expect(gen.stdout).toMatch(/# Not written: "ScatterNdUpdate stays removed"; the PR cannot answer it \(see kprof check on the PR\)\./);
    expect(gen.stdout).not.toMatch(/it would not hold on the PR/);
    // On the profiles themselves the same rule is written.
    const direct = await kprof(['rules', 'fixtures/fusion-example/base', 'fixtures/fusion-example/pr', '--groups', groups]);
    expect(direct.stdout).toMatch(/- rule: ScatterNdUpdate stays removed/);
  });

  it('the comment on why there are no sequence rules names the snapshot as the header does', async () => {
    const snap = join(tmp, 'seq-base.json');
    expect((await kprof(['summary', 'fixtures/fusion-example/base', '--format', 'json', '-o', snap])).code).toBe(0);
    const gen = await kprof(['rules', snap, 'fixtures/fusion-example/pr']);
    expect(gen.code, gen.stderr).toBe(0);
    const shown = relPath(snap);
    expect(gen.stdout).toContain(`the diff of ${shown} (base)`);
    expect(gen.stdout).toContain(`# No sequence rules: the base: ${shown} is a summary JSON`);
  });
});

describe('yamlString', () => {
  it('quotes what YAML would read differently, and the text reads back unchanged', () => {
    const cases = [
      'Cast',
      'Cast stays removed',
      'a: b',
      '#x',
      'x #y',
      '7up',
      'true',
      'No',
      '-lead',
      'trail ',
      'q"uote',
      "it's",
      'µs',
      '[x]',
      'a,b',
      '*ref',
      '',
    ];
    for (const s of cases) expect(parse(`k: ${yamlString(s)}`)).toEqual({ k: s });
    expect(yamlString('Cast stays removed')).toBe('Cast stays removed');
    expect(yamlString('true')).toBe('"true"');
    expect(yamlString('a: b')).toBe('"a: b"');
  });
});

describe.skipIf(!HAS_REAL)('kprof rules on real exports', () => {
  it('rules from two real torch_npu runs hold on the PR run', async () => {
    const base = `${REAL_REL}/msinsight-torchnpu/level1`;
    const pr = `${REAL_REL}/msinsight-torchnpu/level2`;
    const gen = await kprof(['rules', base, pr]);
    expect(gen.code).toBe(0);
    const set = parseRules('generated.rules.yaml', gen.stdout);
    const profile = await readProfile(resolve(ROOT, pr), {
      withShapes: false,
      ranks: null,
      beside: { kind: SEQUENCE_RECORDER, options: { by: 'type' } },
    });
    expect(evaluate(profile, null, set).passed).toBe(true);
  });
});

describe('kprof rules of many ranks', () => {
  it('names ranks in ranges in labels, comments and the --rank it suggests, not one item per rank', async () => {
    // 12 ranks; Cast removed on all but rank 7, so rules and comments name ranks 0–6, 8–11.
    const side = (name: string, pr: boolean): string => {
      for (let rank = 0; rank < 12; rank++) {
        const dir = join(tmp, name, `rank_${rank}_ascend_pt`, 'ASCEND_PROFILER_OUTPUT');
        mkdirSync(dir, { recursive: true });
        const cast = !pr || rank === 7 ? '1,Cast,Cast,AI_CORE,1\n2,Cast,Cast,AI_CORE,1\n' : '';
        writeFileSync(
          join(dir, 'kernel_details.csv'),
          `Step Id,Name,Type,Accelerator Core,Duration(us)\n1,Add,Add,AI_CORE,2\n2,Add,Add,AI_CORE,2\n${cast}`,
        );
      }
      return join(tmp, name);
    };
    const base = side('many-base', false);
    const pr = side('many-pr', true);
    const r = await kprof(['rules', base, pr, '--rank', '0-11']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('#   kprof check <profile> --rules <this file> --rank 0-11\n');
    expect(r.stdout).toContain('  # Cast: base 1 in every step of every rank, PR ranks 0–6, 8–11: none; rank 7: 1 in every step');
    expect(r.stdout).toContain('  - rule: "Cast stays removed on ranks 0–6, 8–11"\n');
    // The rule's ranks: still lists each, and the file checks the PR.
    expect(r.stdout).toContain('    ranks: [0, 1, 2, 3, 4, 5, 6, 8, 9, 10, 11]\n');
    expect(r.stdout).not.toMatch(/rank 1 none, rank 2 none/);
  });
});

describe('kprof rules and kernels that ran once in a step of few steps', () => {
  /** A rank of 8 steps of MatMul Add Relu ×5; `extra`: per step (1-based), kernels run after them. */
  function write(dir: string, extra: Record<number, string[]>): string {
    const rows = ['Step Id,Device_id,Stream ID,Name,Type,Accelerator Core,Start Time(us),Duration(us)'];
    let t = 1000;
    for (let step = 1; step <= 8; step++) {
      for (const k of [...Array(5).fill(['MatMul', 'Add', 'Relu']).flat(), ...(extra[step] ?? [])]) {
        rows.push(`${step},0,2,${k}_1,${k},AI_CORE,${t.toFixed(3)},5.000`);
        t += 6;
      }
    }
    mkdirSync(join(tmp, dir), { recursive: true });
    writeFileSync(join(tmp, dir, 'kernel_details.csv'), `${rows.join('\n')}\n`);
    return join(tmp, dir);
  }
  it('a kernel removed or added that ran once in one step is said in a comment, not locked in by a rule', async () => {
    const base = write('oneoff-base', {
      1: ['WarmupCopy'],
      2: ['Cast', 'Cast'],
      3: ['Cast', 'Cast'],
      4: ['Gather'],
      5: ['Gather'],
      6: ['Gather'],
      7: ['Gather'],
      8: ['Gather'],
    });
    const pr = write('oneoff-pr', { 5: ['LateSync'] });
    const r = await kprof(['rules', base, pr]);
    expect(r.code).toBe(0);
    const rules = (parse(r.stdout) as { rules: { rule: string }[] }).rules.map((x) => x.rule);
    // Cast ran twice in a step (a change's kernel, if in two steps only), Gather in most steps: both locked in.
    expect(rules).toEqual([
      'Gather stays removed',
      'Cast stays removed',
      'the chain of 1 kernel removed stays gone',
      'total kernels stay at most 16 per step',
    ]);
    expect(r.stdout).toContain(
      '# Not written: "WarmupCopy stays removed"; it ran at most once in a step, in under half of the steps of each rank that ran it',
    );
    expect(r.stdout).toContain('# Not written: a rule on LateSync; it ran at most once in a step');
  });
});
