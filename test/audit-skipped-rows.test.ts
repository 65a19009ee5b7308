// `kprof audit` says what it could not read, as every other command does: rows skipped (a fused kernel or a chain's
// kernel in one is in no site) are warned of on stderr with their file and line and counted in the report (the
// headline; JSON `skipped_rows`), and rank folders with no kernel data are said in a note. It said neither: an
// audit of a damaged profile read as one of a whole profile. Kernels read but not audited (an empty Step Id: in no
// step; past the recorder's lane limit) are counted in the headline and JSON (`not_audited`) likewise.

import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { AuditJson } from '../src/model/schema.js';
import { kprof } from './helpers.js';

const tmp = mkdtempSync(join(tmpdir(), 'kprof-audit-skipped-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

// Three rows whose Duration(us) is not a number of µs ("fast", negative, empty) among five.
const DAMAGED = 'fixtures/bad-durations';

describe('audit of a profile with rows that cannot be read', () => {
  it('warns of each on stderr (file:line) and counts them in the headline', async () => {
    const r = await kprof(['audit', DAMAGED, '-q']);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(
      'kprof: warning: fixtures/bad-durations/kernel_details.csv:3: Duration(us) is "fast", expected a number of µs; row skipped',
    );
    expect(r.stderr).toContain("kprof: 3 rows could not be read and were skipped (counted in the report's skipped rows).");
    expect(r.stdout).toContain('2 compute kernels, 3 rows skipped (not read: their kernels are in no site);');
  });

  it('--strict: an error (exit 2), as for the other commands, with no report', async () => {
    const r = await kprof(['audit', DAMAGED, '-q', '--strict']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('kprof: --strict: 3 rows could not be read (see the warnings above); no report written.');
    expect((await kprof(['audit', 'fixtures/fusion-example/pr', '-q', '--strict'])).code).toBe(0);
  });

  it('in JSON (skipped_rows) and Markdown too', async () => {
    const j = await kprof(['audit', DAMAGED, '-q', '--format', 'json']);
    const doc = JSON.parse(j.stdout) as AuditJson;
    expect(doc.schema).toBe('kprof.audit/3');
    expect(doc.profiles[0]!.skipped_rows).toBe(3);
    const m = await kprof(['audit', DAMAGED, '-q', '--format', 'markdown']);
    expect(m.stdout).toContain('3 rows skipped');
  });

  it('a whole profile: 0 in JSON, nothing said', async () => {
    const r = await kprof(['audit', 'fixtures/fusion-example/pr', '-q', '--format', 'json']);
    expect(r.stderr).toBe('');
    expect((JSON.parse(r.stdout) as AuditJson).profiles[0]!.skipped_rows).toBe(0);
  });
});

describe('audit of a folder of ranks one of which holds no kernel data', () => {
  it('says the rank left out, as summary does', async () => {
    const dir = join(tmp, 'run');
    cpSync('fixtures/fusion-example/pr', dir, { recursive: true });
    // A rank whose profiler wrote its step times only.
    mkdirSync(join(dir, 'rank_7_ascend_pt/ASCEND_PROFILER_OUTPUT'), { recursive: true });
    writeFileSync(join(dir, 'rank_7_ascend_pt/ASCEND_PROFILER_OUTPUT/step_trace_time.csv'), 'Device_id,Step,Computing\n7,21,1.0\n');
    const r = await kprof(['audit', dir, '-q', '--only', 'mla-prolog']);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('rank_7_ascend_pt: no kernel data');
    expect(r.stderr).toContain('rank 7 left out');
  });
});

describe('audit of kernels it reads but does not audit', () => {
  it('counts those with an empty Step Id (in no step) in the headline and JSON', async () => {
    const r = await kprof(['audit', 'fixtures/bad-empty-step-id', '-q']);
    expect(r.stdout).toContain('2 compute kernels (and 2 with an empty Step Id, in no step: not audited);');
    const j = JSON.parse((await kprof(['audit', 'fixtures/bad-empty-step-id', '-q', '--format', 'json'])).stdout) as AuditJson;
    expect(j.profiles[0]!.not_audited).toEqual({ without_step: 2, past_lane_limit: 0 });
  });

  it('counts those past the lane limit (4,096 rank and stream lanes)', async () => {
    const rows = ['Step Id,Stream ID,Name,Type,Accelerator Core,Start Time(us),Duration(us),Wait Time(us),Block Dim'];
    for (let i = 0; i < 4100; i++) rows.push(`1,${i},n,Add,AI_CORE,${1736408883704643 + i}.000,1.0,0,8`);
    const file = join(tmp, 'lanes.csv');
    writeFileSync(file, `${rows.join('\n')}\n`);
    const j = JSON.parse((await kprof(['audit', file, '-q', '--format', 'json'])).stdout) as AuditJson;
    expect(j.profiles[0]!.kernels).toBe(4096);
    expect(j.profiles[0]!.not_audited).toEqual({ without_step: 0, past_lane_limit: 4 });
    expect((await kprof(['audit', file, '-q'])).stdout).toContain('(and 4 past the 4,096 rank and stream lanes kprof follows: not audited)');
  });
});
