// A command line that a message suggests (`gunzip -k FILE`, `kprof inspect FOLDER`, `kprof summary PROFILE …`,
// `-o FILE`) pastes into a POSIX shell as it reads: a path with a space, a quote or a `$` is single-quoted (its own
// quotes written '\''), a plain one stays bare, and one with a control character is in ANSI-C quotes ($'a\x0ab'),
// escaped as everywhere (never raw), which bash reads back to the very name.

import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { shellWord } from '../src/util/inputText.js';
import { kprof } from './helpers.js';

// The temporary folder's own name holds a quote and a space, so that every expectation below holds for any
// temporary path (TMPDIR may hold either): the paths in them are shell words of their own (shellWord, pinned above).
const tmp = mkdtempSync(join(tmpdir(), "kprof-shell 'q'-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('shellWord', () => {
  it('is bare when plain, else single-quoted with its quotes closed and reopened; controls escaped', () => {
    expect(shellWord('runs/base-1/kernel_details.csv')).toBe('runs/base-1/kernel_details.csv');
    expect(shellWord('my run/x.db.gz')).toBe("'my run/x.db.gz'");
    expect(shellWord("it's")).toBe("'it'\\''s'");
    expect(shellWord('$HOME;rm -rf ~`x`')).toBe("'$HOME;rm -rf ~`x`'");
    expect(shellWord('a\nb')).toBe("$'a\\x0ab'");
    expect(shellWord('')).toBe("''");
  });
  it('reads back to the very name in bash, whatever it holds (a line break, ESC, quotes, backslashes, bidi controls)', () => {
    const names = [
      'a\nb',
      "it's\n",
      'back\\slash\x1b[31m',
      '\\x41 is not A',
      '\\u0041\tand a tab',
      '::error::x',
      '##[cmd]y',
      'bidi\u202eevil',
      "'$HOME' `x` \\' \\\n",
    ];
    const utf8 = { ...process.env, LC_ALL: 'C.UTF-8' };
    // bash before 4.2 (macOS's 3.2) reads no `\u` escape: a name that needs one is tried where bash can.
    const u = execFileSync('bash', ['-c', "printf %s $'\\u00e9'"], { encoding: 'utf8', env: utf8 }) === '\u00e9';
    for (const name of names) {
      if (!u && /[\u0080-\uffff]/.test(name)) continue;
      const word = shellWord(name);
      expect(word).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u202e]/);
      const back = execFileSync('bash', ['-c', `printf %s ${word}`], { encoding: 'utf8', env: utf8 });
      expect(back, word).toBe(name);
    }
  });
});

describe('suggested command lines', () => {
  it('gunzip -k of a gzipped db export whose path has a space and a quote', async () => {
    const dir = join(tmp, "my run's");
    mkdirSync(dir);
    writeFileSync(join(dir, 'p.db.gz'), gzipSync(readFileSync('fixtures/sqlite/schema-1.0.0.db')));
    const r = await kprof(['summary', join(dir, 'p.db.gz')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`Unpack it first (gunzip -k ${shellWord(join(dir, 'p.db.gz'))}) and pass the .db it writes.`);
    expect(shellWord(join(dir, 'p.db.gz'))).toMatch(/\/my run'\\''s\/p\.db\.gz'$/);
  });

  it('kprof summary PROFILE in merge, kprof inspect FOLDER in the not-read note, -o FILE to regenerate a snapshot', async () => {
    const base = join(tmp, 'base $HOME');
    cpSync('fixtures/fusion-example/base', base, { recursive: true });
    const m = await kprof(['merge', base]);
    expect(m.code).toBe(2);
    expect(m.stderr).toContain(`Summarise it first (kprof summary ${shellWord(base)} --format json -o <file>), then merge that file.`);

    const run = join(tmp, 'run (2)');
    cpSync('fixtures/fusion-example/base', run, { recursive: true });
    mkdirSync(join(run, 'rank_9_ascend_pt', 'FRAMEWORK'), { recursive: true });
    const s = await kprof(['summary', run, '-q']);
    expect(s.code, s.stderr).toBe(0);
    expect(s.stderr).toContain(`; kprof inspect ${shellWord(run)} lists it.\n`);

    const mixed = join(tmp, 'mixed grouping');
    cpSync('fixtures/cluster/bad-mixed-grouping', mixed, { recursive: true });
    const g = await kprof(['summary', mixed]);
    expect(g.code).toBe(2);
    expect(g.stderr).toContain(`--format json -o ${shellWord(join(mixed, 'rank1.summary.json'))}\n`);
  });

  it('kprof summary TRACE --by name --match RE, for a rule on names and types of a trace', async () => {
    const trace = join(tmp, 'a trace');
    cpSync('fixtures/trace/trace-view-steps', trace, { recursive: true });
    const rules = join(tmp, 'r.yaml');
    writeFileSync(rules, "rules:\n  - match: /Mat'x/\n    count: {max: 5}\n");
    const r = await kprof(['check', trace, '--rules', rules, '-q']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`(kprof summary ${shellWord(join(trace, 'trace_view.json'))} --by name --match 'Mat'\\''x' lists them)`);
  });

  it('kprof summary <profile> OPTIONS to regenerate a snapshot made with other filters: each value a shell word', async () => {
    const snap = join(tmp, 's.json');
    expect((await kprof(['summary', 'fixtures/fusion-example/base', '--format', 'json', '-o', snap, '-q'])).code).toBe(0);
    const r = await kprof(['summary', snap, '--match', "it's a b", '--exclude', 'Cast']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("(kprof summary <profile> --by type --match 'it'\\''s a b' --exclude Cast --format json)");
  });

  it('the kprof check line of a rules file: a line break in --match is escaped, not a line of YAML of its own', async () => {
    const r = await kprof(['rules', 'fixtures/fusion-example/base', 'fixtures/fusion-example/pr', '--match', "Mat|\nx'", '-q']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("\n#   kprof check <profile> --rules <this file> --match $'Mat|\\x0ax\\''\n");
  });

  it("--save-fusions names the diff's profiles as a shell reads them", async () => {
    const base = join(tmp, 'b "1"');
    cpSync('fixtures/fusion-example/base', base, { recursive: true });
    const file = join(tmp, 'saved.yaml');
    const d = await kprof(['diff', base, 'fixtures/fusion-example/pr', '--save-fusions', file, '-q']);
    expect(d.code, d.stderr).toBe(0);
    expect(readFileSync(file, 'utf8').split('\n')[0]).toBe(
      `# Fusions found by kprof diff ${shellWord(base)} fixtures/fusion-example/pr: each the chain the base ran and the`,
    );
  });
});
