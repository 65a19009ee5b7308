// A profile without kernel types (a Level0 export: Type N/A for every compute kernel; a trace or an Nsight CSV,
// which names its kernels only) cannot answer what is asked by type: `kprof audit` (the catalogue names types),
// `check` rules that select a type (count, sequence, fused). Each is exit 2 saying what the profile lacks; a
// type rule that held there (it matched nothing whatever ran) or an audit that found no fusion said what the
// profile never measured.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { kprof } from './helpers.js';

// Level0: 12 kernels, among them 4 `aclnnCast_Cast_Cast`, each of Type N/A (the 2 hcom kernels keep theirs).
const LEVEL0 = 'fixtures/formats/torch-level0';
// A trace_view.json of steps 7 and 8, with an `aclnnCast_Cast_Cast` kernel.
const TRACE = 'fixtures/trace/trace-view-steps';
const tmp = mkdtempSync(join(tmpdir(), 'kprof-no-types-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function rules(name: string, body: string): string {
  const p = join(tmp, name);
  writeFileSync(p, `rules:\n${body}`);
  return p;
}

// With evidence, as `kprof rules` writes them: no "matched no kernel" warning either.
const COUNT = rules('count.yaml', '  - rule: Cast stays removed\n    type: Cast\n    count: { max: 0 }\n    evidence: { base-count: 4 }\n');
const SEQUENCE = rules(
  'sequence.yaml',
  '  - rule: the chain stays fused\n    type: [Cast, RmsNorm]\n    sequence: { per: step, max: 0 }\n    evidence: { base-count: 2 }\n',
);
const FUSED = rules('fused.yaml', '  - rule: add and norm fused\n    fused: add-rms-norm\n');

describe('a Level0 export (Type N/A for every compute kernel)', () => {
  it('kprof audit refuses it (exit 2) instead of finding no fusion', async () => {
    const r = await kprof(['audit', LEVEL0, '-q']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('cannot be audited');
    expect(r.stderr).toContain('has no kernel types (Type is N/A for every compute kernel: a Level0 export writes none)');
    expect(r.stderr).toContain('profiler_level Level1 or above');
  });

  it('a count rule by type is exit 2, not a pass: the Cast kernels that ran have no type', async () => {
    const r = await kprof(['check', LEVEL0, '--rules', COUNT, '-q']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('count.yaml:2: the rule selects kernels by type, but');
    expect(r.stderr).toContain('has no kernel types: Type is N/A for every compute kernel');
    expect(r.stderr).toContain('Select by name');
  });

  it('so is a match: rule whose pattern the names do not decide, and a summary JSON of the export', async () => {
    const match = rules('match.yaml', '  - rule: no Cast\n    match: /Cast/\n    count: { max: 0 }\n');
    expect((await kprof(['check', LEVEL0, '--rules', match, '-q'])).code).toBe(2);
    const snapshot = join(tmp, 'level0.json');
    expect((await kprof(['summary', LEVEL0, '--format', 'json', '-q', '-o', snapshot])).code).toBe(0);
    const r = await kprof(['check', snapshot, '--rules', COUNT, '-q']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('kprof summary <profile> --by name lists them');
  });

  it('a sequence rule by type and a fused rule are exit 2, naming the file and what it lacks', async () => {
    const s = await kprof(['check', LEVEL0, '--rules', SEQUENCE, '-q']);
    expect(s.code).toBe(2);
    expect(s.stderr).toContain('sequence.yaml:2: the rule counts a chain of kernel types, but');
    expect(s.stderr).toContain('Give the chain by name');
    const f = await kprof(['check', LEVEL0, '--rules', FUSED, '-q']);
    expect(f.code).toBe(2);
    expect(f.stderr).toContain('fused.yaml:2: the rule (fused: add-rms-norm) looks for the catalogue entry');
  });

  it('rules by name still answer it', async () => {
    const byName = rules('name.yaml', '  - rule: Cast ran\n    name: aclnnCast_Cast_Cast\n    count: { min: 4, max: 4 }\n');
    expect((await kprof(['check', LEVEL0, '--rules', byName, '-q'])).code).toBe(0);
    // Any type is asked of every kernel, the N/A ones too: even one the hcom kernels keep is refused.
    const hcom = rules('hcom.yaml', '  - rule: two all-reduces\n    type: hcom_allReduce_\n    count: { exactly: 2 }\n');
    expect((await kprof(['check', LEVEL0, '--rules', hcom, '-q'])).code).toBe(2);
  });
});

describe('a trace (kernel names only)', () => {
  it('kprof audit refuses it (exit 2)', async () => {
    const r = await kprof(['audit', TRACE, '-q']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('names its kernels only (no op types)');
    expect(r.stderr).toContain('audit a kernel table with op types');
  });

  it('a sequence rule by type is exit 2, not a pass, as a count rule by type already was', async () => {
    const r = await kprof(['check', TRACE, '--rules', SEQUENCE, '-q']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('the rule counts a chain of kernel types, but');
    expect(r.stderr).toContain('names its kernels only (no op types)');
    expect((await kprof(['check', TRACE, '--rules', FUSED, '-q'])).code).toBe(2);
  });
});

describe('a kernel table with types is audited and checked as before', () => {
  it('audit and a fused rule on the fusion example', async () => {
    expect((await kprof(['audit', 'fixtures/fusion-example/pr', '--only', 'add-rms-norm', '-q'])).code).toBe(0);
    expect((await kprof(['check', 'fixtures/fusion-example/pr', '--rules', FUSED, '-q'])).code).toBe(0);
  });
});
