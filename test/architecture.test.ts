// The shape of src/: no import cycles, and every module imports only from its own stage or an earlier one,
// in the order data flows (docs/ARCHITECTURE.md). Type-only imports count: a type is a dependency too.

import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readerOf, registerFormat } from '../src/input/formats/readers.js';
import { allFormats } from '../src/input/formats/registry.js';
import { ROOT, walk } from './helpers.js';
import { KLOG } from './klogFormat.js';

/** The stages of src/, first to last. */
const STAGES = ['model', 'util', 'input', 'aggregate', 'analysis', 'rules', 'report', 'commands', 'cli'] as const;

/**
 * Imports of a later stage that are known and being removed (importer → imported, paths below src/). An entry
 * that no longer occurs fails the test too, so the list can only shrink.
 */
const KNOWN_LATER: string[] = [];

/** Import cycles known and being removed, each as its modules in sorted order joined by " ↔ ". */
const KNOWN_CYCLES: string[] = [];

const SRC = join(ROOT, 'src');

/** Every relative module specifier of a TypeScript source: static imports, re-exports and dynamic imports. */
function specifiers(text: string): string[] {
  const out: string[] = [];
  const code = text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
  for (const m of code.matchAll(/(?:^|[;\s])(?:import|export)\s[^'";]*?\sfrom\s*['"]([^'"]+)['"]/g)) out.push(m[1]!);
  for (const m of code.matchAll(/(?:^|[;\s])import\s*['"]([^'"]+)['"]/g)) out.push(m[1]!);
  for (const m of code.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g)) out.push(m[1]!);
  return out.filter((s) => s.startsWith('.'));
}

/** The import graph of src/: module (path below src/, .ts) → the modules it imports. */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of walk(SRC).filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))) {
    const from = relative(SRC, file);
    const to = specifiers(readFileSync(file, 'utf8')).map((s) => relative(SRC, resolve(dirname(file), s)).replace(/\.js$/, '.ts'));
    graph.set(from, [...new Set(to)]);
  }
  return graph;
}

function stageOf(module: string): number {
  const i = STAGES.indexOf(module.split('/')[0] as (typeof STAGES)[number]);
  if (i < 0) throw new Error(`src/${module} is in no stage: put it in one of ${STAGES.map((s) => `src/${s}/`).join(', ')}`);
  return i;
}

/** The strongly connected components of more than one module (or a module importing itself): Tarjan's. */
function cycles(graph: Map<string, string[]>): string[][] {
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const on = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string): void => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    on.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const c: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        on.delete(w);
        c.push(w);
      } while (w !== v);
      if (c.length > 1 || (graph.get(v) ?? []).includes(v)) out.push(c.sort());
    }
  };
  for (const v of [...graph.keys()].sort()) if (!idx.has(v)) visit(v);
  return out;
}

/** node:fs functions that take a path (first argument). */
const PATH_FNS = new Set(
  (
    'accessSync appendFileSync chmodSync copyFileSync cpSync createReadStream createWriteStream existsSync linkSync lstatSync mkdirSync ' +
    'mkdtempSync openSync opendirSync readdirSync readFileSync readlinkSync realpathSync renameSync rmSync rmdirSync statSync symlinkSync ' +
    'truncateSync unlinkSync utimesSync writeFileSync access appendFile copyFile lstat mkdir open opendir readdir readFile readlink realpath ' +
    'rename rm stat unlink writeFile'
  ).split(' '),
);

/**
 * Paths given to the file system that are not a path as the user wrote it passed through onDisk (file: the
 * argument as written), and why each is one already.
 */
const ON_DISK_ALREADY: string[] = [
  // writeFileAtomic: `disk` is onDisk(path); `target` and `tmp` are made from it (the link's target, a file beside it).
  'util/io.ts: disk',
  'util/io.ts: own ? disk : target',
  'util/io.ts: tmp',
  // linkChain (util/outPath.ts): starts from onDisk(path), then follows the links.
  'util/outPath.ts: p',
  // A bundle's code cache, read from the descriptor openSync(onDisk(path)) gave (fittingCache).
  'cli/codeCache.ts: fd',
  // The worker script, beside the module.
  'input/read.ts: fileURLToPath(here)',
  'input/read.ts: fileURLToPath(built)',
  // openDb passes down as `path` the path on disk the byte layer handed over (bytes/whole.ts forLibrary: onDisk of
  // the path as written; privateView: `given`, made `path` by realpath); the private view is made in a fresh
  // temporary folder.
  'input/formats/sqlite/open.ts: given',
  'input/formats/sqlite/open.ts: path',
  'input/formats/sqlite/open.ts: `${path}-wal`',
  "input/formats/sqlite/open.ts: join(root, 'kprof-db-')",
  'input/formats/sqlite/open.ts: dir',
];

function withoutComments(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
}

/** Each call of a path-taking node:fs function in a source: `file: first argument` (up to its first comma). */
function fileSystemCalls(file: string, text: string): string[] {
  const code = withoutComments(text);
  const names = new Set<string>();
  for (const m of code.matchAll(/import\s*\{([^}]*)\}\s*from\s*'node:fs(?:\/promises)?'/g)) {
    for (const item of m[1]!.split(',')) {
      const [name, alias] = item
        .trim()
        .replace(/^type\s+/, '')
        .split(/\s+as\s+/);
      if (PATH_FNS.has(name!)) names.add(alias ?? name!);
    }
  }
  const out: string[] = [];
  for (const n of names) {
    for (const m of code.matchAll(new RegExp(`\\b${n}\\(([^,()]*(?:\\([^()]*\\))?[^,()]*)`, 'g'))) out.push(`${file}: ${m[1]!.trim()}`);
  }
  return out;
}

describe('the working directory', () => {
  const sources = walk(SRC)
    .filter((f) => f.endsWith('.ts'))
    .map((f) => ({ file: relative(SRC, f), text: withoutComments(readFileSync(f, 'utf8')) }));

  it('is asked of the process only by the bin (src/cli/cli.ts), and never changed', () => {
    expect(sources.filter((s) => /process\.cwd\s*\(/.test(s.text)).map((s) => s.file)).toEqual(['cli/cli.ts']);
    expect(sources.filter((s) => /process\.chdir\b/.test(s.text)).map((s) => s.file)).toEqual([]);
  });

  it('is never implied: no path.resolve() of one relative path (which resolves it against the process folder)', () => {
    const implied = sources.flatMap(({ file, text }) =>
      /import\s*\{[^}]*\bresolve\b[^}]*\}\s*from\s*'node:path'/.test(text)
        ? [...text.matchAll(/\bresolve\(([^,()]*(?:\([^()]*\))?[^,()]*)\)/g)]
            .filter((m) => !/^onDisk\(/.test(m[1]!.trim()))
            .map((m) => `${file}: ${m[0]}`)
        : [],
    );
    expect(implied).toEqual([]);
  });

  it('resolves every path given to the file system (onDisk)', () => {
    const calls = sources.flatMap(({ file, text }) => fileSystemCalls(file, text));
    expect(calls.length).toBeGreaterThan(20);
    expect(
      calls.filter((c) => !/: onDisk\(/.test(c) && !ON_DISK_ALREADY.includes(c)),
      'a path as the user wrote it goes to the file system through onDisk (util/files.ts), which resolves it against Io.cwd',
    ).toEqual([]);
    expect(
      ON_DISK_ALREADY.filter((c) => !calls.includes(c)),
      'listed but gone: remove from ON_DISK_ALREADY',
    ).toEqual([]);
  });

  it('catches a path given to the file system as it is (the scan works)', () => {
    const text = "import { statSync, readdirSync as ls } from 'node:fs';\nstatSync(onDisk(a));\nls(dir).sort();\n// statSync(b)\n";
    expect(fileSystemCalls('x.ts', text)).toEqual(['x.ts: onDisk(a)', 'x.ts: dir']);
  });
});

describe('the architecture of src/', () => {
  const graph = importGraph();

  it('finds the imports of the sources (the scanner itself works)', () => {
    expect(
      specifiers(
        "import { a } from './a.js';\nimport type { B } from '../b.js';\nexport { c } from './c.js';\nimport './d.js';\nconst e = await import('../e.js');\n// import { f } from './f.js';\nimport g from 'node:fs';",
      ),
    ).toEqual(['./a.js', '../b.js', './c.js', './d.js', '../e.js']);
    expect(graph.get('cli/cli.ts')).toContain('cli/run.ts');
    expect(
      [...graph.values()].flat().every((m) => graph.has(m)),
      'every import resolves to a module of src/',
    ).toBe(true);
  });

  it('puts every module in a stage', () => {
    for (const m of graph.keys()) expect(() => stageOf(m)).not.toThrow();
  });

  it('has no import cycle', () => {
    const found = cycles(graph).map((c) => c.join(' ↔ '));
    expect(
      found.filter((c) => !KNOWN_CYCLES.includes(c)),
      'new import cycles',
    ).toEqual([]);
    expect(
      KNOWN_CYCLES.filter((c) => !found.includes(c)),
      'cycles listed as known that are gone: remove them from KNOWN_CYCLES',
    ).toEqual([]);
  });

  it('lets no stage import a later one', () => {
    const later: string[] = [];
    for (const [from, tos] of graph) for (const to of tos) if (stageOf(to) > stageOf(from)) later.push(`${from} → ${to}`);
    expect(
      later.filter((l) => !KNOWN_LATER.includes(l)),
      `imports of a later stage (order: ${STAGES.join(' < ')})`,
    ).toEqual([]);
    expect(
      KNOWN_LATER.filter((l) => !later.includes(l)),
      'imports listed as known that are gone: remove them from KNOWN_LATER',
    ).toEqual([]);
  });

  it('catches a cycle and an import of a later stage in a graph made for it', () => {
    const g = new Map([
      ['input/a.ts', ['report/b.ts']],
      ['report/b.ts', ['input/a.ts']],
      ['model/c.ts', []],
    ]);
    expect(cycles(g)).toEqual([['input/a.ts', 'report/b.ts']]);
    expect(stageOf('report/b.ts')).toBeGreaterThan(stageOf('input/a.ts'));
  });
});

// The input stage inside: layers in the order bytes flow, and one folder per format family under formats/.

/** The layers of src/input/, first to last: a module imports only from its own layer or an earlier one. */
const INPUT_LAYERS: { name: string; test: RegExp }[] = [
  // Bytes: opening, unpacking and sniffing files (bytes/), the scan engines (CSV, JSON) and the choice between them.
  { name: 'bytes', test: /^input\/(bytes\/|csv\/|json\/|engine\.ts$)/ },
  // The sink: what readers feed, and the accumulator (the rank's first sink).
  { name: 'sink', test: /^input\/(sink|kernelCells|beside|stepSpans|accumulator|rawNames|names)\.ts$/ },
  // The registry and the formats' readers.
  { name: 'formats', test: /^input\/formats\// },
  // The scheduler of a read: rank plans (which ranks --rank keeps) into ranks, in this thread or in workers.
  { name: 'read', test: /^input\/(readRank|read|plans|pool)\.ts$|^input\/workers\// },
];

function inputLayerOf(module: string): number {
  const i = INPUT_LAYERS.findIndex((l) => l.test.test(module));
  if (i < 0) throw new Error(`src/${module} is in no layer of src/input/: add it to INPUT_LAYERS (test/architecture.test.ts)`);
  return i;
}

/** The format family of a module: the folder right below input/formats/ it is in; null for the registry's own modules. */
function familyOf(module: string): string | null {
  return /^input\/formats\/([^/]+)\//.exec(module)?.[1] ?? null;
}

/** Modules of input/formats/ itself that bind the families (and may import them): the registry and the readers. */
const BINDS_FAMILIES = new Set(['input/formats/registry.ts', 'input/formats/readers.ts']);

/** Imports across format families, or from a module of formats/ itself into one, known and being removed. */
const KNOWN_ACROSS: string[] = [];

/** Imports between format families (or into one from formats/ itself, but by the registry and the readers). */
function acrossFamilies(graph: Map<string, string[]>): string[] {
  const out: string[] = [];
  for (const [from, tos] of graph) {
    if (!from.startsWith('input/') || BINDS_FAMILIES.has(from)) continue;
    for (const to of tos) {
      const fam = familyOf(to);
      if (fam !== null && familyOf(from) !== fam) out.push(`${from} → ${to}`);
    }
  }
  return out;
}

/** Imports of a later layer of src/input/. */
function upInput(graph: Map<string, string[]>): string[] {
  const out: string[] = [];
  for (const [from, tos] of graph) {
    if (!from.startsWith('input/')) continue;
    for (const to of tos) if (to.startsWith('input/') && inputLayerOf(to) > inputLayerOf(from)) out.push(`${from} → ${to}`);
  }
  return out;
}

/**
 * The file names of profiler exports each family reads, as messages and patterns write them (an id is found from
 * the registry, below; a family not listed here is checked on its ids alone).
 */
const FAMILY_FILES: Record<string, RegExp> = {
  ascend: /kernel_details|op_summary|op_statistic|step_trace_time/,
  sqlite: /ascend_pytorch_profiler|msprof_[^ ]*\.db|analysis\.db/,
  trace: /trace_view|\.pt\.trace\.json|cuda_gpu_trace|cuda_gpu_kern_sum|gpukernsum|nvtx_gpu_proj_trace/,
};

/**
 * The family of a format: the folder of the module that exports the function its registry entry reads with
 * (readers.ts binds it by name: `export function readTable`, `export async function readDb`); null when none does.
 */
function familyOfFormat(id: string, modules: readonly { file: string; text: string }[]): string | null {
  const name = readerOf(id).read.name;
  const exported = new RegExp(`^export (?:async )?function\\*? *${name}\\b`, 'm');
  const owners = modules.filter(({ file, text }) => familyOf(file) !== null && exported.test(text));
  return owners.length === 1 ? familyOf(owners[0]!.file) : null;
}

/**
 * What names a format: its id as a whole string (every id of the registry, in the family of its reader: familyOfFormat), or a file
 * name of a profiler export. Each belongs to one format family folder; only that folder and the registry's own
 * modules may write it.
 */
function familyWords(modules: readonly { file: string; text: string }[]): Record<string, { ids: string[]; files: RegExp }> {
  const ids = new Map(allFormats().map((f) => [f.id, familyOfFormat(f.id, modules)]));
  const families = [...new Set(modules.flatMap(({ file }) => familyOf(file) ?? []))].sort();
  return Object.fromEntries(
    families.map((family) => [family, { ids: [...ids].filter(([, f]) => f === family).map(([id]) => id), files: FAMILY_FILES[family] ?? /(?!)/ }]),
  );
}

/**
 * The string literals of a source (comments left out): quoted, double-quoted and template text, and the text of
 * regular expression literals (one where an expression starts: after ( , = : [ ! & | ? { } ; or return).
 */
function stringLiterals(text: string): string[] {
  const code = withoutComments(text).replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
  const strings = [...code.matchAll(/'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"|`(?:[^`\\]|\\.)*`/g)].map((m) => m[0].slice(1, -1));
  const bare = code.replace(/'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"|`(?:[^`\\]|\\.)*`/g, "''");
  const regexes = [...bare.matchAll(/(?:[(,=:[!&|?{};]|\breturn)\s*\/((?:[^/\\\n[]|\\.|\[(?:[^\]\\\n]|\\.)*\])+)\/[a-z]*/g)].map((m) => m[1]!);
  return [...strings, ...regexes];
}

/** Literals that name a format outside its family folder and the registry's own modules: `file: family: literal`. */
function formatLiterals(file: string, text: string, words: Record<string, { ids: string[]; files: RegExp }>): string[] {
  if (BINDS_FAMILIES.has(file)) return [];
  const out: string[] = [];
  for (const lit of stringLiterals(text)) {
    for (const [family, w] of Object.entries(words)) {
      if (familyOf(file) === family) continue;
      if (w.ids.includes(lit) || w.files.test(lit)) out.push(`${file}: ${family}: ${lit.length > 60 ? `${lit.slice(0, 60)}…` : lit}`);
    }
  }
  return out;
}

/**
 * Messages and values that name a format outside its folder, known and being removed (made from the registry's
 * naming instead). An entry that no longer occurs fails the test too, so the list can only shrink.
 */
const KNOWN_LITERALS: string[] = [];

/** node:fs functions that open a file or read its bytes, and util/files.ts's openers of a file to read. */
const OPENS_FS = new Set(
  ('openSync readSync readvSync readFileSync createReadStream copyFileSync cpSync openAsBlob ' + 'open read readv readFile copyFile cp').split(' '),
);
const OPENS_UTIL = new Set(['openRegular', 'readRegularFile']);

/**
 * Modules of input/formats/ that open or read a file's bytes themselves (`file: function`), and why each must:
 * the byte layer (input/bytes/) opens, checks and reads every file a format reads.
 */
const OPENS_OUTSIDE_BYTES: string[] = [
  // A db in WAL mode is read through a private view: where a hard link cannot be made (another file system), a
  // copy of the file, and a copy of its -wal. SQLite opens files by path only; the byte layer has opened and
  // checked the file (bytes/whole.ts forLibrary: a regular file, its header) before, and handed over its path.
  'input/formats/sqlite/open.ts: copyFileSync',
];

/** The functions a module imports to open or read files (`file: name`); a namespace import of node:fs counts whole. */
function fileOpeners(file: string, text: string): string[] {
  const code = withoutComments(text);
  const out: string[] = [];
  for (const m of code.matchAll(/import\s*\{([^}]*)\}\s*from\s*'([^']+)'/g)) {
    const fs = /^node:fs(\/promises)?$/.test(m[2]!);
    const util = /(^|\/)util\/files\.js$/.test(m[2]!);
    if (!fs && !util) continue;
    for (const item of m[1]!.split(',')) {
      const name = item
        .trim()
        .replace(/^type\s+/, '')
        .split(/\s+as\s+/)[0]!;
      if ((fs && OPENS_FS.has(name)) || (util && OPENS_UTIL.has(name))) out.push(`${file}: ${name}`);
    }
  }
  for (const m of code.matchAll(/import\s+(?:\*\s+as\s+)?\w+\s+from\s*'(node:fs(?:\/promises)?)'/g)) out.push(`${file}: ${m[1]} as a whole`);
  return out;
}

describe('the input stage', () => {
  const graph = importGraph();
  const sources = walk(SRC)
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))
    .map((f) => ({ file: relative(SRC, f), text: readFileSync(f, 'utf8') }));

  it('puts every module of src/input/ in a layer, and no layer imports a later one', () => {
    for (const m of graph.keys()) if (m.startsWith('input/')) expect(() => inputLayerOf(m)).not.toThrow();
    expect(upInput(graph), `imports of a later layer of src/input/ (order: ${INPUT_LAYERS.map((l) => l.name).join(' < ')})`).toEqual([]);
  });

  it('unpacks gzip in the byte layer alone (src/input/bytes/); packs it only where a report is written (util/packed.ts)', () => {
    const zlib = sources.filter(({ text }) => /from\s*'node:zlib'/.test(withoutComments(text)));
    expect(zlib.map((s) => s.file).filter((f) => !f.startsWith('input/bytes/') && f !== 'util/packed.ts')).toEqual([]);
    expect(zlib.filter((s) => s.file.startsWith('input/bytes/')).length).toBeGreaterThan(0);
    // The writer of a `-o x.gz` report packs: it imports gzipSync, and nothing that unpacks.
    const io = zlib.find((s) => s.file === 'util/packed.ts');
    expect(io && /import\s*\{\s*gzipSync\s*\}\s*from\s*'node:zlib'/.test(io.text)).toBe(true);
  });

  it('opens and reads files in the byte layer alone: no module of input/formats/ opens one (but the reasons listed)', () => {
    const found = sources.filter(({ file }) => file.startsWith('input/formats/')).flatMap(({ file, text }) => fileOpeners(file, text));
    expect(
      found.filter((l) => !OPENS_OUTSIDE_BYTES.includes(l)),
      'a format opens or reads a file itself: get its bytes (or its checked path) from src/input/bytes/',
    ).toEqual([]);
    expect(
      OPENS_OUTSIDE_BYTES.filter((l) => !found.includes(l)),
      'listed but gone: remove from OPENS_OUTSIDE_BYTES',
    ).toEqual([]);
    // The byte layer does open files (the scan finds them there).
    expect(sources.filter(({ file }) => file.startsWith('input/bytes/')).flatMap(({ file, text }) => fileOpeners(file, text)).length).toBeGreaterThan(
      3,
    );
  });

  it('catches a format that opens a file itself (the check works)', () => {
    const text =
      "import { existsSync, readFileSync as rf, type Stats } from 'node:fs';\nimport { onDisk, openRegular } from '../../../util/files.js';\n" +
      "import * as fs from 'node:fs/promises';\n// import { readSync } from 'node:fs';\n";
    expect(fileOpeners('input/formats/x/a.ts', text)).toEqual([
      'input/formats/x/a.ts: readFileSync',
      'input/formats/x/a.ts: openRegular',
      'input/formats/x/a.ts: node:fs/promises as a whole',
    ]);
  });

  it('imports nothing of one format family from another (the registry and the readers bind them)', () => {
    const found = acrossFamilies(graph);
    expect(
      found.filter((l) => !KNOWN_ACROSS.includes(l)),
      'imports between format folders',
    ).toEqual([]);
    expect(
      KNOWN_ACROSS.filter((l) => !found.includes(l)),
      'listed as known but gone: remove from KNOWN_ACROSS',
    ).toEqual([]);
  });

  it('knows the family of every format of the registry: the folder whose module exports its reader', () => {
    const unknown = allFormats().filter((f) => familyOfFormat(f.id, sources) === null);
    expect(
      unknown.map((f) => `${f.id}: ${readerOf(f.id).read.name || '(an unnamed function)'}`),
      'a format whose reader is no named function exported by one module of its folder below input/formats/ (export function readX)',
    ).toEqual([]);
  });

  it('names a format (its id, its file names) only in its own folder and the registry', () => {
    const words = familyWords(sources);
    const found = sources.flatMap(({ file, text }) => formatLiterals(file, text, words));
    expect(
      found.filter((l) => !KNOWN_LITERALS.includes(l)),
      'format ids and file names outside their format folder: make the text from the registry (naming, witnessText …)',
    ).toEqual([]);
    expect(
      KNOWN_LITERALS.filter((l) => !found.includes(l)),
      'listed as known but gone: remove from KNOWN_LITERALS',
    ).toEqual([]);
  });

  it('catches an import across families, up a layer, and a format named outside its folder (the checks work)', () => {
    const g = new Map([
      ['input/formats/trace/a.ts', ['input/formats/sqlite/b.ts', 'input/read.ts']],
      ['input/formats/sqlite/b.ts', ['input/sink.ts']],
      ['input/formats/readers.ts', ['input/formats/sqlite/b.ts']],
      ['input/csv/c.ts', ['input/accumulator.ts']],
      ['input/sink.ts', []],
      ['input/read.ts', []],
      ['input/accumulator.ts', []],
      ['report/r.ts', ['input/formats/trace/a.ts']],
    ]);
    expect(acrossFamilies(g)).toEqual(['input/formats/trace/a.ts → input/formats/sqlite/b.ts']);
    expect(upInput(g)).toEqual(['input/formats/trace/a.ts → input/read.ts', 'input/csv/c.ts → input/accumulator.ts']);
    expect(stageOf('analysis/x.ts')).toBeGreaterThan(stageOf('input/read.ts'));
    const text =
      '// op_statistic in a comment\nconst a = \'db\';\nconst b = `no ${x} op_statistic.csv`;\nconst c = "kernel_details";\n' +
      'const d = /^msprof_.*\\.db$/.test(n) && n / 2 > m / 3;\n';
    const words = familyWords(sources);
    expect(formatLiterals('report/x.ts', text, words)).toEqual([
      'report/x.ts: sqlite: db',
      'report/x.ts: ascend: no ${x} op_statistic.csv',
      'report/x.ts: ascend: kernel_details',
      'report/x.ts: sqlite: ^msprof_.*\\.db$',
    ]);
    expect(formatLiterals('input/formats/sqlite/x.ts', text, words)).toEqual([
      'input/formats/sqlite/x.ts: ascend: no ${x} op_statistic.csv',
      'input/formats/sqlite/x.ts: ascend: kernel_details',
    ]);
    expect(formatLiterals('input/formats/registry.ts', text, words)).toEqual([]);
  });

  it('guards the id of a format in a family folder of its own, found from the registry (the check works)', () => {
    // The kernel log example, as if its reader were in a folder of its own: its id is its family's word.
    const unregister = registerFormat({ ...KLOG, id: 'klog_example' });
    try {
      const modules = [...sources, { file: 'input/formats/klogs/reader.ts', text: 'export async function readKlog(path) {}\n' }];
      const words = familyWords(modules);
      expect(words.klogs?.ids).toEqual(['klog_example']);
      expect(formatLiterals('report/x.ts', "const f = 'klog_example';\n", words)).toEqual(['report/x.ts: klogs: klog_example']);
      expect(formatLiterals('input/formats/klogs/x.ts', "const f = 'klog_example';\n", words)).toEqual([]);
    } finally {
      unregister();
    }
  });
});

/** Lines a module may have before its top says why it is longer. */
const MAX_LINES = 400;

/**
 * Modules over MAX_LINES whose top does not say why yet, known (outside src/input/, or being edited elsewhere):
 * an entry that gets its reason, or gets short, fails the test until removed, so the list can only shrink.
 */
const KNOWN_LONG: string[] = [];

/** Modules (.ts, .wat) over MAX_LINES whose opening comment has no line saying `Over 400 lines: <why>`. */
function longWithoutReason(files: { file: string; text: string }[]): string[] {
  return files
    .filter(({ text }) => text.split('\n').length > MAX_LINES)
    .filter(({ text }) => !/^(\/\/|;;) Over 400 lines: \S/m.test(text.split('\n').slice(0, 40).join('\n')))
    .map(({ file }) => file)
    .sort();
}

describe('the size of a module', () => {
  it(`is at most ${MAX_LINES} lines, or its top says why`, () => {
    const files = walk(SRC)
      .filter((f) => f.endsWith('.ts') || f.endsWith('.wat'))
      .map((f) => ({ file: relative(SRC, f), text: readFileSync(f, 'utf8') }));
    const found = longWithoutReason(files);
    expect(
      found.filter((f) => !KNOWN_LONG.includes(f)),
      `modules over ${MAX_LINES} lines: split them, or say why at the top ("// Over 400 lines: …")`,
    ).toEqual([]);
    expect(
      KNOWN_LONG.filter((f) => !found.includes(f)),
      'listed as known but now short or with a reason: remove from KNOWN_LONG',
    ).toEqual([]);
  });

  it('catches a long module without a reason (the check works)', () => {
    const long = 'x\n'.repeat(MAX_LINES + 1);
    expect(
      longWithoutReason([
        { file: 'a.ts', text: long },
        { file: 'b.ts', text: `// Over 400 lines: one table.\n${long}` },
        { file: 'c.ts', text: 'x\n' },
      ]),
    ).toEqual(['a.ts']);
  });
});
