// The progress bar: on stderr only when it is a TTY and not --quiet, only for a large input, erased at the end.

import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Io } from '../src/util/io.js';
import { MIN_BYTES, makeProgress } from '../src/cli/progressBar.js';

function io(tty: boolean): Io & { err: string[] } {
  const err: string[] = [];
  return { stdout: () => {}, stderr: (s) => void err.push(s), env: { COLUMNS: '120' }, stdoutIsTTY: tty, stderrIsTTY: tty, cwd: '/', err };
}

/** A progress bar on a TTY and the trackers of a diff's two inputs, each told its size (4 × MIN_BYTES). */
function twoInputs() {
  const o = io(true);
  const p = makeProgress(o, false);
  const a = p.tracker('base/kernel_details.csv')!;
  const b = p.tracker('pr/kernel_details.csv')!;
  a.total!(4 * MIN_BYTES);
  b.total!(4 * MIN_BYTES);
  return { o, p, a, b };
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

  it('draws one bar for all the inputs, with bytes, rate and ETA, and erases it when every input has ended', () => {
    const { o, p, a, b } = twoInputs();
    a(MIN_BYTES);
    b(2 * MIN_BYTES);
    // The bar is redrawn on a timer (the main thread is free while workers read).
    vi.advanceTimersByTime(250);
    const drawn = o.err.join('');
    expect(drawn).toContain('2 inputs');
    expect(drawn).toMatch(/25\/67 MB/);
    expect(drawn).toMatch(/MB\/s/);
    expect(drawn).toMatch(/ETA/);
    // Nothing but the one line: no line feed, so nothing scrolls out of reach of the erase.
    expect(drawn).not.toContain('\n');
    a.end!();
    const before = o.err.length;
    b.end!();
    // Stopping erases the bar (back to the line's start, the line cleared), and nothing is drawn after that.
    expect(o.err.length).toBeGreaterThan(before);
    expect(o.err.slice(before).join('')).toMatch(/\r?\x1b\[(?:2)?K|\x1b\[0G\x1b\[2K/);
    const after = o.err.length;
    a(1);
    p.done();
    vi.advanceTimersByTime(250);
    expect(o.err.length).toBe(after);
  });

  it('many inputs (a 64-rank diff reads 128 files) are still one line, erased when done() is called before they end', () => {
    const o = io(true);
    const p = makeProgress(o, false);
    const tracks = Array.from({ length: 128 }, (_, i) => p.tracker(`rank_${i}/kernel_details.csv`)!);
    for (const t of tracks) t.total!(MIN_BYTES);
    for (const t of tracks.slice(0, 70)) t(MIN_BYTES / 2);
    vi.advanceTimersByTime(500);
    const drawn = o.err.join('');
    expect(drawn).toContain('128 inputs');
    expect(drawn).not.toContain('\n');
    // An error stops the read part-way: the command's end erases the bar all the same.
    const before = o.err.length;
    p.done();
    expect(o.err.length).toBeGreaterThan(before);
    const after = o.err.length;
    vi.advanceTimersByTime(500);
    expect(o.err.length).toBe(after);
  });

  it('fits the terminal: at 80 columns and narrower no line of the bar is wider than the terminal', () => {
    for (const columns of [200, 120, 100, 80, 60, 40, 20]) {
      const o = { ...io(true), env: {}, stderrColumns: columns };
      const p = makeProgress(o, false);
      const a = p.tracker('a/very/long/path/to/a/rank/folder/ASCEND_PROFILER_OUTPUT/kernel_details.csv')!;
      a.total!(1000 * MIN_BYTES);
      a(333 * MIN_BYTES);
      vi.advanceTimersByTime(250);
      p.done();
      // What is drawn between cursor moves and line clears is one line of the bar.
      // biome-ignore lint/suspicious/noControlCharactersInRegex: escape sequences are what this strips
      const texts = o.err
        .join('')
        .split(/\r|\x1b\[[0-9;?]*[A-Za-z]/)
        .filter((x) => x !== '');
      expect(texts.length, `${columns}`).toBeGreaterThan(0);
      for (const t of texts) expect(t.length, `${columns}: ${t}`).toBeLessThan(columns);
      expect(texts.join(''), `${columns}`).toMatch(/33%/);
    }
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

  it('says the ETA is not known yet before a byte is read, never a cut "INF" ("ETA NFs")', () => {
    // The first input's size, then the second's: the bar is drawn (and redrawn) while nothing is read.
    const { o, p, a, b } = twoInputs();
    vi.advanceTimersByTime(250);
    const before = o.err.join('');
    expect(before).toMatch(/ETA/);
    expect(before).not.toMatch(/ETA (?:NF|INF|NULL|LL)/);
    expect(before).toMatch(/ETA +\?/);
    // Once bytes arrive the ETA is a time again.
    vi.advanceTimersByTime(1000);
    a(MIN_BYTES);
    vi.advanceTimersByTime(1000);
    b(MIN_BYTES);
    vi.advanceTimersByTime(250);
    expect(o.err.join('').slice(before.length)).toMatch(/ETA +\d+s/);
    p.done();
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
