import { availableParallelism } from 'node:os';
import { configDefaults, defineConfig } from 'vitest/config';

/**
 * The suites that read every real export, compare engines or renderers, round-trip or fuzz, generate large or
 * hostile input, start many worker threads or processes, drive a browser, pack or install packages, or hold the
 * CLI transcripts of large generated profiles: `npm run test:all` runs them with the rest, `npm test` (the quick
 * loop while editing, about 30 s on two cores) leaves them out. A file is slow by name here, never by timing.
 */
export const SLOW = [
  'test/rewrites-decode-scale.test.ts',
  'test/rewrites-truth-scale.test.ts',
  'test/action.test.ts',
  'test/bin.test.ts',
  'test/browser/report.test.ts',
  'test/diff-cli.test.ts',
  'test/differential.test.ts',
  'test/engines.test.ts',
  'test/format.test.ts',
  'test/fuzz.test.ts',
  'test/hostile-files.test.ts',
  'test/hostile-text.test.ts',
  'test/input-limits.test.ts',
  'test/many-names.test.ts',
  'test/package.test.ts',
  'test/parallel.test.ts',
  'test/real.test.ts',
  'test/render.test.ts',
  'test/rewrites-cli.test.ts',
  'test/scale.test.ts',
  'test/snapshot.test.ts',
  'test/trace-engines.test.ts',
  'test/trace-real.test.ts',
];

export default defineConfig({
  test: {
    testTimeout: 60_000,
    // Set-up and tear-down hooks (temp profiles, a browser, worker pools) get as long as a test: 10 s ran out on a loaded machine.
    hookTimeout: 60_000,
    // The folder vitest is started in (the repo root): the tests' own relative paths lead from there.
    root: '.',
    // Bundle src/ first when it changed: worker threads and spawned CLIs run the bundle (test/setup/bundle.ts).
    globalSetup: ['test/setup/bundle.ts', 'test/setup/notice.ts'],
    // Fine groups read from columns compare as the data they stand for (test/setup/equality.ts); property tests
    // take one seed under CI=true (test/setup/propertySeed.ts).
    setupFiles: ['test/setup/equality.ts', 'test/setup/propertySeed.ts'],
    // Test files share a thread and its loaded modules (no test changes the working directory or mocks a
    // module): loading the CLI once per thread instead of once per file is most of the quick loop's time.
    pool: 'threads',
    isolate: false,
    // A thread per core (vitest keeps one core free by default: on two cores that ran the files one at a time).
    maxWorkers: availableParallelism(),
    projects: [
      { extends: true, test: { name: 'fast', include: ['test/**/*.test.ts'], exclude: [...configDefaults.exclude, ...SLOW] } },
      // Property and scale suites take minutes on a loaded machine: a timeout there says nothing about the code.
      { extends: true, test: { name: 'slow', include: SLOW, testTimeout: 600_000 } },
    ],
  },
});
