// Hostile files and paths: what others hand kprof (profiles, rules, groups, -o targets, patterns) cannot hang it,
// exhaust its memory, destroy a file or pass for a good run. Every input is built here at test time (no large
// committed files); every case runs under a timeout and never asserts on wall-clock time.

import { spawn, spawnSync } from 'node:child_process';
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { run } from '../src/cli/run.js';
import { kprof, ROOT } from './helpers.js';

const HEADER = 'Step Id,Name,Type,Accelerator Core,Start Time(us),Duration(us),Wait Time(us),Block Dim';
const ROWS = ['1,aclnnMatmul_MatMulV3,MatMulV3,AI_CORE,100.0,12.5,0,0', '1,aclnnCast_Cast,Cast,AI_VECTOR_CORE,120.0,3.0,0,0'];
const CSV = `${HEADER}\n${ROWS.join('\n')}\n`;

const dirs: string[] = [];
function tmp(): string {
  const d = mkdtempSync(join(tmpdir(), 'kprof-hostile-'));
  dirs.push(d);
  return d;
}
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
}, 120_000);

/** A folder holding one small kernel_details.csv. */
function profile(text = CSV): { dir: string; csv: string } {
  const dir = tmp();
  const csv = join(dir, 'kernel_details.csv');
  writeFileSync(csv, text);
  return { dir, csv };
}

/** The real executable, spawned with a timeout: a hang fails the test instead of stalling the suite. */
function bin(args: string[], opts: { stdout?: number | 'pipe'; cwd?: string } = {}) {
  const r = spawnSync(process.execPath, [join(ROOT, 'bin/kprof.js'), ...args], {
    cwd: opts.cwd ?? ROOT,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1' },
    timeout: 20_000,
    stdio: ['ignore', opts.stdout ?? 'pipe', 'pipe'],
  });
  return { code: r.status, signal: r.signal, stdout: r.stdout ?? '', stderr: r.stderr ?? '' };
}

describe('-o / --out', () => {
  it('never replaces an input of the same run, whatever path names it', async () => {
    const { dir, csv } = profile();
    symlinkSync(csv, join(dir, 'link.csv'));
    for (const out of [csv, join(dir, 'link.csv'), join(dir, '.', 'kernel_details.csv')]) {
      const r = await kprof(['summary', csv, '-o', out]);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/an input of this run; writing the report there would destroy it, so nothing was written/);
      expect(readFileSync(csv, 'utf8')).toBe(CSV);
    }
    // A hard link is the same file under another name.
    execFileSync('ln', [csv, join(dir, 'hard.csv')]);
    const h = await kprof(['summary', dir, '-o', join(dir, 'hard.csv')]);
    expect(h.code).toBe(2);
    expect(readFileSync(csv, 'utf8')).toBe(CSV);
    // The base of a diff and a rules file are inputs too.
    const other = profile();
    const d = await kprof(['diff', csv, other.csv, '-o', csv]);
    expect(d.code).toBe(2);
    const rules = join(dir, 'rules.yaml');
    writeFileSync(rules, 'rules:\n  - rule: cast\n    type: Cast\n    present: true\n');
    const c = await kprof(['check', other.dir, '--rules', rules, '-o', rules]);
    expect(c.code).toBe(2);
    expect(readFileSync(rules, 'utf8')).toMatch(/rule: cast/);
  });

  it('never replaces the op_statistic that --witness and inspect read beside the kernel table', async () => {
    const dir = tmp();
    cpSync(join(ROOT, 'fixtures/fusion-example/base'), dir, { recursive: true });
    const stat = join(dir, readdirSync(dir).sort()[0]!, 'ASCEND_PROFILER_OUTPUT', 'op_statistic.csv');
    const before = readFileSync(stat, 'utf8');
    for (const args of [
      ['summary', dir, '--witness', '-o', stat],
      ['inspect', dir, '--format', 'text', '-o', stat],
    ]) {
      const r = await kprof(args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr, args.join(' ')).toMatch(/an input of this run; writing the report there would destroy it, so nothing was written/);
      expect(readFileSync(stat, 'utf8')).toBe(before);
    }
  });

  it('an error report (--format junit) replaces no input, though the run stopped before reading it', async () => {
    const { dir, csv } = profile();
    const rules = join(dir, 'rules.yaml');
    writeFileSync(rules, 'rules:\n  - rule: cast\n    type: Cast\n    present: true\n');
    // A usage error, a rules file that is not there: the profile named is not read, and not replaced either.
    for (const args of [
      ['check', csv, '--rules', rules, '--format', 'junit', '-o', csv, '--bogus'],
      ['check', csv, '--rules', join(dir, 'missing.yaml'), '--format', 'junit', '-o', csv],
      ['check', csv, '--rules', join(dir, 'missing.yaml'), '--format', 'junit', `--out=${csv}`],
      ['check', csv, '--rules', rules, '--format', 'junit', '-o', rules, '--base', join(dir, 'missing')],
    ]) {
      const r = await kprof(args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr, args.join(' ')).toMatch(/an input of this run; writing the report there would destroy it, so nothing was written/);
      expect(readFileSync(csv, 'utf8')).toBe(CSV);
      expect(readFileSync(rules, 'utf8')).toMatch(/rule: cast/);
    }
    // A file inside a folder named as the profile may be one of its files: not replaced, said why.
    const inside = await kprof(['check', dir, '--rules', join(dir, 'missing.yaml'), '--format', 'junit', '-o', csv]);
    expect(inside.code).toBe(2);
    expect(inside.stderr).toContain('an input folder of this run, which stopped before reading it; the error report was not written there');
    expect(readFileSync(csv, 'utf8')).toBe(CSV);
    // A new file there named as an export is (a rank folder holding no kernel data yet, an msprof PROF_ folder):
    // the next run would read the report as the profile's, so it is not made.
    const empty = join(dir, 'rank_1_ascend_pt', 'ASCEND_PROFILER_OUTPUT');
    const prof = join(dir, 'rank_2_ascend_pt', 'PROF_000001_20260101_x', 'mindstudio_profiler_output');
    mkdirSync(empty, { recursive: true });
    mkdirSync(prof, { recursive: true });
    for (const made of [join(empty, 'kernel_details.csv'), join(prof, 'op_summary_20260101.csv'), join(dir, 'trace.json')]) {
      const r = await kprof(['check', dir, '--rules', join(dir, 'missing.yaml'), '--format', 'junit', '-o', made]);
      expect(r.code, made).toBe(2);
      expect(r.stderr).toContain("an input folder of this run, and named as a profile's export is; the error report was not written there");
      expect(existsSync(made), made).toBe(false);
    }
    // The report of an earlier run there, and a new file, are written.
    const report = join(dir, 'report.xml');
    for (let i = 0; i < 2; i++) {
      const r = await kprof(['check', dir, '--rules', join(dir, 'missing.yaml'), '--format', 'junit', '-o', report]);
      expect(r.code).toBe(2);
      expect(readFileSync(report, 'utf8')).toMatch(/^<\?xml [\s\S]*missing\.yaml: no such file or folder/);
    }
  });

  it('follows a symbolic link to a report and keeps the link; refuses a dangling one', async () => {
    const { csv } = profile();
    const d = tmp();
    writeFileSync(join(d, 'real.txt'), 'old');
    symlinkSync(join(d, 'real.txt'), join(d, 'report.txt'));
    const r = await kprof(['summary', csv, '-o', join(d, 'report.txt')]);
    expect(r.code).toBe(0);
    expect(lstatSync(join(d, 'report.txt')).isSymbolicLink()).toBe(true);
    expect(readFileSync(join(d, 'real.txt'), 'utf8')).toMatch(/MatMulV3/);
    symlinkSync(join(d, 'nowhere', 'x.txt'), join(d, 'dangling.txt'));
    const g = await kprof(['summary', csv, '-o', join(d, 'dangling.txt')]);
    expect(g.code).toBe(2);
    expect(g.stderr).toMatch(/a symbolic link to .*nowhere\/x\.txt, which does not exist; nothing was written/);
    expect(readlinkSync(join(d, 'dangling.txt'))).toBe(join(d, 'nowhere', 'x.txt'));
    expect(existsSync(join(d, 'nowhere'))).toBe(false);
  });

  it('writes a device or a FIFO directly instead of replacing it', async () => {
    const { csv } = profile();
    const d = tmp();
    // A null device of the test's own (mknod needs root, as CI has): a kprof that replaced devices would replace
    // this one, never the machine's /dev/null.
    const dev = join(d, 'null');
    let made = true;
    try {
      execFileSync('mknod', ['-m', '666', dev, 'c', '1', '3'], { stdio: 'ignore' });
    } catch {
      made = false;
    }
    if (made) {
      const r = await kprof(['summary', csv, '-o', dev]);
      expect(r.code).toBe(0);
      expect(statSync(dev).isCharacterDevice()).toBe(true);
      rmSync(dev);
    }
    const fifo = join(d, 'pipe');
    execFileSync('mkfifo', [fifo]);
    const reader = spawn('cat', [fifo]);
    let got = '';
    reader.stdout.on('data', (b: Buffer) => (got += b.toString()));
    const done = new Promise((resolve) => reader.on('close', resolve));
    const w = bin(['summary', csv, '-o', fifo]);
    await done;
    expect(w.code).toBe(0);
    expect(got).toMatch(/MatMulV3/);
    expect(lstatSync(fifo).isFIFO()).toBe(true);
    expect(readdirSync(d)).toEqual(['pipe']);
  });

  it('-o /dev/stdout appends to the log stdout goes to, and reaches a pipe', () => {
    const { csv } = profile();
    const d = tmp();
    const log = join(d, 'log.txt');
    writeFileSync(log, 'earlier lines\n');
    const r = bin(['summary', csv, '-o', '/dev/stdout'], { stdout: openSync(log, 'a') });
    expect(r.code).toBe(0);
    const text = readFileSync(log, 'utf8');
    expect(text.startsWith('earlier lines\ntype')).toBe(true);
    const p = bin(['summary', csv, '-o', '/dev/stdout']);
    expect(p.code).toBe(0);
    expect(p.stdout).toMatch(/MatMulV3/);
  });

  it('-o through a link to /dev/stdout or /proc/self/fd/1 reaches the log or the pipe stdout goes to', () => {
    const { csv } = profile();
    const d = tmp();
    symlinkSync('/dev/stdout', join(d, 'so'));
    symlinkSync('/proc/self/fd/1', join(d, 'sp'));
    symlinkSync('so', join(d, 'so2'));
    for (const link of ['so', 'sp', 'so2']) {
      const log = join(d, `log-${link}.txt`);
      writeFileSync(log, 'earlier lines\n');
      const r = bin(['summary', csv, '-o', link], { stdout: openSync(log, 'a'), cwd: d });
      expect(r.code, r.stderr).toBe(0);
      expect(readFileSync(log, 'utf8')).toMatch(/^earlier lines\ntype[\s\S]*MatMulV3/);
      const p = bin(['summary', csv, '-o', link], { cwd: d });
      expect(p.code, p.stderr).toBe(0);
      expect(p.stdout).toMatch(/MatMulV3/);
      expect(p.stderr).toBe('');
      expect(lstatSync(join(d, link)).isSymbolicLink()).toBe(true);
    }
    expect(lstatSync('/dev/stdout').isSymbolicLink()).toBe(true);
  });

  it("check -o through a link to /dev/stdout or /dev/stderr says where the report went, not the link's name", async () => {
    const { csv } = profile();
    const d = tmp();
    const rules = join(d, 'r.yaml');
    writeFileSync(rules, 'version: 1\nrules:\n  - rule: one cast\n    type: Cast\n    count: { exactly: 1 }\n');
    symlinkSync('/dev/stdout', join(d, 'so'));
    symlinkSync('/dev/stderr', join(d, 'se'));
    const out = await kprof(['check', csv, '--rules', rules, '-o', join(d, 'so')]);
    expect(out.code, out.stderr).toBe(0);
    expect(out.stdout).toMatch(/one cast/);
    expect(out.stderr).toMatch(/^kprof: check passed: [^\n]* Report written to stdout\.\n$/);
    const err = await kprof(['check', csv, '--rules', rules, '-o', join(d, 'se')]);
    expect(err.stdout).toBe('');
    expect(err.stderr).toMatch(/one cast[\s\S]*Report written to stderr\.\n$/);
    const direct = await kprof(['check', csv, '--rules', rules, '-o', '/dev/stdout']);
    expect(direct.stderr).toMatch(/Report written to stdout\.\n$/);
    const file = await kprof(['check', csv, '--rules', rules, '-o', join(d, 'report.txt')]);
    expect(file.stderr).toMatch(/Report written to .*report\.txt\.\n$/);
    expect(readFileSync(join(d, 'report.txt'), 'utf8')).toMatch(/one cast/);
  });

  it('creates its temporary file exclusively under a random name, so a planted link cannot redirect the write', async () => {
    const { csv } = profile();
    const d = tmp();
    const victim = join(d, 'victim.txt');
    writeFileSync(victim, 'precious');
    // The old temporary name was predictable: .NAME.PID.tmp beside the target.
    symlinkSync(victim, join(d, `.report.txt.${process.pid}.tmp`));
    const r = await kprof(['summary', csv, '-o', join(d, 'report.txt')]);
    expect(r.code).toBe(0);
    expect(readFileSync(victim, 'utf8')).toBe('precious');
    expect(readFileSync(join(d, 'report.txt'), 'utf8')).toMatch(/MatMulV3/);
    expect(readdirSync(d).sort()).toEqual([`.report.txt.${process.pid}.tmp`, 'report.txt', 'victim.txt']);
  });

  it('keeps the mode of the report it replaces', async () => {
    const { csv } = profile();
    const d = tmp();
    const out = join(d, 'r.txt');
    writeFileSync(out, 'old');
    chmodSync(out, 0o600);
    expect((await kprof(['summary', csv, '-o', out])).code).toBe(0);
    expect(statSync(out).mode & 0o777).toBe(0o600);
  });

  it("-o into a folder of profile folders it reads, under a kernel table's name: refused, nothing written", async () => {
    const d = tmp();
    const run = join(d, 'run');
    cpSync(join(ROOT, 'fixtures/fusion-example/base'), run, { recursive: true });
    const before = readdirSync(run).sort();
    // The next read of run/ would have been one profile of that CSV report ("unknown CSV format"), its ranks not read.
    for (const name of ['kernel_details.csv', 'op_summary_1.csv', 'op_statistic.csv']) {
      const r = await kprof(['summary', run, '--format', 'csv', '-o', join(run, name)]);
      expect(r.code, name).toBe(2);
      expect(r.stderr, name).toContain(
        `${join(run, name)}: in ${run}, a folder of profile folders this run reads, where a file named like this one would be read by the next run as one profile of that file, its ranks not read, so nothing was written.`,
      );
    }
    expect(readdirSync(run).sort()).toEqual(before);
    // A report of another name, a summary JSON among them, is written there as before (a summary JSON beside profile folders is not read).
    expect((await kprof(['summary', run, '--format', 'csv', '-o', join(run, 'report.csv')])).code).toBe(0);
    expect((await kprof(['summary', run, '--format', 'json', '-o', join(run, 'summary.json')])).code).toBe(0);
  });

  it("-o into a folder of summary JSONs or kineto traces it reads, under a kernel table's name: refused, nothing written", async () => {
    const d = tmp();
    const jsons = join(d, 'jsons');
    cpSync(join(ROOT, 'fixtures/cluster/small'), jsons, { recursive: true });
    const traces = join(d, 'traces');
    cpSync(join(ROOT, 'fixtures/trace/kineto-ranks'), traces, { recursive: true });
    for (const [dir, what] of [
      [jsons, 'summary JSONs'],
      [traces, 'PyTorch kineto traces'],
    ] as const) {
      const before = readdirSync(dir).sort();
      // The next read of the folder would have been one profile of that report ("unknown CSV format").
      for (const name of ['kernel_details.csv', 'op_statistic.csv', 'msprof_0.db']) {
        const r = await kprof(['summary', dir, '--format', 'csv', '-o', join(dir, name)]);
        expect(r.code, `${dir} ${name}: ${r.stderr}`).toBe(2);
        expect(r.stderr, name).toContain(
          `${join(dir, name)}: in ${dir}, a folder of ${what} this run reads, where a file named like this one would be read by the next run as one profile of that file, the others not read, so nothing was written.`,
        );
      }
      expect(readdirSync(dir).sort()).toEqual(before);
      expect((await kprof(['summary', dir, '-q'])).code).toBe(0);
    }
  });

  it('says what is wrong with a path that ends as a folder (out/, x/.) or that goes through a file, before the read', async () => {
    const d = tmp();
    writeFileSync(join(d, 'base.json'), '{}');
    const none = join(d, 'no-such-profile');
    const cases: [string, string][] = [
      [`${join(d, 'new')}/`, 'it ends in "/", so it names a folder, not a file'],
      [`${join(d, 'base.json')}/`, 'it ends in "/", so it names a folder, not a file'],
      [`${join(d, 'base.json')}/.`, 'it ends in "/.", so it names a folder, not a file'],
      [join(d, 'base.json', 'sub', 'r.md'), `${join(d, 'base.json')} is a file, not a folder`],
    ];
    for (const [out, why] of cases) {
      // The profile does not exist: the -o path is said first, before anything is read.
      const r = await kprof(['summary', none, '-o', out]);
      expect(r.code, out).toBe(2);
      expect(r.stderr, out).toBe(
        `kprof: ${out}: cannot write the report (${why}); nothing was written. Pass --out a file path in a folder that exists and is writable.\n`,
      );
    }
    expect(readdirSync(d)).toEqual(['base.json']);
  });

  it('says what is wrong with "", ".", "/", a 255-character name and a missing folder', async () => {
    const { csv } = profile();
    const d = tmp();
    const cases: [string, RegExp][] = [
      ['', /--out: expected a file path; found an empty string/],
      ['.', /^kprof: \.: cannot write the report \(it is a folder\); nothing was written/],
      ['/', /^kprof: \/: cannot write the report \(it is a folder\); nothing was written/],
      [
        join(d, 'x'.repeat(256)),
        /cannot write the report \(the name is too long: 256 bytes in the file name, \d+ in the path; most file systems take at most 255 bytes in a name\)/,
      ],
      [join(d, 'no', 'such', 'r.txt'), /the folder .*no\/such does not exist/],
    ];
    for (const [out, message] of cases) {
      const r = await kprof(['summary', csv, '-o', out]);
      expect(r.code, out).toBe(2);
      expect(r.stderr, out).toMatch(message);
      expect(r.stderr).not.toMatch(/internal error/);
    }
    expect(readdirSync(d)).toEqual([]);
    // 255 bytes is a valid name: the temporary file beside it must not be longer (it was, with the name in it).
    const long = join(d, 'x'.repeat(255));
    const ok = await kprof(['summary', csv, '-o', long]);
    expect(ok.stderr).toBe('');
    expect(ok.code).toBe(0);
    expect(readdirSync(d)).toEqual(['x'.repeat(255)]);
  });

  it('refuses -o "" (an unset variable) before anything is read, in every command that writes a report', async () => {
    // A profile that is not there: the read would fail first, had -o "" been left for the write.
    const missing = join(tmp(), 'no-such-profile');
    for (const args of [
      ['summary', missing],
      ['diff', missing, missing],
      ['inspect', missing],
      ['merge', missing],
      ['audit', missing],
    ]) {
      const r = await kprof([...args, '-o', '']);
      expect(r.code, args[0]).toBe(2);
      expect(r.stderr, args[0]).toBe(
        'kprof: --out: expected a file path; found an empty string. Pass -o FILE, or leave -o out to write to stdout.\n',
      );
    }
  });

  it('leaves no temporary file behind when interrupted by SIGTERM or SIGINT while writing', async () => {
    // A report of some MB: its write takes long enough for the signal to land in it. The child is signalled the
    // moment its temporary file appears.
    const rows = Array.from({ length: 30_000 }, (_, i) => `1,kernel_${i}_${'n'.repeat(40)},T${i},AI_CORE,${i}.0,1.5,0,0`);
    const { csv } = profile(`${HEADER}\n${rows.join('\n')}\n`);
    for (const signal of ['SIGTERM', 'SIGINT'] as const) {
      const d = tmp();
      const child = spawn(
        process.execPath,
        [join(ROOT, 'bin/kprof.js'), 'summary', csv, '--by', 'name', '--format', 'json', '-o', join(d, 'r.json')],
        {
          stdio: 'ignore',
        },
      );
      const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
      const watcher = setInterval(() => {
        if (readdirSync(d).some((f) => f.endsWith('.tmp'))) child.kill(signal);
      }, 0);
      await exited;
      clearInterval(watcher);
      // Either the signal came during the write (nothing left) or after it (the report alone).
      expect(readdirSync(d).filter((f) => f !== 'r.json')).toEqual([]);
    }
  }, 60_000);
});

describe('stdout', () => {
  it('a report that cannot be written to stdout (/dev/full) is exit 2 with a message, never exit 0', () => {
    const { csv } = profile();
    const fd = openSync('/dev/full', 'w');
    const r = bin(['summary', csv], { stdout: fd });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      'kprof: cannot write the report to standard output (the disk is full); the report is incomplete or missing. Free some space, or write it to a file with --out.\n',
    );
  });

  it('a reader that stops early (| head) is not an error', () => {
    const { csv } = profile();
    const r = spawnSync(
      'bash',
      // The paths as arguments of the script, not its text: a clone's or a temporary path may hold a space or a quote.
      ['-c', 'node "$1" summary "$2" --by name | head -c 1 >/dev/null; exit ${PIPESTATUS[0]}', 'bash', join(ROOT, 'bin/kprof.js'), csv],
      {
        encoding: 'utf8',
        timeout: 20_000,
      },
    );
    expect(r.status).toBe(0);
    expect(r.stderr).toBe('');
  });
});

describe('internal errors', () => {
  it('exit 3 and ask to report: a bug of kprof is neither bad input (2) nor a failed check (1)', async () => {
    const { csv } = profile();
    let stderr = '';
    const code = await run(['summary', csv], {
      stdout: () => {
        throw new TypeError('boom');
      },
      stderr: (s) => (stderr += s),
      env: { NO_COLOR: '1' },
      stdoutIsTTY: false,
      stderrIsTTY: false,
      cwd: ROOT,
    });
    expect(code).toBe(3);
    expect(stderr).toMatch(/^kprof: internal error: boom\. This is a bug in kprof; please report it/);
  });
});

describe('regular expressions run in linear time', () => {
  const evil = ['^(a+)+$', '(a|aa)+$', '^(\\w+\\s?)*$'];

  it('--match, --exclude, --groups and rules patterns cannot hang on a hostile kernel name', async () => {
    // 40 characters that almost match: V8's backtracking takes minutes on these.
    const name = `${'a'.repeat(40)}!`;
    const { dir } = profile(`${HEADER}\n1,${name},${name},AI_CORE,1.0,2.0,0,0\n1,plain,Plain,AI_CORE,2.0,2.0,0,0\n`);
    const groups = join(dir, 'groups.yaml');
    const rules = join(dir, 'rules.yaml');
    for (const re of evil) {
      writeFileSync(groups, `evil: ["/${re.replace(/\\/g, '\\\\')}/"]\n`);
      writeFileSync(rules, `rules:\n  - rule: evil\n    match: '/${re}/'\n    absent: true\n`);
      const runs = [
        bin(['summary', dir, '--by', 'name', '--match', re]),
        bin(['summary', dir, '--by', 'name', '--exclude', re]),
        bin(['summary', dir, '--groups', groups]),
        bin(['check', dir, '--rules', rules]),
      ];
      for (const r of runs) {
        expect(r.signal, re).toBeNull();
        expect([0, 1, 2], `${re}: ${r.stderr}`).toContain(r.code);
        expect(r.stderr).not.toMatch(/internal error|bad regular expression/);
      }
    }
    // And the answers are RE2's: the hostile name does not match ^(a+)+$, the plain one is kept.
    const x = bin(['summary', dir, '--by', 'name', '--exclude', '^(a+)+$', '--format', 'csv']);
    expect(x.code).toBe(0);
    expect(x.stdout).toContain(name);
    expect(x.stdout).toMatch(/^plain,/m);
  }, 120_000);

  it('refuses what RE2 cannot run in linear time, with the reason', async () => {
    const { dir } = profile();
    const lookahead = await kprof(['summary', dir, '--match', '(?=Cast)C']);
    expect(lookahead.code).toBe(2);
    expect(lookahead.stderr).toMatch(/--match: bad regular expression "\(\?=Cast\)C": lookaround .* cannot be used: kprof matches with RE2/);
    const backref = await kprof(['summary', dir, '--exclude', '(a)\\1']);
    expect(backref.code).toBe(2);
    expect(backref.stderr).toMatch(/backreferences .* cannot be used/);
  });

  it('refuses a 1 MB pattern without echoing it', async () => {
    const { dir } = profile();
    const huge = 'a'.repeat(1 << 20);
    const r = await kprof(['summary', dir, '--match', huge]);
    expect(r.code).toBe(2);
    expect(r.stderr.length).toBeLessThan(400);
    expect(r.stderr).toMatch(/1048576 characters long; at most 4096 are accepted/);
    // In a file, 100k characters (a file is at most 256 KiB).
    const long = 'a'.repeat(100_000);
    const groups = join(dir, 'groups.yaml');
    writeFileSync(groups, `big: ["/${long}/"]\n`);
    const g = await kprof(['summary', dir, '--groups', groups]);
    expect(g.code).toBe(2);
    expect(g.stderr.length).toBeLessThan(400);
    const rulesFile = join(dir, 'rules.yaml');
    writeFileSync(rulesFile, `rules:\n  - match: "${long}"\n    absent: true\n`);
    const rl = await kprof(['check', dir, '--rules', rulesFile]);
    expect(rl.code).toBe(2);
    // Refused unread: not even its first characters are quoted, only its length.
    for (const out of [r.stderr, g.stderr, rl.stderr]) {
      expect(out).not.toMatch(/aaa/);
      expect(out).toMatch(/ of (104857[68]|10000[02]) characters \(not quoted\)/);
    }
    const just = await kprof(['summary', dir, '--match', 'b'.repeat(4097)]);
    expect(just.code).toBe(2);
    expect(just.stderr).toContain('--match: bad regular expression of 4097 characters (not quoted): the regular expression is 4097 characters long');
  });

  it('keeps the JavaScript syntax users write: flags, named groups, classes', async () => {
    const { dir } = profile();
    const r = await kprof(['summary', dir, '--match', '(?<op>matmul)', '--format', 'csv']);
    expect(r.code).toBe(0);
    expect(r.stdout).not.toMatch(/MatMulV3/); // case-sensitive without a flag
    const groups = join(dir, 'g.yaml');
    writeFileSync(groups, 'mm: ["/^mat\\\\w+v\\\\d$/i"]\n');
    const g = await kprof(['summary', dir, '--groups', groups, '--format', 'csv']);
    expect(g.code).toBe(0);
    expect(g.stdout).toMatch(/^mm,,,,,mm,1,/m);
  });
});

describe('special files: refused with what they are, never read until they end', () => {
  const special =
    /: a (FIFO \(named pipe\)|character device \(such as \/dev\/zero or a terminal\)), not a regular file; kprof reads only regular files/;

  it('a FIFO or /dev/zero as the profile, inside a profile folder, as profiler_info, --rules or --groups', async () => {
    const d = tmp();
    const fifo = join(d, 'fifo.csv');
    execFileSync('mkfifo', [fifo]);
    const zeroProfile = join(d, 'zero_ascend_pt');
    mkdirSync(join(zeroProfile, 'ASCEND_PROFILER_OUTPUT'), { recursive: true });
    symlinkSync('/dev/zero', join(zeroProfile, 'ASCEND_PROFILER_OUTPUT', 'kernel_details.csv'));
    const infoProfile = join(d, 'info_ascend_pt');
    mkdirSync(join(infoProfile, 'ASCEND_PROFILER_OUTPUT'), { recursive: true });
    writeFileSync(join(infoProfile, 'ASCEND_PROFILER_OUTPUT', 'kernel_details.csv'), CSV);
    execFileSync('mkfifo', [join(infoProfile, 'profiler_info_0.json')]);
    const { csv } = profile();
    const zeroLink = join(d, 'zero.yaml');
    symlinkSync('/dev/zero', zeroLink);
    const cases: [string[], string][] = [
      [['summary', fifo], fifo],
      [['summary', '/dev/zero'], '/dev/zero'],
      [['summary', zeroProfile], join(zeroProfile, 'ASCEND_PROFILER_OUTPUT', 'kernel_details.csv')],
      [['summary', infoProfile], join(infoProfile, 'profiler_info_0.json')],
      [['summary', csv, '--groups', '/dev/zero'], '/dev/zero'],
      [['summary', csv, '--groups', zeroLink], zeroLink],
      [['check', csv, '--rules', fifo], fifo],
      [['diff', csv, '/dev/zero'], '/dev/zero'],
    ];
    for (const [args, named] of cases) {
      const r = bin(args);
      expect(r.signal, args.join(' ')).toBeNull();
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr, args.join(' ')).toMatch(special);
      expect(r.stderr).toContain(`kprof: ${named}: `);
    }
  }, 60_000);

  it('side files have a size limit; a summary JSON too, also once unpacked', async () => {
    const { csv } = profile();
    const d = tmp();
    const big = join(d, 'groups.yaml');
    writeFileSync(big, `g: [${'"x", '.repeat(1_100_000)}"y"]\n`);
    const r = await kprof(['summary', csv, '--groups', big]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/groups\.yaml: more than 256 KiB; a rules or groups file is at most 256 KiB/);
    const info = join(d, 'rank_ascend_pt');
    mkdirSync(join(info, 'ASCEND_PROFILER_OUTPUT'), { recursive: true });
    writeFileSync(join(info, 'ASCEND_PROFILER_OUTPUT', 'kernel_details.csv'), CSV);
    writeFileSync(join(info, 'profiler_info_0.json'), `{"rank_id": 0, "pad": "${'x'.repeat(2 << 20)}"}`);
    const i = await kprof(['summary', info]);
    expect(i.code).toBe(2);
    expect(i.stderr).toMatch(/profiler_info_0\.json: more than 1 MiB; a profiler_info file is at most 1 MiB/);
    // A gzip that unpacks to 300 MB of zeros, as a summary JSON.
    const bomb = join(d, 'bomb.json.gz');
    const { gzipSync } = await import('node:zlib');
    // Gzip members one after another are one gzip stream: 300 copies of 1 MiB of zeros, 300 MiB once unpacked.
    const member = gzipSync(Buffer.alloc(1 << 20), { level: 9 });
    writeFileSync(bomb, Buffer.concat(Array<Buffer>(300).fill(member)));
    const b = await kprof(['summary', bomb]);
    expect(b.code).toBe(2);
    expect(b.stderr).toMatch(/bomb\.json\.gz: unpacks to more than 256 MiB, the largest summary JSON kprof reads back [\s\S]*--steps/);
  }, 60_000);

  it('a loop of symbolic links is named as one, as the profile, inside a folder and as -o', async () => {
    const d = tmp();
    symlinkSync(join(d, 'b'), join(d, 'a'));
    symlinkSync(join(d, 'a'), join(d, 'b'));
    const r = await kprof(['summary', join(d, 'a')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/a: a loop of symbolic links/);
    const p = join(d, 'p');
    mkdirSync(p);
    symlinkSync(join(d, 'a'), join(p, 'kernel_details.csv'));
    const f = await kprof(['summary', p]);
    expect(f.code).toBe(2);
    expect(f.stderr).toMatch(/kernel_details\.csv: a loop of symbolic links/);
    const { csv } = profile();
    const o = await kprof(['summary', csv, '-o', join(d, 'a')]);
    expect(o.code).toBe(2);
    expect(o.stderr).toMatch(/cannot write the report \(the path goes through a loop of symbolic links\)/);
  });
});

describe('messages for files in the wrong shape', () => {
  it('UTF-16 and UTF-32 files say their encoding, CSV and rules alike', async () => {
    const d = tmp();
    const text = CSV;
    const cases: [string, Buffer][] = [
      ['UTF-16LE', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')])],
      ['UTF-16LE', Buffer.from(text, 'utf16le')],
      ['UTF-16BE', Buffer.from(text, 'utf16le').swap16()],
      ['UTF-32LE', Buffer.concat([Buffer.from([0xff, 0xfe, 0, 0]), ...[...text].map((c) => Buffer.from([c.charCodeAt(0), 0, 0, 0]))])],
    ];
    for (const [encoding, bytes] of cases) {
      const f = join(d, 'kernel_details.csv');
      writeFileSync(f, bytes);
      const r = await kprof(['summary', f]);
      expect(r.code, encoding).toBe(2);
      expect(r.stderr, encoding).toMatch(new RegExp(`the file is ${encoding} text, not UTF-8 .*iconv -f ${encoding} -t UTF-8`));
    }
    const rules = join(d, 'rules.yaml');
    writeFileSync(rules, Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('rules: []\n', 'utf16le')]));
    const { csv } = profile();
    const c = await kprof(['check', csv, '--rules', rules]);
    expect(c.code).toBe(2);
    expect(c.stderr).toMatch(/rules\.yaml: the file is UTF-16LE text, expected UTF-8/);
  });

  it('CR-only line endings are said, not read as one line', async () => {
    const { csv } = profile(CSV.replace(/\n/g, '\r'));
    const r = await kprof(['summary', csv]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/lines that end with CR alone \(old Mac OS line endings\), no LF/);
  });

  it('a gzip whose checksum does not match says so, not "after 0 unpacked bytes"', async () => {
    const { gzipSync } = await import('node:zlib');
    const d = tmp();
    const gz = gzipSync(Buffer.from(CSV));
    gz[gz.length - 8]! ^= 0xff; // the CRC-32 in the trailer
    const f = join(d, 'kernel_details.csv.gz');
    writeFileSync(f, gz);
    const r = await kprof(['summary', f]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/the gzip checksum at the end of the file does not match the data \(incorrect data check\): the file is damaged/);
    expect(r.stderr).not.toMatch(/after 0 unpacked bytes/);
  });

  it('YAML aliases and merge keys are refused where they stand', async () => {
    const { csv } = profile();
    const d = tmp();
    const groups = join(d, 'g.yaml');
    // A "billion laughs": each alias would stand for ten of the one before.
    const lines = ['a: &a ["x"]'];
    for (let i = 1; i < 9; i++)
      lines.push(
        `a${i}: &a${i} [${Array(10)
          .fill(i === 1 ? '*a' : `*a${i - 1}`)
          .join(', ')}]`,
      );
    writeFileSync(groups, `${lines.join('\n')}\n`);
    const r = await kprof(['summary', csv, '--groups', groups]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/g\.yaml:2:\d+: a YAML alias \(\*name\); kprof does not expand anchors and aliases/);
    const rules = join(d, 'r.yaml');
    writeFileSync(rules, 'rules:\n  - <<: {type: Cast}\n    present: true\n');
    const m = await kprof(['check', csv, '--rules', rules]);
    expect(m.code).toBe(2);
    expect(m.stderr).toMatch(/r\.yaml:2:5: a YAML merge key \(<<\); kprof does not merge mappings/);
  });

  it('a key that is a list, a mapping or nothing is refused where it stands, in groups, rules and catalogue files', async () => {
    const { csv } = profile();
    const d = tmp();
    const write = (name: string, text: string): string => {
      writeFileSync(join(d, name), text);
      return join(d, name);
    };
    const why = (what: string): string => `a key that is ${what}; kprof's files take a name as a key. Write the key as a word or a quoted text.`;
    // A list as a group's name was refused as "a group needs a name"; nothing as a name made the group "null".
    const list = await kprof(['summary', csv, '--groups', write('g1.yaml', '? [a, b]\n: [Cast]\n')]);
    expect(list.stderr).toBe(`kprof: ${join(d, 'g1.yaml')}:1:3: ${why('a list')}\n`);
    const none = await kprof(['summary', csv, '--groups', write('g2.yaml', '? \n: [Cast]\n')]);
    expect([none.code, none.stderr]).toEqual([2, `kprof: ${join(d, 'g2.yaml')}:1:3: ${why('nothing (an empty value)')}\n`]);
    // In a rule, it was `unknown key ""`.
    const rule = await kprof([
      'check',
      csv,
      '--rules',
      write('r.yaml', 'version: 1\nrules:\n  - rule: a\n    type: Cast\n    count: { ? [per]: step, max: 1 }\n'),
    ]);
    // (A rules file is named relative to the working folder.)
    expect(rule.code).toBe(2);
    expect(rule.stderr).toMatch(/^kprof: \S*r\.yaml:5:16: /);
    expect(rule.stderr).toContain(`r.yaml:5:16: ${why('a list')}\n`);
    // In a catalogue, the YAML library's own warning reached stderr ("Set mapAsMap: true …") before the error.
    const cat = await kprof(['audit', csv, '--catalogue', write('c.yaml', 'entries:\n  - ? {a: 1}\n    : x\n')]);
    expect([cat.code, cat.stderr]).toEqual([2, `kprof: ${join(d, 'c.yaml')}:2:7: ${why('a mapping')}\n`]);
  });

  it('a file of a profile that is a symbolic link elsewhere is not quoted in a message, but where it leads is named', async () => {
    const d = tmp();
    // A credential file a profile from elsewhere could link to: its first line was quoted into the error (a CI log).
    const secret = join(d, 'git-credentials');
    writeFileSync(secret, 'https://user:ghp_SECRET123@github.com\n');
    const csv = join(d, 'run', 'r_ascend_pt', 'ASCEND_PROFILER_OUTPUT');
    mkdirSync(csv, { recursive: true });
    symlinkSync(secret, join(csv, 'kernel_details.csv'));
    const db = join(d, 'db', 'r_ascend_pt', 'ASCEND_PROFILER_OUTPUT');
    mkdirSync(db, { recursive: true });
    symlinkSync(secret, join(db, 'ascend_pytorch_profiler_0.db'));
    const traces = join(d, 'traces');
    mkdirSync(traces);
    symlinkSync(secret, join(traces, 'rank0.pt.trace.json'));
    for (const [input, what] of [
      [join(d, 'run'), 'unknown CSV format; found columns: '],
      [join(d, 'db'), 'not an SQLite database: it starts with '],
      [traces, 'the file does not start with { (it starts with '],
    ] as const) {
      const r = await kprof(['summary', input]);
      expect(r.code, input).toBe(2);
      expect(r.stderr, input).toContain(`${what}(not quoted: the file is a symbolic link to ${realpathSync(secret)})`);
      expect(r.stderr, input).not.toContain('SECRET');
    }
    // Named on the command line itself, the file is quoted as before: the user chose it.
    expect((await kprof(['summary', secret])).stderr).toContain('found columns: https://user:ghp_SECRET123@github.com');
  });

  it('10,000 empty rank folders give a message of a few lines, not one line per folder', async () => {
    const d = tmp();
    for (let i = 0; i < 10_000; i++) mkdirSync(join(d, `rank_${i}_ascend_pt`, 'ASCEND_PROFILER_OUTPUT'), { recursive: true });
    const r = await kprof(['summary', d]);
    expect(r.code).toBe(2);
    expect(r.stderr.length).toBeLessThan(2000);
    expect(r.stderr).toMatch(/… \(10000 entries\)/);
    expect(r.stderr).toMatch(/and 9997 more folders like these/);
    rmSync(d, { recursive: true, force: true });
  }, 600_000);
});

describe('warnings instead of silence', () => {
  it('NUL bytes past the first 64 KB, with their line (plain and gzip)', async () => {
    const rows = Array.from({ length: 5000 }, (_, i) => `1,k${i},T,AI_CORE,${i}.0,1.0,0,0`);
    rows.push('1,bad\0name,T,AI_CORE,1.0,1.0,0,0');
    const text = `${HEADER}\n${rows.join('\n')}\n`;
    const { csv, dir } = profile(text);
    const { gzipSync } = await import('node:zlib');
    writeFileSync(join(dir, 'copy.csv.gz'), gzipSync(Buffer.from(text)));
    for (const f of [csv, join(dir, 'copy.csv.gz')]) {
      const r = await kprof(['summary', f]);
      expect(r.code).toBe(0);
      expect(r.stderr).toMatch(/:5002: NUL bytes \(0x00\) in the file, the first at byte \d+/);
    }
  });

  it('names that are not UTF-8 are said and kept apart (both engines)', async () => {
    const d = tmp();
    const f = join(d, 'kernel_details.csv');
    writeFileSync(f, Buffer.concat([Buffer.from(`${HEADER}\n`), Buffer.from('1,op\xe9,T,AI_CORE,1,2,0,0\n1,op\xe8,T,AI_CORE,1,2,0,0\n', 'latin1')]));
    const r = await kprof(['summary', f, '--by', 'name', '--format', 'csv']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^op\\xE9,/m);
    expect(r.stdout).toMatch(/^op\\xE8,/m);
    expect(r.stderr).toMatch(/kernel_details\.csv:2: bytes that are not UTF-8, the first at byte \d+/);
  });

  it('a literal \\x85 and the byte 0x85 are two names: the decoding is injective, and JSON keeps them apart', async () => {
    const d = tmp();
    const f = join(d, 'kernel_details.csv');
    writeFileSync(
      f,
      Buffer.concat([Buffer.from(`${HEADER}\n1,a,T\\x85,AI_CORE,1,2,0,0\n1,b,T`), Buffer.from([0x85]), Buffer.from(',AI_CORE,1,3,0,0\n')]),
    );
    const r = await kprof(['summary', f, '--format', 'json']);
    expect(r.code).toBe(0);
    const keys = (JSON.parse(r.stdout) as { groups: { key: string; count: number }[] }).groups.map((g) => g.key).sort();
    expect(keys).toEqual(['T\\x85', 'T\udc85']);
    // A snapshot of it reads back with the two groups, and a rule names the byte as \uDCNN.
    const snap = join(d, 'nu.json');
    writeFileSync(snap, r.stdout);
    const back = await kprof(['summary', snap, '--format', 'json']);
    expect(back.code).toBe(0);
    expect(JSON.parse(back.stdout).groups).toEqual(JSON.parse(r.stdout).groups);
    const rules = join(d, 'r.yaml');
    writeFileSync(rules, 'rules:\n  - type: "T\\uDC85"\n    count: { max: 1 }\n  - type: "T\\\\x85"\n    count: { max: 1 }\n');
    const c = await kprof(['check', f, '--rules', rules]);
    expect(c.code, c.stdout + c.stderr).toBe(0);
    // The byte is \x85; the name's own backslash, which would read as an escape, is \x5c: the two read apart.
    expect(c.stdout).toMatch(/type T\\x85: 1 kernel;[\s\S]*type T\\x5cx85: 1 kernel;/);
    // Text shows the byte as \x85 (upper-case digits, as the warning says), never the raw byte or U+FFFD.
    const t = await kprof(['summary', f]);
    expect(t.stdout.match(/^T\\x85 +1 /gm)).toHaveLength(1);
    expect(t.stdout.match(/^T\\x5cx85 +1 /gm)).toHaveLength(1);
    expect(t.stdout).not.toMatch(/[\u0085\ufffd\udc85]/);
  });

  it('a header that names a column twice', async () => {
    const { csv } = profile(`${HEADER},Duration(us)\n1,a,A,AI_CORE,1.0,2.0,0,0,9\n`);
    const r = await kprof(['summary', csv, '--format', 'json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).totals.totalUs).toBe(2);
    expect(r.stderr).toMatch(/:1: the header names a column twice: "Duration\(us\)" \(columns 6 and 9\); the first of each is read/);
  });

  it('a slice missing from a sliced op_summary', async () => {
    const src = join(ROOT, 'fixtures/formats');
    const sliced = readdirSync(src, { recursive: true, withFileTypes: true }).find((e) => /^op_summary_slice_0_/.test(e.name));
    expect(sliced, 'a sliced fixture').toBeDefined();
    const from = join(sliced!.parentPath, sliced!.name);
    const d = tmp();
    const rest = sliced!.name.replace(/^op_summary_slice_0_/, '');
    writeFileSync(join(d, `op_summary_slice_0_${rest}`), readFileSync(from));
    writeFileSync(join(d, `op_summary_slice_1_${rest}`), readFileSync(from.replace('_slice_0_', '_slice_1_')));
    writeFileSync(join(d, `op_summary_slice_3_${rest}`), readFileSync(from.replace('_slice_0_', '_slice_1_')));
    const r = await kprof(['summary', d]);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/op_summary_slice_0_.*:1: slice 2 of this sliced export is missing \(found 3 of 4\)/);
  });

  it('rank ids that are not plain ids: true, and "00" beside "0"', async () => {
    const d = tmp();
    const rank = (name: string, info: string) => {
      mkdirSync(join(d, name, 'ASCEND_PROFILER_OUTPUT'), { recursive: true });
      writeFileSync(join(d, name, 'ASCEND_PROFILER_OUTPUT', 'kernel_details.csv'), CSV);
      writeFileSync(join(d, name, 'profiler_info_7.json'), info);
    };
    rank('a_ascend_pt', '{"rank_id": true}');
    const r = await kprof(['summary', join(d, 'a_ascend_pt'), '--format', 'json']);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/profiler_info_7\.json:1: rank_id is true, not a whole number; the rank is taken from the file name instead/);
    expect(JSON.parse(r.stdout).ranks).toEqual(['7']);
    // A rank_id past 2^53 - 1 parses as another number (99999999999999999999 as 1e20): never a rank the file does not name.
    for (const big of ['99999999999999999999', '1e308', '9007199254740992']) {
      rank('a_ascend_pt', `{"rank_id": ${big}}`);
      const b = await kprof(['summary', join(d, 'a_ascend_pt'), '--format', 'json']);
      expect(b.code).toBe(0);
      expect(b.stderr).toContain(
        `profiler_info_7.json:1: rank_id is ${big}, more than a rank id kprof reads exactly (2^53 - 1); the rank is taken from the file name instead`,
      );
      expect(JSON.parse(b.stdout).ranks).toEqual(['7']);
    }
    // Past a double's range it parses as Infinity (JSON.stringify: null): said as written.
    rank('a_ascend_pt', '{"rank_id": 1e400}');
    const inf = await kprof(['summary', join(d, 'a_ascend_pt'), '--format', 'json']);
    expect(inf.stderr).toContain('profiler_info_7.json:1: rank_id is 1e400, not a whole number; the rank is taken from the file name instead');
    expect(JSON.parse(inf.stdout).ranks).toEqual(['7']);
    // Written twice, the file names two ranks: the last (JSON.parse's) is read, and said.
    rank('a_ascend_pt', '{"rank_id": 4, "rank_id": 5}');
    const twice = await kprof(['summary', join(d, 'a_ascend_pt'), '--format', 'json']);
    expect(twice.stderr).toContain('profiler_info_7.json:1: rank_id is written twice; the last (5) is read');
    expect(JSON.parse(twice.stdout).ranks).toEqual(['5']);
    const e = tmp();
    for (const [name, id] of [
      ['r0_ascend_pt', '"0"'],
      ['r00_ascend_pt', '"00"'],
    ] as const) {
      mkdirSync(join(e, name, 'ASCEND_PROFILER_OUTPUT'), { recursive: true });
      writeFileSync(join(e, name, 'ASCEND_PROFILER_OUTPUT', 'kernel_details.csv'), CSV);
      writeFileSync(join(e, name, 'profiler_info.json'), `{"rank_id": ${id}}`);
    }
    const two = await kprof(['summary', e]);
    expect(two.code).toBe(2);
    expect(two.stderr).toMatch(/rank 0 found twice/);
  });

  it('a profiler_info with a byte order mark is read; one cut short or empty is warned of, the rank taken from its name', async () => {
    const d = tmp();
    const rank = (name: string, info: string | Buffer) => {
      mkdirSync(join(d, name, 'ASCEND_PROFILER_OUTPUT'), { recursive: true });
      writeFileSync(join(d, name, 'ASCEND_PROFILER_OUTPUT', 'kernel_details.csv'), CSV);
      writeFileSync(join(d, name, 'profiler_info_7.json'), info);
    };
    rank('a_ascend_pt', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"rank_id": 5}')]));
    const bom = await kprof(['summary', join(d, 'a_ascend_pt'), '--format', 'json']);
    expect(bom.code).toBe(0);
    expect(bom.stderr).toBe('');
    expect(JSON.parse(bom.stdout).ranks).toEqual(['5']);
    for (const [name, info, said] of [
      ['b_ascend_pt', '{"rank_id": 5', 'not valid JSON (cut short?)'],
      ['c_ascend_pt', '', 'the file is empty'],
    ] as const) {
      rank(name, info);
      const r = await kprof(['summary', join(d, name), '--format', 'json']);
      expect(r.code).toBe(0);
      expect(r.stderr).toContain(
        `profiler_info_7.json:1: ${said}, expected the profiler's JSON with its rank_id; the rank is taken from the file name instead`,
      );
      expect(JSON.parse(r.stdout).ranks).toEqual(['7']);
    }
  });
});
