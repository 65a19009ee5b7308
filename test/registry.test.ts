// The format registry is the one place that knows the input formats: detection, resolve, read, --help and the
// messages that list formats are made from it, and a format added in its own module (test/toyFormat.ts) is read
// through the same path as the built-in ones with nothing else changed.

import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { registerFormat, type FormatEntry } from '../src/input/formats/readers.js';
import { allFormats, FORMATS, profileArgumentHelp, sourceFacts } from '../src/input/formats/registry.js';
import { NO_STREAM } from '../src/input/sink.js';
import { resolveInput } from '../src/input/formats/resolve.js';
import { readProfile } from '../src/input/read.js';
import { kprof, ROOT } from './helpers.js';
import { KLOG } from './klogFormat.js';
import { TOY } from './toyFormat.js';

let tmp: string;
beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), 'kprof-registry-'));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

let unregister: (() => void)[] = [];
afterEach(() => {
  for (const u of unregister) u();
  unregister = [];
});
function register(entry: FormatEntry): void {
  unregister.push(registerFormat(entry));
}

/** Commander wraps --help at 80 columns: compare with whitespace collapsed. */
const flat = (s: string): string => s.replace(/\s+/g, ' ');

describe('the registry drives detection and messages', () => {
  const emptyDir = (): string => mkdtempSync(join(tmp, 'empty-'));

  it('an unknown CSV lists every format told apart by its header, a JSON given as a CSV every format', async () => {
    const csv = await kprof(['summary', 'fixtures/bad-unrelated-csv/inventory.csv']);
    expect(csv.code).toBe(2);
    const byHeader = allFormats().filter((f) => f.naming.header !== null);
    expect(byHeader.map((f) => f.id)).toEqual(['kernel_details', 'op_summary', 'op_statistic']);
    for (const f of byHeader) expect(csv.stderr).toContain(`${f.naming.title} (${f.naming.header})`);
    const json = await kprof(['summary', 'fixtures/bad-json-as-csv/kernel_details.csv']);
    expect(json.code).toBe(2);
    for (const f of allFormats().filter((x) => x.holds !== 'nothing')) expect(json.stderr).toContain(f.naming.pass);
  });

  it('a folder with no profile says where each format was looked for; --help lists the formats', async () => {
    const r = await kprof(['summary', emptyDir()]);
    expect(r.code).toBe(2);
    for (const f of FORMATS) for (const where of f.naming.lookedFor) expect(r.stderr).toContain(where);
    const help = await kprof(['summary', '--help']);
    expect(flat(help.stdout)).toContain(profileArgumentHelp());
    for (const f of FORMATS.filter((x) => x.holds !== 'nothing')) expect(flat(help.stdout)).toContain(f.naming.short);
  });

  it('a format registered later is in every one of those messages, and gone once removed', async () => {
    register(TOY);
    const json = await kprof(['summary', 'fixtures/bad-json-as-csv/kernel_details.csv']);
    expect(json.stderr).toContain('a toy file (*.toy), or the profile folder.');
    // After the built-in formats, whichever is last (a format added to the table must not break this test).
    const looked = FORMATS.filter((f) => f.recognise.places.some((p) => p !== 'collection')).flatMap((f) => f.naming.lookedFor);
    const none = await kprof(['summary', emptyDir()]);
    expect(none.stderr).toContain(`${looked.at(-1)} and *.toy, up to 3 levels down`);
    const plain = FORMATS.filter((f) => (f.holds === 'kernels' || f.holds === 'totals') && !f.gzip).map((f) => f.naming.short);
    const help = await kprof(['summary', '--help']);
    expect(flat(help.stdout)).toContain(`${plain.at(-1)}, *.toy, a profile folder`);
    unregister.pop()!();
    const again = await kprof(['summary', 'fixtures/bad-json-as-csv/kernel_details.csv']);
    expect(again.stderr).not.toContain('toy');
  });

  it('a file is its format by name, and by content where two formats name it: a summary JSON is told from a trace', async () => {
    // A format that also names *.json, told apart by its content (as the built-in traces are).
    const read: FormatEntry['reader'] = TOY.reader;
    register({
      ...TOY,
      id: 'toy_trace',
      recognise: { names: [/\.json$/], sniff: (head) => Buffer.from(head).toString('utf8').includes('"toyEvents"'), places: [], takes: 'first' },
      reader: read,
    });
    writeFileSync(join(tmp, 'trace.json'), '{"toyEvents": []}\n');
    writeFileSync(join(tmp, 'kineto.json'), '{"traceEvents": []}\n');
    const summary = await kprof(['summary', 'fixtures/formats/torch-level0', '--format', 'json']);
    writeFileSync(join(tmp, 'summary.json'), summary.stdout);
    writeFileSync(join(tmp, 'other.json'), '{"what": 1}\n');
    const formatOfFile = (f: string): string => resolveInput(join(tmp, f)).ranks[0]!.format;
    expect(formatOfFile('trace.json')).toBe('toy_trace');
    expect(formatOfFile('kineto.json')).toBe('kineto');
    expect(formatOfFile('summary.json')).toBe('summary_json');
    // Neither: the first format its name matches, whose reader says what is wrong with it.
    expect(formatOfFile('other.json')).toBe('summary_json');
    // Files no format names are read as CSV exports (their header says which).
    writeFileSync(join(tmp, 'export.txt'), 'Name,Type,Duration(us)\na,Add,1\n');
    expect(formatOfFile('export.txt')).toBe('kernel_details');
    expect(resolveInput(join(ROOT, 'fixtures/formats/op-statistic-no-device/op_statistic.csv')).ranks[0]!.format).toBe('op_statistic');
  });
});

describe('a format added in its own module (test/toyFormat.ts)', () => {
  const toyFile = (dir: string): string => {
    mkdirSync(dir, { recursive: true });
    const path = join(dir, 'run.toy');
    writeFileSync(path, ['matmul,10.5', 'add,2', 'matmul,4.25', 'not a row', 'add,0.0001', ''].join('\n'));
    return path;
  };

  it('is read through the same path as the built-in formats: resolve, read, summary figures', async () => {
    register(TOY);
    const path = toyFile(join(tmp, 'toy-file'));
    for (const input of [path, join(tmp, 'toy-file')]) {
      const r = await kprof(['summary', input, '--by', 'name', '--format', 'json']);
      expect(r.code, r.stderr).toBe(0);
      const j = JSON.parse(r.stdout);
      expect(j.totals).toMatchObject({ count: 4, totalUs: 16.7501 });
      expect(j.rowsRead).toBe(5);
      expect(j.skippedRows).toBe(1);
      expect(j.steps).toBeNull();
      expect(j.groups.map((g: { key: string; count: number; totalUs: number }) => [g.key, g.count, g.totalUs])).toEqual([
        ['matmul', 2, 14.75],
        ['add', 2, 2.0001],
      ]);
      expect(r.stderr).toContain('run.toy:4: expected name,duration');
    }
    const p = await readProfile(path, { withShapes: false, ranks: null, threads: 'off' });
    expect(p.ranks[0]!.files[0]!.format).toBe('toy');
  });

  it('what it declares it can answer is what inspect shows and what a question that needs more is refused for', async () => {
    register(TOY);
    const path = toyFile(join(tmp, 'toy-inspect'));
    const j = JSON.parse((await kprof(['inspect', path, '--format', 'json'])).stdout);
    expect(j.ranks[0].files[0].format).toBe('toy');
    expect(j.ranks[0].fields).toEqual({ name: true, type: false, core: false, shapes: false, steps: false });
    const text = await kprof(['inspect', path]);
    expect(text.stdout).toContain('  format   toy: toy name,duration lines');
    expect(text.stdout).toContain('  steps    none');
    const byType = await kprof(['summary', path, '--by', 'type']);
    expect(byType.code).toBe(2);
    expect(byType.stderr).toContain('--by type needs kernel types, but a toy file has none: it names its kernels only. Use --by name');
    // Without --by, a format of names only is grouped by name, and a note says so.
    const byDefault = await kprof(['summary', path, '--format', 'json']);
    expect(byDefault.code, byDefault.stderr).toBe(0);
    expect(JSON.parse(byDefault.stdout).groupBy).toBe('name');
    expect(byDefault.stderr).toContain('kprof: note: grouped by name:');
  });

  it('gets every feature its answers allow: with a step column, diff finds the fusion rewrite of its kernels', async () => {
    register(TOY);
    // Three steps of the same kernels; in the PR one fused kernel replaces the chain add, mul, cast.
    const side = (name: string, step: string[]): string => {
      const dir = join(tmp, `toy-rewrite-${name}`);
      mkdirSync(dir, { recursive: true });
      const lines = [1, 2, 3].flatMap((s) => step.map((k) => `${k},${s}`));
      writeFileSync(join(dir, 'run.toy'), `${lines.join('\n')}\n`);
      return dir;
    };
    const base = side('base', ['matmul,10', 'add,2', 'mul,2', 'cast,1', 'softmax,3', 'matmul,10']);
    const pr = side('pr', ['matmul,10', 'fused_add_mul_cast,3', 'softmax,3', 'matmul,10']);
    const j = JSON.parse((await kprof(['diff', base, pr, '--by', 'name', '--format', 'json'])).stdout);
    expect(j.rewrites.status, JSON.stringify(j.rewrites.unavailable)).not.toBe('unavailable');
    expect(j.rewrites.rewrites.map((r: { removed: string[]; added: string[]; chains: number }) => [r.removed, r.added, r.chains])).toEqual([
      [['add', 'mul', 'cast'], ['fused_add_mul_cast'], 3],
    ]);
    const text = await kprof(['diff', base, pr, '--by', 'name']);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain('Fusion rewrites');
    expect(text.stdout).not.toContain('has no compute kernel');
  });

  it('with a start column too, --step-time gives the wall span of each of its steps', async () => {
    register(TOY);
    const dir = join(tmp, 'toy-step-time');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'run.toy'), ['matmul,10,1,100', 'add,2,1,112.5', 'matmul,10,2,200', 'add,2,2,215', ''].join('\n'));
    const r = await kprof(['summary', dir, '--by', 'name', '--step-time', '--format', 'json']);
    expect(r.code, r.stderr).toBe(0);
    // Step 1: 100 µs to 112.5 + 2; step 2: 200 to 215 + 2.
    expect(JSON.parse(r.stdout).stepTime).toEqual({ steps: 2, medianUs: 15.75, minUs: 14.5, maxUs: 17 });
    const text = await kprof(['summary', dir, '--by', 'name', '--step-time']);
    expect(text.stdout).toMatch(/^ {3}1 {2}- {6}14\.50 µs {8}2$/m);
  });

  it('--prefer follows the kind of export an entry declares, not its id', async () => {
    // A toy db export (with types, as a kernel table is) in a folder beside a kernel_details.csv of the same run.
    register({ ...TOY, id: 'toy_db', exportKind: 'db', answers: { ...TOY.answers, types: 'yes' } });
    const dir = join(tmp, 'toy-prefer');
    toyFile(dir);
    writeFileSync(join(dir, 'kernel_details.csv'), 'Name,Type,Duration(us)\nmatmul,MatMul,10\n');
    expect(resolveInput(dir).ranks[0]!.format).toBe('kernel_details');
    const db = resolveInput(dir, { prefer: 'db' });
    expect(db.ranks[0]!.format).toBe('toy_db');
    expect(db.notes.join('\n')).toContain('reading run.toy (--prefer db; --prefer text reads the other)');
  });

  it('--witness follows the totals an entry declares beside its files', async () => {
    // A toy kernel table with types and cores whose witness is the op_statistic beside it.
    const witnessed: FormatEntry = {
      ...TOY,
      id: 'toy_witnessed',
      witness: 'op_statistic',
      answers: { ...TOY.answers, types: 'yes', cores: 'yes' },
      reader: {
        kind: 'kernels',
        read: async (path, into, options) => {
          into.begin(sourceFacts(path, { ...TOY.answers, types: 'yes', cores: 'yes' }, {}, options.withShapes));
          into.rowsRead++;
          into.bind(0, { name: 'matmul', rawName: 'matmul', type: 'MatMul', core: 'AI_CORE', shapes: null });
          into.addKernel(0, null, 100_000, Number.NaN, NO_STREAM);
          return { path, format: 'toy_witnessed', traits: [], columns: [], missing: [], bytes: 0, rowsRead: 1, rowsSkipped: 0 };
        },
      },
    };
    register(witnessed);
    const dir = join(tmp, 'toy-witness');
    toyFile(dir);
    const none = await kprof(['summary', join(dir, 'run.toy'), '--witness']);
    expect(none.stderr).toContain('no op_statistic beside the kernel table');
    writeFileSync(
      join(dir, 'op_statistic.csv'),
      'OP Type,Core Type,Count,Total Time(us),Min Time(us),Avg Time(us),Max Time(us),Ratio(%)\nMatMul,AI_CORE,1,10,10,10,10,100\n',
    );
    const agrees = await kprof(['summary', join(dir, 'run.toy'), '--witness']);
    expect(agrees.code, agrees.stderr).toBe(0);
    expect(agrees.stderr).toMatch(/kprof: witness: .*agree/);
  });
});

// That the compiler refuses an incomplete entry is test/types/registry.ts, checked by `npm run typecheck`.

describe('a second format added in its own module (test/klogFormat.ts: kernel types, no cores, streamed)', () => {
  const HEAD = 'step\tstart_us\tdur_us\top_type\top_name';
  const klog = (name: string, lines: string[]): string => {
    const dir = join(tmp, `klog-${name}`);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'run.klog'), `${[HEAD, ...lines].join('\n')}\n`);
    return join(dir, 'run.klog');
  };

  it('is read by its header, also under another name and gzipped; its figures are the sums of its rows', async () => {
    register(KLOG);
    const path = klog('read', ['1\t100\t10\tMatMul\tmm', '1\t112.5\t2.25\tAdd\tadd', '1\t115\t-3\tAdd\tadd', '2\t200\t10\tMatMul\tmm']);
    const other = join(tmp, 'klog-read', 'kernels.txt.gz');
    writeFileSync(other, gzipSync(readFileSync(path)));
    for (const input of [path, other]) {
      const r = await kprof(['summary', input, '--format', 'json']);
      expect(r.code, r.stderr).toBe(0);
      const j = JSON.parse(r.stdout);
      expect([j.rowsRead, j.skippedRows, j.steps, j.totals.count, j.totals.totalUs]).toEqual([4, 1, 2, 3, 22.25]);
      expect(j.groups.map((g: { key: string; count: number }) => [g.key, g.count])).toEqual([
        ['MatMul', 2],
        ['Add', 1],
      ]);
      expect(r.stderr).toMatch(/:4: expected step, start_us, dur_us/);
    }
  });

  it('a question its format never answers is refused as such, with the groupings it has', async () => {
    register(KLOG);
    const path = klog('no-cores', ['1\t100\t10\tMatMul\tmm']);
    const byCore = await kprof(['summary', path, '--by', 'core']);
    expect(byCore.code).toBe(2);
    expect(byCore.stderr).toContain(
      '--by core needs core types (Accelerator Core / Task Type), but a kernel log has none (its files never do). Use --by type or --by name.',
    );
    expect(byCore.stderr).not.toContain('profile with a level');
    const core = await kprof(['summary', path, '--core', 'AI_CORE']);
    expect(core.stderr).toContain(
      '--core needs core types (Accelerator Core / Task Type), but a kernel log has none (its files never do). Drop --core.',
    );
  });

  it('--witness on it says it has no totals beside it, not that the input has no kernel table', async () => {
    register(KLOG);
    const r = await kprof(['summary', klog('witness', ['1\t100\t10\tMatMul\tmm']), '--witness']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('and this input is a kernel log, which has no totals of the same kernels beside it.');
    expect(r.stderr).not.toContain('has no kernel table');
  });

  it('a file of it with no kernel is said without advice for another profiler (the NPU activities of an Ascend export)', async () => {
    register(KLOG);
    const r = await kprof(['summary', klog('empty', [])]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/run\.klog has no kernels in it\. Expected at least one kernel row\.\n$/);
    expect(r.stderr).not.toContain('NPU');
    const ascend = await kprof(['summary', 'fixtures/bad-header-only/kernel_details.csv']);
    expect(ascend.stderr).toContain('Expected at least one kernel row; was the profile collected with NPU activities on?');
  });
});
