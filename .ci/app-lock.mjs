// Usage: node .ci/app-lock.mjs <kprof clone> <app folder> <spec> [resolved]
// Writes an empty project in <app folder> whose one dev dependency is kprof from <spec> (a tarball path or a git
// URL), with a package-lock.json that pins kprof's runtime dependencies to the versions of kprof's own lock file.
// `npm ci --offline` then installs it from the npm cache that `npm ci` filled: that cache holds the packages by
// their integrity, not the registry's metadata that resolving version ranges would need.
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';

const [clone, app, spec, resolved = spec] = process.argv.slice(2);
if (!clone || !app || !spec) {
  console.error('usage: node .ci/app-lock.mjs <kprof clone> <app folder> <spec> [resolved]');
  process.exit(2);
}
const pkg = JSON.parse(readFileSync(join(clone, 'package.json'), 'utf8'));
const lock = JSON.parse(readFileSync(join(clone, 'package-lock.json'), 'utf8'));

const packages = {
  '': { name: 'kprof-install-test', version: '1.0.0', devDependencies: { kprof: spec } },
  'node_modules/kprof': {
    version: pkg.version,
    resolved,
    dev: true,
    license: pkg.license,
    dependencies: pkg.dependencies,
    bin: pkg.bin,
    engines: pkg.engines,
  },
};
// kprof's runtime dependencies and theirs: the entries of its lock file that are not dev-only.
for (const [path, entry] of Object.entries(lock.packages)) {
  if (path === '' || entry.dev || entry.link) continue;
  packages[path] = { ...entry, dev: true };
}
mkdirSync(app, { recursive: true });
writeFileSync(
  join(app, 'package.json'),
  JSON.stringify({ name: 'kprof-install-test', version: '1.0.0', private: true, devDependencies: { kprof: spec } }, null, 2) + '\n',
);
writeFileSync(
  join(app, 'package-lock.json'),
  JSON.stringify({ name: 'kprof-install-test', version: '1.0.0', lockfileVersion: 3, requires: true, packages }, null, 2) + '\n',
);
