// How kprof words what it prints: a bad option value names the option, the value once (escaped), what is
// expected; ranks are named plainly (a rank of no id, a thousand ranks); advice fits the case it is given in.

import { describe, expect, it } from 'vitest';
import { kprof } from './helpers.js';

const P = 'fixtures/cluster/base';
const Q = 'fixtures/cluster/pr';

/** How often `needle` occurs in `text`. */
const times = (text: string, needle: string): number => text.split(needle).length - 1;

describe('a bad option value', () => {
  const cases: [string[], string, string][] = [
    [['summary', P, '--steps', 'abc'], '--steps', 'abc'],
    [['summary', P, '--steps', '3-1'], '--steps', '3-1'],
    [['summary', P, '--steps', '1-2-3'], '--steps', '1-2-3'],
    [['summary', P, '--steps', '7,x'], '--steps', '7,x'],
    [['summary', P, '--steps', '99999999999999999999'], '--steps', '99999999999999999999'],
    [['summary', P, '--steps', 'a\u001bb'], '--steps', 'a\\x1bb'],
    [['summary', P, '--by', 'bogus'], '--by', 'bogus'],
    [['summary', P, '--by', 'x\u001b[2Jy'], '--by', 'x\\x1b[2Jy'],
    [['summary', P, '--sort', 'size'], '--sort', 'size'],
    [['summary', P, '--format', 'xml'], '--format', 'xml'],
    [['summary', P, '--prefer', 'sqlite'], '--prefer', 'sqlite'],
    [['summary', P, '--top', '0'], '--top', '0'],
    [['summary', P, '--rank', '0,\u0001'], '--rank', '0,\\x01'],
    [['diff', P, Q, '--only', 'same'], '--only', 'same'],
    [['diff', P, Q, '--rewrites', 'maybe'], '--rewrites', 'maybe'],
    [['diff', P, Q, '--time-tolerance', 'abc'], '--time-tolerance', 'abc'],
    [['diff', P, Q, '--alpha', '2'], '--alpha', '2'],
    [['rules', P, Q, '--by', 'core'], '--by', 'core'],
    [['rules', P, Q, '--cut-threshold', '150'], '--cut-threshold', '150'],
    [['rules', P, Q, '--margin', 'qq'], '--margin', 'qq'],
    [['inspect', P, '--format', 'csv'], '--format', 'csv'],
  ];
  it.each(cases)('%j names the option, the value once, and what is expected', async (args, flag, found) => {
    const r = await kprof(args);
    expect(r.code).toBe(2);
    const line = r.stderr.split('\n')[0]!;
    expect(line.startsWith(`kprof: ${flag}: `), line).toBe(true);
    expect(times(line, `"${found}"`), line).toBe(1);
    expect(times(line, found), line).toBe(1);
    expect(line).toMatch(/expected|Expected/);
    expect(r.stderr).not.toMatch(/\u001b|\u0001/);
  });

  it('an empty --steps is taken for an unset variable, and says how to read every step', async () => {
    const r = await kprof(['summary', P, '--steps', ' ']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--steps: found an empty value (an unset variable?).');
    expect(r.stderr).toContain('Leave --steps out for every step.');
  });

  it('a value among choices is worded as the other bad values are: the choices, then the value', async () => {
    const r = await kprof(['diff', P, Q, '--rewrites', 'maybe']);
    expect(r.stderr).toBe('kprof: --rewrites: expected on or off; found "maybe".\n(run with --help for usage)\n');
    const by = await kprof(['summary', P, '--by', 'shape']);
    expect(by.stderr).toContain('kprof: --by: expected one of type, name, core, type+core or type+shapes; found "shape".');
  });
});
