// What a failed stage of .ci/run said about its failure, printed again at the end of the run, where CI's tail shows
// it: the test runner's sections on failures (failed suites and tests, unhandled errors, which fail a run whose
// every test passed), the files and tests the JSON report marks failed, or else the last lines the stage printed.
// Usage: node .ci/digest.mjs "<stage> (exit code N)" <its log> [vitest JSON report]

import { existsSync, readFileSync } from 'node:fs';

const [stage, log, results] = process.argv.slice(2);
const MAX_LINES = 80;
const SECTION = /^⎯+ *(Failed Suites?|Failed Tests?|Unhandled Errors?|Unhandled Rejections?|Errors?)\b/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: the escapes of a terminal's colours are what it strips
const ANSI = /\u001b\[[0-9;]*[A-Za-z]/g;

const out = [`FAILED: ${stage}`];
const lines = existsSync(log) ? readFileSync(log, 'utf8').replace(ANSI, '').split('\n') : [];
const start = lines.findIndex((line) => SECTION.test(line.trim()));
if (start >= 0) out.push(...lines.slice(start, start + MAX_LINES));

if (stage.startsWith('npm run test:all') && results && existsSync(results)) {
  const report = JSON.parse(readFileSync(results, 'utf8'));
  for (const file of report.testResults ?? []) {
    if (file.status !== 'failed') continue;
    out.push(`file failed: ${file.name}`);
    if (file.message) out.push(...file.message.split('\n').slice(0, 10));
    for (const test of file.assertionResults ?? []) {
      if (test.status !== 'failed') continue;
      out.push(`  test failed: ${test.fullName}`);
      for (const message of test.failureMessages ?? []) out.push(...message.split('\n').slice(0, 6));
    }
  }
}
if (out.length === 1) out.push('(no failure section in its output; its last lines:)', ...lines.slice(-30));
console.log(out.slice(0, 4 * MAX_LINES).join('\n'));
