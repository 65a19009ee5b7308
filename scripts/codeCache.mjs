// `node scripts/codeCache.mjs <dist/bundle/cli.cjs> <command…>`, run by scripts/bundle.mjs: load the CLI bundle as
// bin/kprof.js does (src/cli/early.ts runCli), run the command, and when the process exits write V8's code cache of
// the bundle beside it, stamped with the V8 that made it and hashes of the bundle and of the cache (codeCacheStamp),
// which runCli checks.

import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const [file, ...command] = process.argv.slice(2);
const { codeCacheStamp, runCli } = createRequire(import.meta.url)(join(dirname(file), 'early.cjs'));
process.argv = [process.argv[0], file, ...command];
const script = runCli(file, true);
process.on('exit', (code) => {
  if (code !== 0) return;
  const body = script.createCachedData();
  writeFileSync(`${file}.cache`, Buffer.concat([codeCacheStamp(readFileSync(file), body), body]));
});
