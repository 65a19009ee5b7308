// Hostile and damaged Chrome traces (kineto, trace_view.json), each built here in a temporary folder: what kprof
// says of them names the file and the place, and reads as the other messages do.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { kprof } from './helpers.js';

const dirs: string[] = [];
function tmp(): string {
  const d = mkdtempSync(join(tmpdir(), 'kprof-traces-'));
  dirs.push(d);
  return d;
}
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A kineto kernel event, its ts and dur written as given (JSON text). */
function kernel(name: string, ts: string, dur: string): string {
  return `{"ph":"X","cat":"kernel","name":${JSON.stringify(name)},"pid":0,"tid":7,"ts":${ts},"dur":${dur}}`;
}

function trace(dir: string, name: string, events: string[]): string {
  const path = join(dir, name);
  writeFileSync(path, `{"traceEvents":[${events.join(',')}]}`);
  return path;
}

describe('hostile traces', () => {
  it('inspect names the first warning of a trace by its file and byte, not a line 0', async () => {
    const dir = tmp();
    trace(dir, 'huge.json', [kernel('a', '1', '1'), kernel('b', '2', '1e400')]);
    const r = await kprof(['inspect', 'huge.json'], {}, dir);
    expect(r.code).toBe(0);
    const line = r.stdout.split('\n').find((l) => l.includes('warnings'));
    expect(line).toMatch(/\(first: huge\.json: byte \d+: kernel event 1 has dur 1e400/);
    expect(r.stdout).not.toContain('huge.json:0');
  });
});
