// The CLI bundle and the read worker's are compiled with V8's code cache of each (src/cli/codeCache.ts runBundle,
// made by scripts/bundle.mjs): the cache of the bundle as built is taken, and a cache that does not fit the bundle
// (rebuilt or edited since, even to the same length), is another bundle's, is damaged, or is not a file at all is
// not offered to V8, so the code that runs is always the bundle's and nothing hangs on it.

import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Script } from 'node:vm';
import { codeCacheStamp, runBundle } from '../src/cli/codeCache.js';
import { workerScript } from '../src/input/read.js';
import { READ_WORKER_OPTIONS } from '../src/input/workers/prestart.js';
import { ROOT } from './helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'kprof-code-cache-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Make the cache of `file` as the build does: run it, then stamp and write what V8 compiled. */
function makeCache(file: string): void {
  const body = runBundle(file)!.createCachedData();
  writeFileSync(`${file}.cache`, Buffer.concat([codeCacheStamp(readFileSync(file), body), body]));
}

const ran = globalThis as { kprofCacheTest?: string[] };

/** A bundle that says which it is when it runs. */
function bundle(name: string, says: string): string {
  const file = join(dir, name);
  writeFileSync(file, `globalThis.kprofCacheTest.push('${says}' + (typeof require) + (typeof module.exports));\n`);
  return file;
}

describe('the code cache of the CLI bundle', () => {
  it('is used when it fits the bundle, and not once the bundle changed, even to the same length', () => {
    ran.kprofCacheTest = [];
    const file = bundle('cli.cjs', 'one');
    expect(runBundle(file)!.cachedDataRejected).toBeUndefined(); // no cache yet: compiled as usual
    makeCache(file);
    expect(runBundle(file)!.cachedDataRejected).toBe(false);
    // The same length, other code: the old cache is not given to V8 (which would check only the length).
    bundle('cli.cjs', 'two');
    expect(runBundle(file)!.cachedDataRejected).toBeUndefined();
    expect(ran.kprofCacheTest).toEqual(['onefunctionobject', 'onefunctionobject', 'onefunctionobject', 'twofunctionobject']);
  });

  it('is not used when its body is damaged, or when it is not a file', () => {
    ran.kprofCacheTest = [];
    const file = bundle('damaged.cjs', 'ok');
    makeCache(file);
    const cache = readFileSync(`${file}.cache`);
    const flipped = Buffer.from(cache);
    flipped[flipped.length - 8]! ^= 4;
    writeFileSync(`${file}.cache`, flipped);
    expect(runBundle(file)!.cachedDataRejected).toBeUndefined();
    writeFileSync(`${file}.cache`, cache.subarray(0, cache.length - 1));
    expect(runBundle(file)!.cachedDataRejected).toBeUndefined();
    rmSync(`${file}.cache`);
    mkdirSync(`${file}.cache`);
    expect(runBundle(file)!.cachedDataRejected).toBeUndefined();
    rmSync(`${file}.cache`, { recursive: true });
    // A FIFO nobody writes to would block a read for ever: it is not read.
    if (spawnSync('mkfifo', [`${file}.cache`]).status === 0) expect(runBundle(file)!.cachedDataRejected).toBeUndefined();
    expect(ran.kprofCacheTest).toEqual(Array(4 + (existsSync(`${file}.cache`) ? 1 : 0)).fill('okfunctionobject'));
  });

  it('is not used for a stack trace mapped to the sources: the bundle is required as a module then', () => {
    ran.kprofCacheTest = [];
    const file = join(dir, 'required.cjs');
    writeFileSync(file, 'globalThis.kprofCacheTest.push(typeof module.require);\n');
    expect(runBundle(file, false)).toBeNull();
    expect(ran.kprofCacheTest).toEqual(['function']);
  });

  it('is made by the build for the bundle as built, and a Node of the same V8 takes it', () => {
    const cli = join(ROOT, 'dist/bundle/cli.cjs');
    expect(existsSync(`${cli}.cache`)).toBe(true);
    const probe = join(dir, 'probe.mjs');
    writeFileSync(
      probe,
      `import { runBundle } from ${JSON.stringify(new URL('../dist/bundle/early.cjs', import.meta.url).href)};\n` +
        `process.argv = [process.argv[0], ${JSON.stringify(cli)}, '--version'];\n` +
        `const s = runBundle(${JSON.stringify(cli)});\nprocess.stderr.write('rejected ' + s.cachedDataRejected + '\\n');\n`,
    );
    const r = spawnSync(process.execPath, [probe], { cwd: ROOT, encoding: 'utf8' });
    expect(r.stdout).toMatch(/^\d+\.\d+\.\d+/);
    // The build ran on this Node (CI's first run): the cache is taken. Under another Node (CI runs the tests again on
    // Node 22 and 24 with the same build) it is not offered, and the bundle is compiled as usual.
    const stamp = readFileSync(`${cli}.cache`).subarray(0, 300).toString('latin1').split('\n')[0]!;
    expect(stamp).toMatch(/^kprof code cache v8 \S+ bundle [0-9a-f]{64} body [0-9a-f]{64}$/);
    expect(r.stderr).toBe(stamp.startsWith(`kprof code cache v8 ${process.versions.v8} `) ? 'rejected false\n' : 'rejected undefined\n');
  });
});

describe('the code cache of the read worker bundle', () => {
  const built = join(ROOT, 'dist/bundle/workers');

  /**
   * Start the worker's script (readWorkerStart.cjs in `folder`) as the reader does, in a thread or (with `nodeArgs`)
   * in a process of its own; what it compiled: each script's cachedDataRejected, and 'required' when the worker's
   * bundle was required as a module.
   */
  // In a process of its own: V8 takes a cache only under the flags it was made with, and a test run earlier in this
  // process may have set one (a test's own, or --expose-gc while util/heap.ts gets its collection).
  async function started(folder: string, nodeArgs: string[] = []): Promise<string[]> {
    const probe = `const vm = require('node:vm');
const seen = [];
vm.Script = class extends vm.Script { constructor(s, o) { super(s, o); seen.push(String(this.cachedDataRejected)); } };
require(${JSON.stringify(join(folder, 'readWorkerStart.cjs'))});
if (require.cache[${JSON.stringify(join(folder, 'readWorker.cjs'))}] !== undefined) seen.push('required');
require('node:worker_threads').parentPort.postMessage(seen);
`;
    const main = `const { Worker } = require('node:worker_threads');
const w = new Worker(${JSON.stringify(probe)}, { eval: true, ...${JSON.stringify(READ_WORKER_OPTIONS)} });
w.on('message', (m) => { process.stdout.write(JSON.stringify(m)); void w.terminate(); });
`;
    const r = spawnSync(process.execPath, [...nodeArgs, '-e', main], { encoding: 'utf8' });
    expect(r.stderr).toBe('');
    return JSON.parse(r.stdout) as string[];
  }

  /** A copy of the built worker's files in a folder of its own, for `edit` to change. */
  function copyOfWorker(name: string): string {
    const folder = join(dir, name);
    mkdirSync(folder);
    for (const f of ['readWorkerStart.cjs', 'readWorker.cjs', 'readWorker.cjs.cache']) copyFileSync(join(built, f), join(folder, f));
    return folder;
  }

  it('is made by the build, with the functions a read ran, and the worker script the reader starts takes it', async () => {
    expect(workerScript()?.href).toBe(new URL('../dist/bundle/workers/readWorkerStart.cjs', import.meta.url).href);
    const cache = readFileSync(join(built, 'readWorker.cjs.cache'));
    const stamp = cache.subarray(0, 300).toString('latin1').split('\n')[0]!;
    expect(stamp).toMatch(/^kprof code cache v8 \S+ bundle [0-9a-f]{64} body [0-9a-f]{64}$/);
    // Under another Node (CI runs the tests again with the same build) the cache is not offered.
    const ours = stamp.startsWith(`kprof code cache v8 ${process.versions.v8} `);
    expect(await started(built)).toEqual([ours ? 'false' : 'undefined']);
    // The build ran a read (and the Fusion rewrites section) in the worker before it made the cache: the functions
    // that compiled are in it. A cache of the bundle only compiled (or loaded: little more) is much smaller.
    const source = readFileSync(join(built, 'readWorker.cjs'), 'utf8');
    const compiled = new Script(`(function (exports, require, module, __filename, __dirname) { ${source}\n})`).createCachedData();
    expect(cache.length - stamp.length).toBeGreaterThan(1.3 * compiled.length);
  });

  it("is not used when the worker's bundle changed (to the same length), or when it is another bundle's or damaged", async () => {
    const stale = copyOfWorker('stale');
    const bundleFile = join(stale, 'readWorker.cjs');
    const text = readFileSync(bundleFile, 'latin1');
    expect(text).toContain('\n"use strict";');
    writeFileSync(bundleFile, text.replace('\n"use strict";', "\n'use strict';"), 'latin1');
    expect(await started(stale)).toEqual(['undefined']);
    const foreign = copyOfWorker('foreign');
    copyFileSync(join(ROOT, 'dist/bundle/cli.cjs.cache'), join(foreign, 'readWorker.cjs.cache'));
    expect(await started(foreign)).toEqual(['undefined']);
    const damaged = copyOfWorker('damaged-worker');
    const flipped = readFileSync(join(damaged, 'readWorker.cjs.cache'));
    flipped[flipped.length - 8]! ^= 4;
    writeFileSync(join(damaged, 'readWorker.cjs.cache'), flipped);
    expect(await started(damaged)).toEqual(['undefined']);
  });

  it('is not used for a stack trace mapped to the sources: the bundle is required as a module then', async () => {
    expect(await started(built, ['--enable-source-maps'])).toEqual(['required']);
  });
});
