// Text from input never steers what reads kprof's output: a CI runner (workflow commands at the start of a line),
// a terminal (escape sequences), a Markdown renderer (HTML, links, mentions, comments) or an XML parser. The
// profiles, folders, summary JSON and rules files are built here at test time with hostile names, and every
// command is run in every format; the checks are byte-wise, on stdout and stderr alike.

import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { parse as parseCsv } from 'csv-parse/sync';
import { SaxesParser } from 'saxes';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIFF_MARKDOWN_MARKER } from '../src/report/diff/markdown.js';
import { CELL_WIDTH, clipped, escaped, jsonSafe, mdCode, xmlEscape } from '../src/report/render.js';
import { kprof, ROOT, type Result } from './helpers.js';

/**
 * Every hostile text carries INJ: after kprof's escaping no output line may start with it (nor with `::`, `##[`,
 * `<!--`, `@`), and in Markdown it must stay inside code spans.
 */
const HOSTILE = [
  'nl\n::error::INJ newline',
  'cr\r::add-mask::INJ',
  'crlf\r\n::stop-commands::INJ',
  'esc\u001b[31mINJ red\u001b[0m',
  'osc\u001b]8;;http://x\u0007INJ link\u001b]8;;\u0007',
  'bel\u0007INJ',
  'c1\u009b31mINJ',
  'ls\u2028INJ\u2029INJ',
  '::error::INJ at start',
  '  ::warning::INJ after spaces',
  '\u00a0\u3000::error::INJ after Unicode spaces',
  'v1 ##[error]INJ',
  '##vso[task.setvariable variable=INJ]x ##VSO[task.complete]',
  "tc ##teamcity[setParameter name='INJ' value='x'] ##TeamCity[",
  'md\n\n<!-- INJ',
  'link](http://x) INJ',
  '@user INJ',
  '`tick` ``INJ``',
  'cdata ]]> INJ',
  'nonchar \ufffe\uffff INJ',
  'bidi \u202eINJ\u202c \u2066x\u2069 \u200f',
  'zero\u200bwidth\u200c\u200d\u00ad\u2060\ufeff\u180e\u206f INJ',
  'spaces\u00a0that\u2003look\u3000like\u202fone INJ\u00a0',
  'tab\tINJ',
  'del\u007f INJ',
  'pipe|INJ\\|',
  'lone \ud800 INJ \udfff',
];

/** Characters that must never be in any output, raw (LF is a line end; no format of kprof uses TAB). */
// eslint-disable-next-line no-control-regex
const RAW =
  /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000\u00ad\u180e\u200b-\u200d\u2060-\u2064\u206a-\u206f\ufeff\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

function csvQuote(s: string): string {
  return `"${s.replace(/"/g, '""')}"`;
}

const HEADER = 'Step Id,Name,Type,Accelerator Core,Start Time(us),Duration(us),Input Shapes';

/** A kernel_details.csv whose names and types are the hostile texts; invalid UTF-8 bytes in two cells. */
function kernelTable(names: string[], steps: number[], lastStepOnly: string[] = []): Buffer {
  const parts: Buffer[] = [Buffer.from(`${HEADER}\n`)];
  let t = 1000;
  for (const step of steps) {
    [...names, ...(step === steps[steps.length - 1] ? lastStepOnly : [])].forEach((n, i) => {
      parts.push(Buffer.from(`${step},${csvQuote(n)},${csvQuote(`T ${n}`)},AI_CORE,${(t += 100)},${10 + i},${csvQuote(`1,${i}`)}\n`));
    });
    // A cell of invalid UTF-8: an encoded lone surrogate (ED A0 80) and a byte that never starts a character.
    parts.push(
      Buffer.concat([
        Buffer.from(`${step},"bad `),
        Buffer.from([0xed, 0xa0, 0x80, 0xff]),
        Buffer.from(` INJ","T bad`),
        Buffer.from([0xed, 0xbf, 0xbf]),
        Buffer.from(`",AI_CORE,${(t += 100)},5,"1"\n`),
      ]),
    );
  }
  return Buffer.concat(parts);
}

/** A folder name that a shell or a CI runner would act on, as one path component. */
const DIR = 'run\n::error::INJ dir \u001b[31m<!-- @user ](http:x)';

let tmp = '';
const at = (...p: string[]): string => relative(ROOT, join(tmp, ...p));

function writeRank(side: string, folder: string, rank: number, names: string[], lastStepOnly: string[] = []): void {
  const dir = join(tmp, side, folder);
  mkdirSync(join(dir, 'ASCEND_PROFILER_OUTPUT'), { recursive: true });
  writeFileSync(join(dir, `profiler_info_${rank}.json`), JSON.stringify({ rank_id: rank }));
  writeFileSync(join(dir, 'ASCEND_PROFILER_OUTPUT', 'kernel_details.csv'), kernelTable(names, [1, 2], lastStepOnly));
}

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'kprof-hostile-'));
  // base: every hostile name on two ranks, one of them in a hostile folder; pr: some gone, one new, and more of
  // some in the last step only (a change that differs across steps, and on rank 0 only across ranks).
  writeRank('base', `${DIR} 0_ascend_pt`, 0, HOSTILE);
  writeRank('base', 'node_1_ascend_pt', 1, HOSTILE);
  const pr = [...HOSTILE.slice(3), 'new\n::error::INJ added'];
  writeRank('pr', `${DIR} 0_ascend_pt`, 0, pr, HOSTILE.slice(4, 12));
  writeRank('pr', 'node_1_ascend_pt', 1, pr);
  mkdirSync(join(tmp, DIR));
  writeFileSync(join(tmp, DIR, 'kernel_details.csv'), kernelTable(HOSTILE, [1]));
  // A file with damaged rows: warnings quote the hostile cells and name the hostile folder.
  writeFileSync(
    join(tmp, DIR, 'damaged.csv'),
    `${HEADER}\n1,${csvQuote(HOSTILE[0]!)},T,AI_CORE,1,N/A,x\n1,${csvQuote(HOSTILE[3]!)},T,AI_CORE,1,${csvQuote('\u001b[31m1')},x\n1,a,T,AI_CORE,1,5,x\n`,
  );

  // Summary JSON snapshots whose rank ids and selection are hostile.
  const snap = async (side: string, name: string): Promise<void> => {
    const r = await kprof(['summary', join(tmp, side), '--format', 'json', '--by', 'name']);
    expect(r.code).toBe(0);
    const j = JSON.parse(r.stdout) as { ranks: string[]; perRank: { rank: string }[]; selection: string };
    j.perRank.forEach((p, i) => (p.rank = `${HOSTILE[i % HOSTILE.length]!} r${i}`));
    j.ranks = j.perRank.map((p) => p.rank);
    writeFileSync(join(tmp, name), JSON.stringify(j));
    j.selection = 'steps=1-1\n::error::INJ selection <!--';
    writeFileSync(join(tmp, `selected-${name}`), JSON.stringify(j));
  };
  await snap('base', 'base.json');
  await snap('pr', 'pr.json');

  // A rules file whose labels, selectors and whys are hostile; most rules break. Selectors name kernels as they
  // were read (cells trimmed, a lone surrogate written as U+FFFD), so none is taken for a typo.
  const read = (h: string): string => Buffer.from(h).toString().trim();
  const rules = {
    rules: [
      ...HOSTILE.slice(0, 8).map((h, i) => ({ rule: h, name: read(HOSTILE[i + 8]!), count: { max: 0 }, why: HOSTILE[(i + 5) % HOSTILE.length] })),
      { type: HOSTILE.slice(10, 14).map((h) => read(`T ${h}`)), absent: true, why: HOSTILE[11] },
      { match: 'INJ', count: { max: 1, per: 'step' }, severity: 'warn', why: HOSTILE[12] },
      { 'no-new-types': { allow: [read(`T ${HOSTILE[20]}`)] }, why: HOSTILE[13] },
      { rule: HOSTILE[14], type: read(`T ${HOSTILE[9]}`), 'count-vs-base': { 'fell-by-at-least': 50 }, why: HOSTILE[15] },
      { rule: 'holds', kernels: 'all', count: { max: 1000000 } },
    ],
  };
  writeFileSync(join(tmp, 'rules.json'), JSON.stringify(rules));
  writeFileSync(join(tmp, DIR, 'bad.rules.yaml'), 'rules:\n  - type: Cast\n    absent: maybe\n');
});

afterAll(() => {
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

/** Strip Markdown code spans (CommonMark: a run of n backticks up to the next run of exactly n). */
function outsideCode(line: string): string {
  let out = '';
  let i = 0;
  while (i < line.length) {
    if (line[i] !== '`') {
      out += line[i++];
      continue;
    }
    let n = 0;
    while (line[i + n] === '`') n++;
    const fence = '`'.repeat(n);
    let j = i + n;
    let close = -1;
    while ((j = line.indexOf(fence, j)) !== -1) {
      if (line[j + n] !== '`' && line[j - 1] !== '`') {
        close = j;
        break;
      }
      while (line[j] === '`') j++;
    }
    if (close === -1) {
      out += fence;
      i += n;
    } else {
      out += '`code`';
      i = close + n;
    }
  }
  return out;
}

type Kind = 'text' | 'github' | 'markdown' | 'json' | 'csv' | 'junit';

/** The checks every output passes, whatever its format. */
function expectSafe(label: string, text: string, kind: Kind): void {
  const raw = RAW.exec(text);
  expect(
    raw,
    `${label}: raw U+${raw?.[0].charCodeAt(0).toString(16).padStart(4, '0')} near ${JSON.stringify(text.slice(Math.max(0, (raw?.index ?? 0) - 30), (raw?.index ?? 0) + 10))}`,
  ).toBeNull();
  expect(text, `${label}: ##[ (a workflow command in any position)`).not.toContain('##[');
  expect(text, `${label}: ##vso[ (an Azure Pipelines logging command in any position)`).not.toMatch(/##vso\[/i);
  expect(text, `${label}: ##teamcity[ (a TeamCity service message in any position)`).not.toMatch(/##teamcity\[/i);
  for (const [i, line] of text.split('\n').entries()) {
    // The Markdown diff's fixed first line, no input in it (src/report/diff/markdown.ts).
    if (i === 0 && kind === 'markdown' && line === DIFF_MARKDOWN_MARKER) continue;
    // The folds of the Markdown diff (the rows past the table, the rewrites' chains): fixed words, no input.
    if (kind === 'markdown' && (/^<details><summary>[\w ,]+<\/summary>$/.test(line) || line === '</details>')) continue;
    const l = line.trimStart();
    const why = `${label}: the line ${JSON.stringify(line.slice(0, 120))}`;
    expect(l.startsWith('INJ'), why).toBe(false);
    if (l.startsWith('::')) {
      // Only kprof's own annotations, whose properties (up to the second ::) are escaped.
      expect(kind, why).toBe('github');
      expect(l, why).toMatch(/^::(error|warning) [^:\n]*::/);
    }
    // Table and CSV rows start with a name; what must never start a line is what follows a line break in a
    // name (every such piece here starts with INJ, ::, ##[ or <!--) or what a CI runner acts on.
    for (const start of ['<!--', ']]>']) expect(l.startsWith(start), why).toBe(false);
    if (kind === 'markdown') {
      const bare = outsideCode(line);
      for (const bad of ['INJ', '<', '](', '@', '-->']) expect(bare, `${why} outside code spans`).not.toContain(bad);
    }
  }
}

function expectXml(label: string, xml: string): void {
  const p = new SaxesParser();
  let err: Error | null = null;
  p.on('error', (e) => {
    err ??= e;
  });
  p.write(xml).close();
  expect(err, `${label}: ${String(err)}`).toBeNull();
}

function expectAll(label: string, r: Result, kind: Kind, codes: number[]): void {
  expect(codes, `${label}: exit ${r.code}; stderr ${JSON.stringify(r.stderr.slice(0, 300))}`).toContain(r.code);
  expectSafe(`${label} stdout`, r.stdout, kind);
  expectSafe(`${label} stderr`, r.stderr, kind === 'github' ? 'github' : 'text');
  if (kind === 'json' && r.code === 0) expect(() => JSON.parse(r.stdout), label).not.toThrow();
  if (kind === 'junit') expectXml(label, r.stdout);
  if (kind === 'csv' && r.code === 0) {
    // One record per line: a cell never spans lines.
    const records = parseCsv(r.stdout, { relax_column_count: false }) as string[][];
    expect(records.length, label).toBe(r.stdout.trimEnd().split('\n').length);
  }
}

const OUTPUT = ['table', 'markdown', 'json', 'csv'] as const;
const KIND = { table: 'text', markdown: 'markdown', json: 'json', csv: 'csv', text: 'text', github: 'github', junit: 'junit' } as const;

describe('hostile names in kernel tables, folders, summary JSON and rules files', () => {
  for (const format of OUTPUT) {
    for (const by of ['type', 'name', 'type+shapes']) {
      it(`summary --by ${by} --format ${format}`, async () => {
        expectAll('folder of ranks', await kprof(['summary', at('base'), '--by', by, '--format', format]), KIND[format], [0]);
        expectAll(
          'file in a hostile folder',
          await kprof(['summary', at(DIR, 'kernel_details.csv'), '--by', by, '--format', format]),
          KIND[format],
          [0],
        );
      });
    }
    it(`summary of a summary JSON with hostile ranks, --format ${format}`, async () => {
      expectAll('snapshot', await kprof(['summary', at('pr.json'), '--by', 'name', '--format', format]), KIND[format], [0]);
      expectAll('snapshot --top 2', await kprof(['summary', at('pr.json'), '--by', 'name', '--top', '2', '--format', format]), KIND[format], [0]);
    });
    it(`summary with damaged rows (warnings) --format ${format}`, async () => {
      const r = await kprof(['summary', at(DIR, 'damaged.csv'), '--format', format]);
      expect(r.stderr).toContain('warning');
      expectAll('damaged', r, KIND[format], [0]);
    });
    it(`diff --format ${format}, by type and by name, raw and per step`, async () => {
      for (const extra of [[], ['--by', 'name'], ['--per-step'], ['--by', 'name', '--top', '3']]) {
        expectAll(`diff ${extra.join(' ')}`, await kprof(['diff', at('base'), at('pr'), ...extra, '--format', format]), KIND[format], [0]);
      }
      const plain = await kprof(['diff', at('base'), at('pr'), '--format', format]);
      // The pair has changes that differ across ranks and across steps: those lists name the groups and ranks.
      if (format === 'table' || format === 'markdown')
        expect(plain.stdout).toMatch(/Changed differently across ranks[\s\S]*Changed differently across steps/);
      expectAll('diff of snapshots', await kprof(['diff', at('base.json'), at('pr.json'), '--by', 'name', '--format', format]), KIND[format], [0]);
      expectAll('diff rank against folder', await kprof(['diff', at('base.json'), at('pr'), '--by', 'name', '--format', format]), KIND[format], [0]);
    });
  }

  for (const format of ['text', 'json', 'junit', 'github', 'markdown'] as const) {
    it(`check --format ${format}`, async () => {
      const r = await kprof(['check', at('pr'), '--base', at('base'), '--rules', at('rules.json'), '--format', format]);
      expectAll('check', r, KIND[format], [1]);
      const s = await kprof(['check', at('pr.json'), '--base', at('base.json'), '--rules', at('rules.json'), '--format', format]);
      expectAll('check of snapshots', s, KIND[format], [1, 2]);
      const sel = await kprof(['check', at('selected-pr.json'), '--rules', at('rules.json'), '--format', format]);
      expectAll('check of a snapshot with a hostile selection', sel, KIND[format], [1, 2]);
      if (format === 'json') {
        // JSON keeps the exact text.
        const j = JSON.parse(r.stdout) as { results: { rule: string; why: string | null }[] };
        expect(j.results[0]!.rule).toBe(HOSTILE[0]);
        expect(j.results[0]!.why).toBe(HOSTILE[5]);
      }
    });
  }

  it('html pages of summary, diff and check: no raw control, no ##[, nothing from input starts a line', async () => {
    expectAll('summary html', await kprof(['summary', at('base'), '--by', 'name', '--format', 'html']), 'text', [0]);
    expectAll('diff html', await kprof(['diff', at('base'), at('pr'), '--format', 'html']), 'text', [0]);
    expectAll('check html', await kprof(['check', at('pr'), '--base', at('base'), '--rules', at('rules.json'), '--format', 'html']), 'text', [1]);
  });

  for (const format of ['text', 'json'] as const) {
    it(`inspect --format ${format}`, async () => {
      expectAll('inspect folder', await kprof(['inspect', at('base'), '--format', format]), KIND[format], [0]);
      expectAll('inspect damaged', await kprof(['inspect', at(DIR, 'damaged.csv'), '--format', format]), KIND[format], [0]);
      expectAll('inspect snapshot', await kprof(['inspect', at('pr.json'), '--format', format]), KIND[format], [0]);
    });
  }

  for (const by of ['type', 'name']) {
    it(`rules --by ${by}: the YAML it writes is safe, and check reads it back`, async () => {
      const r = await kprof(['rules', at('base'), at('pr'), '--by', by]);
      expectAll('rules', r, 'text', [0]);
      const file = join(tmp, `generated-${by}.yaml`);
      writeFileSync(file, r.stdout);
      expectAll('check with the generated rules', await kprof(['check', at('pr'), '--rules', relative(ROOT, file)]), 'text', [0]);
    });
  }

  it('summary JSON keeps every name exactly, and reads back', async () => {
    const r = await kprof(['summary', at('base'), '--by', 'name', '--format', 'json']);
    const keys = (JSON.parse(r.stdout) as { groups: { key: string }[] }).groups.map((g) => g.key);
    // Exact, line breaks and controls included (a lone surrogate was written to the CSV as U+FFFD; cells are trimmed
    // of ASCII white space only: a name that begins or ends in U+00A0 or U+3000 keeps them).
    for (const h of HOSTILE)
      expect(keys).toContain(
        Buffer.from(h)
          .toString()
          .replace(/^[\t\n\v\f\r ]+|[\t\n\v\f\r ]+$/g, ''),
      );
  });

  it('errors name hostile paths and values safely, in every error format', async () => {
    const cases: [string, string[]][] = [
      ['missing file', ['summary', at(DIR, 'missing\n::error::INJ.csv')]],
      ['bad rules file', ['check', at('pr'), '--rules', at(DIR, 'bad.rules.yaml')]],
      ['snapshot made with another selection', ['summary', at('selected-pr.json'), '--by', 'name']],
      ['bad choice', ['summary', at('base'), '--by', 'x\n::error::INJ choice']],
      ['bad regex', ['summary', at('base'), '--match', '(\n::error::INJ']],
      ['bad steps', ['summary', at('base'), '--steps', '1\n::error::INJ']],
      // The same errors of check, which has the github and junit formats.
      ['check: missing file', ['check', at(DIR, 'missing\n::error::INJ.csv'), '--rules', at('rules.json')]],
      ['check: bad choice', ['check', at('base'), '--rules', at('rules.json'), '--prefer', 'x\n::error::INJ choice']],
      ['check: bad regex', ['check', at('base'), '--rules', at('rules.json'), '--match', '(\n::error::INJ']],
      ['check: bad steps', ['check', at('base'), '--rules', at('rules.json'), '--steps', '1\n::error::INJ']],
    ];
    for (const [label, args] of cases) {
      const plain = await kprof(args);
      expectAll(label, plain, 'text', [2]);
      // Summary has neither format: a usage error, said as any other.
      const check = args[0] === 'check';
      const gh = await kprof([...args, '--format', 'github']);
      expectAll(`${label} github`, gh, check ? 'github' : 'text', [2]);
      const junit = await kprof([...args, '--format', 'junit']);
      expectAll(`${label} junit`, junit, check ? 'junit' : 'text', [2]);
      if (!check) expect([gh.stdout, junit.stdout]).toEqual(['', '']);
    }
  });
});

describe('exit-2 errors under --format github and junit', () => {
  const BAD = 'fixtures/rules/bad-rules/unknown-group.yaml';
  const PROFILE = 'fixtures/rules/one-rank/pr';

  it('github: an ::error annotation on the file and line the message names', async () => {
    const r = await kprof(['check', PROFILE, '--rules', BAD, '--format', 'github']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(
      /^::error file=fixtures\/rules\/bad-rules\/unknown-group\.yaml,line=5,col=12,title=kprof%3A input error::fixtures\/rules\/bad-rules\/unknown-group\.yaml:5:12: group "rope-chian" is not defined/,
    );
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
  });

  it('github: file= is relative to GITHUB_WORKSPACE when it is set', async () => {
    const r = await kprof(['check', PROFILE, '--rules', BAD, '--format', 'github'], { GITHUB_WORKSPACE: join(ROOT, 'fixtures') });
    expect(r.stderr).toMatch(/^::error file=rules\/bad-rules\/unknown-group\.yaml,line=5,/);
    const broken = await kprof(
      ['check', PROFILE, '--rules', 'fixtures/rules/one-rank/every-kind.rules.yaml', '--base', 'fixtures/rules/one-rank/base', '--format', 'github'],
      { GITHUB_WORKSPACE: join(ROOT, 'fixtures', 'rules') },
    );
    for (const l of broken.stdout.split('\n').filter((x) => x.startsWith('::')))
      expect(l).toMatch(/^::(error|warning) file=one-rank\/every-kind\.rules\.yaml,/);
  });

  it('github: a usage error is an annotation too', async () => {
    const r = await kprof(['check', PROFILE, '--rules', BAD, '--format', 'github', '--bogus']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^::error title=kprof%3A usage error::unknown option '--bogus'/);
  });

  it('a command without that format prints its usage error as every other usage error, and writes no report', async () => {
    const usage = (format: string): string =>
      `kprof: --format: expected one of table, text, markdown, json, csv or html; found "${format}".\n(run with --help for usage)\n`;
    for (const cmd of ['summary', 'diff']) {
      const inputs = cmd === 'diff' ? [PROFILE, PROFILE] : [PROFILE];
      for (const format of ['github', 'junit']) {
        expect(await kprof([cmd, ...inputs, '--format', format])).toEqual({ code: 2, stdout: '', stderr: usage(format) });
        const out = join(tmp, `${cmd}-${format}.xml`);
        expect((await kprof([cmd, ...inputs, `--format=${format}`, '-o', out])).stderr).toBe(usage(format));
        expect(existsSync(out)).toBe(false);
      }
    }
    // An error that is not commander's, under a command that has no github format: a plain line too.
    const r = await kprof(['inspect', PROFILE, '--format', 'github', '--rank', '9']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^kprof: --format: expected one of text, table or json; found "github"\./);
    const audit = await kprof(['audit', PROFILE, '--format', 'junit']);
    expect(audit.code).toBe(2);
    expect(audit.stderr).toMatch(/^kprof: --format: expected one of table, text, markdown, json or html; found "junit"\./);
    expect(audit.stdout).toBe('');
  });

  it('junit: a well-formed report with one failed test case, on stdout or in --out', async () => {
    const r = await kprof(['check', PROFILE, '--rules', BAD, '--format', 'junit']);
    expect(r.code).toBe(2);
    expectXml('junit error', r.stdout);
    expect(r.stdout).toContain('tests="1" failures="1"');
    expect(r.stdout.match(/<testcase /g)).toHaveLength(1);
    expect(r.stdout).toMatch(/<failure message="fixtures\/rules\/bad-rules\/unknown-group\.yaml:5:12: group &quot;rope-chian&quot; is not defined/);
    expect(r.stderr).toMatch(/^kprof: fixtures\/rules\/bad-rules\/unknown-group\.yaml:5:12: /);
    const out = join(tmp, 'report.xml');
    const o = await kprof(['check', PROFILE, '--rules', BAD, '--format', 'junit', '-o', out]);
    expect(o.code).toBe(2);
    expect(o.stdout).toBe('');
    expectXml('junit error in --out', readFileSync(out, 'utf8'));
    const usage = await kprof(['check', PROFILE, '--format', 'junit']);
    expect(usage.code).toBe(2);
    expectXml('junit usage error', usage.stdout);
    expect(usage.stdout).toContain('<failure message="required option &apos;--rules &lt;file&gt;&apos; not specified"');
  });
});

describe('long names', () => {
  it('a table clips a cell to CELL_WIDTH characters; JSON and CSV keep the whole name', async () => {
    // 24,003 characters (56,003 bytes, within the 64 KiB a kernel name may have), multi-line, wide.
    const long = `${'名前\n'.repeat(8_000)}end`;
    writeFileSync(join(tmp, 'long.csv'), `${HEADER}\n1,${csvQuote(long)},${csvQuote(`T${long}`)},AI_CORE,1,5,x\n1,short,Add,AI_CORE,2,6,x\n`);
    const table = await kprof(['summary', at('long.csv'), '--by', 'name']);
    expect(table.code).toBe(0);
    expect(table.stdout.length).toBeLessThan(4 * CELL_WIDTH * 4);
    const row = table.stdout.split('\n').find((l) => l.startsWith('名前'))!;
    expect(row.slice(0, row.indexOf('…') + 1)).toBe(clipped(long));
    // At most CELL_WIDTH: an escape (\x0a) that the cut would split is left out whole.
    expect(Array.from(clipped(long)).length).toBeLessThanOrEqual(CELL_WIDTH);
    expect(Array.from(clipped(long)).length).toBeGreaterThan(CELL_WIDTH - 6);
    for (const format of ['markdown', 'table'] as const) {
      const d = await kprof(['diff', at('long.csv'), at(DIR, 'kernel_details.csv'), '--by', 'name', '--format', format]);
      expect(d.stdout.length, format).toBeLessThan(40_000);
    }
    const json = await kprof(['summary', at('long.csv'), '--by', 'name', '--format', 'json']);
    expect((JSON.parse(json.stdout) as { groups: { key: string }[] }).groups.map((g) => g.key)).toContain(long);
    const csv = await kprof(['summary', at('long.csv'), '--by', 'name', '--format', 'csv']);
    expect(csv.stdout).toContain(escaped(long));
  });
});

describe('the escaping scheme', () => {
  it('escaped(): controls as \\xHH or \\uHHHH, ##[ and a leading :: broken, other text unchanged', () => {
    expect(escaped('a\nb\r\tc\u001b[31m\u0007')).toBe('a\\x0ab\\x0d\\x09c\\x1b[31m\\x07');
    expect(escaped('c1\u009b x\u2028y\u2029 \u202e\u2066\u2069\u200f\u061c')).toBe('c1\\u009b x\\u2028y\\u2029 \\u202e\\u2066\\u2069\\u200f\\u061c');
    // Invisible characters: `Cast\u200b` must not look like `Cast`.
    expect(escaped('Cast\u200b \u200c\u200d\u00ad\u2060\ufeff\u180e\u206f')).toBe('Cast\\u200b \\u200c\\u200d\\u00ad\\u2060\\ufeff\\u180e\\u206f');
    // Written `\ufeff`, it no longer leaves the `::` at the start of the line (as `\x09::` for a TAB).
    expect(escaped('\ufeff::error::x')).toBe('\\ufeff::error::x');
    expect(escaped('\ufffe\uffff \ud800 \udfff \ud83d\ude00')).toBe('\\ufffe\\uffff \\ud800 \\udfff \ud83d\ude00');
    expect(escaped('::error::x')).toBe('\\x3a:error::x');
    expect(escaped('  ::x')).toBe('  \\x3a:x');
    // Each space escaped in its turn, the `::` is no longer at the start of the line (it follows `\\x09`).
    expect(escaped('\u00a0\u2028\t::x')).toBe('\\u00a0\\u2028\\x09::x');
    // Spaces other than U+0020 look like one: `Cast\u00a0` must not look like `Cast` (a name is read with them).
    expect(escaped('Cast\u00a0 a\u2003b\u3000c\u202fd\u1680e\u205f')).toBe('Cast\\u00a0 a\\u2003b\\u3000c\\u202fd\\u1680e\\u205f');
    expect(escaped('a::b ##[c] #[d]')).toBe('a::b \\x23#[c] #[d]');
    expect(escaped('##vso[task.setvariable variable=X]y a##VSO[z] ##vso ##vs[ ##teamcity[a] ##TeamCity[')).toBe(
      '\\x23#vso[task.setvariable variable=X]y a\\x23#VSO[z] ##vso ##vs[ \\x23#teamcity[a] \\x23#TeamCity[',
    );
    expect(escaped('aclnnMatmul_MatMulV3 [4096,512;512,1024] µs Δ 中文 a\\b <x>')).toBe(
      'aclnnMatmul_MatMulV3 [4096,512;512,1024] µs Δ 中文 a\\b <x>',
    );
  });

  it('clipped(): at most CELL_WIDTH characters, surrogate pairs kept whole', () => {
    expect(clipped('x'.repeat(CELL_WIDTH))).toBe('x'.repeat(CELL_WIDTH));
    expect(clipped('x'.repeat(CELL_WIDTH + 1))).toBe(`${'x'.repeat(CELL_WIDTH - 1)}…`);
    expect(Array.from(clipped('😀'.repeat(500)))).toEqual([...Array(CELL_WIDTH - 1).fill('😀'), '…']);
    // The cut never splits an escape: `\x0…` would read as a backslash of the name's own.
    expect(clipped('\n'.repeat(50))).toBe(`${'\\x0a'.repeat(29)}…`);
  });

  it('jsonSafe() escapes what JSON.stringify leaves raw, and parses back to the same text', () => {
    const s = 'c1\u009b ls\u2028 \u202e del\u007f \ufffe ##[x] \u001b \ud800 ##vso[x] ##teamcity[x] zw\u200b\ufeff';
    const j = jsonSafe(JSON.stringify({ s }));
    expect(RAW.test(j)).toBe(false);
    expect(j).not.toContain('##[');
    expect(j).not.toContain('##vso[');
    expect(j).not.toContain('##teamcity[');
    expect((JSON.parse(j) as { s: string }).s).toBe(s);
  });

  it('mdCode(): a code span that a pipe or a backslash before it cannot end', () => {
    expect(mdCode('a`b')).toBe('``a`b``');
    expect(mdCode('x\\|<!--')).toBe('`x\\x5c|<!--`');
  });

  it('xmlEscape() leaves no character XML 1.0 cannot hold', () => {
    expectXml('xmlEscape', `<a b="${xmlEscape('\u0000\u0008\ufffe\uffff\ud800"<>&\'')}">${xmlEscape(']]>\u000b\udc00')}</a>`);
  });
});
