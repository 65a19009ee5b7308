// The working directory is Io.cwd, never the process's: the CLI runs in-process in a temporary folder (the
// process stays in the repo root), and what it reads, what -o writes and the paths it shows follow that folder.

import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readProfile } from '../src/input/read.js';
import { inWorkingDir } from '../src/util/files.js';
import { kprof, ROOT } from './helpers.js';

const FE = 'fixtures/fusion-example';
let dir = '';
let other = '';

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'kprof-cwd-'));
  other = mkdtempSync(join(tmpdir(), 'kprof-cwd-'));
  // The fixtures under the same relative paths as in the repo, so a run here and one in the repo root must print
  // the same bytes.
  for (const f of [FE, 'fixtures/bad-ragged-rows', 'fixtures/groups', 'fixtures/rules/bad-rules'])
    cpSync(join(ROOT, f), join(dir, f), { recursive: true });
  // And a folder only this one has (`mine/`), and one of the same name elsewhere that holds other data.
  cpSync(join(ROOT, FE), join(dir, 'mine'), { recursive: true });
  cpSync(join(ROOT, 'fixtures/groups/attention.yaml'), join(dir, 'mine/groups.yaml'));
  cpSync(join(ROOT, 'fixtures/rules/one-rank'), join(other, 'mine'), { recursive: true });
  mkdirSync(join(dir, 'out'));
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  rmSync(other, { recursive: true, force: true });
});

describe('the working directory is io.cwd', () => {
  it('the process stays where it is', () => {
    expect(process.cwd()).toBe(ROOT);
    expect(existsSync(join(ROOT, 'mine'))).toBe(false);
  });

  it.each([
    ['summary', 'fixtures/bad-ragged-rows', '--groups', 'fixtures/groups/attention.yaml', '--by', 'name'],
    ['inspect', `${FE}/pr`],
    ['inspect', `${FE}/pr`, '--format', 'json'],
    ['diff', `${FE}/base`, `${FE}/pr`, '--format', 'json'],
    ['check', `${FE}/pr`, '--rules', `${FE}/kprof.rules.yaml`, '--base', `${FE}/base`],
    ['check', `${FE}/pr`, '--rules', 'fixtures/rules/bad-rules/unknown-key.yaml', '--format', 'github'],
    ['summary', 'fixtures/does-not-exist'],
  ])('shows paths relative to it, as in the repo root: %s %s', async (...args) => {
    const here = await kprof(args, {}, dir);
    expect(here).toEqual(await kprof(args, {}, ROOT));
    expect(here.stdout + here.stderr).not.toContain(dir);
  });

  it('shows an absolute path below it relative to it', async () => {
    const shown = async (cwd: string) => (await kprof(['inspect', join(cwd, FE, 'pr'), '--format', 'json'], {}, cwd)).stdout;
    const here = await shown(dir);
    expect(JSON.parse(here).input).toBe(`${FE}/pr`);
    expect(here).toBe(await shown(ROOT));
  });

  it('names folders far from it by their absolute path, as relPath does, in the message of a rank found twice', async () => {
    // Three levels down in one temporary folder, the profile in another: relative, it would be ../../../../kprof-cwd-….
    const deep = join(dir, 'a', 'b', 'c');
    mkdirSync(deep, { recursive: true });
    const ranks = join(other, 'twice');
    for (const run of ['x', 'y']) cpSync(join(ROOT, FE, 'pr'), join(ranks, run), { recursive: true });
    const r = await kprof(['summary', ranks], {}, deep);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/rank 0 found twice: /);
    expect(r.stderr).toContain(`${ranks}/x/node-07_`);
    expect(r.stderr).not.toContain('../');
  });

  it('reads the profile, the rules and the groups there', async () => {
    const check = ['check', 'mine/pr', '--rules', 'mine/kprof.rules.yaml', '--base', 'mine/base'];
    const here = await kprof(check, {}, dir);
    expect(here.code).toBe(0);
    expect(here.stdout).toContain('mine/kprof.rules.yaml');
    const groups = await kprof(['summary', 'mine/pr', '--groups', 'mine/groups.yaml', '--format', 'json'], {}, dir);
    expect(groups.code).toBe(0);
    expect(JSON.parse(groups.stdout).groupBy).toBeDefined();
    // In the process's folder there is no mine/: the same command is an error there.
    const root = await kprof(check, {}, ROOT);
    expect(root.code).toBe(2);
    expect(root.stderr).toBe('kprof: mine/kprof.rules.yaml: no such file or folder. Check the path.\n');
  });

  it('writes -o there, and reads it back', async () => {
    const w = await kprof(['summary', 'mine/pr', '--format', 'json', '-o', 'out/pr.json'], {}, dir);
    expect(w).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(existsSync(join(dir, 'out/pr.json'))).toBe(true);
    expect(existsSync(join(ROOT, 'out/pr.json'))).toBe(false);
    expect((await kprof(['merge', 'out/pr.json', '-o', 'out/merged.json'], {}, dir)).code).toBe(0);
    expect(JSON.parse(readFileSync(join(dir, 'out/merged.json'), 'utf8')).inputs).toEqual(['mine/pr']);
    const r = await kprof(['rules', 'mine/base', 'out/pr.json', '-o', 'out/rules.yaml'], {}, dir);
    expect(r.code).toBe(0);
    expect(readFileSync(join(dir, 'out/rules.yaml'), 'utf8')).toContain('diff of mine/base (base) and out/pr.json (PR)');
    const c = await kprof(['check', 'out/pr.json', '--rules', 'out/rules.yaml', '--base', 'mine/base', '-o', 'out/check.txt'], {}, dir);
    expect(c.code).toBe(0);
    expect(c.stderr).toMatch(/Report written to out\/check\.txt\.\n$/);
    expect(existsSync(join(dir, 'out/check.txt'))).toBe(true);
    // -o never replaces an input, however it is named from there.
    const clobber = await kprof(['summary', 'out/pr.json', '--format', 'json', '-o', `${dir}/out/pr.json`], {}, dir);
    expect(clobber.code).toBe(2);
    expect(clobber.stderr).toContain('the same file as out/pr.json, an input of this run');
  });

  it('takes -o - for standard output, as other tools do, and writes no file named "-"', async () => {
    for (const args of [
      ['summary', 'mine/pr', '--format', 'json'],
      ['diff', 'mine/base', 'mine/pr', '--format', 'markdown'],
      ['rules', 'mine/base', 'mine/pr'],
    ]) {
      const want = await kprof(args, {}, dir);
      expect(want.code).toBe(0);
      expect(await kprof([...args, '-o', '-'], {}, dir)).toEqual(want);
    }
    expect(existsSync(join(dir, '-'))).toBe(false);
  });

  it('takes - for stdout in --markdown-out, --html-out and --save-fusions, refuses two reports there, and ./- is a file', async () => {
    expect((await kprof(['rules', 'mine/base', 'mine/pr', '-o', 'out/dash.yaml'], {}, dir)).code).toBe(0);
    const check = ['check', 'mine/pr', '--rules', 'out/dash.yaml'];
    symlinkSync('/dev/stdout', join(dir, 'out/stdout'));
    const md = await kprof([...check, '--format', 'markdown'], {}, dir);
    const both = await kprof([...check, '--markdown-out', '-', '-o', 'out/dash.txt'], {}, dir);
    expect(both.code).toBe(0);
    expect(both.stdout).toBe(md.stdout);
    const saved = await kprof(['diff', 'mine/base', 'mine/pr', '--save-fusions', '-', '-o', 'out/dash.md'], {}, dir);
    expect(saved.stdout).toContain('entries:');
    expect(saved.stderr).toContain('1 entry written to stdout.');
    for (const [args, said] of [
      [[...check, '--markdown-out', '-'], '--markdown-out -: stdout, where the report goes too (no -o FILE)'],
      [[...check, '--markdown-out', '-', '--html-out', '-', '-o', 'out/dash.txt'], '--html-out -: stdout, where --markdown-out - writes too'],
      [['diff', 'mine/base', 'mine/pr', '--save-fusions', '-', '-o', '-'], '--save-fusions -: stdout, where the report goes too'],
      // /dev/stdout, or a link to it, is stdout as - is.
      [[...check, '--markdown-out', '/dev/stdout'], '--markdown-out /dev/stdout: stdout, where the report goes too (no -o FILE)'],
      [[...check, '-o', '/dev/stdout', '--markdown-out', '-'], '--markdown-out -: stdout, where -o /dev/stdout writes too'],
      [
        [...check, '-o', 'out/dash.txt', '--markdown-out', '-', '--html-out', 'out/stdout'],
        '--html-out out/stdout: stdout, where --markdown-out - writes too',
      ],
      [['diff', 'mine/base', 'mine/pr', '--save-fusions', '/dev/fd/1'], '--save-fusions /dev/fd/1: stdout, where the report goes too'],
      // So is /dev/stderr, with kprof's messages between the two.
      [[...check, '-o', '/dev/stderr', '--markdown-out', '/dev/fd/2'], '--markdown-out /dev/fd/2: stderr, where -o /dev/stderr writes too'],
    ] as const) {
      const refused = await kprof([...args], {}, dir);
      expect(refused.code).toBe(2);
      expect(refused.stdout).toBe('');
      expect(refused.stderr).toContain(said);
    }
    expect(existsSync(join(dir, '-'))).toBe(false);
    expect((await kprof([...check, '--html-out', './-', '-o', 'out/dash.txt'], {}, dir)).code).toBe(0);
    expect(readFileSync(join(dir, '-'), 'utf8')).toMatch(/^<!DOCTYPE html>/i);
    rmSync(join(dir, '-'));
  });

  it('is per run: two runs at once in two folders each read their own', async () => {
    const args = ['summary', 'mine/pr', '--format', 'json'];
    const [a, b] = await Promise.all([kprof(args, {}, dir), kprof(args, {}, other)]);
    expect(a.code).toBe(0);
    expect(b.code).toBe(0);
    expect(a.stdout).toBe((await kprof(['summary', `${FE}/pr`, '--format', 'json'], {}, ROOT)).stdout.replaceAll(`${FE}/pr`, 'mine/pr'));
    expect(b.stdout).toBe(
      (await kprof(['summary', 'fixtures/rules/one-rank/pr', '--format', 'json'], {}, ROOT)).stdout.replaceAll(
        'fixtures/rules/one-rank/pr',
        'mine/pr',
      ),
    );
  });

  it('read workers resolve the paths of their task in it, and name the files as written', async () => {
    const read = (threads: 'on' | 'off') => inWorkingDir(dir, () => readProfile('mine/pr', { withShapes: false, ranks: null, threads }));
    const [on, off] = [await read('on'), await read('off')];
    expect(on).toEqual(off);
    expect(on.ranks.flatMap((r) => r.files.map((f) => f.path)).every((p) => p.startsWith('mine/pr/'))).toBe(true);
  });
});
