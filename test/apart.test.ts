// Names cut to fit a cell are kept apart (util/apart.ts): CUDA kernel names that share their first hundred
// characters would otherwise show as one name on several rows of a table.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { fitTable } from '../src/report/render.js';
import { clippedApart, differAt, ESCAPE_TOKEN } from '../src/util/apart.js';
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
        expect(differAt(texts, ts)).toEqual(brute(texts, ts));
      }),
      { numRuns: 1000 },
    );
    // Different texts of one token list (alike past what is looked at) share all of it.
    expect(
      differAt(
        ['ab1', 'ab2', 'ab1'],
        [
          ['a', 'b'],
          ['a', 'b'],
          ['a', 'b'],
        ],
      ),
    ).toEqual([2, 2, 2]);
  });

  it('reads each list a few times over, not once per other list: 1,000 names alike in their first 200 characters', () => {
    let reads = 0;
    const counted = (ts: string[]): string[] =>
      new Proxy(ts, {
        get(target, key, receiver) {
          if (typeof key === 'string' && /^\d+$/.test(key)) reads++;
          return Reflect.get(target, key, receiver);
        },
      });
    const n = 1000;
    const texts = Array.from({ length: n }, (_, i) => `${'x'.repeat(200)}${i}`);
    const at = differAt(
      texts,
      texts.map((t) => counted(Array.from(t))),
    );
    expect(at.every((a) => a >= 200)).toBe(true);
    // Sorting takes some n log2 n comparisons of about 200 tokens: 4 M reads. Comparing every pair took 400 M.
    expect(reads).toBeLessThan(40 * n * 202);
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
