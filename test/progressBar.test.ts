// The progress bar: on stderr only when it is a TTY and not --quiet, only for a large input, erased at the end.

import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Io } from '../src/util/io.js';
import { MIN_BYTES, makeProgress } from '../src/cli/progressBar.js';

function io(tty: boolean): Io & { err: string[] } {
  const err: string[] = [];
  return { stdout: () => {}, stderr: (s) => void err.push(s), env: { COLUMNS: '120' }, stdoutIsTTY: tty, stderrIsTTY: tty, cwd: '/', err };
}

describe('makeProgress', () => {
  // The bars are redrawn on a timer and show a rate: fake timers (and clock) move time without waiting for it.
  beforeEach(() => void vi.useFakeTimers());
  afterEach(() => void vi.useRealTimers());

  it('does nothing when stderr is not a TTY', () => {
    const o = io(false);
    const p = makeProgress(o, false);
    expect(p.tracker('a.csv')).toBeUndefined();
    p.done();
    expect(o.err).toEqual([]);
  });

  it('does nothing with --quiet on a TTY', () => {
    const o = io(true);
    const p = makeProgress(o, true);
    expect(p.tracker('a.csv')).toBeUndefined();
    expect(o.err).toEqual([]);
  });

  it('draws a bar per large input with bytes, rate and ETA, and erases it when every input has ended', () => {
    const o = io(true);
    const p = makeProgress(o, false);
    const a = p.tracker('base/kernel_details.csv')!;
    const b = p.tracker('pr/kernel_details.csv')!;
    a.total!(4 * MIN_BYTES);
    b.total!(4 * MIN_BYTES);
    a(MIN_BYTES);
    b(2 * MIN_BYTES);
    // The bars are redrawn on a timer (the main thread is free while workers read).
    vi.advanceTimersByTime(250);
    const drawn = o.err.join('');
    expect(drawn).toContain('base/kernel_details.csv');
    expect(drawn).toContain('pr/kernel_details.csv');
    expect(drawn).toMatch(/\d+\/34 MB/);
    expect(drawn).toMatch(/MB\/s/);
    expect(drawn).toMatch(/ETA/);
    a.end!();
    const before = o.err.length;
    b.end!();
    // Stopping erases the bars (cursor moves and line clears), and nothing is drawn after that.
    expect(o.err.length).toBeGreaterThan(before);
    const after = o.err.length;
    a(1);
    p.done();
    vi.advanceTimersByTime(250);
    expect(o.err.length).toBe(after);
  });

  it('shows a path with a line break or an escape sequence escaped', () => {
    const o = io(true);
    const p = makeProgress(o, false);
    const a = p.tracker('x\n::error::y\u001b]8;;\u0007.csv')!;
    a.total!(4 * MIN_BYTES);
    a(MIN_BYTES);
    vi.advanceTimersByTime(250);
    a.end!();
    p.done();
    const drawn = o.err.join('');
    expect(drawn).toContain('x\\x0a::error::y\\x1b]8;;\\x07.csv');
    expect(drawn).not.toContain('\n::error');
    expect(drawn).not.toContain('\u0007');
  });

  it('draws nothing for a small input', () => {
    const o = io(true);
    const p = makeProgress(o, false);
    const a = p.tracker('small.csv')!;
    a.total!(MIN_BYTES - 1);
    a(1000);
    a.end!();
    p.done();
    expect(o.err).toEqual([]);
  });
});
