// `npm run bench`: kprof against the tools people compare it with, on a generated profile pair of real size.
//
//   node bench/run.mjs [--size-mb 250] [--runs 3] [--only kprof,node,startup,c,python,pandas,duckdb]
//   node bench/run.mjs --scale [--only comm,names,grid,steps,ranks,2gb]   (the scale cases: see bench/scale.mjs)
//
// It writes two large kernel_details.csv (base and PR) into a temporary folder by replicating the steps of a
// real export (../shared/data/real, else a fixture), then runs, in alternation, each contender as a child
// process doing the same work on both files:
//   kprof    `kprof diff BASE PR --by type` (reads the two inputs in parallel worker threads)
//   kprof --rewrites off   the same diff without the Fusion rewrites section (the ratio of the two is the
//            section's cost, with rewrites on by default: printed as the median of the run-by-run ratios, of
//            wall time and, with GNU time, of CPU time, beside the median peak RSS of each)
//   kprof audit (PR)   `kprof audit PR`: the fusion catalogue against the PR's kernel sequence
//   node     Node reading the same bytes and nothing else (readSync into a 4 MiB buffer): the floor; and
//            `node group-by`, the least a JavaScript reader does (count and sum by Type, a thread a file: NODE_GROUP_BY)
//   c        `C group-by`: the same in plain C (bench/cgroup.c, compiled with `cc -O2` when the machine has one), a
//            thread a file: what a native reader costs here
//   startup  `node -e 0` and `kprof --version`: what each costs before reading (the ratio past start-up is printed)
//   python   Python's csv module grouping by Type (count and sum of Duration(us)), both files
//   pandas   pandas.read_csv(usecols) + groupby, with the first Python that can import pandas: python3 on PATH,
//            else /usr/bin/python3 (Debian's `apt-get install python3-pandas` installs there)
//   duckdb   DuckDB's read_csv + GROUP BY on one thread per core: with DuckDB for Node when `@duckdb/node-api`
//            can be imported from the project (`npm install --no-save @duckdb/node-api`; not a dependency),
//            else with the first Python that can import duckdb
// and prints the median wall time, MB/s, rows/s and peak RSS of each, and the ratios the project aims for.
// The group-by contenders print their counts and sums per Type for each file; after the first run they are
// checked against `kprof diff --format json` (same groups, same row counts, sums within 1e-6), so that all of
// them count the same rows.
// Peak RSS comes from GNU time (/usr/bin/time -v) when present, else from the child's own report.
// The temporary folder is removed at the end.

import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { availableParallelism, cpus, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { generate } from './generate.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const REAL = resolve(ROOT, '../shared/data/real');
const KPROF = join(ROOT, 'bin/kprof.js');

function args() {
  const a = process.argv.slice(2);
  const opt = { sizeMb: 250, runs: 3, only: null, scale: false };
  for (let i = 0; i < a.length; i++) {
    if (a[i] === '--size-mb') opt.sizeMb = Number(a[++i]);
    else if (a[i] === '--runs') opt.runs = Number(a[++i]);
    else if (a[i] === '--only') opt.only = new Set(a[++i].split(','));
    else if (a[i] === '--scale') opt.scale = true;
    else {
      process.stderr.write(
        `bench: unknown argument ${a[i]}\nusage: node bench/run.mjs [--size-mb N] [--runs N] [--only kprof,node,startup,c,python,pandas,duckdb]\n       node bench/run.mjs --scale [--only comm,names,grid,steps,ranks,2gb]\n`,
      );
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

/**
 * Run a command; wall time from here, peak RSS from GNU time or from the child's last stderr line, CPU time
 * (user + system) from GNU time (null without it).
 */
function measure(cmd, argv) {
  const full = HAS_GNU_TIME ? ['/usr/bin/time', ['-v', cmd, ...argv]] : [cmd, argv];
  const t0 = process.hrtime.bigint();
  const r = spawnSync(full[0], full[1], { encoding: 'utf8', maxBuffer: 64 << 20, env: { ...process.env, NO_COLOR: '1' } });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0) throw new Error(`${cmd} ${argv.join(' ')} exited ${r.status}:\n${r.stderr}`);
  let rssKb = null;
  let cpuS = null;
  const user = /User time \(seconds\): ([\d.]+)/.exec(r.stderr);
  const sys = /System time \(seconds\): ([\d.]+)/.exec(r.stderr);
  if (user && sys) cpuS = Number(user[1]) + Number(sys[1]);
  const m = /Maximum resident set size \(kbytes\): (\d+)/.exec(r.stderr);
  if (m) rssKb = Number(m[1]);
  else {
    const self = /MAXRSS_KB (\d+)/.exec(r.stderr);
    if (self) rssKb = Number(self[1]);
  }
  return { ms, rssKb, cpuS, stdout: r.stdout };
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

// The least a JavaScript reader of these files can do (`node group-by`): what python csv does (count and sum of
// Duration(us) by Type), with one thread per file (this one reads the first, a worker the second, as kprof's read
// does): each line found with indexOf, its cells split up to the Duration column only (a quoted cell skipped whole),
// and nothing checked. It assumes no line break inside a quoted cell (kernel_details never has one). Its time against
// `node read only` is what reading and splitting the rows costs in JavaScript here, before any of kprof's work.
const NODE_GROUP_BY = `
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import { openSync, readSync, closeSync } from 'node:fs';
function group(file) {
  const fd = openSync(file, 'r');
  const CAP = 1 << 20;
  let buf = Buffer.allocUnsafe(2 * CAP);
  const groups = new Map();
  let carry = 0;
  let ti = -1;
  let di = -1;
  for (;;) {
    if (carry + CAP > buf.length) { const b = Buffer.allocUnsafe(2 * buf.length); buf.copy(b, 0, 0, carry); buf = b; }
    const n = readSync(fd, buf, carry, CAP, null);
    const end = carry + n;
    let p = 0;
    for (;;) {
      let nl = buf.indexOf(10, p);
      if (nl >= end) nl = -1;
      if (nl < 0 && n > 0) break;
      const e = nl < 0 ? end : nl;
      if (e > p) {
        if (ti < 0) {
          const h = buf.toString('utf8', p, e).replace(/^\\uFEFF/, '').replace(/\\r$/, '').split(',').map((c) => c.trim());
          ti = h.indexOf('Type');
          di = h.indexOf('Duration(us)');
        } else {
          // Cells up to the Duration column: a quoted cell is skipped to its closing quote.
          let s = p, ts = -1, te = -1, ds = -1, de = -1;
          for (let f = 0; f <= di && s <= e; f++) {
            let i = s;
            if (buf[i] === 34) {
              for (i++; i < e; i++) if (buf[i] === 34) { if (buf[i + 1] === 34) i++; else { i++; break; } }
            }
            while (i < e && buf[i] !== 44) i++;
            if (f === ti) { ts = s; te = i; }
            if (f === di) { ds = s; de = i < e || buf[e - 1] !== 13 ? i : i - 1; }
            s = i + 1;
          }
          if (de >= 0) {
            let t = ts >= 0 ? buf.latin1Slice(ts, te) : '';
            if (/[^\\x20-\\x7e]/.test(t)) t = buf.toString('utf8', ts, te);
            if (t.charCodeAt(0) === 34) t = t.slice(1, -1).replaceAll('""', '"');
            // A plain decimal read here; anything else by Number().
            let d = 0, scale = 1, dot = false, plain = de > ds;
            for (let i = ds; i < de && plain; i++) {
              const c = buf[i];
              if (c >= 48 && c <= 57) { d = d * 10 + (c - 48); if (dot) scale *= 10; }
              else if (c === 46 && !dot) dot = true;
              else plain = false;
            }
            d = plain ? d / scale : Number(buf.latin1Slice(ds, de));
            const g = groups.get(t);
            if (g === undefined) groups.set(t, [1, d]);
            else { g[0]++; g[1] += d; }
          }
        }
      }
      if (nl < 0) break;
      p = nl + 1;
    }
    if (n === 0) break;
    buf.copy(buf, 0, p, end);
    carry = end - p;
  }
  closeSync(fd);
  return Object.fromEntries(groups);
}
if (isMainThread) {
  const files = process.argv.slice(2);
  const others = files.slice(1).map((f) => new Promise((ok, bad) => {
    const w = new Worker(new URL(import.meta.url), { workerData: f });
    w.on('message', ok);
    w.on('error', bad);
  }));
  const out = [group(files[0]), ...(await Promise.all(others))];
  process.stdout.write(JSON.stringify(out) + '\\n');
  process.stderr.write('MAXRSS_KB ' + process.resourceUsage().maxRSS + '\\n');
} else parentPort.postMessage(group(workerData));
`;

const PY_CSV = `
import csv, json, sys, resource
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
print(json.dumps(out))
print('MAXRSS_KB', resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)
`;

// size counts every row (count would skip empty durations); a Duration column read as text (cells with a
// trailing TAB that the parser did not take as numbers) is stripped and converted.
const PY_PANDAS = `
import json, sys, resource
import pandas as pd
out = []
for path in sys.argv[1:]:
    df = pd.read_csv(path, usecols=['Type', 'Duration(us)'])
    if df['Duration(us)'].dtype == object:
        df['Duration(us)'] = pd.to_numeric(df['Duration(us)'].str.strip(), errors='coerce')
    g = df.groupby('Type', dropna=False)['Duration(us)'].agg(['size', 'sum'])
    out.append({str(t): [int(n), float(s)] for t, n, s in zip(g.index, g['size'], g['sum'])})
print(json.dumps(out))
print('MAXRSS_KB', resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)
`;

/**
 * DuckDB's query: one over both files, grouped by file and Type. Every cell is read as text (all_varchar: no
 * type sniffing to trip on a late odd cell), and Duration(us) is cast to DOUBLE after trimming a trailing TAB
 * or space, as some exports write one; count(*) counts every row.
 */
const DUCKDB_SQL = (files) => `
SELECT filename, "Type", count(*) AS n, sum(TRY_CAST(trim("Duration(us)", chr(9) || ' ') AS DOUBLE)) AS us
FROM read_csv([${files.map((f) => `'${f.replaceAll("'", "''")}'`).join(', ')}],
  header = true, delim = ',', quote = '"', escape = '"', all_varchar = true, filename = true)
GROUP BY ALL`;

// DuckDB for Node; argv: module URL of @duckdb/node-api, sql, threads, files.
const NODE_DUCKDB = `
const [url, sql, threads, ...files] = process.argv.slice(2);
const { DuckDBInstance } = await import(url);
const instance = await DuckDBInstance.create(':memory:', { threads });
const con = await instance.connect();
const reader = await con.runAndReadAll(sql);
const out = files.map(() => ({}));
for (const [f, t, n, us] of reader.getRows()) out[files.indexOf(f)][t ?? ''] = [Number(n), us ?? 0];
process.stdout.write(JSON.stringify(out) + '\\n');
process.stderr.write('MAXRSS_KB ' + process.resourceUsage().maxRSS + '\\n');
`;

// DuckDB's Python module, the same query; argv: sql, threads, files.
const PY_DUCKDB = `
import json, sys, resource
import duckdb
sql, threads, files = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
con = duckdb.connect(config={'threads': threads})
out = [{} for _ in files]
for f, t, n, us in con.sql(sql).fetchall():
    out[files.index(f)]['' if t is None else t] = [n, us or 0.0]
print(json.dumps(out))
print('MAXRSS_KB', resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)
`;

function has(cmd, argv) {
  try {
    return spawnSync(cmd, argv, { encoding: 'utf8' }).status === 0;
  } catch {
    return false;
  }
}

/** The first Python (python3 on PATH, then Debian's /usr/bin/python3) that can import `module`, or null. */
function pythonWith(module) {
  return ['python3', '/usr/bin/python3'].find((py) => has(py, ['-c', `import ${module}`])) ?? null;
}

/** `@duckdb/node-api` as the project resolves it, when it loads here: { url, version }, else null. */
function duckdbForNode() {
  let main;
  try {
    main = createRequire(join(ROOT, 'package.json')).resolve('@duckdb/node-api');
  } catch {
    return null;
  }
  const url = pathToFileURL(main).href;
  if (!has(process.execPath, ['--input-type=module', '-e', `await import(${JSON.stringify(url)})`])) return null;
  let version = '?';
  try {
    version = JSON.parse(readFileSync(join(dirname(main), '..', 'package.json'), 'utf8')).version;
  } catch {}
  return { url, version };
}

/** kprof's groups by type for each side: [{ type: [count, us] }, { … }], from `kprof diff --format json`. */
function kprofGroups(base, pr) {
  const r = spawnSync(process.execPath, [KPROF, 'diff', base, pr, '--by', 'type', '--format', 'json', '-q'], {
    encoding: 'utf8',
    maxBuffer: 64 << 20,
  });
  if (r.status !== 0) throw new Error(`kprof diff --format json exited ${r.status}:\n${r.stderr}`);
  const j = JSON.parse(r.stdout);
  const sides = [{}, {}];
  for (const row of j.rows) {
    if (row.base.count) sides[0][row.type ?? row.key] = [row.base.count, row.base.totalUs];
    if (row.pr.count) sides[1][row.type ?? row.key] = [row.pr.count, row.pr.totalUs];
  }
  return sides;
}

/** Compare a contender's groups with kprof's: null when they agree, else what differs (first few). */
function disagreement(ref, got) {
  const diffs = [];
  ref.forEach((want, side) => {
    const have = got[side] ?? {};
    for (const t of new Set([...Object.keys(want), ...Object.keys(have)])) {
      const [wn, wu] = want[t] ?? [0, 0];
      const [hn, hu] = have[t] ?? [0, 0];
      if (wn !== hn) diffs.push(`${side ? 'pr' : 'base'} ${t}: ${hn} rows, kprof ${wn}`);
      else if (Math.abs(hu - wu) > 0.01 + 1e-6 * Math.abs(wu)) diffs.push(`${side ? 'pr' : 'base'} ${t}: ${hu} us, kprof ${wu}`);
    }
  });
  return diffs.length ? `${diffs.length} differences: ${diffs.slice(0, 3).join('; ')}${diffs.length > 3 ? ' …' : ''}` : null;
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

async function main() {
  const opt = args();
  if (opt.scale) {
    const { runScale } = await import('./scale.mjs');
    runScale(opt.only);
    return;
  }
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
    const py = pythonWith('csv');
    const pandasPy = want('pandas') ? pythonWith('pandas') : null;
    const duckdbNode = want('duckdb') ? duckdbForNode() : null;
    const duckdbPy = want('duckdb') && !duckdbNode ? pythonWith('duckdb') : null;
    const cores = availableParallelism();
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
    // The Fusion rewrites section (on by default) against the same diff without it: a paired ratio, as the
    // contenders run in alternation.
    const hasRewrites = hasDiff && spawnSync(process.execPath, [KPROF, 'diff', '--help'], { encoding: 'utf8' }).stdout.includes('--rewrites');
    if (want('kprof') && hasRewrites) {
      contenders.push({
        name: 'kprof --rewrites off',
        run: () => measure(process.execPath, [KPROF, 'diff', base, pr, '--by', 'type', '--rewrites', 'off']),
      });
    }
    // kprof audit of the PR alone (the fusion catalogue against its kernel sequence): no slower than the diff.
    if (want('kprof') && has(process.execPath, [KPROF, 'audit', '--help'])) {
      contenders.push({ name: 'kprof audit (PR)', run: () => measure(process.execPath, [KPROF, 'audit', pr]) });
    }
    if (want('node')) contenders.push({ name: 'node read only', run: () => measure(process.execPath, ['-e', NODE_READ, base, pr]) });
    // What each process costs before it reads a byte: Node's start, and kprof's (Node's, then its CLI's load).
    if (want('startup')) {
      contenders.push({ name: 'node start-up', run: () => measure(process.execPath, ['-e', '0']) });
      contenders.push({ name: 'kprof start-up', run: () => measure(process.execPath, [KPROF, '--version']) });
    }
    const notes = [];
    const versions = [];
    const pyVersion = (p) => execFileSync(p, ['--version'], { encoding: 'utf8' }).trim();
    const writeScript = (name, text) => {
      const p = join(dir, name);
      writeFileSync(p, text);
      return p;
    };
    // `groups` marks the contenders whose stdout is JSON groups, checked against kprof's after the first run.
    // The least a JavaScript reader does (NODE_GROUP_BY), checked like the others.
    if (want('node')) {
      const script = writeScript('node_group.mjs', NODE_GROUP_BY);
      contenders.push({ name: 'node group-by', groups: true, run: () => measure(process.execPath, [script, base, pr]) });
    }
    // A native reader's floor (bench/cgroup.c, compiled here with the machine's C compiler), checked like the others.
    if (want('c')) {
      const exe = join(dir, 'cgroup');
      const cc = spawnSync('cc', ['-O2', '-o', exe, join(ROOT, 'bench/cgroup.c'), '-lpthread'], { encoding: 'utf8' });
      if (cc.status === 0) contenders.push({ name: 'C group-by', groups: true, run: () => measure(exe, [base, pr]) });
      else notes.push(`C group-by: not compiled (${cc.error ? 'no C compiler: cc not found' : `cc exited ${cc.status}`}), not measured`);
    }
    if (want('python')) {
      if (py) {
        contenders.push({ name: 'python csv', groups: true, run: () => measure(py, [writeScript('csv_group.py', PY_CSV), base, pr]) });
      } else notes.push('python csv: python3 not found, not measured');
    }
    if (want('pandas')) {
      if (pandasPy) {
        const v = execFileSync(pandasPy, ['-c', 'import pandas; print(pandas.__version__)'], { encoding: 'utf8' }).trim();
        versions.push(`pandas ${v} (${pyVersion(pandasPy)}, ${pandasPy})`);
        contenders.push({ name: 'pandas', groups: true, run: () => measure(pandasPy, [writeScript('pandas_group.py', PY_PANDAS), base, pr]) });
      } else {
        notes.push('pandas: not installed; `apt-get install python3-pandas` (Debian, for /usr/bin/python3) or `pip install pandas` to measure it');
      }
    }
    if (want('duckdb')) {
      if (duckdbNode) {
        versions.push(`DuckDB @duckdb/node-api ${duckdbNode.version}, ${cores} threads`);
        const script = writeScript('duckdb_group.mjs', NODE_DUCKDB);
        const argv = [script, duckdbNode.url, DUCKDB_SQL([base, pr]), String(cores), base, pr];
        contenders.push({ name: 'duckdb', groups: true, run: () => measure(process.execPath, argv) });
      } else if (duckdbPy) {
        const v = execFileSync(duckdbPy, ['-c', 'import duckdb; print(duckdb.__version__)'], { encoding: 'utf8' }).trim();
        versions.push(`DuckDB ${v} (Python module, ${duckdbPy}), ${cores} threads`);
        const script = writeScript('duckdb_group.py', PY_DUCKDB);
        const argv = [script, DUCKDB_SQL([base, pr]), String(cores), base, pr];
        contenders.push({ name: 'duckdb', groups: true, run: () => measure(duckdbPy, argv) });
      } else notes.push('duckdb: not installed; `npm install --no-save @duckdb/node-api` to measure it');
    }
    // kprof's own groups, untimed, to check the others against.
    const ref = hasDiff && contenders.some((c) => c.groups) ? kprofGroups(base, pr) : null;
    if (!ref && contenders.some((c) => c.groups)) notes.push('results not checked: this kprof has no diff command');

    const checks = [];
    const times = new Map(contenders.map((c) => [c.name, []]));
    const cpuTimes = new Map(contenders.map((c) => [c.name, []]));
    const rss = new Map(contenders.map((c) => [c.name, 0]));
    const peaks = new Map(contenders.map((c) => [c.name, []]));
    for (let i = 0; i < opt.runs; i++) {
      for (const c of contenders) {
        const r = c.run();
        times.get(c.name).push(r.ms);
        cpuTimes.get(c.name).push(r.cpuS);
        rss.set(c.name, Math.max(rss.get(c.name), r.rssKb ?? 0));
        peaks.get(c.name).push(r.rssKb);
        process.stdout.write(`  run ${i + 1}/${opt.runs} ${c.name}: ${(r.ms / 1000).toFixed(2)} s\n`);
        if (i === 0 && c.groups && ref) {
          let why;
          try {
            why = disagreement(ref, JSON.parse(r.stdout));
          } catch (e) {
            why = `unreadable output (${e.message})`;
          }
          const rowsIn = ref.reduce((a, g) => a + Object.values(g).reduce((b, [n]) => b + n, 0), 0);
          checks.push(
            why === null
              ? `${c.name}: same groups, row counts and sums as kprof (${rowsIn.toLocaleString('en-US')} rows)`
              : `${c.name}: DISAGREES with kprof, ${why}`,
          );
        }
      }
    }

    process.stdout.write(
      `\nmachine: ${cores} cores (${cpus()[0]?.model ?? 'unknown CPU'}), node ${process.version}` +
        `${py ? `, ${pyVersion(py)}` : ''}${versions.length ? `; ${versions.join('; ')}` : ''}\n` +
        `input: 2 files, ${(bytes / 1e6).toFixed(0)} MB, ${rows.toLocaleString('en-US')} rows in all (${src.note}); ` +
        `median of ${opt.runs} run${opt.runs === 1 ? '' : 's'}, taken in alternation\n` +
        `peak RSS: ${HAS_GNU_TIME ? 'GNU time -v' : "the child's own maxRSS"}\n\n`,
    );
    const head = `${pad('tool', 20)} ${pad('wall s', 8, true)} ${pad('MB/s', 8, true)} ${pad('rows/s', 12, true)} ${pad('peak RSS MB', 12, true)}`;
    process.stdout.write(`${head}\n${'-'.repeat(head.length)}\n`);
    const med = new Map();
    for (const c of contenders) {
      const ms = median(times.get(c.name));
      med.set(c.name, ms);
      const s = ms / 1000;
      const kb = rss.get(c.name);
      process.stdout.write(
        `${pad(c.name, 20)} ${pad(s.toFixed(2), 8, true)} ${pad((bytes / 1e6 / s).toFixed(0), 8, true)} ` +
          `${pad(Math.round(rows / s).toLocaleString('en-US'), 12, true)} ${pad(kb ? (kb / 1024).toFixed(0) : 'n/a', 12, true)}\n`,
      );
    }
    for (const n of notes) process.stdout.write(`${n}\n`);
    if (checks.length) process.stdout.write(`\nresults checked against kprof's (first run):\n${checks.map((c) => `  ${c}\n`).join('')}`);

    const k = med.get('kprof diff') ?? med.get('kprof summary ×2');
    if (k !== undefined) {
      process.stdout.write('\nratios (goal):\n');
      const line = (label, value, ok) => process.stdout.write(`  ${pad(label, 44)} ${pad(value.toFixed(2), 6, true)}×  ${ok ? 'ok' : 'MISSED'}\n`);
      if (med.has('python csv')) line('python csv / kprof (≥ 5)', med.get('python csv') / k, med.get('python csv') / k >= 5);
      if (med.has('pandas')) line('pandas / kprof (≥ 2)', med.get('pandas') / k, med.get('pandas') / k >= 2);
      if (med.has('duckdb')) line('duckdb / kprof (> 1)', med.get('duckdb') / k, med.get('duckdb') / k > 1);
      if (med.has('kprof audit (PR)'))
        line('kprof audit (PR) / kprof diff (≤ 1)', med.get('kprof audit (PR)') / k, med.get('kprof audit (PR)') / k <= 1);
      if (med.has('node read only')) {
        line('kprof / node read (≤ 2)', k / med.get('node read only'), k / med.get('node read only') <= 2);
        if (med.has('node start-up') && med.has('kprof start-up')) {
          // The same ratio past each one's start-up: the work of reading and diffing against the bare read.
          const read = med.get('node read only') - med.get('node start-up');
          const work = (k - med.get('kprof start-up')) / read;
          process.stdout.write(
            `  ${pad('the same past each start-up', 44)} ${read > 0 ? `${pad(work.toFixed(2), 6, true)}×` : '   n/a '}  ` +
              `(kprof − ${(med.get('kprof start-up') / 1000).toFixed(2)} s, node − ${(med.get('node start-up') / 1000).toFixed(2)} s` +
              `${read > 0 ? '' : ': the read took no longer than the start-up, within the noise'})\n`,
          );
        }
      }
      if (med.has('node group-by') && med.has('node read only')) {
        // The floor of a JavaScript reader (NODE_GROUP_BY), and kprof against it: what kprof adds to reading and
        // splitting the rows (no goal; the goal above is against the bare read).
        const g = med.get('node group-by');
        process.stdout.write(
          `  ${pad('node group-by / node read (JavaScript floor)', 44)} ${pad((g / med.get('node read only')).toFixed(2), 6, true)}×\n`,
        );
        process.stdout.write(`  ${pad('kprof / node group-by', 44)} ${pad((k / g).toFixed(2), 6, true)}×\n`);
      }
      if (med.has('C group-by') && med.has('node read only')) {
        // A native reader's floor: what the goal against the bare read leaves to any reader of these files here.
        const c = med.get('C group-by');
        process.stdout.write(`  ${pad('C group-by / node read (native floor)', 44)} ${pad((c / med.get('node read only')).toFixed(2), 6, true)}×\n`);
        if (med.has('node start-up'))
          process.stdout.write(
            `  ${pad("  with Node's start-up added", 44)} ${pad(((c + med.get('node start-up')) / med.get('node read only')).toFixed(2), 6, true)}×\n`,
          );
        process.stdout.write(`  ${pad('kprof / C group-by', 44)} ${pad((k / c).toFixed(2), 6, true)}×\n`);
      }
      if (med.has('kprof --rewrites off') && med.has('kprof diff')) {
        // Run i of each ran one after the other: the median of the ratios run by run, which the machine's drift
        // between runs moves less than the ratio of the medians.
        const paired = (m) => {
          const on = m.get('kprof diff');
          const off = m.get('kprof --rewrites off');
          const rs = on.map((x, i) => (x !== null && off[i] !== null && off[i] > 0 ? x / off[i] : null)).filter((x) => x !== null);
          return rs.length === on.length ? median(rs) : null;
        };
        const wall = paired(times);
        line('kprof diff / --rewrites off, wall (≤ 1.5)', wall, wall <= 1.5);
        const cpu = paired(cpuTimes);
        if (cpu !== null) line('kprof diff / --rewrites off, CPU (≤ 1.5)', cpu, cpu <= 1.5);
        const peak = (name) => {
          const ps = peaks.get(name);
          return ps.every((x) => x !== null) ? `${(median(ps) / 1024).toFixed(0)} MB` : 'n/a';
        };
        process.stdout.write(
          `  ${pad('peak RSS, median: rewrites on / off', 44)} ${peak('kprof diff')} / ${peak('kprof --rewrites off')} (goal: on ≤ 100 MB)\n`,
        );
      }
      const kr = rss.get('kprof diff') ?? rss.get('kprof summary ×2');
      if (kr)
        process.stdout.write(
          `  ${pad('kprof peak RSS MB (≤ 100)', 44)} ${pad((kr / 1024).toFixed(0), 6, true)}   ${kr / 1024 <= 100 ? 'ok' : 'MISSED'}\n`,
        );
    }
  } finally {
    cleanup();
  }
}

await main();
