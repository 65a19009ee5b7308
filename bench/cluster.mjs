// The cluster benchmark: a real-sized rank (a kernel_details.csv from bench/generate.mjs, 250 MB by default)
// summarised once per side, its summary JSON copied as the snapshots of 1,000 ranks (rank ids and inputs
// changed, figures the same), then timed: `kprof merge` of the 1,000 snapshots of one side, and `kprof diff` of
// the two folders. Wall time and peak memory (GNU time's maximum RSS) of each, and the totals checked exact.
//   node bench/cluster.mjs [--ranks 1000] [--size-mb 250] [--steps 10] [--runs 3]

import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generate } from './generate.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const KPROF = join(ROOT, 'bin/kprof.js');
const REAL = resolve(ROOT, '../shared/data/real/msinsight-st-level2');
const LIMIT_S = 10;
const LIMIT_MB = 300;

function args() {
  const a = process.argv.slice(2);
  const opt = { ranks: 1000, sizeMb: 250, steps: 10, runs: 3 };
  for (let i = 0; i < a.length; i++) {
    const key = { '--ranks': 'ranks', '--size-mb': 'sizeMb', '--steps': 'steps', '--runs': 'runs' }[a[i]];
    const v = Number(a[i + 1]);
    if (key === undefined || !(v >= (key === 'steps' ? 0 : 1))) {
      process.stderr.write('usage: node bench/cluster.mjs [--ranks 1000] [--size-mb 250] [--steps 10 (0: a step per copy)] [--runs 3]\n');
      process.exit(2);
    }
    opt[key] = v;
    i++;
  }
  return opt;
}

function sources() {
  const a = join(REAL, 'rank_0_ascend_pt/ASCEND_PROFILER_OUTPUT/kernel_details.csv');
  const b = join(REAL, 'rank_2_ascend_pt/ASCEND_PROFILER_OUTPUT/kernel_details.csv');
  if (existsSync(a) && existsSync(b)) return { base: a, pr: b, note: 'real export msinsight-st-level2 ranks 0 and 2' };
  const f = join(ROOT, 'fixtures/fusion-example');
  const find = (side) =>
    join(f, side, spawnSync('ls', [join(f, side)], { encoding: 'utf8' }).stdout.split('\n')[0], 'ASCEND_PROFILER_OUTPUT/kernel_details.csv');
  return { base: find('base'), pr: find('pr'), note: 'fixtures/fusion-example (../shared/data/real is absent)' };
}

const HAS_GNU_TIME = spawnSync('/usr/bin/time', ['-v', 'true'], { encoding: 'utf8' }).stderr?.includes('Maximum resident set size') ?? false;

function measure(argv) {
  const full = HAS_GNU_TIME ? ['/usr/bin/time', ['-v', process.execPath, ...argv]] : [process.execPath, argv];
  const t0 = process.hrtime.bigint();
  const r = spawnSync(full[0], full[1], { encoding: 'utf8', maxBuffer: 256 << 20, env: { ...process.env, NO_COLOR: '1' } });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0) throw new Error(`kprof ${argv.slice(1).join(' ')} exited ${r.status}:\n${r.stderr}`);
  const m = /Maximum resident set size \(kbytes\): (\d+)/.exec(r.stderr);
  return { ms, rssMb: m ? Number(m[1]) / 1024 : null, stdout: r.stdout };
}

function kprof(argv) {
  const r = spawnSync(process.execPath, [KPROF, ...argv], { encoding: 'utf8', maxBuffer: 256 << 20 });
  if (r.status !== 0) throw new Error(`kprof ${argv.join(' ')} exited ${r.status}:\n${r.stderr}`);
  return r.stdout;
}

/** The snapshots of `ranks` ranks: one rank's summary JSON with its rank id and inputs changed. */
function replicate(snapshot, dir, ranks) {
  mkdirSync(dir);
  const j = JSON.parse(readFileSync(snapshot, 'utf8'));
  let bytes = 0;
  for (let i = 0; i < ranks; i++) {
    j.ranks = [String(i)];
    j.perRank[0].rank = String(i);
    j.inputs = [`node${String(Math.floor(i / 8)).padStart(3, '0')}/rank${i}_ascend_pt`];
    const text = `${JSON.stringify(j, null, 2)}\n`;
    writeFileSync(join(dir, `rank${String(i).padStart(4, '0')}.summary.json`), text);
    bytes += text.length;
  }
  return { totals: j.totals, bytes };
}

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

function main() {
  const opt = args();
  const dir = mkdtempSync(join(tmpdir(), 'kprof-cluster-bench-'));
  process.on('SIGINT', () => {
    rmSync(dir, { recursive: true, force: true });
    process.exit(130);
  });
  try {
    const src = sources();
    const stepText = opt.steps > 0 ? `${opt.steps} steps` : 'a step per copy of the source';
    process.stdout.write(`generating a ${opt.sizeMb} MB rank per side from ${src.note} (${stepText}) …\n`);
    const sides = {};
    for (const side of ['base', 'pr']) {
      const csv = join(dir, `${side}.csv`);
      const g = generate(src[side], csv, opt.sizeMb, { steps: opt.steps });
      const snap = join(dir, `${side}.rank.json`);
      kprof(['summary', csv, '--format', 'json', '-o', snap]);
      rmSync(csv);
      const r = replicate(snap, join(dir, side), opt.ranks);
      const steps = JSON.parse(readFileSync(snap, 'utf8')).steps;
      sides[side] = { ...r, rows: g.rows, csvBytes: g.bytes, steps };
      process.stdout.write(
        `  ${side}: ${(g.bytes / 1e6).toFixed(0)} MB, ${g.rows.toLocaleString('en-US')} kernels, ${steps} steps → ${opt.ranks} snapshots, ${(r.bytes / 1e6).toFixed(1)} MB in all\n`,
      );
    }
    const merged = join(dir, 'cluster.json');
    const cases = [
      { name: `kprof merge (${opt.ranks} snapshots)`, argv: [KPROF, 'merge', join(dir, 'base'), '-o', merged] },
      { name: `kprof diff (two folders of ${opt.ranks}), table`, argv: [KPROF, 'diff', join(dir, 'base'), join(dir, 'pr')] },
      { name: `kprof diff (two folders of ${opt.ranks}), JSON`, argv: [KPROF, 'diff', join(dir, 'base'), join(dir, 'pr'), '--format', 'json'] },
    ];
    const results = [];
    for (const c of cases) {
      const runs = [];
      for (let i = 0; i < opt.runs; i++) runs.push(measure(c.argv));
      results.push({
        name: c.name,
        ms: median(runs.map((r) => r.ms)),
        rssMb: Math.max(...runs.map((r) => r.rssMb ?? 0)) || null,
        out: runs[0].stdout,
      });
    }
    // Exact: the merged totals are the rank's times the number of ranks, to the tick.
    const ticks = (us) => BigInt(Math.round(us * 10_000));
    const m = JSON.parse(readFileSync(merged, 'utf8'));
    const want = sides.base.totals;
    const ok =
      m.perRank.length === opt.ranks &&
      m.totals.count === want.count * opt.ranks &&
      ticks(m.totals.totalUs) === ticks(want.totalUs) * BigInt(opt.ranks);
    const d = JSON.parse(results[2].out);
    const okDiff = d.totals.base.count === want.count * opt.ranks && d.totals.pr.count === sides.pr.totals.count * opt.ranks;
    process.stdout.write(
      `\nmerged: ${(readFileSync(merged).length / 1e6).toFixed(1)} MB, ${m.perRank.length} ranks, totals ${ok ? 'exact' : 'WRONG'}; diff totals ${okDiff ? 'exact' : 'WRONG'}\n\n`,
    );
    process.stdout.write(`| case | wall (median of ${opt.runs}) | peak RSS |\n| --- | ---: | ---: |\n`);
    let within = ok && okDiff;
    for (const r of results) {
      process.stdout.write(`| ${r.name} | ${(r.ms / 1000).toFixed(2)} s | ${r.rssMb === null ? '(no GNU time)' : `${r.rssMb.toFixed(0)} MB`} |\n`);
      if (r.ms > LIMIT_S * 1000 || (r.rssMb ?? 0) > LIMIT_MB) within = false;
    }
    process.stdout.write(`\n${within ? 'within' : 'OVER'} the budget of ${LIMIT_S} s and ${LIMIT_MB} MB each\n`);
    if (!within) process.exitCode = 1;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main();
