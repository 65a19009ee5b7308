// Sizes at which spreading a data-sized array into a call (Math.max(...xs), push(...xs)) overflows V8's stack:
// every report and gate is run at such a size, built at test time. Each case stays under 8 MB of input so that
// it is read in this thread, and takes a few seconds at most.

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { gzipSync } from 'node:zlib';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CHECK_FORMATS } from '../src/report/choices.js';
import { CHECK_REPORTERS } from '../src/report/registry.js';
import { cliTextTable, codeSpan, textTable } from '../src/report/render.js';
import type { RuleResult, Verdict } from '../src/rules/model.js';
import { parseRules } from '../src/rules/parse.js';
import { CHUNK_CHARS } from '../src/report/json.js';
import { run } from '../src/cli/run.js';
import { kprof, ROOT } from './helpers.js';

const tmp = mkdtempSync(join(tmpdir(), 'kprof-scale-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const HEADER = 'Step Id,Name,Type,Accelerator Core,Duration(us)\n';

/** A kernel_details.csv of `names` distinct kernel names, one row each, in step 1. */
function manyNames(file: string, names: number): string {
  const lines = [HEADER];
  for (let i = 0; i < names; i++) lines.push(`1,k${i},T${i % 7},AI_CORE,${(i % 50) + 1}.5\n`);
  const p = join(tmp, file);
  writeFileSync(p, lines.join(''));
  return p;
}

/** A kernel_details.csv of `steps` steps of two kernels each. */
function manySteps(file: string, steps: number): string {
  const lines = [HEADER];
  for (let s = 1; s <= steps; s++) lines.push(`${s},cast,Cast,AI_CORE,1.5\n${s},add,Add,AI_VECTOR_CORE,2\n`);
  const p = join(tmp, file);
  writeFileSync(p, lines.join(''));
  return p;
}

const NAMES = 130_000;

describe('reports of 130k groups', () => {
  const a = manyNames('a.csv', NAMES);
  const b = manyNames('b.csv', NAMES + 10);

  it('summary --by name: every row padded to the widest cell', async () => {
    const r = await kprof(['summary', a, '--by', 'name', '-q']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const lines = r.stdout.split('\n');
    // Header, rule, NAMES rows, rule, footer, then a blank line, the totals line and the final line break.
    expect(lines.length).toBe(NAMES + 4 + 3);
    expect(lines[1]!.startsWith(`${'─'.repeat('k129999'.length)}  `)).toBe(true);
    expect(lines.filter((l) => /^k129999 +1 /.test(l))).toHaveLength(1);
  });

  for (const format of ['table']) {
    it(`diff --by name --format ${format}`, async () => {
      const r = await kprof(['diff', a, b, '--by', 'name', '--format', format, '-q']);
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(r.stdout).toContain('k130009');
    });
  }
});

describe('JSON as a stream', () => {
  it('summary --by name --format json: written in chunks, each after the one before has drained', async () => {
    const small = manyNames('small.csv', 20_000);
    const chunks: string[] = [];
    let pending = false;
    let waits = 0;
    let stderr = '';
    const io = {
      stdout: (s: string): void | Promise<void> => {
        expect(pending).toBe(false);
        chunks.push(s);
        // A full pipe every third write: the next one must wait for this promise.
        if (chunks.length % 3 !== 0) return;
        pending = true;
        waits++;
        return new Promise<void>((resolve) => setTimeout(() => ((pending = false), resolve()), 0));
      },
      stderr: (s: string): void => {
        stderr += s;
      },
      env: { NO_COLOR: '1' },
      stdoutIsTTY: false,
      stderrIsTTY: false,
      cwd: ROOT,
    };
    expect(await run(['summary', small, '--by', 'name', '--format', 'json', '-q'], io)).toBe(0);
    expect(stderr).toBe('');
    expect(chunks.length).toBeGreaterThan(100);
    expect(Math.max(...chunks.map((c) => c.length))).toBeLessThan(2 * CHUNK_CHARS);
    expect(waits).toBe(Math.floor(chunks.length / 3));
    const text = chunks.join('');
    expect(JSON.parse(text).groups).toHaveLength(20_000);
    // -o writes the same bytes.
    const out = join(tmp, 'summary.json');
    expect((await kprof(['summary', small, '--by', 'name', '--format', 'json', '-q', '-o', out])).code).toBe(0);
    expect(readFileSync(out, 'utf8')).toBe(text);
  });
});

describe('gates at scale', () => {
  it('a per-step rule over 80k steps', async () => {
    const p = manySteps('steps.csv', 80_000);
    const rules = join(tmp, 'steps.rules.yaml');
    writeFileSync(
      rules,
      'version: 1\nrules:\n  - rule: one cast per step\n    type: Cast\n    count: { per: step, exactly: 1 }\n  - rule: add time per step\n    type: Add\n    time: { per: step, max: 1us }\n',
    );
    for (const format of ['text', 'json']) {
      const r = await kprof(['check', p, '--rules', rules, '--format', format, '-q']);
      expect(r.stderr).toBe('');
      expect(r.code).toBe(1);
      expect(r.stdout).toMatch(format === 'text' ? /broken in 80,000 of 80,000 steps/ : /"passed": false/);
    }
  });

  it('150k rules, in every format', async () => {
    const [rule] = parseRules('many.rules.yaml', 'rules:\n  - rule: at most four casts\n    type: Cast\n    count: { max: 4 }\n').rules;
    const result: RuleResult = {
      rule: rule!,
      passed: true,
      observed: 2,
      bound: { op: '<=', value: 4 },
      unit: 'kernels',
      per: 'total',
      rank: null,
      step: null,
      ranksChecked: ['0'],
      ranksBroken: [],
      stepsChecked: 0,
      stepsBroken: 0,
      brokenSteps: [],
      compared: null,
      newTypes: [],
      unmatched: [],
    };
    const v: Verdict = {
      results: Array.from({ length: 150_000 }, () => result),
      passed: true,
      failedErrors: 0,
      failedWarnings: 0,
      warnings: [],
      unmatched: 0,
    };
    const ctx = { profile: 'p', base: null, rules: 'many.rules.yaml', read: { kernels: 4, skippedRows: 0 }, baseRead: null };
    for (const format of CHECK_FORMATS) {
      const report = (await CHECK_REPORTERS[format]())(v, ctx, { color: false });
      const out = typeof report === 'string' ? report : [...report].join('');
      // GitHub annotations are for broken rules only; Markdown (a comment) lists those that fit in 60,000
      // characters and counts the rest; every other format lists each rule (HTML: in its table and in the JSON it
      // carries).
      const listed = out.split('at most four casts').length - 1;
      if (format === 'markdown') {
        expect(out.length).toBeLessThanOrEqual(60_000);
        expect(listed).toBeGreaterThan(0);
        expect(out).toContain(`${(150_000 - listed).toLocaleString('en-US')} more rules not shown`);
        expect(out).toContain(`(${(150_000 - listed).toLocaleString('en-US')} held)`);
      } else expect(listed).toBe(format === 'github' ? 0 : format === 'html' ? 300_000 : 150_000);
    }
  });
});

describe('a cell of 70 MB', () => {
  /** A kernel table whose second row has a 70 MB Name. */
  function longCell(): Buffer {
    return Buffer.concat([
      Buffer.from(`${HEADER}1,a,A,AI_CORE,1.5\n1,`),
      Buffer.alloc(70 << 20, 'x'),
      Buffer.from(',B,AI_CORE,2\n1,c,C,AI_CORE,3\n'),
    ]);
  }

  for (const gz of [false, true]) {
    it(`${gz ? 'in a .csv.gz' : 'in a plain file'}: the row is skipped with a warning, the rows after it are read`, async () => {
      const p = join(tmp, gz ? 'long.csv.gz' : 'long.csv');
      writeFileSync(p, gz ? gzipSync(longCell(), { level: 1 }) : longCell());
      const r = await kprof(['summary', p, '--by', 'name', '--format', 'json', '-q']);
      expect(r.code).toBe(0);
      expect(r.stderr).toContain(`long.csv${gz ? '.gz' : ''}:3: the row is longer than 64 MiB`);
      const j = JSON.parse(r.stdout);
      expect(j.groups.map((g: { key: string }) => g.key).sort()).toEqual(['a', 'c']);
      expect(j.skippedRows).toBe(1);
      rmSync(p);
    });
  }
});

describe('tables drawn by cli-table3 (cells that are not plain ASCII)', () => {
  const rows = (n: number): string[][] => Array.from({ length: n }, (_, i) => [i % 3 ? `ké${i}` : `名前${i}`, String(i * 7), i % 5 ? 'a\nb' : 'c']);

  it('130k rows', () => {
    // One short column: cli-table3 takes ~0.1 ms a row.
    const many = Array.from({ length: 130_000 }, (_, i) => [`é${i}`]);
    const out = textTable({ color: false }, ['name'], many, ['left']);
    expect(out.split('\n')).toHaveLength(130_002);
    expect(out.endsWith('\né129999')).toBe(true);
  }, 600_000);

  it('drawn in blocks, the same lines as one table', () => {
    const one = cliTextTable({ color: false }, ['name', 'n', 'm'], rows(2500), ['left', 'right', 'left'], ['total', '1', ''], Infinity);
    const blocks = cliTextTable({ color: false }, ['name', 'n', 'm'], rows(2500), ['left', 'right', 'left'], ['total', '1', ''], 7);
    expect(blocks).toBe(one);
  });
});

describe('text-sized spreads', () => {
  it('a code span around a name of 200k backtick runs', () => {
    const name = '`a'.repeat(200_000);
    const s = codeSpan(name);
    expect(s).toBe(`\`\` ${name} \`\``);
  });
});
