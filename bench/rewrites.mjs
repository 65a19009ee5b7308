// `node bench/rewrites.mjs`: the time the fusion-rewrites engine adds, on kernel sequences shaped like the
// benchmark's 2 × 250 MB pair (bench/run.mjs: the steps of msinsight-st-level2 rank 0 and rank 2 repeated until
// each file is about 250 MB, so ~300 steps of ~2,500 kernels a side, ~760k rows each).
//
//   node bench/rewrites.mjs [--size-mb 250] [--runs 5] [--with-diff]
//
// The rows are read once with csv-parse and repeated in memory (new Step Ids and start times shifted past the
// previous copy, as bench/generate.mjs writes them); then, per run, each side's rows are fed to a SequenceRecorder
// in file order, as a reader would (a token id per row from a cache per distinct kernel, the start cell parsed
// from its bytes to exact ticks), and findRewrites compares the two. It prints the median of each phase in ms, the sequence's
// memory (shapes, sampled steps) and, with --with-diff, the median time of `kprof diff --by type` on the same pair
// written to a temporary folder, and the ratio the project aims for (rewrites ≤ 0.5 × the diff).
// The engine is bundled from src/ with esbuild (a devDependency) into a temporary file first.

import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parse } from 'csv-parse/sync';
import { build } from 'esbuild';
import { generate } from './generate.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const REAL = resolve(ROOT, '../shared/data/real/msinsight-st-level2');
const SOURCES = ['rank_0', 'rank_2'].map((r) => join(REAL, `${r}_ascend_pt/ASCEND_PROFILER_OUTPUT/kernel_details.csv`));

/** The engine's modules, bundled from src/ into a temporary file and loaded. */
async function loadEngine() {
  const dir = mkdtempSync(join(tmpdir(), 'kprof-bench-engine-'));
  try {
    const outfile = join(dir, 'engine.mjs');
    await build({
      stdin: {
        contents: "export * from './src/analysis/rewrites/sequence.ts'; export * from './src/analysis/rewrites/rewrites.ts';",
        resolveDir: ROOT,
        loader: 'ts',
      },
      outfile,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      logLevel: 'warning',
    });
    return await import(pathToFileURL(outfile).href);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const { SequenceRecorder, startOriginUs, startTicksAfterBytes, tokenKey, findRewrites } = await loadEngine();

function args() {
  const a = process.argv.slice(2);
  const opt = { sizeMb: 250, runs: 5, withDiff: false };
  for (let i = 0; i < a.length; i++) {
    if (a[i] === '--size-mb') opt.sizeMb = Number(a[++i]);
    else if (a[i] === '--runs') opt.runs = Number(a[++i]);
    else if (a[i] === '--with-diff') opt.withDiff = true;
    else {
      process.stderr.write(`bench: unknown argument ${a[i]}\nusage: node bench/rewrites.mjs [--size-mb N] [--runs N] [--with-diff]\n`);
      process.exit(2);
    }
  }
  if (!(opt.sizeMb > 0) || !(opt.runs >= 1)) {
    process.stderr.write('bench: --size-mb and --runs take positive numbers\n');
    process.exit(2);
  }
  return opt;
}

/** One step's rows: what a reader hands the recorder. */
function template(path) {
  const text = readFileSync(path, 'utf8');
  const records = parse(text, { bom: true, columns: true, skip_empty_lines: true, relax_column_count: true });
  return {
    bytes: Buffer.byteLength(text),
    rows: records.map((r) => ({
      key: tokenKey('type', { name: r.Name, type: r.Type, core: r['Accelerator Core'], shapes: r['Input Shapes'] ?? null }),
      stream: String(r['Stream ID'] ?? '-').trim(),
      dur: Math.round(Number(String(r['Duration(us)']).trim()) * 10_000),
      start: String(r['Start Time(us)']),
    })),
  };
}

/** Start cells of copy c: whole µs shifted past the previous copies, decimals kept (as generate.mjs does). */
function shifted(cell, us) {
  const m = /^(\d+)(\.\d*)?(\s*)$/.exec(cell);
  return m === null ? cell : `${Number(m[1]) + us}${m[2] ?? ''}${m[3]}`;
}

/** The start cells of all copies, built once, as bytes (a reader parses them from its buffer). */
function expand(t, copies) {
  const first = startOriginUs(t.rows[0].start);
  let last = first;
  for (const r of t.rows) last = Math.max(last, startOriginUs(r.start) + Math.ceil(r.dur / 10_000));
  const span = last - first + 1000;
  const parts = [];
  for (let c = 0; c < copies; c++) for (const r of t.rows) parts.push(shifted(r.start, c * span));
  const bytes = Buffer.from(parts.join(''), 'latin1');
  const ends = new Int32Array(parts.length + 1);
  for (let i = 0; i < parts.length; i++) ends[i + 1] = ends[i] + parts[i].length;
  return { bytes, ends, origin: first };
}

function recordSide(t, starts, copies) {
  const rec = new SequenceRecorder('type');
  const rank = rec.rank('0');
  // A token id per distinct kernel, resolved once (a reader caches it per fine group).
  const ids = t.rows.map((r) => (r.key === null ? -1 : rec.table.intern(r.key)));
  const streams = t.rows.map((r) => rec.stream(r.stream));
  const durs = Float64Array.from(t.rows, (r) => r.dur);
  const { bytes, ends, origin } = starts;
  const n = t.rows.length;
  let k = 0;
  for (let c = 0; c < copies; c++) {
    const step = 1 + c;
    for (let i = 0; i < n; i++, k++) {
      const id = ids[i];
      if (id < 0) {
        rec.skipCommunication();
        continue;
      }
      rec.add(rank, streams[i], step, id, durs[i], startTicksAfterBytes(bytes, ends[k], ends[k + 1], origin));
    }
  }
  return rec.finish();
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

function main() {
  const opt = args();
  for (const s of SOURCES) {
    if (!existsSync(s)) {
      process.stderr.write(`bench: ${s} not found (the real exports are read from ../shared/data/real)\n`);
      process.exit(2);
    }
  }
  const t = SOURCES.map(template);
  const copies = t.map((x) => Math.max(1, Math.round((opt.sizeMb * 1e6) / x.bytes)));
  const starts = t.map((x, i) => expand(x, copies[i]));
  const times = { base: [], pr: [], analysis: [] };
  let result = null;
  let seqs = null;
  for (let run = 0; run < opt.runs; run++) {
    let t0 = performance.now();
    const base = recordSide(t[0], starts[0], copies[0]);
    times.base.push(performance.now() - t0);
    t0 = performance.now();
    const pr = recordSide(t[1], starts[1], copies[1]);
    times.pr.push(performance.now() - t0);
    t0 = performance.now();
    result = findRewrites(base, pr);
    times.analysis.push(performance.now() - t0);
    seqs = [base, pr];
  }
  const rows = t.map((x, i) => x.rows.length * copies[i]);
  const out = [];
  out.push(
    `rewrites engine on 2 × ${opt.sizeMb} MB-shaped sequences (${rows[0].toLocaleString('en-US')} + ${rows[1].toLocaleString('en-US')} rows; ${copies[0]} + ${copies[1]} steps), median of ${opt.runs} runs:`,
  );
  out.push(`  record base   ${median(times.base).toFixed(0)} ms`);
  out.push(`  record PR     ${median(times.pr).toFixed(0)} ms`);
  out.push(`  analysis      ${median(times.analysis).toFixed(0)} ms`);
  const total = median(times.base) + median(times.pr) + median(times.analysis);
  out.push(`  total         ${total.toFixed(0)} ms`);
  for (const [label, s] of [
    ['base', seqs[0]],
    ['PR', seqs[1]],
  ]) {
    const tokens = s.shapes.reduce((n, x) => n + x.tokens.length, 0);
    const sampled = s.shapes.reduce((n, x) => n + x.sampled.length * x.tokens.length, 0);
    out.push(
      `  ${label}: ${s.shapes.length} step shape(s) of ${tokens.toLocaleString('en-US')} tokens; ${sampled.toLocaleString('en-US')} sampled kernels; ${s.steps.length} step records; ${s.stats.kernels.toLocaleString('en-US')} kernels recorded`,
    );
  }
  out.push(
    `  lanes: ${result.lanes.map((l) => `rank ${l.rank} stream ${l.stream}: ${l.status}${l.edits === null ? '' : `, ${l.edits} edits`} (lower bound ${l.lowerBound})`).join('; ')}`,
  );
  out.push(
    `  rewrites: ${result.rewrites.length}; accounted for ${result.conservation.removedAccounted} of ${result.conservation.removed} removed, ${result.conservation.addedAccounted} of ${result.conservation.added} added`,
  );
  if (opt.withDiff) {
    const dir = mkdtempSync(join(tmpdir(), 'kprof-bench-rewrites-'));
    try {
      const files = ['base', 'pr'].map((side, i) => {
        const f = join(dir, `${side}.csv`);
        generate(SOURCES[i], f, opt.sizeMb);
        return f;
      });
      const diffTimes = [];
      for (let run = 0; run < opt.runs; run++) {
        const t0 = performance.now();
        execFileSync(process.execPath, [join(ROOT, 'bin/kprof.js'), 'diff', files[0], files[1], '--by', 'type', '--format', 'json'], {
          stdio: ['ignore', 'ignore', 'pipe'],
          env: { ...process.env, NO_COLOR: '1' },
        });
        diffTimes.push(performance.now() - t0);
      }
      const d = median(diffTimes);
      out.push(`  kprof diff    ${d.toFixed(0)} ms (same pair, written to disk); rewrites / diff = ${(total / d).toFixed(2)} (target ≤ 0.5)`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  process.stdout.write(`${out.join('\n')}\n`);
}

main();
