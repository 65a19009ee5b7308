// The SIMD engine (simd.wat, assembled into simdWasm.ts) behind a typed interface: its exports are checked once
// when the module is instantiated, and the rest of kprof calls them through SimdEngine only. Where it keeps what
// it shares with TypeScript is LAYOUT (simdLayout.ts, generated with the .wat from one table).
//
// KPROF_ENGINE=js in the environment selects the JavaScript engine (scan.ts) instead, the reference both engines
// are tested against (see input/engine.ts).

import { SIMD_WASM_BASE64 } from './simdWasm.js';

export interface SimdEngine {
  readonly memory: WebAssembly.Memory;
  /** One record from p (see simd.wat): the position after it, -1 (more data needed) or -2 (irregular). */
  record(p: number, end: number, limit: number): number;
  /** The cells of the kernel rows rows() reads (column indices, -1: none). */
  configure(
    width: number,
    duration: number,
    step: number,
    keyLo: number,
    keyHi: number,
    shapes: number,
    start: number,
    stream: number,
    locate: number,
  ): void;
  /** Plain kernel rows from p into the batch (at most MAX_BATCH); returns where it stopped. */
  rows(p: number, end: number): number;
  /** The id of the key in these byte ranges (s2 = -1: one range), given one if new; -1 when the table is full. */
  keyId(s1: number, e1: number, s2: number, e2: number): number;
  /** Empty the key table. */
  resetKeys(): void;
}

/** The engines; 'simd' falls back to 'js' where WebAssembly SIMD does not run. */
export type { Engine } from '../engine.js';

let compiled: WebAssembly.Module | null | undefined;

/** The compiled simd.wat, once per thread; null where WebAssembly SIMD is not available. */
function compiledModule(): WebAssembly.Module | null {
  if (compiled === undefined) {
    try {
      compiled = new WebAssembly.Module(Buffer.from(SIMD_WASM_BASE64, 'base64'));
    } catch {
      compiled = null;
    }
  }
  return compiled;
}

/** Is the SIMD engine available here? */
export function simdAvailable(): boolean {
  return compiledModule() !== null;
}

const FUNCTIONS = ['record', 'configure', 'rows', 'keyId', 'resetKeys'] as const;

/** The instance's exports as a SimdEngine; an export missing or of another kind is a bug of ours. */
function typed(exports: Record<string, unknown>): SimdEngine {
  const memory = exports['memory'];
  if (!(memory instanceof WebAssembly.Memory)) throw new Error('simd.wat exports no memory');
  for (const f of FUNCTIONS) if (typeof exports[f] !== 'function') throw new Error(`simd.wat exports no function ${f}`);
  return exports as unknown as SimdEngine;
}

/**
 * Engines that no scanner uses (see release): a thread reading many files reuses them, since a new one per file
 * means a new memory each time, its pages faulted in afresh and the old ones left to the garbage collector (on
 * 80 files of 3 MB that was a third of the time).
 */
const idle: SimdEngine[] = [];
const MAX_IDLE = 4;

/** An engine for one scanner (an idle one, or a new instance); null where WebAssembly SIMD is not available. */
export function acquireEngine(): SimdEngine | null {
  const reused = idle.pop();
  if (reused !== undefined) return reused;
  const mod = compiledModule();
  return mod === null ? null : typed(new WebAssembly.Instance(mod, {}).exports);
}

/** A scanner is done with its engine: it goes back for the next one of this thread, its key table emptied. */
export function releaseEngine(engine: SimdEngine): void {
  if (idle.length >= MAX_IDLE) return;
  engine.resetKeys();
  idle.push(engine);
}
