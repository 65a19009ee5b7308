// kprof check can be trusted: a selector that matches nothing says so (or, when it is close to a kernel that
// exists, stops as a mistake), nothing read or nothing selected never passes, skipped rows are in every format,
// and the options agree with summary and diff (--rank, --steps and the filters; table and text).

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { CheckJson } from '../src/model/schema.js';
import fc from 'fast-check';
import { closest, distance, distanceWithin, MAX_COMPARED, newBudget } from '../src/util/nearName.js';
import { shapeHint } from '../src/rules/shapeHints.js';
import { kprof, REAL_REL, realData } from './helpers.js';

const HAS_REAL = realData(import.meta.url);

const R = 'fixtures/rules';
const PR = `${R}/one-rank/pr`;
const BASE = `${R}/one-rank/base`;
const tmp = mkdtempSync(join(tmpdir(), 'kprof-gates-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

let n = 0;
/** A rules file in the temp folder. */
function rules(text: string): string {
  const p = join(tmp, `r${n++}.yaml`);
  writeFileSync(p, text);
  return p;
}

const HEADER = 'Step Id,Name,Type,Accelerator Core,Start Time(us),Duration(us),Wait Time(us),Block Dim';

describe('a selector that matches nothing', () => {
  it('close to a kernel of the base: a warning with file:line and did you mean; exit 2 under --strict', async () => {
    const f = rules('rules:\n  - rule: InterleaveRope stays removed\n    type: InterleaveRop\n    absent: true\n');
    const warned = await kprof(['check', PR, '--rules', f, '--base', BASE]);
    expect(warned.code).toBe(0);
    expect(warned.stderr).toMatch(
      /^kprof: warning: .*r\d+\.yaml:2: type "InterleaveRop" matches no kernel .*did you mean "InterleaveRope"\?.*--strict makes this an error\.\n$/,
    );
    const r = await kprof(['check', PR, '--rules', f, '--base', BASE, '--strict']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(
      /r\d+\.yaml:2: type "InterleaveRop" matches no kernel in fixtures\/rules\/one-rank\/pr nor in the base fixtures\/rules\/one-rank\/base; did you mean "InterleaveRope"\?/,
    );
  });

  it('the report says what the rule most likely meant too, in every format, and so does a name cut short', async () => {
    const f = rules(
      'rules:\n  - rule: typo\n    type: InterleaveRop\n    absent: true\n  - rule: cut short\n    type: Interleave\n    absent: true\n',
    );
    const text = await kprof(['check', PR, '--rules', f, '--base', BASE]);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(
      'typo: none; bound: absent; type InterleaveRop matches no kernel in the profile or the base, and the rule gives no evidence that it ever ran; did you mean InterleaveRope?\n',
    );
    expect(text.stdout).toContain(
      'cut short: none; bound: absent; type Interleave matches no kernel in the profile or the base, and the rule gives no evidence that it ever ran; did you mean InterleaveRope?\n',
    );
    expect(text.stderr).toMatch(/r\d+\.yaml:5: type "Interleave" matches no kernel .*; did you mean "InterleaveRope"\? /);
    const json = JSON.parse((await kprof(['check', PR, '--rules', f, '--base', BASE, '--format', 'json'])).stdout) as CheckJson;
    expect(json.results.map((r) => r.message.endsWith('; did you mean InterleaveRope?'))).toEqual([true, true]);
    for (const format of ['markdown', 'junit', 'github', 'html']) {
      const out = (await kprof(['check', PR, '--rules', f, '--base', BASE, '--format', format])).stdout;
      expect(out, format).toContain('did you mean');
    }
    // A rule with evidence is taken as meant: no hint.
    const meant = await kprof(['check', PR, '--rules', rules('rules:\n  - type: InterleaveRop\n    absent: true\n    evidence: { note: gone }\n')]);
    expect(meant.stdout).not.toContain('did you mean');
  });

  it('a suggested name from the input is escaped in the warning and the report, never raw', async () => {
    const csv = join(tmp, 'hostile-near.csv');
    writeFileSync(csv, `${HEADER}\n1,aclnnRope,Inter\u001bleave\u202eRope,AI_VECTOR_CORE,1.0,2.0,0,8\n`);
    const r = await kprof(['check', csv, '--rules', rules('rules:\n  - type: InterleaveRope\n    absent: true\n')]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('did you mean "Inter\\x1bleave\\u202eRope"?');
    expect(r.stdout).toContain('did you mean Inter\\x1bleave\\u202eRope?');
    expect(`${r.stdout}${r.stderr}`).not.toMatch(/[\u001b\u202e]/);
  });

  it('the same but for case, and a name given as a type: exit 2 under --strict', async () => {
    const lower = await kprof(['check', PR, '--strict', '--rules', rules('rules:\n  - type: cast\n    count: { max: 9 }\n')]);
    expect(lower.code).toBe(2);
    expect(lower.stderr).toContain('type "cast" matches no kernel in fixtures/rules/one-rank/pr; did you mean "Cast"?');
    const asType = await kprof(['check', PR, '--strict', '--rules', rules('rules:\n  - type: aclnnCast_Cast_Cast\n    absent: true\n')]);
    expect(asType.code).toBe(2);
    expect(asType.stderr).toContain('"aclnnCast_Cast_Cast" is a kernel name; did you mean name: "aclnnCast_Cast_Cast"?');
  });

  it('a misspelt member of a group: exit 2 under --strict', async () => {
    const r = await kprof([
      'check',
      PR,
      '--strict',
      '--rules',
      rules('groups:\n  g: [MatMulV2, AddRmsNorn]\nrules:\n  - group: g\n    count: { max: 99 }\n'),
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('group g: "AddRmsNorn" matches no kernel in fixtures/rules/one-rank/pr; did you mean "AddRmsNorm"?');
  });

  it('another kernel of the same family is not a typo: the rule is evaluated and says it matched nothing', async () => {
    // MatMulV3 (digits), MatMulV2s / Casts / AddRmsNormD (variant suffixes), Mla (too short to guess at).
    const family = rules(
      'rules:\n  - type: [MatMulV2s, Casts, AddRmsNormD, MatMul, Mla]\n    absent: true\n  - kernels: all\n    count: { min: 2 }\n',
    );
    const fr = await kprof(['check', PR, '--rules', family]);
    // Not a typo, but nothing says these ever ran: a warning that says how to give evidence.
    expect(fr.stderr).toMatch(
      /^kprof: warning: .*r\d+\.yaml:2: type MatMulV2s, Casts, AddRmsNormD, MatMul, Mla match no kernel in the profile, and the rule gives no evidence that it ever ran; .*evidence: \{ note: "…" \}.*\n$/,
    );
    expect(fr.code).toBe(0);
    expect(fr.stdout).toContain('type MatMulV2s, Casts, AddRmsNormD, MatMul, Mla match no kernel in the profile');
    const f = rules('rules:\n  - type: MatMulV3\n    absent: true\n  - type: Cast\n    present: true\n');
    const r = await kprof(['check', PR, '--rules', f]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(
      ':2  type MatMulV3: none; bound: absent; type MatMulV3 matches no kernel in the profile, and the rule gives no evidence that it ever ran\n',
    );
    expect(r.stdout).toMatch(/:4 {2}type Cast: 4 kernels; bound: present\n/);
    expect(r.stdout).toContain('check passed: 2 of 2 rules held; 1 matched no kernel.');
  });

  it('a rule of many values that match nothing names the first 8 and how many more on its line; JSON has every one', async () => {
    const values = Array.from({ length: 20 }, (_, i) => `Gone${String(i).padStart(2, '0')}Kernel`);
    const f = rules(`rules:\n  - type: [${values.join(', ')}]\n    absent: true\n`);
    const r = await kprof(['check', PR, '--rules', f]);
    expect(r.code).toBe(0);
    const listed = `type ${values.slice(0, 8).join(', ')} and 12 more match no kernel in the profile`;
    expect(r.stdout).toContain(listed);
    expect(r.stderr).toContain(listed);
    expect(r.stdout).not.toContain(values[8]);
    expect(r.stderr).not.toContain(values[8]);
    const json = JSON.parse((await kprof(['check', PR, '--rules', f, '--format', 'json'])).stdout) as CheckJson;
    expect(json.results[0]!.unmatched).toEqual(values);
    expect(json.results[0]!.message).toContain(listed);
  });

  it('is said in every format', async () => {
    const f = rules(
      'rules:\n  - rule: FooBar stays away\n    type: FooBar\n    absent: true\n  - match: /^nothing$/\n    count: { max: 1 }\n  - type: Cast\n    present: true\n',
    );
    const json = JSON.parse((await kprof(['check', PR, '--rules', f, '--base', BASE, '--format', 'json'])).stdout) as CheckJson;
    expect(json.passed).toBe(true);
    expect(json.results.map((x) => x.unmatched)).toEqual([['FooBar'], ['/^nothing$/'], []]);
    expect(json.results[0]!.message).toBe(
      'none; bound: absent; type FooBar matches no kernel in the profile or the base, and the rule gives no evidence that it ever ran',
    );
    expect(json.results.map((x) => x.evidence)).toEqual([null, null, null]);
    const junit = (await kprof(['check', PR, '--rules', f, '--format', 'junit'])).stdout;
    expect(junit).toContain('<system-out>note: none; bound: absent; type FooBar matches no kernel in the profile');
    const gh = (await kprof(['check', PR, '--rules', f, '--format', 'github'])).stdout;
    expect(gh).toMatch(
      /^::warning file=.*r\d+\.yaml,line=2,col=5,title=kprof check%3A FooBar stays away::none; bound: absent; type FooBar matches no kernel in the profile, and the rule gives no evidence that it ever ran\n/,
    );
    expect(gh).toContain('match /^nothing$/ matches no kernel in the profile');
    const md = (await kprof(['check', PR, '--rules', f, '--format', 'markdown'])).stdout;
    expect(md).toContain('none; type `FooBar` matches no kernel in the profile');
    expect(md).toContain('**check passed: 3 of 3 rules held; 2 matched no kernel.**');
  });

  it.skipIf(!HAS_REAL)(
    'a communication kernel written with a per-run counter that never ran: exit 2 under --strict with the name kprof uses',
    async () => {
      const f = rules('rules:\n  - name: hcom_allReduce__587_0_1\n    count: { max: 1 }\n');
      const r = await kprof(['check', `${REAL_REL}/msinsight-torchnpu/level1`, '--rules', f, '--strict']);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(
        'name "hcom_allReduce__587_0_1" matches no kernel in ../shared/data/real/msinsight-torchnpu/level1; communication kernels are named with their counters folded; did you mean "hcom_allReduce__*"?',
      );
    },
  );

  it.skipIf(!HAS_REAL)('a communication kernel written with the raw name the file has is that kernel, not a typo', async () => {
    const f = rules('rules:\n  - name: hcom_allReduce__586_0_1\n    count: { max: 1 }\n');
    const r = await kprof(['check', `${REAL_REL}/msinsight-torchnpu/level1`, '--rules', f]);
    expect(r.stderr).not.toContain('did you mean');
    expect(r.code).toBe(0);
  });
});

describe('nothing read, nothing passed', () => {
  it('a rules file none of whose rules matches a kernel: held on absence, a warning for each rule; exit 2 under --strict', async () => {
    const f = rules('rules:\n  - type: FooBar\n    absent: true\n  - match: ^nothing$\n    count: { max: 1 }\n');
    const warned = await kprof(['check', PR, '--rules', f]);
    expect(warned.code).toBe(0);
    expect(
      warned.stderr.match(/^kprof: warning: .*matches no kernel in the profile, and the rule gives no evidence that it ever ran/gm),
    ).toHaveLength(2);
    const r = await kprof(['check', PR, '--rules', f, '--strict']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(
      /r\d+\.yaml:2: type FooBar matches no kernel in the profile, and the rule gives no evidence that it ever ran; .* \(and 1 rule more\) Under --strict a rule that matches nothing needs evidence\./,
    );
    // A rule that breaks on nothing (a kernel that should run and does not) is a broken gate: exit 1, not 2.
    const broke = await kprof(['check', PR, '--rules', rules('rules:\n  - type: FooBar\n    present: true\n')]);
    expect(broke.code).toBe(1);
    expect(broke.stdout).toContain('check failed: 1 of 1 rule broken; 0 held; 1 matched no kernel.');
    // One rule that matches is enough: the others are reported as matching nothing.
    const g = rules('rules:\n  - type: FooBar\n    absent: true\n  - type: Cast\n    present: true\n');
    expect((await kprof(['check', PR, '--rules', g])).code).toBe(0);
  });

  it('every row skipped: exit 2, never "check passed"', async () => {
    const csv = join(tmp, 'all-skipped.csv');
    writeFileSync(csv, `${HEADER}\n1,aclnnCast_Cast_Cast,Cast,AI_VECTOR_CORE,1.0,fast,0,8\n1,aclnnCast_Cast_Cast,Cast,AI_VECTOR_CORE,2.0,-1,0,8\n`);
    const r = await kprof(['check', csv, '--rules', rules('rules:\n  - type: Cast\n    absent: true\n')]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).not.toContain('check passed');
    expect(r.stderr).toMatch(/all-skipped\.csv: no kernel could be read: every one of its 2 rows was skipped\. The first: .*all-skipped\.csv:2: /);
  });

  it('a selection that leaves no kernel: exit 2 with the reason', async () => {
    const f = rules('rules:\n  - type: Cast\n    absent: true\n');
    const steps = await kprof(['check', PR, '--rules', f, '--steps', '99']);
    expect(steps.code).toBe(2);
    expect(steps.stderr).toContain('--steps 99: fixtures/rules/one-rank/pr has no step 99; its steps are 1-3.');
    const match = await kprof(['check', PR, '--rules', f, '--match', 'NoSuchKernel']);
    expect(match.code).toBe(2);
    expect(match.stderr).toContain('the selection --match NoSuchKernel leaves no kernel');
    const core = await kprof(['check', PR, '--rules', f, '--core', 'AIC']);
    expect(core.code).toBe(2);
    expect(core.stderr).toContain('the selection --core AIC leaves no kernel (it has cores AI_CORE, AI_VECTOR_CORE, MIX_AIC and Step Id 1-3).');
    const base = await kprof(['check', PR, '--rules', f, '--base', BASE, '--exclude', 'MatMul|Mla|Cast|Norm|Rope|Quant|Scatter']);
    expect(base.code).toBe(2);
    expect(base.stdout).toBe('');
  });

  it('a rank without a step in --steps: exit 2', async () => {
    const csv = join(tmp, 'two-ranks');
    for (const [rank, step] of [
      ['0', 1],
      ['1', 5],
    ] as const) {
      mkdirSync(join(csv, `rank${rank}_ascend_pt/ASCEND_PROFILER_OUTPUT`), { recursive: true });
      writeFileSync(
        join(csv, `rank${rank}_ascend_pt/ASCEND_PROFILER_OUTPUT/kernel_details.csv`),
        `${HEADER}\n${step},aclnnCast_Cast_Cast,Cast,AI_VECTOR_CORE,1.0,2.0,0,8\n`,
      );
    }
    const r = await kprof(['check', csv, '--rules', rules('rules:\n  - type: Cast\n    count: { max: 1 }\n'), '--steps', '1']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('rank 1 has no step in the selection --steps 1 (it has Step Id 5-5 on rank 1)');
  });
});

describe('check takes --rank, --steps and the filters', () => {
  const MULTI = [`${R}/multi-rank-one-breaks/profile`, '--rules', `${R}/multi-rank-one-breaks/kprof.rules.yaml`];

  it('--rank: only those ranks are checked', async () => {
    expect((await kprof(['check', ...MULTI])).code).toBe(1);
    const r = await kprof(['check', ...MULTI, '--rank', '0']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('check passed: 3 of 3 rules held.');
  });

  it('--steps: only those steps are checked', async () => {
    const f = rules('rules:\n  - type: Cast\n    count: { per: step, exactly: 1 }\n');
    expect((await kprof(['check', `${R}/one-rank/regressed`, '--rules', f])).code).toBe(1);
    const r = await kprof(['check', `${R}/one-rank/regressed`, '--rules', f, '--steps', '3']);
    expect(r.stdout).toContain('highest 1 kernel per step');
    expect(r.code).toBe(0);
  });

  it('--match / --exclude / --core narrow the kernels the rules see', async () => {
    const f = rules('rules:\n  - kernels: all\n    count: { per: step, max: 2 }\n');
    expect((await kprof(['check', PR, '--rules', f])).code).toBe(1);
    expect((await kprof(['check', PR, '--rules', f, '--match', 'MatMul'])).code).toBe(0);
    expect((await kprof(['check', PR, '--rules', f, '--exclude', 'MatMul|Mla|Norm'])).code).toBe(0);
    expect((await kprof(['check', PR, '--rules', f, '--core', 'AI_CORE'])).code).toBe(0);
  });

  it('a rules file may set steps: for every rule; a rule of its own wins', async () => {
    const f = rules(
      'steps: 3\nrules:\n  - type: Cast\n    count: { per: step, exactly: 1 }\n  - type: Cast\n    count: { per: step, exactly: 1 }\n    steps: 1-3\n',
    );
    const r = await kprof(['check', `${R}/one-rank/regressed`, '--rules', f, '--format', 'json']);
    const j = JSON.parse(r.stdout) as CheckJson;
    expect(j.results.map((x) => x.passed)).toEqual([true, false]);
    expect(j.results[0]!.rule).toBe('type Cast: exactly 1 per step in step 3');
  });
});

describe('a rule that no run can pass', () => {
  it('kernels: all with absent: true stops before the profile is read, naming the file and line (exit 2)', async () => {
    const f = rules('rules:\n  - type: Cast\n    count: { max: 9 }\n  - rule: nothing at all runs\n    kernels: all\n    absent: true\n');
    const r = await kprof(['check', `${R}/no-such-profile`, '--rules', f]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^kprof: .*r\d+\.yaml:4:5: kernels: all with absent: true can never hold: .* To keep kernels out, name them/);
  });
});

describe('a time bound without a unit', () => {
  it("is read as µs, and check says so in one note naming the rule's line (the verdict stands)", async () => {
    const f = rules(
      'rules:\n  - type: Cast\n    count: { max: 9 }\n  - rule: Cast time\n    type: Cast\n    time: { max: 150 }\n  - type: Cast\n    time: { min: 1, max: 2ms }\n',
    );
    const r = await kprof(['check', PR, '--rules', f]);
    expect(r.code).toBe(0);
    const notes = r.stderr.split('\n').filter((l) => l.includes('has no unit'));
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatch(
      /^kprof: note: .*r\d+\.yaml:4: time: max: 150 has no unit, read as 150 µs \(150us\); so is 1 more, at line 7\. Write the unit \(150us, 1\.5ms, 2s\) to say which is meant\.$/,
    );
    // With units, nothing is said.
    const quiet = await kprof(['check', PR, '--rules', rules('rules:\n  - type: Cast\n    time: { max: 150us }\n')]);
    expect(quiet.stderr).not.toContain('has no unit');
    // The number as the file writes it (the line holds no 16 to find), and what it was read as.
    const hex = await kprof(['check', PR, '--rules', rules('rules:\n  - type: Cast\n    time: { max: 0x10 }\n')]);
    expect(hex.stderr).toMatch(/r\d+\.yaml:2: time: max: 0x10 has no unit, read as 16 µs \(16us\)\./);
  });
});

describe('a percentage written as a bare number below 1', () => {
  it("is read as that many per cent, and check says so in one note naming the rule's line (the verdict stands)", async () => {
    const f = rules(
      'rules:\n  - type: Cast\n    count-vs-base: { fell-by-at-least: 0.2 }\n  - type: Cast\n    time-vs-base: { rose-by-at-most: 0.5 }\n',
    );
    const r = await kprof(['check', PR, '--base', BASE, '--rules', f, '--format', 'json']);
    const notes = r.stderr.split('\n').filter((l) => l.includes('not as the fraction'));
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatch(
      /^kprof: note: .*r\d+\.yaml:2: count-vs-base: fell-by-at-least: 0\.2 is read as 0\.2%, not as the fraction 0\.2 \(20%\); so is 1 more, at line 4\. Write the % sign \(0\.2% or 20%\) to say which is meant\.$/,
    );
    // The bound is 0.2% as the note says.
    expect((JSON.parse(r.stdout) as CheckJson).results[0]!.rule).toContain('fell by at least 0.2%');
    // With the % sign, or a bare number of 1 or more, nothing is said.
    for (const text of ['{ fell-by-at-least: 0.2% }', '{ fell-by-at-least: 20 }', '{ fell-by-at-least: 0.2 %  }']) {
      const quiet = await kprof(['check', PR, '--base', BASE, '--rules', rules(`rules:\n  - type: Cast\n    count-vs-base: ${text}\n`)]);
      expect(quiet.stderr).not.toContain('not as the fraction');
    }
  });
});

describe('check reports skipped rows in every format', () => {
  const csv = join(tmp, 'one-bad-row.csv');
  writeFileSync(csv, `${HEADER}\n1,aclnnCast_Cast_Cast,Cast,AI_VECTOR_CORE,1.0,2.0,0,8\n1,aclnnCast_Cast_Cast,Cast,AI_VECTOR_CORE,2.0,fast,0,8\n`);
  const f = () => rules('rules:\n  - type: Cast\n    count: { max: 1 }\n');

  it('text, json, junit, github, markdown', async () => {
    const rf = f();
    const text = await kprof(['check', csv, '--rules', rf]);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('\nread: 1 kernel, 1 row skipped\n');
    const json = JSON.parse((await kprof(['check', csv, '--rules', rf, '--format', 'json', '--base', BASE])).stdout) as CheckJson;
    expect(json.read).toEqual({ kernels: 1, skippedRows: 1 });
    expect(json.baseRead).toEqual({ kernels: 31, skippedRows: 0 });
    const junit = (await kprof(['check', csv, '--rules', rf, '--format', 'junit'])).stdout;
    expect(junit).toContain('<property name="skippedRows" value="1" />');
    const gh = (await kprof(['check', csv, '--rules', rf, '--format', 'github'])).stdout;
    expect(gh).toContain('::warning title=kprof check%3A skipped rows::read: 1 kernel, 1 row skipped');
    const md = (await kprof(['check', csv, '--rules', rf, '--format', 'markdown'])).stdout;
    expect(md).toContain('read: 1 kernel, 1 row skipped');
  });

  it('--strict still makes a skipped row an error', async () => {
    expect((await kprof(['check', csv, '--rules', f(), '--strict'])).code).toBe(2);
  });
});

describe('options agree across commands', () => {
  it('table and text name the text format everywhere', async () => {
    const f = rules('rules:\n  - type: Cast\n    count: { max: 9 }\n');
    expect(await kprof(['check', PR, '--rules', f, '--format', 'table'])).toEqual(await kprof(['check', PR, '--rules', f, '--format', 'text']));
    expect(await kprof(['summary', PR, '--format', 'text'])).toEqual(await kprof(['summary', PR, '--format', 'table']));
    expect(await kprof(['diff', BASE, PR, '--format', 'text'])).toEqual(await kprof(['diff', BASE, PR]));
    expect(await kprof(['inspect', PR, '--format', 'table'])).toEqual(await kprof(['inspect', PR]));
    const audit = await kprof(['audit', PR, '--format', 'text']);
    expect(audit.code, audit.stderr).toBe(0);
    expect(audit).toEqual(await kprof(['audit', PR]));
    expect(await kprof(['audit', '--list', '--format', 'text'])).toEqual(await kprof(['audit', '--list']));
  });

  it("commander's own usage errors start with kprof: and exit 2", async () => {
    for (const args of [['check', PR], ['summary', PR, '--nope'], ['rules', BASE], ['summary', PR, '--format', 'xml'], ['nope']]) {
      const r = await kprof(args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr, args.join(' ')).toMatch(/^kprof: /);
    }
  });
});

describe('rules against a base whose kernels took no time', () => {
  it('say the base had no time, not that the kernels were not in it', async () => {
    const base = join(tmp, 'zero-base.csv');
    const pr = join(tmp, 'zero-pr.csv');
    writeFileSync(base, `${HEADER}\n1,a,A,AI_CORE,1,0,0,1\n1,b,B,AI_CORE,2,0,0,1\n`);
    writeFileSync(pr, `${HEADER}\n1,a,A,AI_CORE,1,0,0,1\n1,b,B,AI_CORE,2,5,0,1\n1,c,C,AI_CORE,9,1,0,1\n`);
    const f = rules('rules:\n  - kernels: all\n    time-vs-base: { rose-by-at-most: 1% }\n  - type: C\n    count-vs-base: { rose-by-at-most: 1% }\n');
    const r = await kprof(['check', pr, '--rules', f, '--base', base]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('all kernels: 0 µs → 6.00 µs (no time in the base); bound: time rose by at most 1.0% against the base');
    // A count of 0 in the base is a kernel not in it.
    expect(r.stdout).toContain('type C: 0 → 1 (not in the base)');
  });
});

describe('did you mean: the edit distance within the edits allowed', () => {
  it('is the edit distance when it is at most the limit, else the limit + 1', () => {
    const text = fc.string({ unit: fc.constantFrom('a', 'b', 'c'), maxLength: 12 });
    fc.assert(
      fc.property(text, text, fc.integer({ min: 0, max: 3 }), (a, b, limit) => {
        expect(distanceWithin(a, b, limit)).toBe(Math.min(distance(a, b), limit + 1));
      }),
      { numRuns: 2000 },
    );
  });

  it('compares within a budget shared by the values of a file: past it, only the look-ups of case and prefix', () => {
    const pool = Array.from({ length: 100_000 }, (_, i) => `Kernel${String(i).padStart(6, '0')}x`);
    const wanted = pool[pool.length - 1]!;
    const typo = wanted.replace(/x$/, 'y');
    expect(closest(typo, pool)).toBe(wanted);
    // The letter-by-letter scan stops when the budget is spent, however many names are left.
    const small = newBudget(10_000);
    expect(closest(typo, pool, small)).toBeNull();
    expect(small.cells).toBeGreaterThanOrEqual(0);
    expect(small.cells).toBeLessThan(10_000);
    // Case and a name cut short are one look-up each: found with no budget at all.
    expect(closest(wanted.toUpperCase(), pool, newBudget(0))).toBe(wanted);
    expect(closest('Kerne', ['Kernel099999x'], newBudget(0))).toBeNull(); // less than half of it
    expect(closest('InterleaveR', ['InterleaveRope', 'Cast'], newBudget(0))).toBe('InterleaveRope');
    expect(closest('scatterndupdat', ['ScatterNdUpdate'], newBudget(0))).toBe('ScatterNdUpdate');
    // Kernels of one family are not a name cut short, nor are names of under 5 letters.
    expect(closest('ReduceSum', ['ReduceSumD'], newBudget(0))).toBeNull();
    expect(closest('Mla', ['MlaProlog'], newBudget(0))).toBeNull();
    // A value longer than any name compared is not compared.
    expect(closest(`${'a'.repeat(MAX_COMPARED)}b`, [`${'a'.repeat(MAX_COMPARED)}c`])).toBeNull();
  });

  it('tries a value of many * on each name at the cost of the name, not of the value', () => {
    // 10,000 parts, empty ones between the stars: each name was tried with all of them (and the parts copied per
    // name), so a rules file's one value on a profile of 200,000 names ran for minutes.
    const pool = new Set(Array.from({ length: 500 }, (_, i) => `Kernel${i}0`));
    const value = `K${'*'.repeat(10_000)}z*0`;
    const indexOf = String.prototype.indexOf;
    let lookups = 0;
    String.prototype.indexOf = function (this: string, ...args: Parameters<string['indexOf']>): number {
      lookups++;
      return indexOf.apply(this, args);
    };
    try {
      expect(shapeHint('type', value, pool, newBudget())).toBeNull();
    } finally {
      String.prototype.indexOf = indexOf;
    }
    expect(lookups).toBeLessThanOrEqual(pool.size);
    // The stars still match as a glob: runs of them are one, and the parts between them are looked for in order.
    expect(shapeHint('type', `K${'*'.repeat(10_000)}19*0`, pool, newBudget())).not.toBeNull();
    expect(shapeHint('type', 'K*2*1*0', new Set(['Kernel120']), newBudget())).toBeNull();
    expect(shapeHint('type', 'K*1*2*0', new Set(['Kernel120']), newBudget())).not.toBeNull();
  });

  it('finds a long name one edit away among many long names', async () => {
    const names = Array.from({ length: 300 }, (_, i) => `void kernel_${'ab'.repeat(90)}_${String(i).padStart(4, '0')}`);
    const file = join(tmp, 'long-names.csv');
    writeFileSync(file, `${HEADER}\n${names.map((n, i) => `1,${n},T,AI_CORE,${i},1,0,1`).join('\n')}\n`);
    const typo = names[123]!.replace('kernel', 'kernal');
    const r = await kprof(['check', file, '--rules', rules(`rules:\n  - name: "${typo}"\n    absent: true\n`)]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`did you mean "${names[123]}"?`);
  });
});
