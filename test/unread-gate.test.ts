// check and rules on a profile folder that holds profile-like folders they did not read: the same one stderr
// line as summary and diff (a `::warning` under check --format github), so no gate passes on a partly read
// profile in silence. A rank folder with no kernel export at all is a rank where nothing was read: the gate exits 2,
// as for a rank whose export is empty, unless --rank leaves it out.

import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { shellWord } from '../src/util/inputText.js';
import { kprof, ROOT } from './helpers.js';

const tmp = mkdtempSync(join(tmpdir(), 'kprof-unread-gate-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** A folder of ranks: rank 0 with kernel data, rank 1 without (no ASCEND_PROFILER_OUTPUT), so not read. */
function partial(name: string): string {
  const dir = join(tmp, name);
  const out = join(dir, 'rank_0_ascend_pt', 'ASCEND_PROFILER_OUTPUT');
  mkdirSync(out, { recursive: true });
  writeFileSync(
    join(out, 'kernel_details.csv'),
    ['Step Id,Name,Type,Accelerator Core,Start Time(us),Duration(us)', '1,a,Add,AI_CORE,1,2.5', '2,a,Add,AI_CORE,5,2.5', ''].join('\n'),
  );
  mkdirSync(join(dir, 'rank_1_ascend_pt', 'FRAMEWORK'), { recursive: true });
  return dir;
}

/** partial(name), its rank 1 cut short: an ASCEND_PROFILER_OUTPUT with step_trace_time.csv only (`out`). */
function cutShort(name: string): { dir: string; out: string } {
  const dir = partial(name);
  rmSync(join(dir, 'rank_1_ascend_pt'), { recursive: true });
  const out = join(dir, 'rank_1_ascend_pt', 'ASCEND_PROFILER_OUTPUT');
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, 'step_trace_time.csv'), 'Step,Computing,Communication(Not Overlapped)\n1,10,2\n');
  return { dir, out };
}

const dir = partial('run');
const rulesFile = join(tmp, 'rules.yaml');
writeFileSync(rulesFile, 'version: 1\nrules:\n  - type: Add\n    present: true\n');
const line = `kprof: note: ${join(dir, 'rank_1_ascend_pt')}: no ASCEND_PROFILER_OUTPUT folder and no PROF_* folder; rank 1 left out; kprof inspect ${shellWord(dir)} lists it.\n`;

describe('profile folders not read', () => {
  /** The exit-2 message of a gate on `dir` (`what`: the profile, the base, the PR). */
  const refused = (what: string): string =>
    `kprof: ${what} ${dir}: nothing was read on rank 1: ${join(dir, 'rank_1_ascend_pt')} holds no kernel export. ` +
    `A rank where nothing was read cannot pass a gate; check that rank's export, or leave it out with --rank 0.\n`;

  it('check refuses a rank folder with no kernel export, naming it and the --rank that leaves it out', async () => {
    const r = await kprof(['check', dir, '--rules', rulesFile]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toBe(line + refused('the profile'));
    expect(r.stdout).not.toContain('passed');
    const withBase = await kprof(['check', dir, '--rules', rulesFile, '--base', dir]);
    expect(withBase.code, withBase.stderr).toBe(2);
    expect(withBase.stderr).toContain(refused('the profile'));
  });

  it('check with --rank leaving the folder out says so on stderr, for the profile and for the base, and gives its verdict', async () => {
    const r = await kprof(['check', dir, '--rules', rulesFile, '--rank', '0']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe(line);
    const withBase = await kprof(['check', dir, '--rules', rulesFile, '--base', dir, '--rank', '0']);
    expect(withBase.code, withBase.stderr).toBe(0);
    expect(withBase.stderr).toBe(line + line);
  });

  it('check --format github makes it a ::warning annotation', async () => {
    const r = await kprof(['check', dir, '--rules', rulesFile, '--format', 'github', '--rank', '0']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^::warning title=kprof%3A not read::.*rank_1_ascend_pt: no ASCEND_PROFILER_OUTPUT folder .*lists it\.\n$/);
  });

  it('rules refuses the rank folder too, and with --rank 0 says so on stderr for each side', async () => {
    const r = await kprof(['rules', dir, dir]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(refused('the base'));
    const kept = await kprof(['rules', dir, dir, '--rank', '0']);
    expect(kept.code, kept.stderr).toBe(0);
    expect(kept.stderr).toBe(line + line);
  });

  it('a rank folder whose ASCEND_PROFILER_OUTPUT holds no kernel export (step_trace_time.csv only) is refused alike', async () => {
    const { dir: cut } = cutShort('cut');
    const r = await kprof(['check', cut, '--rules', rulesFile]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(`nothing was read on rank 1: ${join(cut, 'rank_1_ascend_pt')} holds no kernel export.`);
    // summary reads the other ranks, with its note (it gates nothing).
    const summary = await kprof(['summary', cut]);
    expect(summary.code, summary.stderr).toBe(0);
    expect(summary.stderr).toMatch(/rank_1_ascend_pt: no kernel data \(.*\); rank 1 left out;/);
  });

  it('-o never writes a kernel table into a rank folder with no kernel data, where the next run would read it as that rank', async () => {
    const { dir: cut, out } = cutShort('cut-out');
    const target = join(out, 'kernel_details.csv');
    const r = await kprof(['summary', cut, '--format', 'csv', '-o', target]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain("would be read by the next run as that rank's kernels, so nothing was written");
    expect(existsSync(target)).toBe(false);
    // Beside its ASCEND_PROFILER_OUTPUT, the rank folder's own files are not read: written.
    const beside = join(cut, 'rank_1_ascend_pt', 'kernel_details.csv');
    expect((await kprof(['summary', cut, '--format', 'csv', '-o', beside])).code).toBe(0);
    rmSync(beside);
    // A rank folder with no ASCEND_PROFILER_OUTPUT reads its own files: refused there.
    const bare = partial('bare-out');
    const inBare = join(bare, 'rank_1_ascend_pt', 'kernel_details.csv');
    const b = await kprof(['summary', bare, '--format', 'csv', '-o', inBare]);
    expect(b.code, b.stderr).toBe(2);
    expect(existsSync(inBare)).toBe(false);
    // Another name there is no profile's: written.
    const report = join(out, 'report.csv');
    const ok = await kprof(['summary', cut, '--format', 'csv', '-o', report]);
    expect(ok.code, ok.stderr).toBe(0);
    expect(existsSync(report)).toBe(true);
    // And the next run reads the same profile.
    const again = await kprof(['summary', cut, '--format', 'json']);
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ ranks: ['0'] });
  });

  it("an op_summary copied into a rank's ASCEND_PROFILER_OUTPUT is named in the note, with how it is read", async () => {
    const dir = partial('op-summary-copied');
    const out = join(dir, 'rank_1_ascend_pt', 'ASCEND_PROFILER_OUTPUT');
    mkdirSync(out, { recursive: true });
    const src = join(ROOT, 'fixtures/formats/msprof-current/PROF_000001_20260605155111872_JDEKRCNERPBNJEGA/mindstudio_profiler_output');
    cpSync(join(src, 'op_summary_20260605155140.csv'), join(out, 'op_summary_20260605155140.csv'));
    // A path long enough that the note is clipped: what became of the rank is kept.
    const deep = join(tmp, 'x'.repeat(120));
    cpSync(dir, deep, { recursive: true });
    for (const d of [dir, deep]) {
      const r = await kprof(['summary', d, '--format', 'json']);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toMatch(/rank_1_ascend_pt: no kernel data \(.*; rank 1 left out; kprof inspect /);
    }
    const r = await kprof(['summary', dir, '--format', 'json']);
    expect(r.stderr).toContain(
      'rank_1_ascend_pt: no kernel data (its ASCEND_PROFILER_OUTPUT/op_summary_20260605155140.csv is read in a PROF_* folder or by itself, not there); rank 1 left out',
    );
    const alone = await kprof(['summary', join(out, 'op_summary_20260605155140.csv'), '--format', 'json']);
    expect(alone.code, alone.stderr).toBe(0);
  });

  it('an msprof device folder whose summary holds no kernel export is refused alike (device_1 of two)', async () => {
    const prof = join(tmp, 'msprof-dev', 'PROF_000001_20211012_ABCDEFGH');
    cpSync(join(ROOT, 'fixtures/formats/msprof-cann5/PROF_000001_20211012_ABCDEFGH'), prof, { recursive: true });
    rmSync(join(prof, 'device_1', 'summary'), { recursive: true });
    mkdirSync(join(prof, 'device_1', 'summary'));
    const rules = join(tmp, 'any.yaml');
    writeFileSync(rules, 'version: 1\nrules:\n  - type: NoSuchType\n    absent: true\n');
    const r = await kprof(['check', join(tmp, 'msprof-dev'), '--rules', rules]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(`nothing was read on rank 1: ${join(prof, 'device_1')} holds no kernel export.`);
    expect(r.stderr).toContain('leave it out with --rank 0.');
    // Nor does -o write an msprof export into its summary, nor into an empty PROF_ folder of a rank folder.
    const summary = join(prof, 'device_1', 'summary', 'op_summary_0_1_1.csv');
    const o = await kprof(['summary', join(tmp, 'msprof-dev'), '--format', 'csv', '-o', summary]);
    expect(o.code, o.stderr).toBe(2);
    expect(o.stderr).toContain(
      "an msprof folder of a rank with no kernel data in the profile this run reads, where a file named like this one would be read by the next run as that rank's kernels",
    );
    expect(existsSync(summary)).toBe(false);
    const bare = partial('prof-out');
    const empty = join(bare, 'rank_1_ascend_pt', 'PROF_000002_20260101_X', 'mindstudio_profiler_output');
    mkdirSync(empty, { recursive: true });
    for (const target of [join(empty, 'op_summary_20260101.csv'), join(empty, '..', 'msprof_20260101.db')]) {
      const w = await kprof(['summary', bare, '--format', 'csv', '-o', target]);
      expect(w.code, w.stderr).toBe(2);
      expect(existsSync(target), target).toBe(false);
    }
    expect((await kprof(['summary', bare, '--format', 'json'])).code).toBe(0);
  });

  it('an empty folder of no rank id beside one of data (no id either) is refused, the folder of data passed alone passes', async () => {
    const two = join(tmp, 'no-ids');
    for (const name of ['hostA_ascend_pt', 'hostB_ascend_pt']) mkdirSync(join(two, name, 'ASCEND_PROFILER_OUTPUT'), { recursive: true });
    writeFileSync(
      join(two, 'hostA_ascend_pt', 'ASCEND_PROFILER_OUTPUT', 'kernel_details.csv'),
      ['Step Id,Name,Type,Accelerator Core,Start Time(us),Duration(us)', '1,a,Add,AI_CORE,1,2.5', ''].join('\n'),
    );
    const r = await kprof(['check', two, '--rules', rulesFile]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(`nothing was read on rank (no id): ${join(two, 'hostB_ascend_pt')} holds no kernel export.`);
    expect(r.stderr).toContain('or pass the profile folders that hold kernels by themselves (kprof inspect');
    const alone = await kprof(['check', join(two, 'hostA_ascend_pt'), '--rules', rulesFile]);
    expect(alone.code, alone.stderr).toBe(0);
    // A rank with an id left empty beside the one of no id read: --rank - gates that one.
    rmSync(join(two, 'hostB_ascend_pt'), { recursive: true });
    mkdirSync(join(two, 'rank_1_ascend_pt', 'ASCEND_PROFILER_OUTPUT'), { recursive: true });
    writeFileSync(join(two, 'rank_1_ascend_pt', 'profiler_info_1.json'), '{"rank_id": 1}');
    const one = await kprof(['check', two, '--rules', rulesFile]);
    expect(one.code, one.stderr).toBe(2);
    expect(one.stderr).toContain('leave it out with --rank -.');
    expect((await kprof(['check', two, '--rules', rulesFile, '--rank', '-'])).code).toBe(0);
  });

  it('a rank folder that holds no kernel export beside one that does (two folders of one device) is no rank left unread', async () => {
    const two = partial('two-of-one');
    // A second folder of rank 0 (another run's, say), with kernel data: rank 1's folder alone is refused.
    const again = join(two, 'rank_0b_ascend_pt');
    mkdirSync(join(again, 'FRAMEWORK'), { recursive: true });
    writeFileSync(join(again, 'profiler_info_0.json'), '{"rank_id": 0}');
    const r = await kprof(['check', two, '--rules', rulesFile]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain('nothing was read on rank 1:');
    expect(r.stderr).not.toContain('nothing was read on rank 0');
  });

  it('a FIFO named like a rank folder is said, not passed over in silence (and nothing waits on it)', async () => {
    const fifoRun = partial('fifo-run');
    rmSync(join(fifoRun, 'rank_1_ascend_pt'), { recursive: true });
    execFileSync('mkfifo', [join(fifoRun, 'rank_1_ascend_pt')]);
    const note = `kprof: note: ${join(fifoRun, 'rank_1_ascend_pt')}: named like a profile folder, but a FIFO (named pipe); not read; kprof inspect ${shellWord(fifoRun)} lists it.\n`;
    const summary = await kprof(['summary', fifoRun]);
    expect(summary.code, summary.stderr).toBe(0);
    expect(summary.stderr).toBe(note);
    const check = await kprof(['check', fifoRun, '--rules', rulesFile]);
    expect(check.code, check.stderr).toBe(0);
    expect(check.stderr).toBe(note);
  });

  it('a FIFO among the traces or summary JSONs of a folder is said as not read, the others read (and nothing waits on it)', async () => {
    const traces = join(tmp, 'fifo-traces');
    mkdirSync(traces);
    for (const rank of [0, 1]) {
      const ev = (ts: number) =>
        `{"ph":"X","cat":"kernel","name":"kA","pid":0,"tid":7,"ts":${ts},"dur":2,"args":{"device":0,"stream":7,"correlation":${ts}}}`;
      writeFileSync(join(traces, `w${rank}.pt.trace.json`), `{"distributedInfo":{"rank":${rank}},"traceEvents":[${ev(1)},${ev(5)}]}`);
    }
    execFileSync('mkfifo', [join(traces, 'w2.pt.trace.json')]);
    const note = (folder: string, file: string): string =>
      `kprof: note: ${join(folder, file)}: named like a summary JSON or a PyTorch kineto trace, but a FIFO (named pipe); not read; kprof inspect ${shellWord(folder)} lists it.\n`;
    const summary = await kprof(['summary', traces, '--format', 'json']);
    expect(summary.code, summary.stderr).toBe(0);
    expect(summary.stderr).toContain(note(traces, 'w2.pt.trace.json'));
    expect(JSON.parse(summary.stdout)).toMatchObject({ ranks: ['0', '1'], totals: { count: 4 } });
    const rules = join(tmp, 'names.yaml');
    writeFileSync(rules, 'version: 1\nrules:\n  - name: kA\n    present: true\n');
    const check = await kprof(['check', traces, '--rules', rules]);
    expect(check.code, check.stderr).toBe(0);
    expect(check.stderr).toContain(note(traces, 'w2.pt.trace.json'));
    // A folder of summary JSONs alike.
    const snaps = join(tmp, 'fifo-snapshots');
    mkdirSync(snaps);
    writeFileSync(join(snaps, 'all.json'), summary.stdout);
    execFileSync('mkfifo', [join(snaps, 'more.json')]);
    const back = await kprof(['summary', snaps, '--format', 'json']);
    expect(back.code, back.stderr).toBe(0);
    expect(back.stderr).toContain(note(snaps, 'more.json'));
    expect(JSON.parse(back.stdout)).toMatchObject({ ranks: ['0', '1'], totals: { count: 4 } });
  });
});
