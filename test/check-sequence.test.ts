// Sequence rules (`sequence:`), end to end: a hand-written rule and the rules `kprof rules` generates from the
// fusion rewrites, each passing on the PR and failing on the base, on the README's fusion example and on a real
// export edited at test time (../shared/data/real: a chain fused into one kernel in the PR); the failing rank,
// step and position in every check format; what cannot answer a sequence rule (a summary JSON, op_statistic, no
// Step Id: exit 2, saying why); and the rules file's errors (exit 2 with file:line:col).

import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CheckJson } from '../src/model/schema.js';
import { expectTranscript, kprof, REAL, ROOT, transcript, realData } from './helpers.js';

const HAS_REAL = realData(import.meta.url);

const FE = 'fixtures/fusion-example';
const SEQ = `${FE}/sequence.rules.yaml`;
const tmp = mkdtempSync(join(tmpdir(), 'kprof-seqrules-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function rulesFile(name: string, text: string): string {
  const p = join(tmp, name);
  writeFileSync(p, text);
  return p;
}

describe('a hand-written sequence rule on the fusion example', () => {
  it('holds on the PR (exit 0)', async () => {
    const r = await expectTranscript('check-sequence-pr', ['check', `${FE}/pr`, '--rules', SEQ, '--base', `${FE}/base`]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('the MLA prolog chain stays fused in the decoder layers: highest 0 chains per step on each of 2 ranks');
    expect(r.stdout).toContain('check passed: 2 of 2 rules held.');
  });

  it('breaks on the base (exit 1), naming the rank, the step, the position, the stream and the layer', async () => {
    const r = await expectTranscript('check-sequence-base', ['check', `${FE}/base`, '--rules', SEQ, '--base', `${FE}/base`]);
    expect(r.code).toBe(1);
    // Step 21 of rank 0 is the first step; the chain's first kernel is the 4th compute kernel of stream 2 (after
    // GatherV2, RmsNorm, DynamicQuant), in the first decoder layer.
    expect(r.stdout).toContain(
      'rank 0, step 21: 2 chains; first at position 3 of 96 (from 0) on stream 2, layer 0; bound: the chain in this order at most 0 per step',
    );
    expect(r.stdout).toContain('broken in 4 of 4 steps of rank 0; broken on 2 of 2 ranks (0, 1)');
    expect(r.stdout).toContain('check failed: 2 of 2 rules broken; 0 held; 1 matched no kernel.');
  });

  it('every check format says where it broke', async () => {
    const args = ['check', `${FE}/base`, '--rules', SEQ, '--format'];
    const json = JSON.parse((await kprof([...args, 'json'])).stdout) as CheckJson;
    expect(json.results[0]).toMatchObject({
      passed: false,
      unit: 'chains',
      observed: 2,
      rank: '0',
      step: 21,
      site: { stream: '2', index: 3, of: 96, layer: 0, edits: 0 },
    });
    expect(json.results[1]).toMatchObject({ passed: false, unit: 'chains', observed: 0, site: null });
    // Markdown shows the stream (from the file) as code.
    const site = /first at position 3 of 96 \(from 0\) on stream `?2`?, layer 0/;
    for (const format of ['text', 'markdown', 'github', 'junit', 'html']) {
      const r = await kprof([...args, format]);
      expect(r.code, format).toBe(1);
      expect(r.stdout, format).toMatch(site);
    }
  });

  it('a chain that came back in one layer of one step breaks with that layer', async () => {
    // The PR with the first decoder layer of one step unfused again: a chain of the base in place of MlaPrologV3.
    const dir = join(tmp, 'one-undone');
    const src = join(FE, 'pr');
    const prRank0 = readdirOnce(src);
    const base0 = readdirOnce(join(FE, 'base'));
    const baseRows = readFileSync(join(FE, 'base', base0, 'ASCEND_PROFILER_OUTPUT/kernel_details.csv'), 'utf8').split('\n');
    const prRows = readFileSync(join(src, prRank0, 'ASCEND_PROFILER_OUTPUT/kernel_details.csv'), 'utf8').split('\n');
    // The base's second decoder layer chain of step 22 (rows 1-based in the file: header + 104 per step).
    const typeAt = (line: string): string => line.split(',')[6]!;
    const stepOf = (line: string): string => line.split(',')[0]!;
    const chainStart = baseRows.findIndex(
      (l, i) => i > 0 && stepOf(l) === '22' && typeAt(l) === 'QuantBatchMatmulV3' && typeAt(baseRows[i + 1]!) === 'RmsNorm',
    );
    const chain = baseRows.slice(chainStart, chainStart + 13);
    const at = prRows.findIndex((l, i) => i > 0 && stepOf(l) === '22' && typeAt(l) === 'MlaPrologV3');
    const edited = [...prRows.slice(0, at), ...chain, ...prRows.slice(at + 1)];
    mkdirSync(join(dir, 'ASCEND_PROFILER_OUTPUT'), { recursive: true });
    writeFileSync(join(dir, 'ASCEND_PROFILER_OUTPUT/kernel_details.csv'), edited.join('\n'));
    const json = JSON.parse((await kprof(['check', dir, '--rules', SEQ, '--format', 'json'])).stdout) as CheckJson;
    expect(json.results[0]).toMatchObject({
      passed: false,
      observed: 1,
      step: 22,
      stepsBroken: [22],
      site: { stream: '2', index: 3, layer: 0, edits: 0 },
    });
    // One MlaPrologV3 is left in step 22, so the pair runs once there: exactly 2 breaks in that step only.
    expect(json.results[1]).toMatchObject({ passed: false, observed: 1, step: 22, stepsBroken: [22] });
  });
});

/** The first rank folder of a profile (rank 0). */
function readdirOnce(dir: string): string {
  return readdirSync(dir)
    .filter((d) => d.endsWith('_ascend_pt'))
    .sort()[0]!;
}

describe('generated sequence rules on the fusion example', () => {
  let gen = '';
  beforeAll(async () => {
    gen = join(tmp, 'generated.rules.yaml');
    const r = await kprof(['rules', `${FE}/base`, `${FE}/pr`, '-o', gen]);
    expect(r.code).toBe(0);
  });

  it('kprof rules writes the removed chain at most 0 per step and the fused kernel at least 2 per step', () => {
    const text = readFileSync(gen, 'utf8');
    expect(text).toContain(
      '  - rule: the chain of 13 kernels fused into MlaPrologV3 stays gone\n' +
        '    type: [QuantBatchMatmulV3, RmsNorm, RmsNorm, DynamicQuant, QuantBatchMatmulV3, BatchMatMulV3, InterleaveRope, InterleaveRope, Cast, Cast, DynamicBlockQuant, ScatterNdUpdate, ScatterNdUpdate]\n' +
        '    sequence: { per: step, max: 0, layer-marker: LightningIndexer }\n',
    );
    expect(text).toContain(
      '  - rule: "MlaPrologV3 runs in place of the chain, at least 2 per step"\n' +
        '    type: [MlaPrologV3]\n' +
        '    sequence: { per: step, min: 2, layer-marker: LightningIndexer }\n',
    );
  });

  it('they hold on the PR and break on the base', async () => {
    // The generated file is in a temporary folder: the transcripts name it <generated>.
    const golden = async (name: string, side: string): Promise<number> => {
      const args = ['check', `${FE}/${side}`, '--rules', gen, '--base', `${FE}/base`];
      const r = await kprof(args);
      const shown = relative(ROOT, gen);
      // The path replaced in the arguments too, before they are quoted (a temporary path may hold a quote).
      const named = args.map((a) => (a === gen ? 'GENERATED' : a));
      await expect(
        transcript(named, r).replace(' GENERATED ', ' <generated> ').replaceAll(shown, '<generated>').replaceAll(gen, '<generated>'),
      ).toMatchFileSnapshot(join(ROOT, 'test/transcripts', `${name}.md`));
      return r.code;
    };
    expect(await golden('check-sequence-generated-pr', 'pr')).toBe(0);
    expect(await golden('check-sequence-generated-base', 'base')).toBe(1);
    const j = JSON.parse((await kprof(['check', `${FE}/base`, '--rules', gen, '--format', 'json'])).stdout) as CheckJson;
    const seq = j.results.filter((x) => x.unit === 'chains');
    expect(seq.map((x) => [x.passed, x.observed, x.rank, x.step])).toEqual([
      [false, 2, '0', 21],
      [false, 0, '0', 21],
    ]);
  });
});

const isCompute = (r: Record<string, string>): boolean =>
  !r.Type!.toLowerCase().startsWith('hcom_') && (r['Accelerator Core'] ?? '').trim() !== 'COMMUNICATION';

describe.skipIf(!HAS_REAL)('sequence rules on a real export edited at test time', () => {
  // msinsight-torchnpu level1 rank 0: one step of a ResNet-style training run. The PR fuses each Conv2D ·
  // TransData · Relu of the forward pass (back to back on stream 2) into one ConvRelu kernel.
  const SRC = join(REAL, 'msinsight-torchnpu/level1/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/kernel_details.csv');
  const CHAIN = ['Conv2D', 'TransData', 'Relu'];
  let base = '';
  let pr = '';
  let expected = 0;
  let firstAt = -1;
  beforeAll(() => {
    const text = readFileSync(SRC, 'utf8');
    const lines = text.split(/\r?\n/);
    const recs = parse(text, { bom: true, columns: true, skip_empty_lines: true }) as Record<string, string>[];
    // Line i + 1 of the file is record i (no quoted line breaks in this export).
    const compute = recs.map((r, i) => (isCompute(r) ? i : -1)).filter((i) => i >= 0);
    const drop = new Set<number>();
    const rename = new Set<number>();
    for (let c = 0; c + CHAIN.length <= compute.length; c++) {
      if (!CHAIN.every((t, k) => recs[compute[c + k]!]!.Type!.trim() === t)) continue;
      if (firstAt < 0) firstAt = c;
      rename.add(compute[c]!);
      for (let k = 1; k < CHAIN.length; k++) drop.add(compute[c + k]!);
      expected++;
      c += CHAIN.length - 1;
    }
    const out = [lines[0]!];
    recs.forEach((_, i) => {
      if (drop.has(i)) return;
      out.push(rename.has(i) ? lines[i + 1]!.replace(/,Conv2D,/, ',ConvRelu,') : lines[i + 1]!);
    });
    base = join(tmp, 'real-base', 'ASCEND_PROFILER_OUTPUT');
    pr = join(tmp, 'real-pr', 'ASCEND_PROFILER_OUTPUT');
    mkdirSync(base, { recursive: true });
    mkdirSync(pr, { recursive: true });
    writeFileSync(join(base, 'kernel_details.csv'), text);
    writeFileSync(join(pr, 'kernel_details.csv'), `${out.join('\n')}\n`);
    base = join(tmp, 'real-base');
    pr = join(tmp, 'real-pr');
  });

  it('the edit made some chains to fuse', () => {
    expect(expected).toBeGreaterThanOrEqual(2);
  });

  it('a hand-written rule holds on the PR and breaks on the base at the first chain', async () => {
    const rules = rulesFile(
      'real.rules.yaml',
      [
        'rules:',
        '  - rule: conv, transdata and relu stay fused',
        `    type: [${CHAIN.join(', ')}]`,
        '    sequence: { per: step, max: 0 }',
        '  - rule: the fused kernel runs',
        '    type: [ConvRelu]',
        `    sequence: { per: step, min: ${expected} }`,
        '',
      ].join('\n'),
    );
    const onPr = JSON.parse((await kprof(['check', pr, '--rules', rules, '--base', base, '--format', 'json'])).stdout) as CheckJson;
    expect(onPr.passed).toBe(true);
    expect(onPr.results.map((x) => x.observed)).toEqual([0, expected]);
    const onBase = JSON.parse((await kprof(['check', base, '--rules', rules, '--base', base, '--format', 'json'])).stdout) as CheckJson;
    expect(onBase.passed).toBe(false);
    expect(onBase.results[0]).toMatchObject({ passed: false, observed: expected, step: 50, site: { stream: '2', index: firstAt, edits: 0 } });
    expect(onBase.results[1]).toMatchObject({ passed: false, observed: 0 });
  });

  it('kprof rules writes a sequence rule for the fusion, verified on both sides', async () => {
    const gen = join(tmp, 'real-generated.yaml');
    expect((await kprof(['rules', base, pr, '-o', gen])).code).toBe(0);
    const text = readFileSync(gen, 'utf8');
    expect(text).toContain(`    type: [${CHAIN.join(', ')}]\n    sequence: { per: step, max: 0`);
    expect(text).toContain(`    type: [ConvRelu]\n    sequence: { per: step, min: ${expected}`);
    expect((await kprof(['check', pr, '--rules', gen, '--base', base])).code).toBe(0);
    const onBase = JSON.parse((await kprof(['check', base, '--rules', gen, '--base', base, '--format', 'json'])).stdout) as CheckJson;
    const seq = onBase.results.filter((x) => x.unit === 'chains');
    expect(seq.length).toBe(2);
    expect(seq.every((x) => !x.passed)).toBe(true);
  });
});

describe('a chain that runs nowhere is a gate that matched nothing', () => {
  // Every kernel of the chain runs, but never in this order: max: 0 would hold whatever runs.
  const NOWHERE = '  - rule: never in this order\n    type: [RmsNorm, QuantBatchMatmulV3, MlaPrologV3]\n    sequence: { per: step, max: 0 }\n';
  const FUSED = '  - rule: fused\n    type: [MlaPrologV3]\n    sequence: { per: step, exactly: 2 }\n';

  it('held, and said in every format; the rules that matched still gate', async () => {
    const file = rulesFile('nowhere.yaml', `rules:\n${NOWHERE}${FUSED}`);
    const r = await kprof(['check', `${FE}/pr`, '--rules', file, '--base', `${FE}/base`]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('bound: the chain in this order at most 0 per step; the chain runs nowhere in this order in the profile or the base');
    expect(r.stdout).toContain('check passed: 2 of 2 rules held; 1 matched no kernel.');
    const json = JSON.parse((await kprof(['check', `${FE}/pr`, '--rules', file, '--base', `${FE}/base`, '--format', 'json'])).stdout) as CheckJson;
    expect(json.results.map((x) => x.unmatched)).toEqual([['RmsNorm · QuantBatchMatmulV3 · MlaPrologV3'], []]);
    const gh = await kprof(['check', `${FE}/pr`, '--rules', file, '--base', `${FE}/base`, '--format', 'github']);
    expect(gh.stdout).toMatch(/^::warning file=.*nowhere\.yaml,line=2,.*the chain runs nowhere in this order/m);
  });

  it('where the base runs the chain, it matched', async () => {
    const file = rulesFile(
      'gone.yaml',
      'rules:\n  - type: [InterleaveRope, Cast, Cast, DynamicBlockQuant, ScatterNdUpdate]\n    sequence: { per: step, max: 0 }\n',
    );
    const r = await kprof(['check', `${FE}/pr`, '--rules', file, '--base', `${FE}/base`, '--format', 'json']);
    expect(r.code).toBe(0);
    expect((JSON.parse(r.stdout) as CheckJson).results[0]!.unmatched).toEqual([]);
  });

  it('alone, it holds with a warning that it matched nothing (exit 2 under --strict)', async () => {
    const f = rulesFile('nowhere-alone.yaml', `rules:\n${NOWHERE}`);
    const warned = await kprof(['check', `${FE}/pr`, '--rules', f, '--base', `${FE}/base`]);
    expect(warned.code).toBe(0);
    expect(warned.stderr).toContain('the chain runs nowhere in this order in the profile or the base; a misspelt name would match nothing too');
    const r = await kprof(['check', `${FE}/pr`, '--rules', f, '--base', `${FE}/base`, '--strict']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('Under --strict a rule that matches nothing needs evidence.');
  });

  it('--core leaves kernels out of the groups, not of the chain: the chain and its marker still run', async () => {
    // MlaPrologV3 and LightningIndexer run on MIX_AIC, so --core AI_CORE leaves no group of either.
    const file = rulesFile(
      'core.yaml',
      'rules:\n  - type: [MlaPrologV3, LightningIndexer]\n    sequence: { per: step, exactly: 2, layer-marker: LightningIndexer }\n',
    );
    const r = await kprof(['check', `${FE}/pr`, '--rules', file, '--base', `${FE}/base`, '--core', 'AI_CORE', '--format', 'json']);
    expect(r.code, r.stderr).toBe(0);
    expect((JSON.parse(r.stdout) as CheckJson).results[0]).toMatchObject({ passed: true, observed: 2, unmatched: [] });
  });

  it('a communication kernel in a chain: exit 2, it is in no kernel sequence', async () => {
    const file = rulesFile('hcom.yaml', 'rules:\n  - type: [MlaPrologV3, hcom_allReduce_]\n    sequence: { per: step, max: 0 }\n');
    const r = await kprof(['check', `${FE}/pr`, '--rules', file, '--base', `${FE}/base`]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/hcom\.yaml:2: sequence: type "hcom_allReduce_" runs, but not in the kernel sequence a chain is read from/);
  });

  it('a layer marker that runs nowhere: exit 2, with the kernel it was likely meant to be', async () => {
    const file = rulesFile('marker.yaml', 'rules:\n  - type: [MlaPrologV3]\n    sequence: { per: step, min: 2, layer-marker: LightningIndexr }\n');
    const r = await kprof(['check', `${FE}/pr`, '--rules', file]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /marker\.yaml:2: sequence: layer-marker "LightningIndexr" is no compute kernel type in .*; did you mean "LightningIndexer"\?/,
    );
    expect(r.stdout).toBe('');
  });
});

describe('what cannot answer a sequence rule: exit 2, saying why', () => {
  const CHAIN_RULE = 'rules:\n  - type: [RmsNorm, DynamicQuant]\n    sequence: { per: total, max: 0 }\n';

  it('a Step Id column with no compute kernel in a step: said so, not that the chain holds a kernel to take out', async () => {
    const dir = join(tmp, 'empty-step-ids');
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, 'kernel_details.csv'),
      'Step Id,Name,Type,Accelerator Core,Start Time(us),Duration(us)\n,a,RmsNorm,AI_CORE,100,3\n,b,DynamicQuant,AI_CORE,104,1\n',
    );
    const r = await kprof(['check', dir, '--rules', rulesFile('empty-steps.yaml', CHAIN_RULE)]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /empty-steps\.yaml:2: the rule counts a chain of kernels in the order they ran, but .*kernel_details\.csv has no compute kernel with a Step Id\./,
    );
    expect(r.stderr).not.toContain('Take it out of the chain');
  });

  it('a summary JSON', async () => {
    const snap = join(tmp, 'pr.summary.json');
    expect((await kprof(['summary', `${FE}/pr`, '--format', 'json', '-o', snap])).code).toBe(0);
    const r = await kprof(['check', snap, '--rules', rulesFile('snap.yaml', CHAIN_RULE)]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/snap\.yaml:2: the rule counts a chain of kernels in the order they ran, but .*pr\.summary\.json is a summary JSON/);
  });

  it('a summary JSON as the base: a chain the profile never runs matched nothing (the base holds no order to show it ran)', async () => {
    const snap = join(tmp, 'base.summary.json');
    expect((await kprof(['summary', `${FE}/base`, '--format', 'json', '-o', snap])).code).toBe(0);
    // Kernels that all run, in an order that never does: under --strict, exit 2, as without a base.
    const wrong = rulesFile('snap-base.yaml', 'rules:\n  - type: [RmsNorm, QuantBatchMatmulV3, RmsNorm]\n    sequence: { per: step, max: 0 }\n');
    const r = await kprof(['check', `${FE}/pr`, '--base', snap, '--rules', wrong, '--strict']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('the base holds no kernel order to show it ever ran');
    // Beside a rule that matched: the rule holds, and says why it matched nothing.
    const both = rulesFile(
      'snap-base-2.yaml',
      'rules:\n  - type: [RmsNorm, QuantBatchMatmulV3, RmsNorm]\n    sequence: { per: step, max: 0 }\n  - type: MlaPrologV3\n    count: { per: step, min: 2 }\n',
    );
    const ok = await kprof(['check', `${FE}/pr`, '--base', snap, '--rules', both]);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toContain('the chain runs nowhere in this order in the profile, and the base holds no kernel order to show it ever ran');
    expect(ok.stdout).toContain('2 of 2 rules held; 1 matched no kernel');
  });

  it('a summary JSON as the base shows a chain of one kernel ran: its counts need no order', async () => {
    // The fused kernel as a chain of one, as kprof rules writes it; the base build (unfused) breaks it, against a
    // baseline of the PR: the rule broke, and did not match nothing.
    const snap = join(tmp, 'pr-as-base.summary.json');
    expect((await kprof(['summary', `${FE}/pr`, '--format', 'json', '-o', snap])).code).toBe(0);
    const one = rulesFile('one.yaml', 'rules:\n  - type: [MlaPrologV3]\n    sequence: { per: step, min: 2 }\n');
    const r = await kprof(['check', `${FE}/base`, '--base', snap, '--rules', one, '--format', 'json']);
    expect(r.code).toBe(1);
    const res = (JSON.parse(r.stdout) as CheckJson).results[0]!;
    expect(res).toMatchObject({ passed: false, observed: 0, unmatched: [] });
    expect(res.message).not.toContain('holds no kernel order');
  });

  it('an op_statistic export', async () => {
    const r = await kprof(['check', 'fixtures/formats/op-statistic-no-device/op_statistic.csv', '--rules', rulesFile('opstat.yaml', CHAIN_RULE)]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('holds totals per kernel group, not the kernels in the order they ran');
  });

  it('an nsys cuda_gpu_kern_sum export of no rank id: no Ascend-only advice, no rank placeholder', async () => {
    const r = await kprof(['check', 'fixtures/nsys/kern-sum', '--rules', rulesFile('kernsum.yaml', CHAIN_RULE)]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('cuda_gpu_kern_sum.csv holds totals per kernel group, not the kernels in the order they ran. Check an export');
    expect(r.stderr).toContain('kineto trace or cuda_gpu_trace)');
    expect(r.stderr).not.toContain('rank -');
  });

  it('an export without Step Id, per step or in total', async () => {
    for (const per of ['step', 'total']) {
      const r = await kprof(['check', 'fixtures/rules/no-steps', '--rules', rulesFile(`nostep-${per}.yaml`, CHAIN_RULE.replace('total', per))]);
      expect(r.code, per).toBe(2);
      expect(r.stderr, per).toContain('has no Step Id column, so its steps cannot be told apart');
    }
  });
});

describe('sequence rules: errors of the rules file exit 2 with file:line:col', () => {
  const cases: [string, string, RegExp][] = [
    [
      'unknown key',
      'rules:\n  - type: [A, B]\n    sequence: { per: step, maxx: 0 }\n',
      /:3:28: unknown key "maxx" in sequence .* Did you mean "max"\?/,
    ],
    [
      'misspelt kind',
      'rules:\n  - type: [A, B]\n    sequense: { per: step, max: 0 }\n',
      /:3:5: unknown key "sequense" in a rule; .* Did you mean "sequence"\?/,
    ],
    ['empty chain', 'rules:\n  - type: []\n    sequence: { max: 0 }\n', /:2:11: type: the list is empty/],
    ['no bound', 'rules:\n  - type: [A, B]\n    sequence: { per: step }\n', /:3:15: sequence: expected min:, max: or exactly:/],
    ['a chain by match:', 'rules:\n  - match: /Rope/\n    sequence: { max: 0 }\n', /:2:5: sequence: the chain is the rule's type: or name: list/],
    ['a count past the limit', 'rules:\n  - type: [A]\n    sequence: { max: 1e12 }\n', /:3:22: sequence: max: expected at most 1,000,000,000 chains/],
    ['a negative count', 'rules:\n  - type: [A]\n    sequence: { min: -1 }\n', /:3:22: sequence: min: expected a whole number of chains/],
  ];
  for (const [what, text, message] of cases) {
    it(what, async () => {
      const r = await kprof(['check', `${FE}/pr`, '--rules', rulesFile(`${what.replace(/\W/g, '-')}.yaml`, text)]);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(r.stdout).toBe('');
    });
  }

  it('a chain longer than 1,000 kernels', async () => {
    const chain = Array.from({ length: 1001 }, (_, i) => `K${i}`).join(', ');
    const r = await kprof(['check', `${FE}/pr`, '--rules', rulesFile('long.yaml', `rules:\n  - type: [${chain}]\n    sequence: { max: 0 }\n`)]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/long\.yaml:2:11: sequence: the chain has 1001 kernels; at most 1000 are allowed/);
  });

  it('chains by type and by name in one file', async () => {
    const r = await kprof([
      'check',
      `${FE}/pr`,
      '--rules',
      rulesFile('mixed.yaml', 'rules:\n  - type: [A]\n    sequence: { max: 0 }\n  - name: [B]\n    sequence: { max: 0 }\n'),
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/mixed\.yaml:4: this sequence rule gives its chain by name, but the one at .*mixed\.yaml:2 gives it by type/);
  });

  it('hostile names in a chain are escaped in the report', async () => {
    const r = await kprof([
      'check',
      `${FE}/base`,
      '--rules',
      rulesFile('hostile.yaml', 'rules:\n  - type: ["RmsNorm", "Evil\\u001b[31m\\nFAIL x"]\n    sequence: { per: step, min: 1 }\n'),
    ]);
    expect(r.code).toBe(1);
    expect(r.stdout).not.toContain('\u001b');
    expect(r.stdout.split('\n').some((l) => l.startsWith('FAIL x'))).toBe(false);
  });
});

describe('the layer of a site, by a marker that starts each layer', () => {
  it('a chain at the end of each layer is in its own layer, not the next (the nearest marker)', async () => {
    // 4 layers of S E G L A B C per step (S starts each layer), 2 steps: the chain A B C is nearer the next S.
    const dir = join(tmp, 'layer-start', 'r0_ascend_pt', 'ASCEND_PROFILER_OUTPUT');
    mkdirSync(dir, { recursive: true });
    const rows = ['Step Id,Stream ID,Name,Type,Accelerator Core,Start Time(us),Duration(us)'];
    let t = 1000;
    for (const step of [1, 2])
      for (let l = 0; l < 4; l++)
        for (const k of ['S', 'E', 'G', 'L', 'A', 'B', 'C']) {
          rows.push(`${step},2,${k},${k},AI_CORE,${t},5`);
          t += 10;
        }
    writeFileSync(join(dir, 'kernel_details.csv'), `${rows.join('\n')}\n`);
    const rules = rulesFile('layer-start.yaml', 'rules:\n  - type: [A, B, C]\n    sequence: { per: step, max: 0, layer-marker: S }\n');
    const r = await kprof(['check', join(tmp, 'layer-start'), '--rules', rules, '--format', 'json']);
    expect(r.code).toBe(1);
    const [res] = (JSON.parse(r.stdout) as CheckJson).results;
    expect(res!.site).toEqual({ stream: '2', index: 4, of: 28, layer: 0, edits: 0 });
  });
});
