// Hostile files and paths: what others hand kprof (profiles, rules, groups, -o targets, patterns) cannot hang it,
// exhaust its memory, destroy a file or pass for a good run. Every input is built here at test time (no large
// committed files); every case runs under a timeout and never asserts on wall-clock time.

import { spawn, spawnSync } from 'node:child_process';
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { run } from '../src/run.js';
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
});

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
    const r = await kprof(['summary', csv, '-o', '/dev/null']);
    expect(r.code).toBe(0);
    expect(statSync('/dev/null').isCharacterDevice()).toBe(true);
    const d = tmp();
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

  it('says what is wrong with "", ".", "/", a 255-character name and a missing folder', async () => {
    const { csv } = profile();
    const d = tmp();
    const cases: [string, RegExp][] = [
      ['', /--out: expected a file path; found an empty string/],
      ['.', /^kprof: \.: cannot write the report \(it is a folder\); nothing was written/],
      ['/', /^kprof: \/: cannot write the report \(it is a folder\); nothing was written/],
      [join(d, 'x'.repeat(256)), /cannot write the report \(the name is too long: 256 bytes in the file name, \d+ in the path; most file systems take at most 255 bytes in a name\)/],
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

  it('leaves no temporary file behind when interrupted by SIGTERM or SIGINT while writing', async () => {
    // A report of some MB: its write takes long enough for the signal to land in it. The child is signalled the
    // moment its temporary file appears.
    const rows = Array.from({ length: 30_000 }, (_, i) => `1,kernel_${i}_${'n'.repeat(40)},T${i},AI_CORE,${i}.0,1.5,0,0`);
    const { csv } = profile(`${HEADER}\n${rows.join('\n')}\n`);
    for (const signal of ['SIGTERM', 'SIGINT'] as const) {
      const d = tmp();
      const child = spawn(process.execPath, [join(ROOT, 'bin/kprof.js'), 'summary', csv, '--by', 'name', '--format', 'json', '-o', join(d, 'r.json')], {
        stdio: 'ignore',
      });
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
    const r = spawnSync('bash', ['-c', `node ${join(ROOT, 'bin/kprof.js')} summary ${csv} --by name | head -c 1 >/dev/null; exit \${PIPESTATUS[0]}`], {
      encoding: 'utf8',
      timeout: 20_000,
    });
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
    const groups = join(dir, 'groups.yaml');
    writeFileSync(groups, `big: ["/${huge}/"]\n`);
    const g = await kprof(['summary', dir, '--groups', groups]);
    expect(g.code).toBe(2);
    expect(g.stderr.length).toBeLessThan(400);
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
