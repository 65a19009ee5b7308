// The SQLite export reader against the sqlite3 command-line tool, on a generated db of real shape.
//
//   node bench/sqlite.mjs [--kernels 1000000] [--runs 3] [--keep DB]   (it bundles the readers from src/)
//   (--keep: generate into DB once and keep it, for repeated runs)
//
// It writes a torch_npu-style db into a temporary folder by replicating the step of a real export
// (../shared/data/real/msinsight-torchnpu-db level1 rank0, else fixtures/sqlite/schema-1.0.0.db): its TASK rows
// (kernels and the other tasks, 1.9 per kernel in the sample), COMPUTE_TASK_INFO, COMMUNICATION_OP and the
// STRING_IDS they use, step after step until it holds --kernels compute kernels, with TaskIndex as in the
// sample. Then it runs, in alternation, as child processes:
//   reader   kprof's group reader (src/input/formats/sqlite/groups.ts), adding its cells per (type, core) in a
//            Map: what a summary --by type+core reads
//   kernels  kprof's kernel reader (reader.ts): one record per kernel, in file order, added up the same way (what
//            an ordered view reads)
//   kprof    `kprof summary DB --by type+core --format json` (bin/kprof.js, the built bundle): the whole command,
//            start-up, reading and the report
//   sqlite3  /usr/bin/sqlite3 -readonly running the equivalent GROUP BY (the same join, the strings joined in,
//            communication added) on the same file (skipped, with a note, where there is none:
//            `apt-get install -y sqlite3`)
// and prints the median wall time, CPU time and peak RSS (GNU time) and rows/s of each, checks that both found the same
// counts and sums, and says the ratio against the goal (reader within 2× of sqlite3, peak under 150 MB).
// Last, the cost of the private view a WAL-mode db is read through: a hard link, and the copy made when a link
// cannot be (another file system). The temporary folder is removed at the end.

import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, linkSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const REAL = resolve(ROOT, '../shared/data/real/msinsight-torchnpu-db/level1/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_0.db');
const SOURCE = existsSync(REAL) ? REAL : join(ROOT, 'fixtures/sqlite/schema-1.0.0.db');
const SQLITE3 = '/usr/bin/sqlite3';
const KPROF = join(ROOT, 'bin/kprof.js');

const GROUP_BY_SQL =
  'SELECT o.value, c.value, count(*), sum(t.endNs - t.startNs) FROM TASK t JOIN COMPUTE_TASK_INFO ci ON ci.globalTaskId = t.globalTaskId ' +
  'LEFT JOIN STRING_IDS o ON o.id = ci.opType LEFT JOIN STRING_IDS c ON c.id = ci.taskType GROUP BY ci.opType, ci.taskType ' +
  "UNION ALL SELECT o.value, 'HCCL', count(*), sum(m.endNs - m.startNs) FROM COMMUNICATION_OP m LEFT JOIN STRING_IDS o ON o.id = m.opType GROUP BY m.opType";

function args() {
  const a = process.argv.slice(2);
  const opt = { kernels: 1_000_000, runs: 3, child: null, mode: 'groups', keep: null };
  for (let i = 0; i < a.length; i++) {
    if (a[i] === '--kernels') opt.kernels = Number(a[++i]);
    else if (a[i] === '--runs') opt.runs = Number(a[++i]);
    else if (a[i] === '--child') [opt.child, opt.mode, opt.bundle] = [a[++i], a[++i], a[++i]];
    else if (a[i] === '--keep') opt.keep = a[++i];
    else {
      process.stderr.write(`bench: unknown argument ${a[i]}\nusage: node bench/sqlite.mjs [--kernels N] [--runs N] [--keep DB]\n`);
      process.exit(2);
    }
  }
  return opt;
}

/**
 * The reader, as a child: per (type, core) count and ns, printed as JSON. `groups`: readDbGroups (what summary,
 * diff and check read); `kernels`: readDbExport, one record per kernel in file order (what an ordered view reads).
 */
async function child(db, mode, bundle) {
  const { readDbExport, readDbGroups } = await import(pathToFileURL(bundle).href);
  // The bundle lies in a temporary folder: the library is loaded from the project, as kprof loads it.
  const Database = createRequire(import.meta.url)('better-sqlite3');
  const library = (p) => new Database(p, { readonly: true, fileMustExist: true });
  const groups = new Map();
  const add = (type, core, count, ticks) => {
    const key = `${type}\u0000${core}`;
    let g = groups.get(key);
    if (g === undefined) groups.set(key, (g = { count: 0, ticks: 0 }));
    g.count += count;
    g.ticks += ticks;
  };
  const t0 = performance.now();
  const info =
    mode === 'kernels'
      ? readDbExport(db, { kernel: (k) => add(k.type, k.core, 1, k.ticks), skip() {} }, { library })
      : readDbGroups(db, { group: (g) => add(g.type, g.core, g.count, g.ticks), skip() {} }, { library });
  const ms = performance.now() - t0;
  const rows = [...groups].map(([k, g]) => [...k.split('\u0000'), g.count, g.ticks / 10]);
  process.stdout.write(`${JSON.stringify({ ms, rows, kernels: info.compute + info.communication, rss: process.memoryUsage().rss })}\n`);
}

function generate(out, kernels) {
  const Database = createRequire(import.meta.url)('better-sqlite3');
  // A private copy of the source, in rollback mode: the sample is in WAL mode, and is not to be written beside.
  const copy = join(dirname(out), 'source.db');
  copyFileSync(SOURCE, copy);
  const bytes = readFileSync(copy);
  bytes[18] = bytes[19] = 1;
  writeFileSync(copy, bytes);
  const src = new Database(copy, { readonly: true, fileMustExist: true });
  const db = new Database(out);
  db.pragma('journal_mode = OFF');
  db.pragma('synchronous = OFF');
  for (const t of ['TASK', 'COMPUTE_TASK_INFO', 'COMMUNICATION_OP', 'STRING_IDS', 'STEP_TIME', 'RANK_DEVICE_MAP', 'META_DATA']) {
    const sql = src.prepare("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?").pluck().get(t);
    if (sql) db.exec(sql);
  }
  db.exec('CREATE INDEX TaskIndex ON TASK (startNs, globalTaskId)');
  const safe = (s) => s.safeIntegers(true);
  const tasks = safe(src.prepare('SELECT * FROM TASK ORDER BY rowid')).all();
  const infos = safe(src.prepare('SELECT * FROM COMPUTE_TASK_INFO')).all();
  const comms = safe(src.prepare('SELECT * FROM COMMUNICATION_OP')).all();
  const byTask = new Map(infos.map((r) => [r.globalTaskId, r]));
  const perStep = infos.length;
  // biome-ignore lint/complexity/useMathMinMax: BigInt times (Math.min takes numbers only)
  const t0 = tasks.reduce((m, r) => (r.startNs < m ? r.startNs : m), tasks[0].startNs);
  // biome-ignore lint/complexity/useMathMinMax: BigInt times (Math.max takes numbers only)
  const t1 = tasks.reduce((m, r) => (r.endNs > m ? r.endNs : m), tasks[0].endNs);
  const span = t1 - t0 + 1000n;
  const insert = (table, row) =>
    db.prepare(
      `INSERT INTO ${table} (${Object.keys(row).join(', ')}) VALUES (${Object.keys(row)
        .map((k) => `@${k}`)
        .join(', ')})`,
    );
  const taskIns = insert('TASK', tasks[0]);
  const infoIns = insert('COMPUTE_TASK_INFO', infos[0]);
  const commIns = comms.length ? insert('COMMUNICATION_OP', comms[0]) : null;
  db.exec(`ATTACH '${copy.replace(/'/g, "''")}' AS src`);
  db.exec('INSERT INTO STRING_IDS SELECT * FROM src.STRING_IDS');
  for (const t of ['STEP_TIME', 'RANK_DEVICE_MAP', 'META_DATA'])
    if (src.prepare('SELECT 1 FROM sqlite_master WHERE name = ?').get(t)) db.exec(`INSERT INTO ${t} SELECT * FROM src.${t}`);
  db.exec('DETACH src');
  let id = 0n;
  let opId = 0n;
  let made = 0;
  const step = db.transaction((shift) => {
    const ids = new Map();
    for (const r of tasks) {
      const g = id++;
      ids.set(r.globalTaskId, g);
      taskIns.run({ ...r, startNs: r.startNs + shift, endNs: r.endNs + shift, globalTaskId: g });
      const info = byTask.get(r.globalTaskId);
      if (info) infoIns.run({ ...info, globalTaskId: g });
    }
    if (commIns) for (const c of comms) commIns.run({ ...c, startNs: c.startNs + shift, endNs: c.endNs + shift, opId: opId++ });
  });
  for (let s = 0n; made < kernels; s++) {
    step(s * span);
    made += perStep;
  }
  db.close();
  src.close();
  rmSync(copy);
  return made;
}

const HAS_GNU_TIME = spawnSync('/usr/bin/time', ['-v', 'true'], { encoding: 'utf8' }).stderr?.includes('Maximum resident set size') ?? false;

function timed(cmd, argv) {
  const [c, a] = HAS_GNU_TIME ? ['/usr/bin/time', ['-v', cmd, ...argv]] : [cmd, argv];
  const t0 = performance.now();
  const r = spawnSync(c, a, { encoding: 'utf8', maxBuffer: 1 << 28 });
  const ms = performance.now() - t0;
  if (r.status !== 0) throw new Error(`${cmd} failed (${r.status}): ${r.stderr.slice(-2000)}`);
  const m = /Maximum resident set size \(kbytes\): (\d+)/.exec(r.stderr);
  const user = /User time \(seconds\): ([\d.]+)/.exec(r.stderr);
  const sys = /System time \(seconds\): ([\d.]+)/.exec(r.stderr);
  const cpuMs = user && sys ? (Number(user[1]) + Number(sys[1])) * 1000 : null;
  return { ms, cpuMs, stdout: r.stdout, rssMb: m ? Number(m[1]) / 1024 : null };
}

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

function canonical(rows) {
  return rows
    .map((r) => `${r[0]}|${r[1]}|${r[2]}|${r[3]}`)
    .sort()
    .join('\n');
}

async function main() {
  const opt = args();
  if (opt.child) return child(opt.child, opt.mode, opt.bundle);
  const dir = mkdtempSync(join(tmpdir(), 'kprof-bench-sqlite-'));
  try {
    // The two readers from src/, bundled as the tests bundle them (the project builds no dist/ tree).
    const bundle = join(dir, 'sqlite-readers.mjs');
    await (await import('esbuild')).build({
      stdin: {
        contents: "export { readDbExport } from './reader.ts'; export { readDbGroups } from './groups.ts';",
        resolveDir: join(ROOT, 'src/input/formats/sqlite'),
        loader: 'ts',
      },
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      outfile: bundle,
      banner: { js: "import { createRequire as __r } from 'node:module'; const require = __r(import.meta.url);" },
      logLevel: 'warning',
    });
    const db = opt.keep ?? join(dir, 'ascend_pytorch_profiler_0.db');
    let t = performance.now();
    if (opt.keep === null || !existsSync(opt.keep)) {
      const made = generate(db, opt.kernels);
      console.log(
        `generated ${made.toLocaleString('en')} kernels from ${SOURCE.replace(`${ROOT}/`, '')} in ${((performance.now() - t) / 1000).toFixed(1)} s`,
      );
    }
    const mb = statSync(db).size / 1e6;
    const runs = { reader: [], kernels: [], kprof: [], sqlite3: [] };
    let kprofRows = null;
    let readerRows = null;
    let kernelRows = null;
    let sqliteRows = null;
    for (let i = 0; i < opt.runs; i++) {
      for (const mode of ['groups', 'kernels']) {
        const r = timed(process.execPath, [fileURLToPath(import.meta.url), '--child', db, mode, bundle]);
        const out = JSON.parse(r.stdout);
        if (mode === 'groups') readerRows = out.rows;
        else kernelRows = out.rows;
        runs[mode === 'groups' ? 'reader' : 'kernels'].push({
          ms: r.ms,
          cpuMs: r.cpuMs,
          rssMb: r.rssMb ?? out.rss / 2 ** 20,
          rows: out.kernels,
          inner: out.ms,
        });
      }
      {
        const k = timed(process.execPath, [KPROF, 'summary', db, '--by', 'type+core', '--format', 'json', '-q']);
        const j = JSON.parse(k.stdout);
        kprofRows = j.groups.map((g) => [g.type, g.core, g.count, Math.round(g.totalUs * 1000)]);
        runs.kprof.push({ ms: k.ms, cpuMs: k.cpuMs, rssMb: k.rssMb, rows: j.totals.count });
      }
      if (existsSync(SQLITE3)) {
        const s = timed(SQLITE3, ['-readonly', '-separator', '\t', db, GROUP_BY_SQL]);
        sqliteRows = s.stdout
          .trim()
          .split('\n')
          .map((l) => l.split('\t'))
          .map(([a, b, c, d]) => [a, b, Number(c), Number(d)]);
        runs.sqlite3.push({ ms: s.ms, cpuMs: s.cpuMs, rssMb: s.rssMb, rows: sqliteRows.reduce((n, r) => n + r[2], 0) });
      }
    }
    for (const [name, rs] of Object.entries(runs)) {
      if (rs.length === 0) {
        console.log(`${name.padEnd(8)} not run (${SQLITE3} not found: apt-get install sqlite3)`);
        continue;
      }
      const ms = median(rs.map((r) => r.ms));
      const rss = median(rs.map((r) => r.rssMb ?? 0));
      const inner = rs[0].inner === undefined ? '' : `, of which reading ${(median(rs.map((r) => r.inner)) / 1000).toFixed(2)} s`;
      const cpu = rs[0].cpuMs === null ? '' : `, CPU ${(median(rs.map((r) => r.cpuMs)) / 1000).toFixed(2)} s`;
      console.log(
        `${name.padEnd(8)} ${(ms / 1000).toFixed(2)} s${inner}${cpu}  ${Math.round(rs[0].rows / (ms / 1000)).toLocaleString('en')} rows/s  peak RSS ${rss.toFixed(0)} MB  (median of ${rs.length}, ${rs[0].rows.toLocaleString('en')} kernels)`,
      );
    }
    if (sqliteRows) {
      const same =
        canonical(readerRows) === canonical(sqliteRows) &&
        canonical(kernelRows) === canonical(sqliteRows) &&
        canonical(kprofRows) === canonical(sqliteRows);
      console.log(`same groups, counts and sums as sqlite3: ${same ? 'yes' : 'NO'}`);
      if (!same) process.exitCode = 1;
      const ratio = median(runs.reader.map((r) => r.ms)) / median(runs.sqlite3.map((r) => r.ms));
      const cpuRatio = runs.reader[0].cpuMs === null ? null : median(runs.reader.map((r) => r.cpuMs)) / median(runs.sqlite3.map((r) => r.cpuMs));
      const rss = median(runs.reader.map((r) => r.rssMb));
      // On a loaded machine wall time is mostly waiting: CPU time is then the fairer ratio.
      console.log(
        `reader / sqlite3: ${ratio.toFixed(2)}× wall${cpuRatio === null ? '' : `, ${cpuRatio.toFixed(2)}× CPU`} (goal ≤ 2×); reader peak ${rss.toFixed(0)} MB (goal < 150 MB)`,
      );
      const kRatio = median(runs.kprof.map((r) => r.ms)) / median(runs.sqlite3.map((r) => r.ms));
      const kCpu = runs.kprof[0].cpuMs === null ? null : median(runs.kprof.map((r) => r.cpuMs)) / median(runs.sqlite3.map((r) => r.cpuMs));
      const kRss = median(runs.kprof.map((r) => r.rssMb ?? 0));
      console.log(
        `kprof summary / sqlite3: ${kRatio.toFixed(2)}× wall${kCpu === null ? '' : `, ${kCpu.toFixed(2)}× CPU`} (goal ≤ 2×); kprof peak ${kRss.toFixed(0)} MB (goal < 150 MB)`,
      );
    } else {
      console.log(`kprof / sqlite3: not compared (${SQLITE3} not found: apt-get install -y sqlite3)`);
    }
    // The private view of a WAL-mode db.
    t = performance.now();
    linkSync(db, join(dir, 'link.db'));
    const linkMs = performance.now() - t;
    t = performance.now();
    copyFileSync(db, join(dir, 'copy.db'));
    const copyMs = performance.now() - t;
    console.log(
      `WAL-mode private view of this ${mb.toFixed(0)} MB db: hard link ${linkMs.toFixed(1)} ms; copy ${copyMs.toFixed(0)} ms (${(mb / (copyMs / 1000)).toFixed(0)} MB/s)`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
