// Rules written for --short-names (a name such as at::native::vectorized_elementwise_kernel), checked on a trace
// without it: the name matches none of the whole CUDA names. Told as what to do, not as a misspelling alone.

import { expect, it } from 'vitest';
import { kprof } from './helpers.js';

const HINT = '"at::native::vectorized_elementwise_kernel" is the shortened name of kernels that run; did you mean to pass --short-names?';

it('says to pass --short-names, in the warning and the report; with it the rule matches', async () => {
  const r = await kprof(['check', 'fixtures/nsys/gpu-trace-pr', '--rules', 'fixtures/nsys/rules.yaml', '-q']);
  expect(r.code).toBe(0);
  expect(r.stderr).toContain(
    `fixtures/nsys/rules.yaml:5: name "at::native::vectorized_elementwise_kernel" matches no kernel in fixtures/nsys/gpu-trace-pr; ${HINT}`,
  );
  // The advice is the flag, not a misspelling to fix or evidence to give.
  expect(r.stderr).toContain(`${HINT} Without it the name matches nothing, so the rule holds whatever runs. --strict makes this an error.`);
  expect(r.stderr).not.toMatch(/fix the name|evidence:/);
  expect(r.stdout).toContain('is the shortened name of kernels that run; did you mean to pass --short-names?');
  const strict = await kprof(['check', 'fixtures/nsys/gpu-trace-pr', '--rules', 'fixtures/nsys/rules.yaml', '-q', '--strict']);
  expect(strict.code).toBe(2);
  const short = await kprof(['check', 'fixtures/nsys/gpu-trace-pr', '--rules', 'fixtures/nsys/rules.yaml', '-q', '--short-names']);
  expect(short.code).toBe(0);
  expect(short.stderr).toBe('');
});
