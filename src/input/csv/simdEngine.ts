// The SIMD engine (simd.wat, assembled into simdWasm.ts) behind a typed interface: its exports are checked once
// when the module is instantiated, and the rest of kprof calls them through SimdEngine only. Where it keeps what
// it shares with TypeScript is LAYOUT (simdLayout.ts, generated with the .wat from one table). The decoders of
// record runs spliced into the module (scripts/wasm.mjs) type their own exports with decoderExports().
//
// KPROF_ENGINE=js in the environment selects the JavaScript engine (scan.ts) instead, the reference both engines
// are tested against (see input/engine.ts).

import { SIMD_WASM_BASE64 } from './simdWasm.js';

export interface SimdEngine {
  readonly memory: WebAssembly.Memory;
  /** One record from p (see simd.wat): the position after it, -1 (more data needed) or -2 (irregular). */
  record(p: number, end: number, limit: number): number;
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

/** The instance's exports as a SimdEngine; an export missing or of another kind is a bug of ours. */
function typed(exports: Record<string, unknown>): SimdEngine {
  const memory = exports['memory'];
  if (!(memory instanceof WebAssembly.Memory)) throw new Error('simd.wat exports no memory');
  if (typeof exports['record'] !== 'function') throw new Error('simd.wat exports no function record');
  return exports as unknown as SimdEngine;
}

/**
 * A decoder's functions among the engine's exports, checked by name (a missing one is a bug of ours): the
 * engine's instance is where a decoder spliced into simd.wat runs, on the scanner's memory.
 */
export function decoderExports<T>(engine: SimdEngine, names: readonly (keyof T & string)[]): T {
  const exports = engine as unknown as Record<string, unknown>;
  for (const f of names) if (typeof exports[f] !== 'function') throw new Error(`simd.wat exports no function ${f}`);
  return engine as unknown as T;
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

/** A scanner is done with its engine: it goes back for the next one of this thread (a decoder sets its own state up). */
export function releaseEngine(engine: SimdEngine): void {
  if (idle.length >= MAX_IDLE) return;
  idle.push(engine);
}

/** Let the idle engines go (their memories are then garbage): a thread done reading that stays for other work. */
export function dropIdleEngines(): void {
  idle.length = 0;
}
