// kprof rules on a partial fusion made from a real export: the fusion took effect on one rank only, and on
// another rank in some steps only. The rules it writes must all hold on the PR and break on the base (the cap on
// all kernels excepted, as its comment says); no `present` rule may fail on the PR, and no limit may sit at or
// above the base's own level. `check` with a misspelt type stops with a suggestion.

import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readProfile } from '../src/input/read.js';
import { SEQUENCE_RECORDER } from '../src/analysis/rewrites/recorderSink.js';
import { evaluate } from '../src/rules/evaluate.js';
import { parseRules } from '../src/rules/parse.js';
import { kprof, REAL, realData } from './helpers.js';

const HAS_REAL = realData(import.meta.url);

const LEVEL1 = join(REAL, 'msinsight-torchnpu/level1');
const STEPS = [1, 2, 3, 4];
const tmp = mkdtempSync(join(tmpdir(), 'kprof-partial-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** A rank's kernel_details.csv of the real export: header and data lines (one row per line in this export). */
function rows(rank: number): { header: string; lines: string[] } {
  const text = readFileSync(join(LEVEL1, `rank${rank}_ascend_pt/ASCEND_PROFILER_OUTPUT/kernel_details.csv`), 'utf8');
  const [header, ...lines] = text.split('\r\n').filter((l) => l !== '');
  return { header: header!, lines };
}

/** Name and Type, the 5th and 6th columns (the columns before them are never quoted). */
function typeOf(line: string): string {
  return line.split(',', 6)[5]!;
}

/** The real run repeated as steps 1-4 (Step Id is the first column), each line passed through `edit`. */
function write(root: string, rank: number, edit: (line: string, step: number) => string[]): void {
  const { header, lines } = rows(rank);
  const out = [header];
  for (const step of STEPS) for (const l of lines) out.push(...edit(l.replace(/^\d+,/, `${step},`), step));
  const dir = join(root, `rank${rank}_ascend_pt/ASCEND_PROFILER_OUTPUT`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'kernel_details.csv'), `${out.join('\r\n')}\r\n`);
}

const BASE = join(tmp, 'base');
const PR = join(tmp, 'pr');

beforeAll(() => {
  if (!HAS_REAL) return;
  // The base's rank 1 runs every Relu twice.
  write(BASE, 0, (l) => [l]);
  write(BASE, 1, (l) => (typeOf(l) === 'Relu' ? [l, l] : [l]));
  // Rank 0: in steps 3 and 4 only, every Mul is fused with its neighbour into a FusedMulAdd (one kernel for two).
  let pending = false;
  let reluStep = 0;
  write(PR, 0, (l, step) => {
    if (step < 3 || typeOf(l) !== 'Mul') return [l];
    pending = !pending;
    if (!pending) return [];
    const cols = l.split(',');
    cols[4] = 'aclnnFusedMulAdd_FusedMulAdd_FusedMulAdd';
    cols[5] = 'FusedMulAdd';
    return [cols.join(',')];
  });
  // Rank 1: DropOutDoMask is fused away in every step, and only 3 of its (base: 14) Relu per step are left.
  let relu = 0;
  write(PR, 1, (l, step) => {
    if (typeOf(l) === 'DropOutDoMask') return [];
    if (typeOf(l) !== 'Relu') return [l];
    relu = step === reluStep ? relu + 1 : 1;
    reluStep = step;
    return relu <= 3 ? [l] : [];
  });
});

describe.skipIf(!HAS_REAL)('kprof rules on a partial fusion (real level1 export, rebuilt as 4 steps)', () => {
  it('writes rules that all hold on the PR and break on the base', async () => {
    const gen = await kprof(['rules', BASE, PR]);
    expect(gen.code).toBe(0);
    expect(gen.stderr).toBe('');
    const text = gen.stdout;
    const set = parseRules('generated.rules.yaml', text);
    const [base, pr] = await Promise.all(
      [BASE, PR].map((p) =>
        readProfile(resolve(p), { withShapes: false, ranks: null, beside: { kind: SEQUENCE_RECORDER, options: { by: 'type' } } }),
      ),
    );
    const onPr = evaluate(pr!, null, set);
    expect(onPr.results.filter((r) => !r.passed).map((r) => r.rule.label)).toEqual([]);
    const onBase = evaluate(base!, null, set);
    const holdOnBase = onBase.results.filter((r) => r.passed).map((r) => r.rule.label);
    // Only the cap on all kernels may hold on the base, and its comment says why it is kept.
    expect(holdOnBase.every((l) => l?.startsWith('total kernels stay at most'))).toBe(true);
    expect(text).toMatch(/# Verified before writing: all \d+ rules hold on the PR and \d+ of them break on the base/);

    // The fused rank gets its own rule; the other rank, which still runs DropOutDoMask, gets none.
    expect(text).toMatch(
      / {2}- rule: DropOutDoMask stays removed on rank 1\n {4}type: DropOutDoMask\n {4}absent: true\n {4}ranks: \[1\]\n {4}evidence: \{ base-count: [1-9]\d* \}\n/,
    );
    expect(text).toContain(
      '  # Not written: a maximum on DropOutDoMask on rank 0; no count of it in a step or in the run is lower there than in the base.\n',
    );
    // Fused in some steps only: steps 1-2 of rank 0 still run 20 Mul, as in the base, so the bound is on the run.
    expect(text).toContain('  - rule: Mul stays at most 40 in total on rank 0\n    type: Mul\n    count: { per: total, max: 40 }\n    ranks: [0]\n');
    // Relu fell on rank 1 only (14 → 3 per step); rank 0 runs its 7 as in the base and gets no limit at that level.
    expect(text).toContain('  - rule: Relu stays at most 3 per step on rank 1\n    type: Relu\n    count: { per: step, max: 3 }\n    ranks: [1]\n');
    expect(text).toContain('  # Not written: a maximum on Relu on rank 0; no count of it in a step or in the run is lower there than in the base.\n');
    // Added on one rank in some steps: present there, not on every rank.
    expect(text).toContain('  - rule: FusedMulAdd runs on rank 0\n    type: FusedMulAdd\n    present: true\n    ranks: [0]\n');
    // Counts are exact: no count bound with a margin.
    for (const r of set.rules) {
      if (r.check.kind === 'count' && r.check.bounds.max !== null) {
        expect(onPr.results.find((x) => x.rule === r)!.observed).toBe(r.check.bounds.max);
      }
    }
  });

  it('check with the written rules: exit 0 on the PR, 1 on the base', async () => {
    const out = join(tmp, 'partial.rules.yaml');
    expect((await kprof(['rules', BASE, PR, '-o', out])).code).toBe(0);
    expect((await kprof(['check', PR, '--rules', out])).code).toBe(0);
    const onBase = await kprof(['check', BASE, '--rules', out]);
    expect(onBase.code).toBe(1);
    expect(onBase.stdout).toContain('FAIL');
  });

  it('check with a misspelt type: a warning with a suggestion; exit 2 under --strict', async () => {
    const f = join(tmp, 'misspelt.yaml');
    writeFileSync(f, 'rules:\n  - rule: DropOutDoMask stays fused\n    type: DropoutDoMask\n    absent: true\n    ranks: [1]\n');
    const warned = await kprof(['check', PR, '--rules', f, '--base', BASE]);
    expect(warned.code).toBe(0);
    expect(warned.stderr).toMatch(/^kprof: warning: .*did you mean "DropOutDoMask"\?/);
    const r = await kprof(['check', PR, '--rules', f, '--base', BASE, '--strict']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(
      /misspelt\.yaml:2: type "DropoutDoMask" matches no kernel in .*pr nor in the base .*base; did you mean "DropOutDoMask"\?/,
    );
  });
});
