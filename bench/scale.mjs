// `npm run bench -- --scale` (node bench/run.mjs --scale [--only comm,names,grid,steps,ranks,2gb]): kprof at the sizes
// where a report, a gate or a reader would run out of stack, string length or memory. Each case generates its
// input into a temporary folder, runs kprof as a child process (writing large reports with -o), and prints the
// wall time, the peak RSS (GNU time -v, else the child's own) and the size of the report; a case that does not
// exit 0 (or 1 for a check that is meant to fail) is a failure of the benchmark. The folder is removed at the end.
//
//   comm   2 × 2,000,000 rows, every other a communication kernel with a call counter of its own, as a decode run
//          names them: summary and diff --by name against --by type (the counters fold: they should cost the same),
//          inspect, and --match on one call (memory grows with kernel groups, not with the raw names of the rows)
//   names  1,000,000 distinct kernel names: summary --by type (no name kept), --by name as a table and as CSV,
//          diff --by name as JSON
//   grid   4,000 names × 700 steps: summary --by name --format json of 300 steps (1.2 M per-step cells, ~0.2 GB of
//          JSON), and of all 700 (2.8 M cells), which is refused before it is written: past 256 MiB
//   steps  100,000 steps of 10 kernels: summary --format json, check with per-step rules, diff --per-step
//   ranks  64 ranks, each a copy of a real rank: summary and diff of the folders
//   2gb    one 2 GB kernel_details.csv replicated from a real export: summary, diff against itself (< 200 MB)

import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generate, generateComm, generateGrid } from './generate.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const KPROF = join(ROOT, 'bin/kprof.js');
const REAL = resolve(ROOT, '../shared/data/real/msinsight-st-level2');
const FIXTURE = join(ROOT, 'fixtures/formats/empty-steps/kernel_details.csv');

const HAS_GNU_TIME = spawnSync('/usr/bin/time', ['-v', 'true'], { encoding: 'utf8' }).stderr?.includes('Maximum resident set size') ?? false;

/** A real rank to replicate (the run has kernel tables for ranks 0 and 2), else a fixture. */
function source(i) {
  const p = join(REAL, `rank_${i % 2 === 0 ? 0 : 2}_ascend_pt/ASCEND_PROFILER_OUTPUT/kernel_details.csv`);
  return existsSync(p) ? p : FIXTURE;
}

/** Run kprof; { s, mb, code, stderr }. */
function kprof(args, okCodes = [0]) {
  const argv = [KPROF, ...args, '-q'];
  const cmd = HAS_GNU_TIME ? ['/usr/bin/time', ['-v', process.execPath, ...argv]] : [process.execPath, argv];
  const t0 = process.hrtime.bigint();
  const r = spawnSync(cmd[0], cmd[1], { encoding: 'utf8', maxBuffer: 256 << 20, env: { ...process.env, NO_COLOR: '1' } });
  const s = Number(process.hrtime.bigint() - t0) / 1e9;
  const m = /Maximum resident set size \(kbytes\): (\d+)/.exec(r.stderr ?? '');
  const stderr = (r.stderr ?? '')
    .split('\n')
    .filter((l) => !/^\s|^Command (exited|terminated)/.test(l) && l !== '')
    .join('\n');
  if (!okCodes.includes(r.status)) throw new Error(`kprof ${args.join(' ')} exited ${r.status ?? r.signal}:\n${stderr.slice(0, 2000)}`);
  return { s, mb: m ? Number(m[1]) / 1024 : null, code: r.status, stdout: r.stdout };
}

function size(p) {
  return existsSync(p) ? statSync(p).size : 0;
}

function fmtMb(bytes) {
  if (bytes < 1e6) return `${(bytes / 1e3).toFixed(0)} kB`;
  return bytes >= 1e9 ? `${(bytes / 1e9).toFixed(2)} GB` : `${(bytes / 1e6).toFixed(bytes >= 1e7 ? 0 : 1)} MB`;
}

export function runScale(only) {
  const dir = mkdtempSync(join(tmpdir(), 'kprof-scale-'));
  const results = [];
  const cleanup = () => rmSync(dir, { recursive: true, force: true });
  process.on('SIGINT', () => {
    cleanup();
    process.exit(130);
  });
  const want = (c) => only === null || only.has(c);
  const run = (name, input, args, out, okCodes) => {
    const r = kprof(args, okCodes);
    const report = out ? size(out) : Buffer.byteLength(r.stdout);
    results.push({ name, input, s: r.s, mb: r.mb, report });
    process.stdout.write(`  ${name}: ${r.s.toFixed(2)} s, ${r.mb === null ? '?' : r.mb.toFixed(0)} MB peak, report ${fmtMb(report)}\n`);
    if (out) rmSync(out, { force: true });
  };
  try {
    if (want('comm')) {
      const a = join(dir, 'comm.csv');
      const b = join(dir, 'comm-pr.csv');
      const g = generateComm(a, 2_000_000, 586);
      generateComm(b, 2_000_000, 271);
      const input = `2 M rows, 1 M raw communication names (per-call counters), ${fmtMb(g.bytes)} a side`;
      process.stdout.write(`${input}\n`);
      const out = join(dir, 'out');
      run('summary --by type', input, ['summary', a, '--by', 'type'], null);
      run('summary --by name', input, ['summary', a, '--by', 'name'], null);
      run('summary --by name --format json', input, ['summary', a, '--by', 'name', '--format', 'json', '-o', out], out);
      run('diff --by type', input, ['diff', a, b, '--by', 'type'], null);
      run('diff --by name', input, ['diff', a, b, '--by', 'name'], null);
      run('inspect', input, ['inspect', a], null);
      run("summary --by name --match '__586_1234_'", input, ['summary', a, '--by', 'name', '--match', '__586_1234_'], null);
      rmSync(a);
      rmSync(b);
    }
    if (want('names')) {
      const a = join(dir, 'names-a.csv');
      const b = join(dir, 'names-b.csv');
      const g = generateGrid(a, 1_000_000, 1);
      generateGrid(b, 1_000_010, 1);
      const input = `1 M names, ${fmtMb(g.bytes)}`;
      process.stdout.write(`${input}\n`);
      const out = join(dir, 'out');
      run('summary --by type', input, ['summary', a, '--by', 'type', '-o', out], out);
      run('summary --by name (table)', input, ['summary', a, '--by', 'name', '-o', out], out);
      // (A summary JSON of 1 M names is past the 256 MiB kprof reads back, and refused: CSV has every row.)
      run('summary --by name --format csv', input, ['summary', a, '--by', 'name', '--format', 'csv', '-o', out], out);
      run('diff --by name --format json', input, ['diff', a, b, '--by', 'name', '--format', 'json', '-o', out], out);
      rmSync(a);
      rmSync(b);
    }
    if (want('grid')) {
      const a = join(dir, 'grid.csv');
      const g = generateGrid(a, 4_000, 700);
      const input = `4,000 names × 700 steps, ${fmtMb(g.bytes)}, ${g.rows.toLocaleString('en-US')} rows`;
      process.stdout.write(`${input}\n`);
      const out = join(dir, 'out');
      // A summary JSON is written up to 256 MiB (what kprof reads back): 300 of the steps fit (1.2 M cells); all 700
      // are refused before anything is written (exit 2), which is measured too.
      run(
        'summary --by name --format json --steps 1-300',
        input,
        ['summary', a, '--by', 'name', '--format', 'json', '--steps', '1-300', '-o', out],
        out,
      );
      run('summary --by name --format json (refused: past 256 MiB)', input, ['summary', a, '--by', 'name', '--format', 'json', '-o', out], out, [2]);
      rmSync(a);
    }
    if (want('steps')) {
      const a = join(dir, 'steps.csv');
      const g = generateGrid(a, 10, 100_000);
      const input = `100,000 steps × 10 kernels, ${fmtMb(g.bytes)}`;
      process.stdout.write(`${input}\n`);
      const out = join(dir, 'out');
      const rules = join(dir, 'steps.rules.yaml');
      writeFileSync(
        rules,
        'version: 1\nrules:\n' +
          '  - rule: one Op0 per step\n    type: Op0\n    count: { per: step, exactly: 1 }\n' +
          '  - rule: Op1 time per step\n    type: Op1\n    time: { per: step, max: 10us }\n',
      );
      run('summary --format json', input, ['summary', a, '--format', 'json', '-o', out], out);
      run('check, 2 per-step rules (text)', input, ['check', a, '--rules', rules], null, [0, 1]);
      run('diff --per-step --by name', input, ['diff', a, a, '--per-step', '--by', 'name'], null);
      rmSync(a);
    }
    if (want('ranks')) {
      const base = join(dir, 'ranks-base');
      const pr = join(dir, 'ranks-pr');
      let bytes = 0;
      for (const [root, offset] of [
        [base, 0],
        [pr, 1],
      ]) {
        for (let r = 0; r < 64; r++) {
          const d = join(root, `rank_${r}_ascend_pt`, 'ASCEND_PROFILER_OUTPUT');
          mkdirSync(d, { recursive: true });
          const p = join(d, 'kernel_details.csv');
          bytes += generate(source(r + offset), p, 4).bytes;
        }
      }
      const input = `2 × 64 ranks, ${fmtMb(bytes)} in all`;
      process.stdout.write(`${input}\n`);
      run('summary (64 ranks)', input, ['summary', base], null);
      run('diff (64 ranks each side)', input, ['diff', base, pr], null);
      rmSync(base, { recursive: true });
      rmSync(pr, { recursive: true });
    }
    if (want('2gb')) {
      const a = join(dir, 'big', 'kernel_details.csv');
      mkdirSync(dirname(a));
      const g = generate(source(0), a, 2000);
      const input = `one file of ${fmtMb(g.bytes)}, ${g.rows.toLocaleString('en-US')} rows`;
      process.stdout.write(`${input}\n`);
      run('summary', input, ['summary', a], null);
      run('summary --by name --format json', input, ['summary', a, '--by', 'name', '--format', 'json', '-o', join(dir, 'out')], join(dir, 'out'));
      run('diff (the file against itself)', input, ['diff', a, a], null);
      rmSync(a);
    }
  } finally {
    cleanup();
  }
  process.stdout.write(
    `\npeak RSS: ${HAS_GNU_TIME ? 'GNU time -v' : 'not measured (no GNU time)'}\n\n| input | command | wall | peak RSS | report |\n| --- | --- | ---: | ---: | ---: |\n`,
  );
  let last = '';
  for (const r of results) {
    process.stdout.write(
      `| ${r.input === last ? '' : r.input} | ${r.name} | ${r.s.toFixed(2)} s | ${r.mb === null ? '?' : `${r.mb.toFixed(0)} MB`} | ${fmtMb(r.report)} |\n`,
    );
    last = r.input;
  }
  const big = results.filter((r) => r.input.startsWith('one file') && r.mb !== null);
  if (big.length > 0) {
    const worst = Math.max(...big.map((r) => r.mb));
    process.stdout.write(`\n2 GB file: peak RSS ${worst.toFixed(0)} MB (goal < 200 MB): ${worst < 200 ? 'ok' : 'MISSED'}\n`);
  }
}
