// The text helpers every module shares (util/format.ts, util/inputText.ts): one copy each.

import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { listed, plural, round4, round4OrNull } from '../src/util/format.js';
import { excerpt, inQuotes } from '../src/util/inputText.js';
import { kprof } from './helpers.js';

describe('plural, listed, round4', () => {
  it('plural: the count as every figure prints, then one noun or the other', () => {
    expect(plural(1, 'rule')).toBe('1 rule');
    expect(plural(0, 'rule')).toBe('0 rules');
    expect(plural(12_345, 'kernel')).toBe('12,345 kernels');
    expect(plural(2, 'more group')).toBe('2 more groups');
    expect(plural(3, 'match', 'matches')).toBe('3 matches');
  });

  it('listed: the first items, then …', () => {
    expect(listed([], 3)).toBe('');
    expect(listed(['a', 'b', 'c'], 3)).toBe('a, b, c');
    expect(listed(['a', 'b', 'c', 'd'], 3)).toBe('a, b, c, …');
  });

  it('round4: 4 decimals, never -0', () => {
    expect(round4(1.23456)).toBe(1.2346);
    expect(Object.is(round4(-0.00001), 0)).toBe(true);
    expect(Object.is(round4(-0), 0)).toBe(true);
    expect(round4OrNull(null)).toBeNull();
    expect(round4OrNull(-2.00004)).toBe(-2);
  });
});

describe('excerpt: a value from a file in a reader message', () => {
  it('escapes as all input text (C0, DEL, C1 controls, a backslash that reads as an escape) and cuts after 40 characters (or the given width)', () => {
    expect(excerpt('a\tb\nc\u001b[31md\u007fe\u0085f\u009bg')).toBe('a\\x09b\\x0ac\\x1b[31md\\x7fe\\u0085f\\u009bg');
    expect(excerpt('a\\x1b')).toBe('a\\x5cx1b');
    expect(excerpt('x'.repeat(41))).toBe(`${'x'.repeat(40)}…`);
    expect(excerpt('x'.repeat(40))).toBe('x'.repeat(40));
    expect(excerpt('y'.repeat(130), 120)).toBe(`${'y'.repeat(120)}…`);
  });

  it('every reader quotes a bad cell alike: a C1 control in a kernel table cell is escaped too', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kprof-blanked-'));
    const csv = join(dir, 'kernel_details.csv');
    writeFileSync(csv, 'Step Id,Name,Type,Accelerator Core,Start Time(us),Duration(us)\n1,a,A,AI_CORE,1.0,2.0\n1,b,B,AI_CORE,3.0,fa\u0085st\n');
    const r = await kprof(['summary', csv]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('Duration(us) is "fa\\u0085st", expected a number of µs; row skipped');
  });
});

describe('inQuotes: input text in the double quotes of a message', () => {
  it('writes the text’s own double quotes \\x22, so the quotes around it are the only raw ones', () => {
    expect(inQuotes('a')).toBe('"a"');
    expect(inQuotes(excerpt('a"'))).toBe('"a\\x22"');
    expect(inQuotes(excerpt('"a" "b"'))).toBe('"\\x22a\\x22 \\x22b\\x22"');
    // A name that holds the four characters \x22 reads back apart from one that holds a quote.
    expect(inQuotes(excerpt('a\\x22'))).toBe('"a\\x5cx22"');
  });

  it('a rules file key: clipped, escaped, its quotes \\x22 (it was shown whole, its quote raw)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kprof-quoted-'));
    writeFileSync(join(dir, 'kernel_details.csv'), 'Step Id,Name,Type,Accelerator Core,Start Time(us),Duration(us)\n1,a,A,AI_CORE,1.0,2.0\n');
    writeFileSync(join(dir, 'r.yaml'), `rules:\n  - "${'x'.repeat(300)}\\"q\\e[31m": 1\n`);
    const r = await kprof(['check', join(dir, 'kernel_details.csv'), '--rules', join(dir, 'r.yaml')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`unknown key "${'x'.repeat(59)}…" in a rule`);
    writeFileSync(join(dir, 'r.yaml'), 'rules:\n  - "ty\\"pe\\e": 1\n');
    const q = await kprof(['check', join(dir, 'kernel_details.csv'), '--rules', join(dir, 'r.yaml')]);
    expect(q.stderr).toContain('unknown key "ty\\x22pe\\x1b" in a rule');
  });
});
