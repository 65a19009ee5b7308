// The one escaping scheme (util/inputText.ts): what it writes reads back to one text only, in every format
// that escapes, and a message that holds escaped text is not escaped twice.

import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { clipped, escaped, excerpt, jsonSafe, jsonSafeWith, oneLine } from '../src/util/inputText.js';
import { kprof } from './helpers.js';

/** What a reader of kprof's output does: `\xHH` (from 0x80: the byte HH) and `\uHHHH` back, other text as it is. */
function readBack(s: string): string {
  return s.replace(/\\x([0-9a-fA-F]{2})|\\u([0-9a-fA-F]{4})/g, (_, x: string | undefined, u: string | undefined) => {
    if (u !== undefined) return String.fromCharCode(Number.parseInt(u, 16));
    const c = Number.parseInt(x!, 16);
    return String.fromCharCode(c >= 0x80 ? 0xdc00 + c : c);
  });
}

const RAW = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

/** Texts made of what the scheme treats specially: backslashes, hex digits, controls, bytes, `##[`, `::`. */
const tricky = fc
  .array(
    fc.constantFrom(
      '\\',
      'x',
      'u',
      '0',
      '1',
      '5',
      'b',
      'c',
      'F',
      'z',
      '\u001b',
      '\n',
      '\u0085',
      '\u009b',
      '\udc85',
      '\udcc3',
      '\ud800',
      '#',
      '[',
      ':',
      ' ',
      'é',
      '😀',
    ),
    { maxLength: 24 },
  )
  .map((a) => a.join(''));

describe('escaped(): one text per escaped text', () => {
  it('a name of its own `\\x1b` and a name with ESC read apart; so do the C1 control U+0085 and the byte 0x85', () => {
    expect(escaped('a\u001bb')).toBe('a\\x1bb');
    expect(escaped('a\\x1bb')).toBe('a\\x5cx1bb');
    expect(escaped('\u0085')).toBe('\\u0085');
    expect(escaped('\udc85')).toBe('\\x85');
    expect(escaped('\\u0085')).toBe('\\x5cu0085');
    expect(escaped('\\X1B \\xZZ \\u12 C:\\temp \\d+ a\\b')).toBe('\\X1B \\xZZ \\u12 C:\\temp \\d+ a\\b');
  });

  it('reads back to the text it was made from, with nothing raw in it (property)', () => {
    fc.assert(
      fc.property(tricky, (s) => {
        const e = escaped(s);
        expect(readBack(e)).toBe(s);
        expect(RAW.test(e)).toBe(false);
        expect(e).not.toContain('##[');
        expect(e.trimStart().startsWith('::')).toBe(false);
      }),
      { numRuns: 3000 },
    );
  });

  it('oneLine() leaves escaped text as it is, and escapes what is raw in a message', () => {
    fc.assert(
      fc.property(tricky, tricky, (a, b) => {
        const message = `kprof: ${escaped(a)} and ${escaped(b)}`;
        expect(oneLine(message)).toBe(message);
      }),
      { numRuns: 1000 },
    );
    expect(oneLine('x\u001by \\x1b')).toBe('x\\x1by \\x1b');
  });

  it('a cut never splits an escape: what is left reads as the start of the text', () => {
    fc.assert(
      fc.property(tricky, fc.integer({ min: 2, max: 12 }), (s, max) => {
        for (const c of [clipped(s, max), excerpt(s, max)]) {
          const body = c.endsWith('…') && !s.endsWith('…') ? c.slice(0, -1) : c;
          expect(s.startsWith(readBack(body))).toBe(true);
        }
      }),
      { numRuns: 2000 },
    );
  });
});

describe('jsonSafe()', () => {
  // jsonSafeWith('') is jsonSafe's pattern alone (an empty class matches nothing); jsonSafe passes text of ASCII
  // alone with no DEL and no `##` without it, and must write what the pattern writes.
  const pattern = jsonSafeWith('');

  it('writes what its pattern writes, on text of ASCII with DEL and CI commands, and with one character past it', () => {
    const near = fc
      .array(fc.constantFrom('a', '#', '[', 'v', 's', 'o', 'V', 'S', 'O', 't', 'e', 'm', 'c', 'i', 'y', '"', '\\', ' ', '\u007f', '\u0080'), {
        maxLength: 40,
      })
      .map((a) => a.join(''));
    const past = fc.constantFrom('\u0080', '\u009f', '\u00a0', 'é', '\u00ad', '\u2028', '\u202e', '\ufeff', '中', '\ud800', '\udc85', '😀', '\uffff');
    fc.assert(
      fc.property(near, fc.option(past), near, (a, c, b) => {
        const s = `${a}${c ?? ''}${b}`;
        expect(jsonSafe(s)).toBe(pattern(s));
      }),
      { numRuns: 5000 },
    );
    expect(jsonSafe('{"a": "x\u007fy ##[z ##vso[w ##teamcity[v ## # [", "b": 1}')).toBe(
      '{"a": "x\\u007fy \\u0023#[z \\u0023#vso[w \\u0023#teamcity[v ## # [", "b": 1}',
    );
    const plain = `{"name": "${'aclnnMatmul_MatMulV3 '.repeat(4000)}"}`;
    expect(jsonSafe(plain)).toBe(plain);
  });
});

describe('every format that escapes shows the two names apart', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kprof-escaping-'));
  const csv = join(dir, 'kernel_details.csv');
  // Two kernel types: one with ESC, one whose own text is the four characters \x1b.
  writeFileSync(
    csv,
    'Step Id,Name,Type,Accelerator Core,Start Time(us),Duration(us)\n1,k1,A\u001bB,AI_CORE,1.0,2.0\n1,k2,A\\x1bB,AI_CORE,3.0,4.0\n1,k3,A\\x1bB,AI_CORE,5.0,4.0\n',
  );

  it('summary: table, markdown, csv and html', async () => {
    const table = await kprof(['summary', csv]);
    expect(table.stdout).toMatch(/^A\\x1bB +1 /m);
    expect(table.stdout).toMatch(/^A\\x5cx1bB +2 /m);
    const md = await kprof(['summary', csv, '--format', 'markdown']);
    expect(md.stdout).toContain('`A\\x1bB`');
    expect(md.stdout).toContain('`A\\x5cx1bB`');
    const c = await kprof(['summary', csv, '--format', 'csv']);
    expect(c.stdout).toMatch(/^A\\x1bB,/m);
    expect(c.stdout).toMatch(/^A\\x5cx1bB,/m);
    const html = await kprof(['summary', csv, '--format', 'html']);
    expect(html.stdout).toContain('A\\x5cx1bB');
    for (const r of [table, md, c, html]) {
      expect(r.code).toBe(0);
      expect(r.stdout).not.toContain('\u001b');
    }
  });

  it('check --format github and its messages: a rule names each type', async () => {
    const rules = join(dir, 'rules.yaml');
    writeFileSync(rules, 'rules:\n  - type: "A\\eB"\n    count: { max: 0 }\n  - type: "A\\\\x1bB"\n    count: { max: 0 }\n');
    const r = await kprof(['check', csv, '--rules', rules, '--format', 'github']);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^::error .*,title=kprof check%3A type A\\x1bB%3A .*::1 kernel;/m);
    expect(r.stdout).toMatch(/^::error .*,title=kprof check%3A type A\\x5cx1bB%3A .*::2 kernels;/m);
    expect(r.stdout).not.toContain('\u001b');
  });

  it('a message that quotes input escapes it once: --core with ESC in it, and one with its own \\x1b', async () => {
    const real = await kprof(['summary', csv, '--core', 'X\u001b']);
    expect(real.stderr).toContain('--core X\\x1b selects no kernel');
    const own = await kprof(['summary', csv, '--core', 'X\\x1b']);
    expect(own.stderr).toContain('--core X\\x5cx1b selects no kernel');
    const rank = await kprof(['summary', csv, '--rank', 'a\u001b']);
    expect(rank.code).toBe(2);
    expect(rank.stderr).toContain('found "a\\x1b"');
    const rankOwn = await kprof(['summary', csv, '--rank', 'a\\x1b,']);
    expect(rankOwn.stderr).toContain('found an empty item in "a\\x5cx1b,"');
    // Option values are quoted alike, and cut: a value of any size gives a message of one short line.
    const top = await kprof(['summary', csv, '--top', `${'9'.repeat(5000)}\u001b`]);
    expect(top.code).toBe(2);
    expect(top.stderr).toMatch(/^kprof: --top: expected a whole number of at least 1; found "9{59}…"\.\n$/);
    const tol = await kprof(['diff', csv, csv, '--time-tolerance', 'a\\x1b']);
    expect(tol.stderr).toContain('found "a\\x5cx1b"');
  });
});
