// The input layer's imports: no cycle among the modules of src/ (type imports count: a cycle of types is still two
// modules that cannot be read apart), and the readers, the CSV layer, the sink and the workers' protocol import
// nothing of a later stage (they push kernels into a KernelSink and know no consumer).

import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './helpers.js';

const SRC = join(ROOT, 'src');

function sources(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir).sort()) {
    const p = join(dir, e);
    if (statSync(p).isDirectory()) out.push(...sources(p));
    else if (p.endsWith('.ts') && !p.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

/** Each module of src/ (relative path) → the modules of src/ it imports or re-exports from. */
function graph(): Map<string, string[]> {
  const g = new Map<string, string[]>();
  for (const f of sources(SRC)) {
    const text = readFileSync(f, 'utf8');
    const deps: string[] = [];
    for (const m of text.matchAll(/^(?:import|export)\s[^;]*?\sfrom\s+'(\.[^']+)'/gms)) {
      deps.push(relative(SRC, resolve(dirname(f), m[1]!.replace(/\.js$/, '.ts'))));
    }
    g.set(relative(SRC, f), deps);
  }
  return g;
}

function cycles(g: Map<string, string[]>): string[][] {
  const state = new Map<string, 1 | 2>();
  const stack: string[] = [];
  const found: string[][] = [];
  const visit = (n: string): void => {
    state.set(n, 1);
    stack.push(n);
    for (const d of g.get(n) ?? []) {
      if (state.get(d) === 1) found.push(stack.slice(stack.indexOf(d)));
      else if (!state.has(d)) visit(d);
    }
    stack.pop();
    state.set(n, 2);
  };
  for (const n of g.keys()) if (!state.has(n)) visit(n);
  return found;
}

describe('the input layer', () => {
  const g = graph();

  it('has no import cycle anywhere in src/ (the scheduler and the read worker share only the protocol)', () => {
    expect(g.get('input/workers/readWorker.ts')).not.toContain('input/read.ts');
    expect(cycles(g)).toEqual([]);
  });

  it('readers, the CSV layer, the sink and the workers import no later stage', () => {
    const later = /^(aggregate|analysis|rules|report|commands|cli)\//;
    const modules = [...g.keys()].filter((m) => /^input\/(csv\/|workers\/|sink\.ts|formats\/(kernelTable|opStatistic|readTable)\.ts)/.test(m));
    expect(modules.length).toBeGreaterThan(8);
    const bad = modules.flatMap((m) =>
      g
        .get(m)!
        .filter((d) => later.test(d))
        .map((d) => `${m} → ${d}`),
    );
    expect(bad).toEqual([]);
  });

  it('csv/ knows CSV only: it imports nothing of the formats, the sink or kernels, and exports no kernel-table concept', () => {
    const csv = [...g.keys()].filter((m) => m.startsWith('input/csv/'));
    expect(csv.length).toBeGreaterThan(5);
    // Within csv/, the engine choice, the model's units and util/ only.
    const allowed = /^(input\/csv\/|input\/engine\.ts$|model\/|util\/)/;
    const bad = csv.flatMap((m) =>
      g
        .get(m)!
        .filter((d) => !allowed.test(d))
        .map((d) => `${m} → ${d}`),
    );
    expect(bad).toEqual([]);
    // Nor does its code (.ts and simd.wat) use a name of what the kernel-table format owns (prose may point there).
    const kernelWords =
      /\b(BatchSpec|RowBatch|BatchSink|RowBatcher|KernelRowBatcher|KernelSink|KernelBatch|KernelKind|NO_STEP|NO_STREAM|keyId|resetKeys|configure|IDS|STEPS|TICKS|START_US|STREAMS)\b/;
    const said = readdirSync(join(SRC, 'input/csv'))
      .filter((f) => /\.(ts|wat)$/.test(f) && f !== 'simdWasm.ts')
      .flatMap((f) =>
        readFileSync(join(SRC, 'input/csv', f), 'utf8')
          .split('\n')
          .map((line, i) => ({ at: `input/csv/${f}:${i + 1}`, m: kernelWords.exec(line) }))
          .filter((x) => x.m !== null)
          .map((x) => `${x.at}: ${x.m![0]}`),
      );
    expect(said).toEqual([]);
  });
});
