// Names cut to fit a cell are kept apart (util/apart.ts): CUDA kernel names that share their first hundred
// characters would otherwise show as one name on several rows of a table.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { fitTable } from '../src/report/render.js';
import { clippedApart, differAt, ESCAPE_TOKEN, keptApart } from '../src/util/apart.js';
import { escaped } from '../src/util/inputText.js';
import { kprof, realData, REAL } from './helpers.js';

const HAS_REAL = realData(import.meta.url);

/** Every backslash of a cut text is the start of a whole escape or was the name's own (escaped() writes it so). */
function escapesWhole(cut: string, name: string): boolean {
  const bare = cut.replace(/\\x[0-9a-fA-F]{2}|\\u[0-9a-fA-F]{4}/g, '');
  return (
    !bare.includes('\\') ||
    escaped(name)
      .replace(/\\x[0-9a-fA-F]{2}|\\u[0-9a-fA-F]{4}/g, '')
      .includes('\\')
  );
}

describe('clippedApart', () => {
  const prefix = `void at::native::elementwise_kernel<128, 2, at::native::gpu_kernel_impl<${'at::native::x, '.repeat(8)}`;

  it('shows where names alike at their start differ', () => {
    const names = [`${prefix}DivFunctor<float> >(at::TensorIteratorBase&)`, `${prefix}MulFunctor<float> >(at::TensorIteratorBase&)`];
    const plain = names.map((n) => clippedApart([n], 120)[0]!);
    expect(plain[0]).toBe(plain[1]);
    const apart = clippedApart(names, 120);
    expect(apart[0]).not.toBe(apart[1]);
    expect(apart[0]).toContain('DivFunctor');
    expect(apart[1]).toContain('MulFunctor');
    for (const a of apart) expect(Array.from(a).length).toBeLessThanOrEqual(120);
    expect(apart[0]!.startsWith('void at::native::')).toBe(true);
  });

  it('leaves names that fit, and names cut apart already, as clipped() shows them', () => {
    const names = ['MatMulV3', `${'a'.repeat(200)}`, `${'b'.repeat(200)}`];
    expect(clippedApart(names, 120)).toEqual(names.map((n) => (n.length > 120 ? `${n.slice(0, 119)}…` : n)));
  });

  it('numbers names that differ only past what a cell can show', () => {
    const a = `${'x'.repeat(300)}1${'y'.repeat(300)}`;
    const b = `${'x'.repeat(300)}2${'y'.repeat(300)}`;
    const [sa, sb] = clippedApart([a, b], 20);
    expect(sa).not.toBe(sb);
    expect(sa!.length).toBeLessThanOrEqual(20);
    expect(sb!.length).toBeLessThanOrEqual(20);
  });

  it('numbers over the whole list: two groups numbered apart are not cut alike again (a case the property below found)', () => {
    const stem = 'aa\u001b\u001b'.repeat(4);
    const names = [`${stem}\u001b`, stem, `${stem}aaa𝔘a`, `${stem}𝔘aaaa`];
    const shown = clippedApart(names, 8);
    expect(new Set(shown).size).toBe(4);
    for (const s of shown) expect(Array.from(s).length).toBeLessThanOrEqual(8);
  });

  it('numbers the texts of two groups that show alike (each where it differs from its own group: a case the property below found)', () => {
    const names = ['\\aa', ' :a', '\u001b\u001b', ' :\u001baaa', ''].map((t) => `${'a:'.repeat(4)}${t}`);
    const shown = clippedApart(names, 10);
    expect(new Set(shown).size).toBe(5);
    for (const s of shown) expect(Array.from(s).length).toBeLessThanOrEqual(10);
  });

  it('keeps any set of different names apart, within the width, escapes whole', () => {
    const char = fc.constantFrom('a', 'b', '<', '>', ' ', '\u001b', '\\', 'é', '𝔘', ':', '#', '[');
    const word = fc.array(char, { minLength: 0, maxLength: 40 }).map((a) => a.join(''));
    fc.assert(
      fc.property(word, fc.array(word, { minLength: 1, maxLength: 8 }), fc.integer({ min: 8, max: 60 }), (stem, tails, width) => {
        const names = [...new Set(tails.map((t) => `${stem.repeat(4)}${t}`))];
        const shown = clippedApart(names, width);
        expect(new Set(shown).size).toBe(names.length);
        shown.forEach((s, i) => {
          expect(Array.from(s).length).toBeLessThanOrEqual(width);
          expect(escapesWhole(s, names[i]!)).toBe(true);
          // Nothing from the name reaches the output raw.
          expect(s).not.toMatch(/[\u0000-\u001f]/);
        });
      }),
      { numRuns: 1000 },
    );
  });
});

// The token-list algorithm of keptApart before it read texts in place (each text split into its tokens, 65,536
// strings for a name of 64 KiB): the reference the current one must give the same cells as, byte for byte.
const LOOKED_AT = 65_536;
function tokens(text: string): string[] {
  return text.slice(0, LOOKED_AT).match(ESCAPE_TOKEN) ?? [];
}

function lengthOf(ts: string[], from = 0, to = ts.length): number {
  let n = 0;
  for (let i = from; i < to; i++) n += ts[i]!.length;
  return n;
}

function common(a: string[], b: string[]): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a[i] === b[i]) i++;
  return i;
}

function take(ts: string[], from: number, room: number): { text: string; end: number } {
  let text = '';
  let i = from;
  while (i < ts.length && text.length + ts[i]!.length <= room) text += ts[i++]!;
  return { text, end: i };
}

function around(ts: string[], at: number, width: number): string {
  if (lengthOf(ts) <= width) return ts.join('');
  const headRoom = Math.max(1, Math.floor(width / 3));
  const head = take(ts, 0, headRoom);
  const rest = width - head.text.length - 1;
  const tailFrom = (() => {
    let i = ts.length;
    let n = 0;
    while (i > head.end && n + ts[i - 1]!.length <= rest) n += ts[--i]!.length;
    return i;
  })();
  if (tailFrom <= at) return `${head.text}…${ts.slice(tailFrom).join('')}`;
  const room = rest - 1;
  const from = Math.max(head.end, at - Math.floor(room / 4));
  const win = take(ts, from, room);
  return `${head.text}…${win.text}${win.end < ts.length ? '…' : ''}`;
}

function referenceKeptApart(texts: string[], shown: string[], width: number): string[] {
  const alike = new Map<string, number[]>();
  for (let i = 0; i < shown.length; i++) {
    if (shown[i] === texts[i]) continue;
    const g = alike.get(shown[i]!);
    if (g) g.push(i);
    else alike.set(shown[i]!, [i]);
  }
  const out = shown.slice();
  // One count for the whole list: cuts numbered in two groups could be cut alike again (`aa…#1` twice).
  const numbered = { n: 0 };
  const wholeAt = new Map<string, number>();
  for (let i = shown.length - 1; i >= 0; i--) if (shown[i] === texts[i] && alike.has(shown[i]!)) wholeAt.set(shown[i]!, i);
  for (const [cut, group] of alike) {
    if (new Set(group.map((i) => texts[i])).size < 2) continue;
    const whole = wholeAt.get(cut);
    const members = whole !== undefined ? [whole, ...group] : group;
    const ts = members.map((i) => tokens(texts[i]!));
    const at = referenceDifferAt(
      members.map((i) => texts[i]!),
      ts,
    );
    members.forEach((i, k) => {
      out[i] = around(ts[k]!, at[k]!, width);
    });
    numberAlike(members, texts, out, width, numbered);
  }
  // The texts of two groups that still show alike, numbered too.
  const clash = out.flatMap((o, i) => (out.some((x, j) => x === o && texts[j] !== texts[i]) ? [i] : []));
  if (clash.length > 0) numberAlike(clash, texts, out, width, numbered);
  return out;
}

function referenceDifferAt(texts: string[], ts: string[][]): number[] {
  const order = texts.map((_, k) => k).sort((a, b) => compareTokens(ts[a]!, ts[b]!));
  const runs: number[][] = [];
  for (const k of order) {
    const last = runs[runs.length - 1];
    if (last && texts[last[0]!] === texts[k]) last.push(k);
    else runs.push([k]);
  }
  const at = new Array<number>(texts.length).fill(0);
  runs.forEach((run, r) => {
    const k = run[0]!;
    const before = r > 0 ? common(ts[k]!, ts[runs[r - 1]![0]!]!) : 0;
    const after = r + 1 < runs.length ? common(ts[k]!, ts[runs[r + 1]![0]!]!) : 0;
    for (const x of run) at[x] = Math.max(before, after);
  });
  return at;
}

function compareTokens(a: string[], b: string[]): number {
  const i = common(a, b);
  if (i === a.length || i === b.length) return a.length - b.length;
  return a[i]! < b[i]! ? -1 : 1;
}

function numberAlike(members: number[], texts: string[], out: string[], width: number, numbered: { n: number }): void {
  const seen = new Map<string, number[]>();
  for (const i of members) {
    const g = seen.get(out[i]!);
    if (g) g.push(i);
    else seen.set(out[i]!, [i]);
  }
  for (const g of seen.values()) {
    if (new Set(g.map((i) => texts[i])).size < 2) continue;
    g.forEach((i) => {
      const mark = `#${++numbered.n}`;
      const ts = tokens(out[i]!);
      const kept = take(ts, 0, Math.max(1, width - mark.length - 1)).text;
      out[i] = `${kept}…${mark}`;
    });
  }
}

describe('differAt: where each text differs from the others, in n log n comparisons', () => {
  /** The definition: the longest common start with any different text of the list. */
  function brute(texts: string[], ts: string[][]): number[] {
    return texts.map((t, k) => {
      let at = 0;
      texts.forEach((u, m) => {
        if (u === t) return;
        let i = 0;
        while (i < ts[k]!.length && i < ts[m]!.length && ts[k]![i] === ts[m]![i]) i++;
        at = Math.max(at, i);
      });
      return at;
    });
  }

  it('is the longest common start with a different text, for any list (duplicates, prefixes, escapes)', () => {
    const token = fc.constantFrom('a', 'b', '\\', '\\x1b', '\\x1c', 'x', '1');
    fc.assert(
      fc.property(fc.array(fc.array(token, { maxLength: 8 }), { minLength: 1, maxLength: 12 }), (lists) => {
        // Token lists as keptApart makes them: of the text (equal texts, equal lists).
        const texts = lists.map((l) => l.join(''));
        const ts = texts.map((t) => t.match(ESCAPE_TOKEN) ?? []);
        expect(differAt(texts)).toEqual(brute(texts, ts));
      }),
      { numRuns: 1000 },
    );
    // Different texts alike past what is looked at (LOOKED_AT code units) share all of it.
    const long = 'ab'.repeat(LOOKED_AT / 2);
    expect(differAt([`${long}1`, `${long}2`, `${long}1`])).toEqual([LOOKED_AT, LOOKED_AT, LOOKED_AT]);
  });

  it('gives the cells the token-list algorithm gave, for any names (escapes, surrogate pairs, long alike starts)', () => {
    const piece = fc.constantFrom('a', 'b', '\\', '\\x1b', '\\x1', '\\u00e9', '\\u00', 'x', '1', '𝔘', '\ud835', 'é', '…', '#');
    const text = fc.array(piece, { maxLength: 30 }).map((a) => a.join(''));
    fc.assert(
      fc.property(
        text,
        fc.array(text, { minLength: 1, maxLength: 10 }),
        fc.integer({ min: 1, max: 40 }),
        fc.integer({ min: 0, max: 3 }),
        (stem, tails, width, reps) => {
          const texts = tails.map((t) => `${stem.repeat(reps)}${t}`);
          const shown = texts.map((t) =>
            Array.from(t).length > width
              ? `${Array.from(t)
                  .slice(0, Math.max(0, width - 1))
                  .join('')}…`
              : t,
          );
          expect(keptApart(texts, shown, width)).toEqual(referenceKeptApart(texts, shown, width));
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('40 names of 64 KiB alike in their first 65,000 characters: the same cells as the token lists gave', () => {
    const stem = 'ab\\x1b'.repeat(65_000 / 6);
    const texts = Array.from({ length: 40 }, (_, i) => `${stem}${String(i).padStart(3, '0')}${'x'.repeat(65_536 - stem.length - 3)}`);
    const shown = texts.map((t) => `${t.slice(0, 119)}…`);
    expect(keptApart(texts, shown, 120)).toEqual(referenceKeptApart(texts, shown, 120));
  });
});

describe('fitTable keeps cut names apart', () => {
  it('two names alike at both ends show their difference in a narrow terminal', () => {
    const a = `aaaaaaaaaaaaaaaaaaaaaaaa_ONE_${'m'.repeat(40)}zzzzzzzzzzzzzzzzzzzzzz`;
    const b = `aaaaaaaaaaaaaaaaaaaaaaaa_TWO_${'m'.repeat(40)}zzzzzzzzzzzzzzzzzzzzzz`;
    const fit = { width: 40, cut: [] as string[] };
    const t = fitTable(
      fit,
      ['name', 'count'],
      [
        [a, '1'],
        [b, '2'],
      ],
      ['left', 'right'],
      undefined,
      [],
    );
    expect(t.rows[0]![0]).not.toBe(t.rows[1]![0]);
    expect(t.rows[0]![0]).toContain('ONE');
    expect(t.rows[1]![0]).toContain('TWO');
    for (const r of t.rows) expect(r[0]!.length).toBeLessThanOrEqual(40 - 1 - 2 - 5);
  });
});

describe.skipIf(!HAS_REAL)('a real kineto trace', () => {
  it('shows no two rows of its summary under one name', async () => {
    const { code, stdout } = await kprof(['summary', `${REAL}/hta-kineto/trace_filter/sampled_rank-0.json`]);
    expect(code).toBe(0);
    const lines = stdout.split('\n');
    const start = lines.findIndex((l) => l.startsWith('name'));
    const end = lines.findIndex((l, i) => i > start + 1 && l.startsWith('────'));
    const names = lines.slice(start + 2, end).map((l) => l.replace(/\s+[\d,]+\s+[\d.]+ [µm]?s.*$/, ''));
    expect(names.length).toBeGreaterThan(50);
    expect(new Set(names).size).toBe(names.length);
  });
});

describe('--short-names says what it grouped together', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kprof-short-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const kernel = (name: string, ts: number) => ({ ph: 'X', cat: 'kernel', name, pid: 0, tid: 7, ts, dur: 4, args: { stream: 7, correlation: ts } });
  const names = [
    'void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float> >(int)',
    'void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float> >(int)',
    'void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float> >(int)',
    'void gemm<128, 64>(float*)',
    'void gemm<128, 64>(float*)',
    'plain_kernel',
  ];
  mkdirSync(join(dir, 't'));
  const file = join(dir, 't', 'rank-0.pt.trace.json');
  writeFileSync(file, JSON.stringify({ schemaVersion: 1, traceEvents: names.map((n, i) => kernel(n, 1000 + 10 * i)) }));

  it('names the short names that stand for several full names, with how many', async () => {
    const r = await kprof(['summary', file, '--short-names']);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(
      'kprof: note: --short-names put kernels of different full names in one group: at::native::vectorized_elementwise_kernel (2 names); without --short-names they are apart.',
    );
    expect(r.stdout).toMatch(/^at::native::vectorized_elementwise_kernel\s+3\s/m);
    expect(r.stdout).toMatch(/^gemm\s+2\s/m);
  });

  it('says nothing when no short name stands for two names, or without --short-names', async () => {
    const one = join(dir, 'one.pt.trace.json');
    writeFileSync(one, JSON.stringify({ schemaVersion: 1, traceEvents: [kernel(names[3]!, 1000), kernel(names[4]!, 1010)] }));
    expect((await kprof(['summary', one, '--short-names'])).stderr).not.toContain('--short-names put');
    expect((await kprof(['summary', file])).stderr).not.toContain('--short-names put');
  });
});
