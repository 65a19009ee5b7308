// The CLI bundle is compiled with V8's code cache of it (src/cli/early.ts runCli, made by scripts/bundle.mjs):
// the cache of the bundle as built is taken, and a cache that does not fit the bundle (rebuilt or edited since,
// even to the same length), is damaged, or is not a file at all is not offered to V8, so the code that runs is
// always the bundle's and nothing hangs on it.

import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { codeCacheStamp, runCli } from '../src/cli/early.js';
import { ROOT } from './helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'kprof-code-cache-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Make the cache of `file` as the build does: run it, then stamp and write what V8 compiled. */
function makeCache(file: string): void {
  const body = runCli(file)!.createCachedData();
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
    expect(runCli(file)!.cachedDataRejected).toBeUndefined(); // no cache yet: compiled as usual
    makeCache(file);
    expect(runCli(file)!.cachedDataRejected).toBe(false);
    // The same length, other code: the old cache is not given to V8 (which would check only the length).
    bundle('cli.cjs', 'two');
    expect(runCli(file)!.cachedDataRejected).toBeUndefined();
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
    expect(runCli(file)!.cachedDataRejected).toBeUndefined();
    writeFileSync(`${file}.cache`, cache.subarray(0, cache.length - 1));
    expect(runCli(file)!.cachedDataRejected).toBeUndefined();
    rmSync(`${file}.cache`);
    mkdirSync(`${file}.cache`);
    expect(runCli(file)!.cachedDataRejected).toBeUndefined();
    rmSync(`${file}.cache`, { recursive: true });
    // A FIFO nobody writes to would block a read for ever: it is not read.
    if (spawnSync('mkfifo', [`${file}.cache`]).status === 0) expect(runCli(file)!.cachedDataRejected).toBeUndefined();
    expect(ran.kprofCacheTest).toEqual(Array(4 + (existsSync(`${file}.cache`) ? 1 : 0)).fill('okfunctionobject'));
  });

  it('is not used for a stack trace mapped to the sources: the bundle is required as a module then', () => {
    ran.kprofCacheTest = [];
    const file = join(dir, 'required.cjs');
    writeFileSync(file, 'globalThis.kprofCacheTest.push(typeof module.require);\n');
    expect(runCli(file, false)).toBeNull();
    expect(ran.kprofCacheTest).toEqual(['function']);
  });

  it('is made by the build for the bundle as built, and a Node of the same V8 takes it', () => {
    const cli = join(ROOT, 'dist/bundle/cli.cjs');
    expect(existsSync(`${cli}.cache`)).toBe(true);
    const probe = join(dir, 'probe.mjs');
    writeFileSync(
      probe,
      `import { runCli } from ${JSON.stringify(new URL('../dist/bundle/early.cjs', import.meta.url).href)};\n` +
        `process.argv = [process.argv[0], ${JSON.stringify(cli)}, '--version'];\n` +
        `const s = runCli(${JSON.stringify(cli)});\nprocess.stderr.write('rejected ' + s.cachedDataRejected + '\\n');\n`,
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
