// The fusion catalogue of kprof audit: every shipped file passes the schema, every entry cites a source, the
// generated module the bundle ships is the files on disk, bad entries are refused with their place, and
// `kprof audit --list` shows every entry; plus the audit of the README's example profile.

import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { CATALOGUE_FILES } from '../src/analysis/audit/catalogueData.js';
import { parseCatalogue, joinCatalogues } from '../src/analysis/audit/catalogue.js';
import { isKprofError } from '../src/util/errors.js';
import { CHAIN } from './decodeGen.js';
import { kprof, ROOT } from './helpers.js';

const DIR = join(ROOT, 'catalogue');
const files = readdirSync(DIR)
  .filter((f) => f.endsWith('.yaml'))
  .sort();

function refusal(text: string): string {
  try {
    parseCatalogue('user.yaml', text);
  } catch (e) {
    if (isKprofError(e)) return e.message;
    throw e;
  }
  return '(accepted)';
}

describe('the shipped catalogue', () => {
  test('the bundled module holds exactly the files of catalogue/ (run node scripts/catalogue.mjs when this fails)', () => {
    expect(CATALOGUE_FILES.map((f) => f.file)).toEqual(files.map((f) => `catalogue/${f}`));
    for (const f of CATALOGUE_FILES) expect(f.text).toBe(readFileSync(join(ROOT, f.file), 'utf8'));
  });

  const entries = joinCatalogues(files.map((f) => parseCatalogue(`catalogue/${f}`, readFileSync(join(DIR, f), 'utf8'))));

  test('every file passes the schema, ids are unique, and there are at least 30 entries', () => {
    expect(entries.length).toBeGreaterThanOrEqual(30);
    expect(new Set(entries.map((e) => e.id)).size).toBe(entries.length);
  });

  test('every entry cites a source and says where its chain and type names come from', () => {
    for (const e of entries) {
      expect(e.sources.length, e.id).toBeGreaterThan(0);
      for (const s of e.sources) expect(s.url !== undefined || (s.repo !== undefined && s.path !== undefined), e.id).toBe(true);
      expect(e.chainSource.length, e.id).toBeGreaterThan(10);
      expect(e.typeSource.length, e.id).toBeGreaterThan(10);
      // An entry without a chain says why.
      if (e.chains.length === 0) expect(e.chainSource, e.id).toMatch(/^none/);
    }
  });

  test('kprof audit --list shows every entry and its sources', async () => {
    const res = await kprof(['audit', '--list']);
    expect(res.code).toBe(0);
    for (const e of entries) expect(res.stdout).toContain(`${e.id} (`);
    expect(res.stdout).toContain('Ascend/op-plugin:docs/zh/custom_APIs/torch_npu/torch_npu-npu_mla_prolog_v3.md');
    const json = JSON.parse((await kprof(['audit', '--list', '--format', 'json'])).stdout);
    expect(json.entries.map((e: { id: string }) => e.id)).toEqual(entries.map((e) => e.id));
  });

  test('kprof audit --list with a profile, --matrix or --all is a usage error: they would be ignored', async () => {
    const profile = await kprof(['audit', '--list', 'fixtures/fusion-example/pr']);
    expect([profile.code, profile.stdout]).toEqual([2, '']);
    expect(profile.stderr).toBe(
      'kprof: --list shows the catalogue and audits nothing: the profile fixtures/fusion-example/pr would be ignored. ' +
        'Leave --list out to audit, or leave out the profile fixtures/fusion-example/pr.\n',
    );
    const flags = await kprof(['audit', '--list', '--matrix', '--all']);
    expect([flags.code, flags.stdout]).toEqual([2, '']);
    expect(flags.stderr).toContain('--matrix and --all would be ignored');
  });
});

describe('a catalogue file is checked', () => {
  const ok = `entries:
  - id: my-fusion
    fused: [MyFused]
    api: my_api
    versions: any
    chain: [A, B|C, D?]
    chain_source: inferred
    type_source: inferred
    sources:
      - url: https://example.org/doc
        says: it fuses A and B
`;

  test('a good entry is read with its chain elements', () => {
    const [e] = parseCatalogue('user.yaml', ok);
    expect(e!.chains[0]).toEqual([
      { types: ['A'], optional: false },
      { types: ['B', 'C'], optional: false },
      { types: ['D'], optional: true },
    ]);
  });

  test.each([
    ['no sources', ok.replace(/ {4}sources:[\s\S]*$/, ''), /"sources" is missing/],
    ['a source without url or repo', ok.replace('url: https://example.org/doc', 'path: x'), /expected a "url"/],
    ['an unknown key', ok.replace('api: my_api', 'api: my_api\n    colour: red'), /unknown key "colour"/],
    ['a bad element', ok.replace('[A, B|C, D?]', '[A, "B C"]'), /each element is a kernel type/],
    ['an optional first element', ok.replace('[A, B|C, D?]', '[A?, B]'), /first element may not be optional/],
    ['the fused type in its chain', ok.replace('[A, B|C, D?]', '[A, MyFused]'), /in its own chain/],
    ['a bad id', ok.replace('my-fusion', 'My Fusion'), /"id": expected/],
    ['no entries list', 'foo: 1\n', /"entries" list/],
  ])('refused: %s', (_what, text, message) => {
    const m = refusal(text);
    expect(m).toMatch(message);
    expect(m).toMatch(/^user\.yaml/);
  });

  test.each([
    [
      'per_layer: yes (YAML 1.1)',
      ok.replace('versions: any', 'versions: any\n    per_layer: yes'),
      'user.yaml:6:16: entry 1: "per_layer": expected true or false; found "yes" (YAML 1.1 read it as true; kprof reads YAML 1.2, where it is a text: write true)',
    ],
    [
      'max_gap out of range',
      ok.replace('versions: any', 'versions: any\n    max_gap: 99'),
      'user.yaml:6:14: entry 1: "max_gap": expected a whole number 0 to 16; found 99',
    ],
    [
      'a bad chain element',
      ok.replace('[A, B|C, D?]', '[A, "B C"]'),
      'user.yaml:6:16: entry 1: "chain": each element is a kernel type, A|B (either) or A? (optional); found "B C"',
    ],
    ['a bad fused type', ok.replace('[MyFused]', '[MyFused, 7]'), 'user.yaml:3:22: entry 1: "fused": expected a kernel type; found 7'],
    ['a text that is a list', ok.replace('api: my_api', 'api: [my_api]'), 'user.yaml:4:10: entry 1: "api": expected a text; found a list'],
    [
      'a short commit',
      ok.replace('says: it fuses A and B', 'says: it fuses A and B\n        commit: abc'),
      'user.yaml:12:17: entry 1: source 1: "commit": expected 40 hex digits; found "abc"',
    ],
    ['an unknown key', ok.replace('api: my_api', 'api: my_api\n    colour: red'), 'user.yaml:5:13: entry 1: unknown key "colour"'],
    [
      'an id twice in one file',
      `${ok}${ok.replace('entries:\n', '')}`,
      'user.yaml:12:9: entry 2: "id": "my-fusion" is the id of entry 1 already; give each entry an id of its own',
    ],
  ])('the message names the line of the value and what it holds: %s', (_what, text, message) => {
    expect(refusal(text)).toContain(message);
  });

  test('an id that the shipped catalogue has already is refused', () => {
    const shipped = parseCatalogue('catalogue/mla.yaml', readFileSync(join(DIR, 'mla.yaml'), 'utf8'));
    const mine = parseCatalogue('mine.yaml', ok.replace('my-fusion', 'mla-prolog'));
    expect(() => joinCatalogues([shipped, mine])).toThrow(/mine\.yaml: the id "mla-prolog" is in catalogue\/mla\.yaml already/);
  });
});

describe('kprof audit of the README example', () => {
  test('the PR fuses the MLA prolog in the decoder layers, and its MTP layer keeps the unfused chain', async () => {
    const res = await kprof(['audit', 'fixtures/fusion-example/pr', '--only', 'mla-prolog', '--format', 'json']);
    expect(res.code).toBe(0);
    const e = JSON.parse(res.stdout).profiles[0].entries[0];
    expect(e.status).toBe('fallback');
    // 2 ranks x 4 steps x 2 decoder layers fused; the MTP layer (told by its own kernels, ConcatD …) unfused.
    expect(e.fused.count).toBe(16);
    expect(e.unfused.count).toBe(8);
    expect(e.unfused.sites.map((s: { rank: string; phase: string; layer: number; steps: number[] }) => [s.rank, s.phase, s.layer, s.steps])).toEqual([
      ['0', 'mtp', 0, [21, 22, 23, 24]],
      ['1', 'mtp', 0, [21, 22, 23, 24]],
    ]);
    expect(e.fused.sites.map((s: { layer: number }) => s.layer)).toEqual([0, 1, 0, 1]);
    expect(e.unfused.sites[0].types.at(-1)).toBe('ScatterPaKvCache');
    // Its first kernel is cited by its row: line 49 of rank 0's kernel_details.csv is step 21's QuantBatchMatmulV3.
    expect(e.unfused.sites[0].first).toMatchObject({ step: 21, stream: '2', line: 49 });
    expect(e.unfused.sites[0].first.file).toMatch(/node-07_3019544_[0-9]+_ascend_pt\/ASCEND_PROFILER_OUTPUT\/kernel_details\.csv$/);
    expect(JSON.parse(res.stdout).profiles[0].layer_markers).toEqual([
      { rank: '0', marker: 'LightningIndexer' },
      { rank: '1', marker: 'LightningIndexer' },
    ]);
  });

  test('the base runs the unfused chain everywhere: never fused', async () => {
    const res = await kprof(['audit', 'fixtures/fusion-example/base', '--only', 'mla-prolog', '--format', 'json']);
    const e = JSON.parse(res.stdout).profiles[0].entries[0];
    expect(e.status).toBe('unfused');
    expect(e.unfused.count).toBe(24);
  });

  test('--matrix gives one status per profile; the table names the sites', async () => {
    const m = await kprof(['audit', 'fixtures/fusion-example/base', 'fixtures/fusion-example/pr', '--matrix', '--only', 'mla-prolog']);
    expect(m.code).toBe(0);
    expect(m.stdout).toMatch(/mla-prolog\s+not fused\s+FALLBACK/);
    const t = await kprof(['audit', 'fixtures/fusion-example/pr', '--only', 'mla-prolog']);
    expect(t.stdout).toContain('rank 0 MTP layer steps 21-24: 4 chains, 283.60 µs at kernel_details.csv:49:');
    const md = await kprof(['audit', 'fixtures/fusion-example/pr', '--only', 'mla-prolog', '--format', 'markdown']);
    expect(md.stdout).toContain('| `mla-prolog` | FALLBACK |');
  });

  test('bad use: an unknown entry, --matrix with one profile, a profile of totals', async () => {
    const a = await kprof(['audit', 'fixtures/fusion-example/pr', '--only', 'nope']);
    expect(a.code).toBe(2);
    expect(a.stderr).toMatch(/--only: no catalogue entry "nope"/);
    // A fused kernel type (which a fused: rule takes) names its entry's id; a near miss, the id meant.
    const byType = await kprof(['audit', 'fixtures/fusion-example/pr', '--only', 'MlaPrologV3']);
    expect(byType.code).toBe(2);
    expect(byType.stderr).toBe(
      'kprof: --only: no catalogue entry "MlaPrologV3"; kprof audit --list shows the ids. MlaPrologV3 is the fused kernel of mla-prolog: pass --only mla-prolog.\n',
    );
    const typo = await kprof(['audit', 'fixtures/fusion-example/pr', '--only', 'mla-prolgo']);
    expect(typo.stderr).toBe('kprof: --only: no catalogue entry "mla-prolgo"; kprof audit --list shows the ids. Did you mean "mla-prolog"?\n');
    const b = await kprof(['audit', 'fixtures/fusion-example/pr', '--matrix']);
    expect(b.code).toBe(2);
    const c = await kprof(['audit']);
    expect(c.code).toBe(2);
  });

  test('--matrix of one profile named twice (as written, or another path to its folder) is a usage error', async () => {
    const base = 'fixtures/fusion-example/base';
    const pr = 'fixtures/fusion-example/pr';
    for (const [second, shownAs] of [
      [pr, pr],
      [`${pr}/`, `${pr}/`],
      [`fixtures/fusion-example/../fusion-example/pr`, 'fixtures/fusion-example/../fusion-example/pr'],
    ] as const) {
      const r = await kprof(['audit', pr, base, second, '--matrix', '-q']);
      expect(r).toMatchObject({ code: 2, stdout: '' });
      expect(r.stderr).toBe(
        `kprof: --matrix: [3] ${shownAs} names the same profile as [1] ${pr}; expected one profile per configuration, a column each. Name each profile once.\n`,
      );
    }
    // Without --matrix, each profile is audited on its own, as before.
    expect((await kprof(['audit', pr, pr, '--only', 'mla-prolog', '-q'])).code).toBe(0);
  });
});

describe('kprof audit --catalogue of a file of no entry', () => {
  test('audits with the shipped catalogue, and says the file adds nothing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kprof-empty-catalogue-'));
    try {
      const file = join(dir, 'none.yaml');
      writeFileSync(file, 'entries: []\n');
      const r = await kprof(['audit', 'fixtures/fusion-example/pr', '--catalogue', file]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toContain(`kprof: warning: --catalogue ${file}: it has no entries, so it adds nothing to the shipped catalogue.`);
      expect(r.stdout).toMatch(/^Fusion audit of .*: 30 catalogue entries/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('kprof audit --catalogue FILE PROFILE', () => {
  test('the profile after the catalogue is audited, not read as a second catalogue', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kprof-catalogue-order-'));
    try {
      const file = join(dir, 'saved.yaml');
      expect((await kprof(['diff', 'fixtures/fusion-example/base', 'fixtures/fusion-example/pr', '--save-fusions', file, '-q'])).code).toBe(0);
      // The order the header of the saved file suggests: kprof audit --catalogue THIS_FILE <profile>.
      const a = await kprof(['audit', '--catalogue', file, 'fixtures/fusion-example/pr', '--only', 'diff-mlaprologv3', '-q']);
      expect(a.stderr).toBe('');
      expect(a.code).toBe(0);
      expect(a.stdout).toMatch(/^Fusion audit of fixtures\/fusion-example\/pr: 1 catalogue entry/);
      // Several catalogues after the option, then profiles, in the order the line gives them (--matrix's columns).
      const copy = join(dir, 'copy.YML');
      writeFileSync(copy, 'entries: []\n');
      const m = await kprof(['audit', 'fixtures/fusion-example/base', '--catalogue', file, copy, 'fixtures/fusion-example/pr', '--matrix', '-q']);
      expect(m.code, m.stderr).toBe(0);
      expect(m.stdout).toContain('[1] fixtures/fusion-example/base\n  [2] fixtures/fusion-example/pr\n');
      expect(m.stderr).toContain(`--catalogue ${copy}: it has no entries`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('kprof diff --save-fusions', () => {
  test('writes the rewrites as catalogue entries that kprof audit --catalogue reads back', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kprof-save-'));
    try {
      const file = join(dir, 'saved.yaml');
      const d = await kprof(['diff', 'fixtures/fusion-example/base', 'fixtures/fusion-example/pr', '--save-fusions', file, '-q']);
      expect(d.code).toBe(0);
      expect(d.stderr).toMatch(/--save-fusions: 1 entry written/);
      const [e] = parseCatalogue('saved.yaml', readFileSync(file, 'utf8'));
      expect(e!.id).toBe('diff-mlaprologv3');
      expect(e!.fused).toEqual(['MlaPrologV3']);
      expect(e!.chains[0]!.map((el) => el.types[0])).toEqual(CHAIN);
      // The MTP layer's chain (11 kernels, then ScatterPaKvCache), which the diff lists as not fused (2 edits from
      // the chain), is the entry's variant.
      expect(e!.chains.slice(1).map((c) => c.map((el) => el.types[0]))).toEqual([CHAIN.slice(0, 11)]);
      // Audited everywhere after: the base runs the chain 16 times where the PR fused it, and the variant 8 times
      // (its MTP layer); the PR falls back to the variant where the diff said it was not fused.
      const audit = async (profile: string) => {
        const a = await kprof(['audit', '--catalogue', file, '--only', 'diff-mlaprologv3', '--format', 'json', profile]);
        expect(a.code).toBe(0);
        const entry = JSON.parse(a.stdout).profiles[0].entries[0];
        return [entry.status, entry.fused.count, entry.unfused.count];
      };
      expect(await audit('fixtures/fusion-example/base')).toEqual(['unfused', 0, 24]);
      expect(await audit('fixtures/fusion-example/pr')).toEqual(['fallback', 16, 8]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
  test("a profile's folder name with a bidi override and a line separator is written escaped, and reads back", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kprof-save-'));
    try {
      const pr = join(dir, 'pr\u202eevil\u2028x');
      cpSync('fixtures/fusion-example/pr', pr, { recursive: true });
      const file = join(dir, 'saved.yaml');
      // One rank: the chain source says "rank 0", not "ranks 0".
      const d = await kprof(['diff', 'fixtures/fusion-example/base', pr, '--rank', '0', '--save-fusions', file, '-q']);
      expect(d.code, d.stderr).toBe(0);
      const text = readFileSync(file, 'utf8');
      expect(text).not.toMatch(/[\u202e\u2028]/);
      expect(text).toContain('pr\\u202eevil\\u2028x"');
      expect(text).toContain('(8 chains, rank 0)');
      const [e] = parseCatalogue('saved.yaml', text);
      expect(e!.id).toBe('diff-mlaprologv3');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
  test('--save-fusions and -o naming one file: refused before the diff runs, nothing written', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kprof-save-'));
    try {
      const file = join(dir, 'saved.yaml');
      const d = await kprof(['diff', 'fixtures/fusion-example/base', 'fixtures/fusion-example/pr', '--save-fusions', file, '-o', file]);
      expect(d).toMatchObject({ code: 2, stdout: '' });
      expect(d.stderr).toMatch(/^kprof: --save-fusions .*saved\.yaml: the same file as -o; each report needs a file of its own/);
      expect(readdirSync(dir)).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
  test('--save-fusions or -o naming the --groups file, or a file of a profile: refused by its own flag, nothing written', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kprof-save-'));
    try {
      const groups = join(dir, 'groups.yaml');
      writeFileSync(groups, 'rope: [InterleaveRope]\n');
      const saved = join(dir, 'saved.yaml');
      const s = await kprof(['diff', 'fixtures/fusion-example/base', 'fixtures/fusion-example/pr', '--groups', groups, '--save-fusions', groups]);
      expect(s).toMatchObject({ code: 2, stdout: '' });
      expect(s.stderr).toMatch(/^kprof: --save-fusions .*groups\.yaml: this is an input of this run; .*Pass --save-fusions another path\.\n$/);
      const o = await kprof([
        'diff',
        'fixtures/fusion-example/base',
        'fixtures/fusion-example/pr',
        '--groups',
        groups,
        '--save-fusions',
        saved,
        '-o',
        groups,
      ]);
      expect(o).toMatchObject({ code: 2, stdout: '' });
      expect(o.stderr).toMatch(/^kprof: -o .*groups\.yaml: this is an input of this run; .*Pass -o another path\.\n$/);
      // A file inside the base's folder is known as an input only once read: still refused before the catalogue is written.
      const base = join(dir, 'base');
      cpSync('fixtures/fusion-example/base', base, { recursive: true });
      const csv = join(
        base,
        readdirSync(base, { recursive: true, encoding: 'utf8' })
          .filter((f) => f.endsWith('kernel_details.csv'))
          .sort()[0]!,
      );
      const f = await kprof(['diff', base, 'fixtures/fusion-example/pr', '--save-fusions', saved, '-o', csv, '-q']);
      expect(f).toMatchObject({ code: 2, stdout: '' });
      expect(f.stderr).toMatch(/^kprof: -o .*kernel_details\.csv: this is an input of this run; .*Pass -o another path\.\n$/);
      expect(readFileSync(groups, 'utf8')).toBe('rope: [InterleaveRope]\n');
      expect(readdirSync(dir).sort()).toEqual(['base', 'groups.yaml']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
  test('--rewrites off or --by other than type: refused before the diff runs; a side of no kernel order: said why', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kprof-save-'));
    try {
      const file = join(dir, 'saved.yaml');
      const args = ['diff', 'fixtures/fusion-example/base', 'fixtures/fusion-example/pr', '--save-fusions', file];
      const off = await kprof([...args, '--rewrites', 'off']);
      expect(off).toMatchObject({ code: 2, stdout: '' });
      expect(off.stderr).toBe(
        'kprof: --save-fusions: it writes the fusions the Fusion rewrites section finds, and --rewrites off turns the section off. Leave one of them out.\n',
      );
      const byName = await kprof([...args, '--by', 'name']);
      expect(byName).toMatchObject({ code: 2, stdout: '' });
      expect(byName.stderr).toBe(
        'kprof: --save-fusions: a fusion catalogue names kernel types, and --by name groups the rewrites otherwise. Leave --by out (or pass --by type).\n',
      );
      const snap = join(dir, 'base.json');
      expect((await kprof(['summary', 'fixtures/fusion-example/base', '-o', snap])).code).toBe(0);
      const json = await kprof(['diff', snap, 'fixtures/fusion-example/pr', '--save-fusions', file, '-q']);
      expect(json.code).toBe(2);
      expect(json.stderr).toMatch(
        /^kprof: --save-fusions: needs the Fusion rewrites section by type; the Fusion rewrites section is unavailable: the base's .*base\.json is a summary JSON/m,
      );
      expect(readdirSync(dir)).toEqual(['base.json']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
  test('a name that says another format (x.json) is refused before the diff runs: the catalogue is YAML', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kprof-save-'));
    try {
      for (const [name, says] of [
        ['saved.json', 'JSON'],
        ['saved.md', 'Markdown'],
        ['saved.xml.gz', 'JUnit XML'],
      ] as const) {
        const file = join(dir, name);
        const d = await kprof(['diff', 'fixtures/fusion-example/base', 'fixtures/fusion-example/pr', '--save-fusions', file]);
        expect(d).toMatchObject({ code: 2, stdout: '' });
        expect(d.stderr).toBe(
          `kprof: --save-fusions ${file}: it writes a YAML fusion catalogue, and this name says ${says}. Name it .yaml or .yml (kprof audit --catalogue reads it).\n`,
        );
      }
      expect(readdirSync(dir)).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('text from a user catalogue is escaped', () => {
  test('a control character or markup in an entry reaches no report raw', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kprof-hostile-'));
    try {
      const file = join(dir, 'mine.yaml');
      const hostile = 'evil\u001b[31m <b>x</b>\u0085 ##[error]';
      writeFileSync(
        file,
        `entries:\n  - id: mine\n    fused: [MlaPrologV3]\n    api: ${JSON.stringify(hostile)}\n    versions: any\n    chain_source: ${JSON.stringify(hostile)}\n    type_source: inferred here\n    sources:\n      - url: https://example.org/x\n        says: ${JSON.stringify(hostile)}\n`,
      );
      for (const format of ['table', 'markdown', 'json']) {
        const res = await kprof(['audit', '--list', '--catalogue', file, '--only', 'mine', '--format', format]);
        expect(res.code).toBe(0);
        if (format !== 'json') expect(res.stdout).toMatch(/^Fusion catalogue: 1 entry\n/);
        expect(res.stdout).not.toContain('\u001b');
        expect(res.stdout).not.toContain('\u0085');
        expect(res.stdout).not.toContain('##[');
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('--catalogue messages name a catalogue file', () => {
  test('too large: what a catalogue file may hold and what to do, not the advice for a rules file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kprof-catalogue-size-'));
    try {
      const big = join(dir, 'big.yaml');
      const line = "  - {id: e, fused: [F], api: a, versions: v, chain_source: c, type_source: t, sources: [{url: 'https://x.invalid', says: s}]}\n";
      writeFileSync(big, `entries:\n${line.repeat(3000)}`);
      const r = await kprof(['audit', '--catalogue', big, 'fixtures/fusion-example/pr', '-q']);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('big.yaml: more than 256 KiB; a catalogue file is at most 256 KiB.');
      expect(r.stderr).toContain('split its entries into several files (--catalogue takes several)');
      expect(r.stderr).not.toContain('kprof check');
      // A folder: expected a catalogue file, not an export.
      const f = await kprof(['audit', '--catalogue', dir, 'fixtures/fusion-example/pr', '-q']);
      expect(f.code).toBe(2);
      expect(f.stderr).toBe(`kprof: ${dir}: is a folder, expected a catalogue file. Pass the file itself.\n`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a rules file that is a folder is said as such, not as an export file', async () => {
    const r = await kprof(['check', 'fixtures/fusion-example/pr', '--rules', 'fixtures', '-q']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('kprof: fixtures: is a folder, expected a rules or groups file. Pass the file itself.\n');
  });
});
