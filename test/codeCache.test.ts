// The CLI bundle is compiled with V8's code cache of it (src/cli/early.ts runCli, made by scripts/bundle.mjs):
// the cache of the bundle as built is taken, and a cache that does not fit the bundle (rebuilt or edited since,
// even to the same length) is not, so the code that runs is always the bundle's.

import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { codeCacheStamp, runCli } from '../src/cli/early.js';
import { ROOT } from './helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'kprof-code-cache-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Make the cache of `file` as the build does: run it, then stamp and write what V8 compiled. */
function makeCache(file: string): void {
  const script = runCli(file)!;
  const st = statSync(file);
  writeFileSync(`${file}.cache`, Buffer.concat([codeCacheStamp(st.size, st.mtimeMs), script.createCachedData()]));
}

describe('the code cache of the CLI bundle', () => {
  const ran = globalThis as { kprofCacheTest?: string[] };

  it('is used when it fits the bundle, and not once the bundle changed, even to the same length', () => {
    ran.kprofCacheTest = [];
    const file = join(dir, 'cli.cjs');
    writeFileSync(file, "globalThis.kprofCacheTest.push('one' + (typeof require) + (typeof module.exports));\n");
    expect(runCli(file)!.cachedDataRejected).toBeUndefined(); // no cache yet: compiled as usual
    makeCache(file);
    const cached = runCli(file)!;
    expect(cached.cachedDataRejected).toBe(false);
    // The same length, other code, a later time: the old cache is not given to V8 (which checks only the length).
    writeFileSync(file, "globalThis.kprofCacheTest.push('two' + (typeof require) + (typeof module.exports));\n");
    utimesSync(file, new Date(2_000_000_000_000), new Date(2_000_000_000_000));
    expect(runCli(file)!.cachedDataRejected).toBeUndefined();
    expect(ran.kprofCacheTest).toEqual(['onefunctionobject', 'onefunctionobject', 'onefunctionobject', 'twofunctionobject']);
  });

  it('is not used for a stack trace mapped to the sources: the bundle is required as a module then', () => {
    ran.kprofCacheTest = [];
    const file = join(dir, 'required.cjs');
    writeFileSync(file, 'globalThis.kprofCacheTest.push(typeof module.require);\n');
    expect(runCli(file, false)).toBeNull();
    expect(ran.kprofCacheTest).toEqual(['function']);
  });

  it('is made by the build for the bundle as built, and a Node of the same V8 takes it', () => {
    const bundle = join(ROOT, 'dist/bundle/cli.cjs');
    expect(existsSync(`${bundle}.cache`)).toBe(true);
    const probe = join(dir, 'probe.mjs');
    writeFileSync(
      probe,
      `import { runCli } from ${JSON.stringify(new URL('../dist/bundle/early.js', import.meta.url).href)};\n` +
        `process.argv = [process.argv[0], ${JSON.stringify(bundle)}, '--version'];\n` +
        `const s = runCli(${JSON.stringify(bundle)});\nprocess.stderr.write('rejected ' + s.cachedDataRejected + '\\n');\n`,
    );
    const r = spawnSync(process.execPath, [probe], { cwd: ROOT, encoding: 'utf8' });
    expect(r.stdout).toMatch(/^\d+\.\d+\.\d+/);
    // The build ran on this Node (CI's first run): the cache is taken. Under another Node (CI runs the tests again on
    // Node 22 and 24 with the same build) it is not offered, and the bundle is compiled as usual.
    const stamp = readFileSync(`${bundle}.cache`).subarray(0, 200).toString('latin1').split('\n')[0]!;
    expect(stamp).toMatch(/^kprof code cache \d+ \d+ v8 \S+$/);
    expect(r.stderr).toBe(stamp.endsWith(` v8 ${process.versions.v8}`) ? 'rejected false\n' : 'rejected undefined\n');
  });
});
