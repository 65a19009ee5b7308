// Assemble src/input/csv/simd.wat, with the decoders of src/input/formats/ascend/kernelRows.wat (and the cell parsers
// it calls, kernelCells.wat) spliced in, into
// src/input/csv/simdWasm.ts (the module's bytes, base64), and write the memory layout they share with TypeScript
// into src/input/csv/simdLayout.ts (the record scanner's part) and src/input/formats/ascend/kernelRowsLayout.ts (the
// kernel-row decoder's). All are committed, so that building and running kprof need no assembler. Run it after
// editing a .wat or the layout below:
//   node scripts/wasm.mjs          write the three files
//   node scripts/wasm.mjs --check  exit 1 when one is not what this script makes of the .wat (a test runs it)
//
// The layout is this file's SIZES and REGIONS tables, the one place where it is written down: each `{{NAME}}` in
// the .wat is replaced by its number before the .wat is assembled, and the layout modules export the same numbers.

import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import wabtInit from 'wabt';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const WAT = join(ROOT, 'src/input/csv/simd.wat');
/**
 * Decoders of runs of records, written in the .wat of the format they belong to and spliced into simd.wat where it
 * says `;; @decoders`: one module, since a decoder calls the record scanner once per record and a call between
 * WebAssembly modules would cost more than the record.
 */
const DECODERS = [join(ROOT, 'src/input/formats/ascend/kernelCells.wat'), join(ROOT, 'src/input/formats/ascend/kernelRows.wat')];
const SPLICE = '  ;; @decoders (scripts/wasm.mjs splices the record-run decoders in here)\n';
const OUT = join(ROOT, 'src/input/csv/simdWasm.ts');

/**
 * Where each part's share of the layout goes (as TypeScript): the CSV scanner's (record(), the data buffer) and
 * the kernel-row decoder's (kernelRows.wat: its batch and key table). The .wat sees every value.
 */
const LAYOUT_OUT = {
  csv: { path: join(ROOT, 'src/input/csv/simdLayout.ts'), of: 'the record scanner (simd.wat)', name: 'LAYOUT' },
  kernel: { path: join(ROOT, 'src/input/formats/ascend/kernelRowsLayout.ts'), of: 'the kernel-row decoder (kernelRows.wat)', name: 'ROWS_LAYOUT' },
};

/** Sizes that fix the layout: name, value, its part, what it is. */
const SIZES = [
  ['CAP', 1024, 'csv', 'Cells record() locates at most.'],
  ['MAX_BATCH', 2048, 'kernel', 'Rows rows() reads in one batch at most.'],
  ['KEY_SLOTS', 1 << 17, 'kernel', 'Slots of the key table (a power of two).'],
  ['SLOT_MASK', (1 << 17) - 1, 'kernel', 'KEY_SLOTS - 1.'],
  ['MAX_KEYS', 1 << 16, 'kernel', 'Keys the table holds at most.'],
  ['SLOTS_BYTES', (1 << 17) * 4, 'kernel', 'Bytes of the slots (emptied by resetKeys).'],
  // Keys stop 16 bytes short of the arena's end: comparisons load eight bytes at a time.
  ['ARENA_LIMIT', (4 << 20) - 16, 'kernel', 'Key bytes the arena takes at most (16 short of its end: comparisons load eight bytes).'],
];
const size = (name) => SIZES.find((x) => x[0] === name)[1];
const CAP = size('CAP');
const MAX_BATCH = size('MAX_BATCH');
const MAX_KEYS = size('MAX_KEYS');

/**
 * The regions of the WebAssembly memory, in order: name, bytes, alignment, part, and what it holds. Offsets are
 * given in order, each at the next multiple of its alignment; a region's fields (i32s) follow it.
 */
const REGIONS = [
  ['META', 16, 16, 'csv', 'i32s: cells in the last record, line feeds in it', ['CELLS', 'LINES']],
  ['STARTS', CAP * 4, 1024, 'csv', 'i32 per located cell: where it starts'],
  ['ENDS', CAP * 4, 1024, 'csv', 'i32 per located cell: where it ends'],
  ['FLAGS', CAP, 1024, 'csv', 'u8 per located cell: 1 quoted, 3 quoted with "" escapes'],
  ['BATCH_META', 16, 16, 'kernel', 'i32s: rows in the last batch, line feeds in them', ['ROWS', 'LINES']],
  ['IDS', MAX_BATCH * 4, 16384, 'kernel', 'i32 per row of a batch: the id of its key'],
  ['STEPS', MAX_BATCH * 4, 1024, 'kernel', 'i32 per row of a batch: its Step Id (-2147483648: none)'],
  ['TICKS', MAX_BATCH * 4, 1024, 'kernel', 'i32 per row of a batch: its duration in ticks of 1e-4 µs'],
  [
    'START_AFTER',
    MAX_BATCH * 8,
    1024,
    'kernel',
    "f64 per row of a batch: its start time in exact ticks after the file's origin (NaN: none; when configured)",
  ],
  ['STREAMS', MAX_BATCH * 4, 1024, 'kernel', 'i32 per row of a batch: its Stream ID (-1: none; when configured)'],
  ['SLOTS', size('KEY_SLOTS') * 4, 65536, 'kernel', 'i32 per slot of the key table: entry + 1, 0 when empty'],
  ['HASHES', MAX_KEYS * 4, 1024, 'kernel', 'i32 per key: its hash'],
  ['OFFSETS', MAX_KEYS * 4, 1024, 'kernel', 'i32 per key: where its bytes are in the arena'],
  ['LEN1', MAX_KEYS * 4, 1024, 'kernel', 'i32 per key: the length of its first span'],
  ['LEN2', MAX_KEYS * 4, 1024, 'kernel', 'i32 per key: the length of its second span (-1: none)'],
  ['ARENA', size('ARENA_LIMIT') + 16, 1024, 'kernel', 'the bytes of the keys'],
  ['DATA', 0, 1 << 20, 'csv', 'the data buffer (the scanner grows the memory for it)'],
];

/** The layout: every size, region offset and region field (the .wat's {{NAME}}s), with its part and note. */
export function layout() {
  const entries = SIZES.map(([name, value, part, note]) => ({ name, value, part, note }));
  let at = 0;
  for (const [name, bytes, align, part, note, fields = []] of REGIONS) {
    at = Math.ceil(at / align) * align;
    entries.push({ name, value: at, part, note });
    const what = fields.length > 0 ? note.split(': ')[1].split(', ') : [];
    for (const [i, f] of fields.entries()) entries.push({ name: `${name}_${f}`, value: at + 4 * i, part, note: `${name}: ${what[i]}.` });
    at += bytes;
  }
  return { values: Object.fromEntries(entries.map((e) => [e.name, e.value])), entries };
}

/** The .wat with each {{NAME}} replaced; an unknown name is an error. */
export function substitute(wat, values) {
  return wat.replace(/\{\{([A-Z0-9_]+)\}\}/g, (_, name) => {
    if (!(name in values)) throw new Error(`simd.wat: {{${name}}} is not in the layout of scripts/wasm.mjs`);
    return String(values[name]);
  });
}

/** The TypeScript module of one part's share of the layout. */
function layoutModule({ entries }, part) {
  const { of, name } = LAYOUT_OUT[part];
  const lines = entries.filter((e) => e.part === part).map((e) => `  /** ${e.note} */\n  ${e.name}: ${e.value},`);
  return (
    '// Generated by scripts/wasm.mjs from its layout table; do not edit.\n' +
    `// Where ${of} keeps what it shares with TypeScript, in bytes of the WebAssembly memory,\n` +
    '// and the sizes that fix it (the same numbers are substituted into the .wat).\n' +
    `export const ${name} = {\n${lines.join('\n')}\n} as const;\n`
  );
}

/**
 * The .wat with its inlined fragments expanded. A fragment is written once, between `;; @inline $name $a $b` and
 * `;; @end` lines, and used as `{{$name $x $y}}`: its text, with each parameter ($a, $b) renamed to the local
 * given ($x, $y). So a hot loop gets a helper's code without a call (V8 does not inline WebAssembly calls, and a
 * call spills the loop's locals). Parameters are locals of the user, which the fragment may set; any other
 * local it uses, the user declares.
 */
export function expand(wat) {
  const fragments = new Map();
  const text = wat.replace(/^[ \t]*;; @inline (\$[\w.]+)((?: \$[\w.]+)*)\n([\s\S]*?)^[ \t]*;; @end\n/gm, (_, name, params, body) => {
    fragments.set(name, { params: params.trim().split(/ +/).filter(Boolean), body: body.trim() });
    return '';
  });
  // A fragment may use others: expanded again, a few levels deep.
  let out = text;
  for (let level = 0; level < 4 && /\{\{\$/.test(out); level++) out = expandOnce(out, fragments);
  return out;
}

function expandOnce(text, fragments) {
  return text.replace(/\{\{(\$[\w.]+)((?: \$[\w.]+)*)\}\}/g, (_, name, args) => {
    const f = fragments.get(name);
    if (f === undefined) throw new Error(`simd.wat: {{${name}}} is no fragment (;; @inline ${name})`);
    const given = args.trim().split(/ +/).filter(Boolean);
    if (given.length !== f.params.length) throw new Error(`simd.wat: {{${name}}} takes ${f.params.length} locals, not ${given.length}`);
    return f.params.reduce((body, p, i) => body.replace(new RegExp(`\\${p}(?![\\w.])`, 'g'), () => given[i]), f.body);
  });
}

/** simd.wat with the decoders spliced in, and its fragments inlined. */
export function source() {
  const wat = readFileSync(WAT, 'utf8');
  if (!wat.includes(SPLICE)) throw new Error(`simd.wat: no line "${SPLICE.trim()}" to splice the decoders in at`);
  return expand(wat.replace(SPLICE, () => DECODERS.map((d) => readFileSync(d, 'utf8')).join('')));
}

export async function assemble() {
  const wabt = await wabtInit();
  const mod = wabt.parseWat('simd.wat', substitute(source(), layout().values));
  try {
    mod.validate();
    const { buffer } = mod.toBinary({});
    const b64 = Buffer.from(buffer).toString('base64');
    const lines = b64.match(/.{1,100}/g).map((l) => `  '${l}' +`);
    lines[lines.length - 1] = lines[lines.length - 1].replace(/ \+$/, ',');
    return (
      '// Generated by scripts/wasm.mjs from simd.wat; do not edit. The WebAssembly module, base64.\n' +
      'export const SIMD_WASM_BASE64 =\n' +
      `${lines.join('\n')}\n`
    ).replace(/,\n$/, ';\n');
  } finally {
    mod.destroy();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const text = await assemble();
  const l = layout();
  const tables = Object.entries(LAYOUT_OUT).map(([part, out]) => ({ path: out.path, text: layoutModule(l, part) }));
  if (process.argv.includes('--check')) {
    let same = readFileSync(OUT, 'utf8') === text;
    if (!same) process.stderr.write('src/input/csv/simdWasm.ts is not the assembly of src/input/csv/simd.wat: run node scripts/wasm.mjs\n');
    for (const t of tables) {
      if (readFileSync(t.path, 'utf8') === t.text) continue;
      same = false;
      process.stderr.write(`${t.path} is not the layout of scripts/wasm.mjs: run node scripts/wasm.mjs\n`);
    }
    process.exit(same ? 0 : 1);
  }
  writeFileSync(OUT, text);
  for (const t of tables) writeFileSync(t.path, t.text);
}
