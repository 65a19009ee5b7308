// `npm run bench`: kprof against the tools people compare it with, on a generated profile pair of real size.
//
//   node bench/run.mjs [--size-mb 250] [--runs 3] [--only kprof,node,python,pandas,duckdb]
//
// It writes two large kernel_details.csv (base and PR) into a temporary folder by replicating the steps of a
// real export (../shared/data/real, else a fixture), then runs, in alternation, each contender as a child
// process doing the same work on both files:
//   kprof    `kprof diff BASE PR --by type` (reads the two inputs in parallel worker threads)
//   node     Node reading the same bytes and nothing else (readSync into a 4 MiB buffer): the floor
//   python   Python's csv module grouping by Type (count and sum of Duration(us)), both files
//   pandas   pandas.read_csv(usecols) + groupby, when pandas is importable
//   duckdb   DuckDB's read_csv + GROUP BY, when the duckdb module or CLI is there
// and prints the median wall time, MB/s, rows/s and peak RSS of each, and the ratios the project aims for.
// Peak RSS comes from GNU time (/usr/bin/time -v) when present, else from the child's own report.
// The temporary folder is removed at the end.

import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generate } from './generate.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const REAL = resolve(ROOT, '../shared/data/real');
const KPROF = join(ROOT, 'bin/kprof.js');

function args() {
  const a = process.argv.slice(2);
  const opt = { sizeMb: 250, runs: 3, only: null };
  for (let i = 0; i < a.length; i++) {
    if (a[i] === '--size-mb') opt.sizeMb = Number(a[++i]);
    else if (a[i] === '--runs') opt.runs = Number(a[++i]);
    else if (a[i] === '--only') opt.only = new Set(a[++i].split(','));
    else {
      process.stderr.write(`bench: unknown argument ${a[i]}\nusage: node bench/run.mjs [--size-mb N] [--runs N] [--only kprof,node,python,pandas,duckdb]\n`);
      process.exit(2);
    }
  }
  if (!(opt.sizeMb > 0) || !(opt.runs >= 1)) {
    process.stderr.write('bench: --size-mb and --runs take positive numbers\n');
    process.exit(2);
  }
  return opt;
}

/** Two source exports to replicate: two ranks of one real run, else two fixture files. */
function sources() {
  const real = join(REAL, 'msinsight-st-level2');
  const a = join(real, 'rank_0_ascend_pt/ASCEND_PROFILER_OUTPUT/kernel_details.csv');
  const b = join(real, 'rank_2_ascend_pt/ASCEND_PROFILER_OUTPUT/kernel_details.csv');
  if (existsSync(a) && existsSync(b)) return { base: a, pr: b, note: 'real export msinsight-st-level2 ranks 0 and 2' };
  const found = [];
  const walk = (d) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory() && !e.name.startsWith('bad-')) walk(p);
      else if (e.name === 'kernel_details.csv') found.push(p);
    }
  };
  walk(join(ROOT, 'fixtures'));
  found.sort((x, y) => statSync(y).size - statSync(x).size);
  if (found.length === 0) throw new Error('no source export: neither ../shared/data/real nor a fixture kernel_details.csv');
  return { base: found[0], pr: found[1] ?? found[0], note: `fixtures (${found[0]}), ../shared/data/real is absent` };
}

const HAS_GNU_TIME = (() => {
  try {
    return spawnSync('/usr/bin/time', ['-v', 'true'], { encoding: 'utf8' }).stderr.includes('Maximum resident set size');
  } catch {
    return false;
  }
})();

/** Run a command; wall time from here, peak RSS from GNU time or from the child's last stderr line. */
function measure(cmd, argv) {
  const full = HAS_GNU_TIME ? ['/usr/bin/time', ['-v', cmd, ...argv]] : [cmd, argv];
  const t0 = process.hrtime.bigint();
  const r = spawnSync(full[0], full[1], { encoding: 'utf8', maxBuffer: 64 << 20, env: { ...process.env, NO_COLOR: '1' } });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0) throw new Error(`${cmd} ${argv.join(' ')} exited ${r.status}:\n${r.stderr}`);
  let rssKb = null;
  const m = /Maximum resident set size \(kbytes\): (\d+)/.exec(r.stderr);
  if (m) rssKb = Number(m[1]);
  else {
    const self = /MAXRSS_KB (\d+)/.exec(r.stderr);
    if (self) rssKb = Number(self[1]);
  }
  return { ms, rssKb, stdout: r.stdout };
}

const NODE_READ = `
const { openSync, readSync, closeSync } = require('node:fs');
const buf = Buffer.allocUnsafe(4 << 20);
let total = 0;
for (const f of process.argv.slice(1)) {
  const fd = openSync(f, 'r');
  for (;;) { const n = readSync(fd, buf, 0, buf.length, null); if (n === 0) break; total += n; }
  closeSync(fd);
}
process.stdout.write(total + '\\n');
process.stderr.write('MAXRSS_KB ' + process.resourceUsage().maxRSS + '\\n');
`;

const PY_CSV = `
import csv, sys, resource
out = []
for path in sys.argv[1:]:
    groups = {}
    with open(path, newline='', encoding='utf-8-sig') as f:
        r = csv.reader(f)
        h = [c.strip() for c in next(r)]
        ti, di = h.index('Type'), h.index('Duration(us)')
        for row in r:
            if len(row) != len(h):
                continue
            t = row[ti]
            d = float(row[di])
            g = groups.get(t)
            if g is None:
                groups[t] = [1, d]
            else:
                g[0] += 1
                g[1] += d
    out.append(groups)
base, pr = out
for t in sorted(set(base) | set(pr)):
    b = base.get(t, [0, 0.0]); p = pr.get(t, [0, 0.0])
    print(t, b[0], p[0], p[0] - b[0], round(p[1] - b[1], 3))
print('MAXRSS_KB', resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)
`;

const PY_PANDAS = `
import sys, resource
import pandas as pd
res = []
for path in sys.argv[1:]:
    df = pd.read_csv(path, usecols=['Type', 'Duration(us)'])
    res.append(df.groupby('Type')['Duration(us)'].agg(['count', 'sum']))
d = res[1].sub(res[0], fill_value=0)
print(d.to_string())
print('MAXRSS_KB', resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)
`;

const PY_DUCKDB = `
import sys, resource
import duckdb
for path in sys.argv[1:]:
    print(duckdb.sql(f"select \\"Type\\", count(*), sum(\\"Duration(us)\\") from read_csv('{path}') group by 1").fetchall()[:1])
print('MAXRSS_KB', resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)
`;

function has(cmd, argv) {
  try {
    return spawnSync(cmd, argv, { encoding: 'utf8' }).status === 0;
  } catch {
    return false;
  }
}

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

function pad(s, n, right = false) {
  s = String(s);
  return right ? s.padStart(n) : s.padEnd(n);
}

function main() {
  const opt = args();
  const want = (name) => opt.only === null || opt.only.has(name);
  const dir = mkdtempSync(join(tmpdir(), 'kprof-bench-'));
  const cleanup = () => rmSync(dir, { recursive: true, force: true });
  process.on('SIGINT', () => {
    cleanup();
    process.exit(130);
  });
  try {
    const src = sources();
    const base = join(dir, 'base', 'kernel_details.csv');
    const pr = join(dir, 'pr', 'kernel_details.csv');
    for (const p of [base, pr]) mkdirSync(dirname(p), { recursive: true });
    process.stdout.write(`generating 2 × ${opt.sizeMb} MB from ${src.note} …\n`);
    const gb = generate(src.base, base, opt.sizeMb);
    const gp = generate(src.pr, pr, opt.sizeMb);
    const bytes = gb.bytes + gp.bytes;
    const rows = gb.rows + gp.rows;
    const py = has('python3', ['-c', 'import csv']) ? 'python3' : null;
    const pandas = py && has(py, ['-c', 'import pandas']);
    const duckdb = py && has(py, ['-c', 'import duckdb']);
    const hasDiff = has(process.execPath, [KPROF, 'diff', '--help']);

    const contenders = [];
    if (want('kprof')) {
      contenders.push(
        hasDiff
          ? { name: 'kprof diff', run: () => measure(process.execPath, [KPROF, 'diff', base, pr, '--by', 'type']) }
          : {
              name: 'kprof summary ×2',
              run: () => {
                const a = measure(process.execPath, [KPROF, 'summary', base, '--by', 'type']);
                const b = measure(process.execPath, [KPROF, 'summary', pr, '--by', 'type']);
                return { ms: a.ms + b.ms, rssKb: Math.max(a.rssKb ?? 0, b.rssKb ?? 0) || null };
              },
            },
      );
    }
    if (want('node')) contenders.push({ name: 'node read only', run: () => measure(process.execPath, ['-e', NODE_READ, base, pr]) });
    const notes = [];
    const pyScript = (name, text) => {
      const p = join(dir, name);
      writeFileSync(p, text);
      return p;
    };
    if (want('python')) {
      if (py) contenders.push({ name: 'python csv', run: () => measure(py, [pyScript('csv_group.py', PY_CSV), base, pr]) });
      else notes.push('python csv: python3 not found, not measured');
    }
    if (want('pandas')) {
      if (pandas) contenders.push({ name: 'pandas', run: () => measure(py, [pyScript('pandas_group.py', PY_PANDAS), base, pr]) });
      else notes.push('pandas: not installed here, not measured (the project does not install it)');
    }
    if (want('duckdb')) {
      if (duckdb) contenders.push({ name: 'duckdb', run: () => measure(py, [pyScript('duckdb_group.py', PY_DUCKDB), base, pr]) });
      else notes.push('duckdb: not installed here, not measured (the project does not install it)');
    }

    const times = new Map(contenders.map((c) => [c.name, []]));
    const rss = new Map(contenders.map((c) => [c.name, 0]));
    for (let i = 0; i < opt.runs; i++) {
      for (const c of contenders) {
        const r = c.run();
        times.get(c.name).push(r.ms);
        rss.set(c.name, Math.max(rss.get(c.name), r.rssKb ?? 0));
        process.stdout.write(`  run ${i + 1}/${opt.runs} ${c.name}: ${(r.ms / 1000).toFixed(2)} s\n`);
      }
    }

    const cores = availableParallelism();
    process.stdout.write(
      `\nmachine: ${cores} cores (${cpus()[0]?.model ?? 'unknown CPU'}), node ${process.version}` +
        `${py ? `, ${execFileSync(py, ['--version'], { encoding: 'utf8' }).trim()}` : ''}\n` +
        `input: 2 files, ${(bytes / 1e6).toFixed(0)} MB, ${rows.toLocaleString('en-US')} rows in all (${src.note}); ` +
        `median of ${opt.runs} run${opt.runs === 1 ? '' : 's'}, taken in alternation\n` +
        `peak RSS: ${HAS_GNU_TIME ? 'GNU time -v' : "the child's own maxRSS"}\n\n`,
    );
    const head = `${pad('tool', 18)} ${pad('wall s', 8, true)} ${pad('MB/s', 8, true)} ${pad('rows/s', 12, true)} ${pad('peak RSS MB', 12, true)}`;
    process.stdout.write(`${head}\n${'-'.repeat(head.length)}\n`);
    const med = new Map();
    for (const c of contenders) {
      const ms = median(times.get(c.name));
      med.set(c.name, ms);
      const s = ms / 1000;
      const kb = rss.get(c.name);
      process.stdout.write(
        `${pad(c.name, 18)} ${pad(s.toFixed(2), 8, true)} ${pad((bytes / 1e6 / s).toFixed(0), 8, true)} ` +
          `${pad(Math.round(rows / s).toLocaleString('en-US'), 12, true)} ${pad(kb ? (kb / 1024).toFixed(0) : 'n/a', 12, true)}\n`,
      );
    }
    for (const n of notes) process.stdout.write(`${n}\n`);

    const k = med.get('kprof diff') ?? med.get('kprof summary ×2');
    if (k !== undefined) {
      process.stdout.write('\nratios (goal):\n');
      const line = (label, value, ok) => process.stdout.write(`  ${pad(label, 36)} ${pad(value.toFixed(2), 6, true)}×  ${ok ? 'ok' : 'MISSED'}\n`);
      if (med.has('python csv')) line('python csv / kprof (≥ 5)', med.get('python csv') / k, med.get('python csv') / k >= 5);
      if (med.has('pandas')) line('pandas / kprof (≥ 2)', med.get('pandas') / k, med.get('pandas') / k >= 2);
      if (med.has('duckdb')) line('duckdb / kprof (> 1)', med.get('duckdb') / k, med.get('duckdb') / k > 1);
      if (med.has('node read only')) line('kprof / node read (≤ 3, stretch ≤ 2)', k / med.get('node read only'), k / med.get('node read only') <= 3);
      const kr = rss.get('kprof diff') ?? rss.get('kprof summary ×2');
      if (kr) process.stdout.write(`  ${pad('kprof peak RSS MB (< 150)', 36)} ${pad((kr / 1024).toFixed(0), 6, true)}   ${kr / 1024 < 150 ? 'ok' : 'MISSED'}\n`);
    }
  } finally {
    cleanup();
  }
}

main();
