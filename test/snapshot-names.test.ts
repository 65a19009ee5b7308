// A summary JSON that names more different keys than kprof reads (MAX_KEY_NAMES) is refused before it is parsed:
// JSON.parse pays for each name it meets, and one object of 15 million members ran for minutes in gigabytes. The
// keys are added where the reader walks (the top level, a group, a per-step cell, a rank's totals, a step time)
// and as the file itself; a snapshot as kprof writes it names a few dozen.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keyNames } from '../src/input/json/duplicateKeys.js';
import { MAX_KEY_NAMES } from '../src/input/formats/summary/snapshot.js';
import { kprof, type Result } from './helpers.js';

const EX = 'fixtures/fusion-example';

function ok(r: Result): Result {
  expect(r.code, r.stderr).toBe(0);
  return r;
}

/** `n` members named k0, k1, … (each a name of its own), as kprof would write them inside an object. */
function members(n: number, value = '0'): string {
  return Array.from({ length: n }, (_, i) => `"k${i}": ${value}`).join(', ');
}

/** 1-based line and column of a character offset. */
function lineCol(text: string, at: number): string {
  const before = text.slice(0, at).split('\n');
  return `${before.length}:${before.at(-1)!.length + 1}`;
}

let dir = '';
let made = '';

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'kprof-names-'));
  made = ok(await kprof(['summary', `${EX}/base`, '--step-time', '--format', 'json'])).stdout;
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('a summary JSON of more different key names than kprof reads', () => {
  it('a snapshot as kprof writes it names a few dozen (with per-step cells and step time), far below the bound', () => {
    expect(made).toContain('"stepTime"');
    expect(made).toContain('"byStep"');
    expect(keyNames(made, 64).pastMost).toBeNull();
    expect(MAX_KEY_NAMES).toBeGreaterThanOrEqual(16 * 64);
  });

  it('is refused (exit 2) before it is parsed, naming the file, the line and column of the first name past the bound, and what to do', async () => {
    const many = members(MAX_KEY_NAMES + 1);
    const once = (from: string, to: string): string => {
      expect(made).toContain(from);
      return made.replace(from, to);
    };
    const cases: [string, string][] = [
      // One object of many members as the whole file, at the top level, nested where the reader expects a small
      // object (a group, its per-step cell, a rank's totals, its step time), and many small objects of other names.
      ['file', `{${many}}`],
      ['top', once('"kind": "summary",', `"kind": "summary", ${many},`)],
      ['group', once('"count": ', `${many}, "count": `)],
      ['step', once('"step": ', `${many}, "step": `)],
      ['totals', once('"totals": {', `"totals": {${many}, `)],
      ['stepTime', once('"stepTime": {', `"stepTime": {${many}, `)],
      [
        'spread',
        once('"kind": "summary",', `"kind": "summary", "x": [${Array.from({ length: MAX_KEY_NAMES + 1 }, (_, i) => `{"k${i}": 0}`).join(', ')}],`),
      ],
      // Past the bound, the file is not read further: the same refusal when it is cut short after it.
      ['cut', `{${many}, "k`],
    ];
    for (const [name, text] of cases) {
      const f = join(dir, `${name}.json`);
      writeFileSync(f, text);
      const past = keyNames(text, MAX_KEY_NAMES).pastMost!;
      expect(past, name).not.toBeNull();
      expect(past.key).toMatch(/^k\d+$/);
      for (const args of [
        ['summary', f],
        ['diff', f, f],
        ['merge', f, '-o', join(dir, 'merged.json')],
        ['check', f, '--base', f, '--rules', `${EX}/kprof.rules.yaml`],
      ]) {
        const r = await kprof(args);
        expect(r.code, `${name} ${args[0]}: ${r.stderr}`).toBe(2);
        expect(r.stderr).toContain(`kprof: ${f}:${lineCol(text, past.at)}: not a kprof summary JSON: `);
        expect(r.stderr).toContain(
          `the file names more than ${MAX_KEY_NAMES.toLocaleString('en-US')} different keys, the most kprof reads, from the key "${past.key}" here on`,
        );
        expect(r.stderr).toMatch(
          /a summary JSON names only its fields, a few dozen .*Regenerate it with `kprof summary <profile> --format json`\.\n$/,
        );
        expect(r.stderr).not.toMatch(/\n./); // one line
      }
    }
  });

  it('a file of many members that repeat the names kprof writes is refused as a key written twice, not for its names', async () => {
    const f = join(dir, 'again.json');
    const text = made.replace('"count": ', `${Array(5000).fill('"count": 1').join(', ')}, "count": `);
    writeFileSync(f, text);
    const r = await kprof(['summary', f]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/the key "count" is written twice in one object/);
  });

  it('names up to the bound are read as before (members kprof does not write are passed over)', async () => {
    const plain = join(dir, 'plain.json');
    writeFileSync(plain, made);
    const names = new Set(made.match(/"[^"]*"(?=\s*:)/g)).size;
    const text = made.replace('"count": ', `${members(MAX_KEY_NAMES - names)}, "count": `);
    expect(keyNames(text, MAX_KEY_NAMES).pastMost).toBeNull();
    expect(keyNames(text, MAX_KEY_NAMES - 1).pastMost).not.toBeNull();
    const f = join(dir, 'at.json');
    writeFileSync(f, text);
    const [a, b] = [
      JSON.parse(ok(await kprof(['summary', f, '--format', 'json'])).stdout),
      JSON.parse(ok(await kprof(['summary', plain, '--format', 'json'])).stdout),
    ];
    delete a.inputs;
    delete b.inputs;
    expect(a).toEqual(b);
  });
});
