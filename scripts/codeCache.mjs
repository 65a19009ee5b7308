// `node scripts/codeCache.mjs <dist/bundle/cli.cjs> <command…>`, run by scripts/bundle.mjs: load the CLI bundle as
// bin/kprof.js does (src/cli/early.ts runCli), run the command, and when the process exits write V8's code cache of
// the bundle beside it, stamped with the bundle's size and time (codeCacheStamp), which runCli checks.

import { statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

const [file, ...command] = process.argv.slice(2);
const { codeCacheStamp, runCli } = await import(new URL(`file://${join(dirname(file), 'early.js')}`).href);
process.argv = [process.argv[0], file, ...command];
const script = runCli(file, true);
process.on('exit', (code) => {
  if (code !== 0) return;
  const st = statSync(file);
  writeFileSync(`${file}.cache`, Buffer.concat([codeCacheStamp(st.size, st.mtimeMs), script.createCachedData()]));
});
