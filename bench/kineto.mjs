#!/usr/bin/env node
// Benchmark of kprof on kineto traces: generate a kineto trace shaped like the real samples (data/real/hta-kineto:
// two CPU ops per kernel, ProfilerStep#N annotations, cuda_runtime launches and flow events next to their
// kernels, memcpy, long templated kernel names), then time, each in its own process, with its wall and CPU
// (user + system) time and peak RSS:
// - the command users run, `kprof summary TRACE` through bin/kprof.js (npm run build first; CPU and peak from
//   /usr/bin/time where it is there, else wall only);
// - kprof's streaming reader alone (per-name counts, as a summary does), with each engine;
// - Python's json.load of the same file (what HTA does);
// - the same trace gzipped (as kineto writes *.pt.trace.json.gz), and its unpacking alone, so that its cost is
//   seen apart.
//
//   node bench/kineto.mjs [--mb 1024] [--pairs 3] [--keep] [--no-python] [--no-gzip] [--file TRACE]
//
// --pairs N runs the command N times and the reader N times with each engine, alternately (the WebAssembly fast
// path, then KPROF_ENGINE=js, the JavaScript scanner alone), and gives medians and the ratio of each pair: on a
// shared machine compare ratios, not single timings (the load average is printed before and after). The file
// goes to a fresh temporary folder and is removed afterwards (unless --keep). Targets (README): at least
// 200 MB/s and a peak under 300 MB for `kprof summary` on a 1 GB trace.

import { spawnSync } from 'node:child_process';
import { createReadStream, createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { createGunzip, createGzip } from 'node:zlib';
import { existsSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const args = process.argv.slice(2);
const flag = (n) => args.includes(n);
const opt = (n, d) => {
  const i = args.indexOf(n);
  return i >= 0 ? args[i + 1] : d;
};
const root = join(dirname(fileURLToPath(import.meta.url)), '..');

if (args[0] === '--gunzip') {
  // Child: unpack the file and count its bytes (the cost of gzip alone).
  const t0 = process.hrtime.bigint();
  const c0 = process.cpuUsage();
  let bytes = 0;
  for await (const c of createReadStream(args[1], { highWaterMark: 1 << 20 }).pipe(createGunzip({ chunkSize: 1 << 20 }))) bytes += c.length;
  const cpu = process.cpuUsage(c0);
  console.log(JSON.stringify({ ms: Number(process.hrtime.bigint() - t0) / 1e6, cpuMs: (cpu.user + cpu.system) / 1000, bytes }));
  process.exit(0);
}

if (args[0] === '--read') {
  // Child: read the file with kprof's reader (bundled from src/ by the parent) and print the figures as JSON.
  const { readChromeTrace, traceChunks, setDefaultEngine } = await import(pathToFileURL(args[2]).href);
  const file = args[1];
  setDefaultEngine(args[3] ?? 'simd');
  const counts = new Map();
  const t0 = process.hrtime.bigint();
  const c0 = process.cpuUsage();
  const info = await readChromeTrace(file, traceChunks(file, undefined, { reuse: true }), {
    kernel(r) {
      const c = counts.get(r.name);
      if (c === undefined) counts.set(r.name, { n: 1, ticks: r.ticks });
      else {
        c.n++;
        c.ticks += r.ticks;
      }
    },
    warn() {},
  });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  const cpu = process.cpuUsage(c0);
  console.log(
    JSON.stringify({
      ms,
      cpuMs: (cpu.user + cpu.system) / 1000,
      kernels: info.kernels,
      names: counts.size,
      steps: info.steps.length,
      maxRssKb: process.resourceUsage().maxRSS,
    }),
  );
  process.exit(0);
}

/** Names like the real ones: a few short, most long and templated. */
function kernelNames(n) {
  const out = [];
  for (let i = 0; i < n; i++) {
    const t = `at::native::elementwise_kernel_${i}<128, 4, at::native::gpu_kernel_impl<at::native::BinaryFunctor<float, float, float, at::native::MulFunctor<float> > >(at::TensorIteratorBase&, at::native::BinaryFunctor<float, float, float, at::native::MulFunctor<float> > const&)::{lambda(int)#1}>`;
    out.push(i % 5 === 0 ? `ampere_sgemm_128x64_nn_${i}` : `void ${t}(int, ${t.slice(0, 60)}::{lambda(int)#1})`);
  }
  return out;
}

async function generate(path, targetBytes) {
  const out = createWriteStream(path, { highWaterMark: 1 << 20 });
  const write = (s) => (out.write(s) ? Promise.resolve() : new Promise((r) => out.once('drain', r)));
  const names = kernelNames(200);
  await write(
    '{"schemaVersion": 1, "distributedInfo": {"backend": "nccl", "rank": 3, "world_size": 8}, "deviceProperties": [{"id": 0, "name": "NVIDIA A100-SXM4-80GB"}], "traceEvents": [\n',
  );
  let bytes = 0;
  let ts = 1682725898079292;
  let corr = 6935929;
  let step = 1;
  let buf = '';
  let first = true;
  const push = (s) => {
    buf += (first ? '' : ',\n') + s;
    first = false;
  };
  while (bytes < targetBytes) {
    // One step: an annotation, CPU ops, then (as kineto writes) kernels with their launches and a few copies.
    const stepStart = ts;
    const perStep = 2000;
    push(
      `{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#${step}", "pid": 1234, "tid": 1234, "ts": ${stepStart}, "dur": ${perStep * 12}, "args": {"External id": ${corr}}}`,
    );
    for (let k = 0; k < perStep; k++) {
      const name = names[(k * 7) % names.length];
      const launch = ts + k * 12;
      // Two host ops per kernel (as in the real samples): one with its inputs' shapes and types, one without.
      push(
        `{"ph": "X", "cat": "cpu_op", "name": "aten::addmm", "pid": 1234, "tid": 1234, "ts": ${launch - 3}, "dur": 31, "args": {"External id": ${corr}, "Record function id": 0, "Ev Idx": ${2 * k}, "Input Dims": [[2048], [512, 1024], [1024, 2048], [], []], "Input type": ["float", "float", "float", "Scalar", "Scalar"], "Input Strides": [[1], [1024, 1], [1, 1024], [], []], "Concrete Inputs": ["", "", "", "1", "1"], "Fwd thread id": 0, "Sequence number": ${k}}}`,
      );
      push(
        `{"ph": "X", "cat": "cpu_op", "name": "autograd::engine::evaluate_function: MulBackward0", "pid": 1234, "tid": 1234, "ts": ${launch}, "dur": 9, "args": {"External id": ${corr}, "Sequence number": ${k}, "Fwd thread id": 0, "Record function id": 0, "Ev Idx": ${2 * k + 1}}}`,
      );
      if (k % 50 === 0) {
        push(
          `{"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy DtoD (Device -> Device)", "pid": 0, "tid": 7, "ts": ${launch + 30}, "dur": 2.5, "args": {"External id": ${corr}, "device": 0, "context": 1, "stream": 7, "correlation": ${corr}, "bytes": 1802240, "memory bandwidth (GB/s)": 199.7163120567376}}`,
        );
      } else {
        push(
          `{"ph": "X", "cat": "kernel", "name": ${JSON.stringify(name)}, "pid": 0, "tid": 7, "ts": ${launch + 30}, "dur": ${(k % 97) + 1.5}, "args": {"External id": ${corr}, "queued": 0, "device": 0, "context": 1, "stream": 7, "correlation": ${corr}, "registers per thread": 27, "shared memory": 0, "blocks per SM": 22.222221, "warps per SM": 177.77777, "grid": [2400, 1, 1], "block": [256, 1, 1], "est. achieved occupancy %": 100}}`,
        );
      }
      push(
        `{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1234, "tid": 1234, "ts": ${launch + 2}, "dur": 4, "args": {"External id": ${corr}, "cbid": 211, "correlation": ${corr}}}`,
      );
      push(`{"ph": "s", "id": ${corr}, "pid": 1234, "tid": 1234, "ts": ${launch + 2}, "cat": "ac2g", "name": "ac2g"}`);
      push(`{"ph": "f", "id": ${corr}, "pid": 0, "tid": 7, "ts": ${launch + 30}, "cat": "ac2g", "name": "ac2g", "bp": "e"}`);
      corr++;
      if (buf.length > 1 << 20) {
        bytes += Buffer.byteLength(buf);
        await write(buf);
        buf = '';
      }
    }
    ts += perStep * 12 + 100;
    step++;
  }
  await write(`${buf}\n], "traceName": "bench.pt.trace.json"}\n`);
  await new Promise((r) => out.end(r));
}

const mb = Number(opt('--mb', '1024'));
const given = opt('--file', null);
const dir = given ? null : mkdtempSync(join(tmpdir(), 'kprof-kineto-'));
const file = given ?? join(dir, 'bench.pt.trace.json');
try {
  if (!given) {
    process.stdout.write(`generating a ${mb} MB kineto trace … `);
    await generate(file, mb * 1e6);
  }
  const size = statSync(file).size;
  console.log(`${(size / 1e6).toFixed(0)} MB`);
  const load = () =>
    `load average ${loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')} (${cpus().length} cores)`;
  console.log(load());

  // The reader is not a kprof command yet: bundle it from src/ (as npm run build bundles the CLI).
  const work = mkdtempSync(join(tmpdir(), 'kprof-kineto-reader-'));
  const reader = join(work, 'reader.mjs');
  await build({
    stdin: {
      contents:
        "export * from './src/input/formats/trace/chromeTrace.ts'; export * from './src/input/bytes/chunks.ts'; export { setDefaultEngine } from './src/input/engine.ts';",
      resolveDir: root,
      loader: 'ts',
    },
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    outfile: reader,
    logLevel: 'error',
  });
  const child = (mode, path, ...rest) => {
    const k = spawnSync(process.execPath, [fileURLToPath(import.meta.url), mode, path, ...rest], { encoding: 'utf8' });
    if (k.status !== 0) throw new Error(`${mode} failed: ${k.stderr}`);
    return JSON.parse(k.stdout);
  };
  const mbps = (bytes, ms) => (bytes / 1e6 / (ms / 1000)).toFixed(0);
  const line = (label, r, bytes) =>
    `${label}: ${(r.ms / 1000).toFixed(2)} s, ${mbps(bytes, r.ms)} MB/s (CPU ${(r.cpuMs / 1000).toFixed(2)} s, ${mbps(bytes, r.cpuMs)} MB/s)` +
    (r.maxRssKb === undefined ? '' : `, peak RSS ${(r.maxRssKb / 1024).toFixed(0)} MB (${r.kernels} kernels, ${r.names} names, ${r.steps} steps)`);
  const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
  const pairs = Number(opt('--pairs', '1'));
  // The command: kprof summary through bin/, its output thrown away.
  const bin = join(root, 'bin', 'kprof.js');
  const gnuTime = existsSync('/usr/bin/time') ? '/usr/bin/time' : null;
  const command = () => {
    const argv = [process.execPath, bin, 'summary', file];
    const t0 = process.hrtime.bigint();
    const k = gnuTime
      ? spawnSync(gnuTime, ['-f', '%U %S %M', ...argv], { encoding: 'utf8', stdio: ['ignore', 'ignore', 'pipe'], maxBuffer: 1 << 26 })
      : spawnSync(argv[0], argv.slice(1), { encoding: 'utf8', stdio: ['ignore', 'ignore', 'pipe'], maxBuffer: 1 << 26 });
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    if (k.status !== 0) throw new Error(`kprof summary failed (exit ${k.status}): ${k.stderr}`);
    if (gnuTime === null) return { ms, cpuMs: Number.NaN };
    const [user, sys, rss] = k.stderr.trim().split('\n').pop().split(' ').map(Number);
    return { ms, cpuMs: (user + sys) * 1000, maxRssKb: rss };
  };
  const runs = { command: [], simd: [], js: [] };
  for (let i = 0; i < pairs; i++) {
    runs.command.push(command());
    for (const engine of ['simd', 'js']) runs[engine].push(child('--read', file, reader, engine));
  }
  const byWall = (xs) => [...xs].sort((a, b) => a.ms - b.ms)[xs.length >> 1];
  const c = byWall(runs.command);
  console.log(
    `kprof summary: ${(c.ms / 1000).toFixed(2)} s, ${mbps(size, c.ms)} MB/s` +
      (Number.isNaN(c.cpuMs)
        ? ' (no /usr/bin/time: CPU and peak not measured)'
        : ` (CPU ${(c.cpuMs / 1000).toFixed(2)} s, ${mbps(size, c.cpuMs)} MB/s), peak RSS ${(c.maxRssKb / 1024).toFixed(0)} MB`) +
      ` [median of ${pairs} by wall]`,
  );
  const r = byWall(runs.simd);
  console.log(line('kprof reader ', r, size));
  console.log(line('  (engine js)', byWall(runs.js), size));
  const ratio = median(runs.simd.map((x, i) => x.cpuMs / runs.js[i].cpuMs));
  console.log(`  CPU time, fast path / JavaScript scanner alone: ${ratio.toFixed(2)} (median of ${pairs} alternating pair${pairs === 1 ? '' : 's'})`);

  if (!flag('--no-gzip')) {
    const gz = join(work, 'trace.json.gz');
    await pipeline(createReadStream(file), createGzip({ level: 6 }), createWriteStream(gz));
    const gzSize = statSync(gz).size;
    const g = child('--read', gz, reader, 'simd');
    const u = child('--gunzip', gz);
    console.log(`${line('gzip trace   ', g, size)} [${(gzSize / 1e6).toFixed(0)} MB packed; MB/s of unpacked bytes]`);
    console.log(`${line('  gunzip alone', u, size)}`);
  }
  rmSync(work, { recursive: true, force: true });

  if (!flag('--no-python')) {
    const py = `import json,sys,time,resource\nt=time.time()\nc=time.process_time()\nd=json.load(open(sys.argv[1]))\nn=sum(1 for e in d['traceEvents'] if e.get('cat')=='kernel')\nprint(json.dumps({'s':time.time()-t,'cpu':time.process_time()-c,'kernels':n,'maxRssKb':resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}))`;
    const p = spawnSync('python3', ['-c', py, file], { encoding: 'utf8' });
    if (p.status !== 0) console.log(`python3 json.load: failed (${(p.stderr || p.error?.message || '').trim().split('\n').pop()})`);
    else {
      const q = JSON.parse(p.stdout);
      console.log(
        `python json  : ${q.s.toFixed(2)} s, ${(size / 1e6 / q.s).toFixed(0)} MB/s (CPU ${q.cpu.toFixed(2)} s, ${(size / 1e6 / q.cpu).toFixed(0)} MB/s), peak RSS ${(q.maxRssKb / 1024).toFixed(0)} MB (${q.kernels} kernels)`,
      );
    }
  }
  console.log(load());
} finally {
  if (dir !== null) {
    if (flag('--keep')) console.log(`kept ${file}`);
    else rmSync(dir, { recursive: true, force: true });
  }
}
