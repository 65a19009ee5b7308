// The alignment search of myers.ts run in WebAssembly (myers.wat): the same work list and middle snakes, so the
// same change flags for every pair of sequences (test/myers-engines.test.ts checks the two against each other).
// A diff aligns a few representative steps once, so the JavaScript search runs mostly before V8 has compiled it;
// the WebAssembly one is compiled first. Where WebAssembly does not run, or the sequences would need more memory
// than MAX_BYTES, the caller searches in JavaScript.

import { MYERS_WASM_BASE64 } from './myersWasm.js';

interface Exports {
  memory: WebAssembly.Memory;
  layout(a: number, b: number, ca: number, cb: number, v1: number, v2: number, stack: number): void;
  align(n: number, m: number, cap: number): number;
}

/** Past this much memory for one pair, the search is the JavaScript one (a search this large runs long anyway). */
const MAX_BYTES = 256 << 20;

const PAGE = 65536;

/** The instance (made on first use, kept: its memory is reused), or null where WebAssembly does not run. */
let instance: Exports | null | undefined;

function engine(): Exports | null {
  if (instance === undefined) {
    try {
      const mod = new WebAssembly.Module(Buffer.from(MYERS_WASM_BASE64, 'base64'));
      instance = new WebAssembly.Instance(mod, {}).exports as unknown as Exports;
    } catch {
      instance = null;
    }
  }
  return instance;
}

/** Which search alignSequences uses: 'wasm' where it can, else 'js' (tests choose). */
let chosen: 'wasm' | 'js' = 'wasm';

/** Make alignSequences search in JavaScript ('js') or in WebAssembly where it can ('wasm', the default). */
export function useMyersEngine(e: 'wasm' | 'js'): void {
  chosen = e;
}

const align4 = (n: number): number => (n + 3) & ~3;

/**
 * Mark in `changedA` and `changedB` (each sequence's length + 2, zeroed) the changes of a shortest edit script
 * from a to b, as myers.ts compare() marks them. `capRounds`: the most rounds of the first search, min(maxD,
 * ⌈cap / 2⌉ + 1) as bisect takes it (-1: none). True when marked, false when the cap was reached, null when this
 * engine is not used (chosen 'js', no WebAssembly, or the pair too large).
 */
export function alignInWasm(a: Int32Array, b: Int32Array, capRounds: number, changedA: Uint8Array, changedB: Uint8Array): boolean | null {
  if (chosen !== 'wasm') return null;
  const n = a.length;
  const m = b.length;
  // The diagonals of the largest search: 2 · ((n + m + 1) >> 1) + 3 each; the work list: n + m + 2 ranges of 16 bytes.
  const diagonals = 2 * ((n + m + 1) >> 1) + 3;
  const oA = 0;
  const oB = oA + 4 * n;
  const oV1 = oB + 4 * m;
  const oV2 = oV1 + 4 * diagonals;
  const oStack = oV2 + 4 * diagonals;
  const oCA = oStack + 16 * (n + m + 2);
  const oCB = align4(oCA + n + 2);
  const bytes = oCB + m + 2;
  if (bytes > MAX_BYTES) return null;
  const e = engine();
  if (e === null) return null;
  const have = e.memory.buffer.byteLength;
  if (bytes > have) e.memory.grow(Math.ceil((bytes - have) / PAGE));
  const buf = e.memory.buffer;
  new Int32Array(buf, oA, n).set(a);
  new Int32Array(buf, oB, m).set(b);
  new Uint8Array(buf, oCA, oCB + m + 2 - oCA).fill(0);
  e.layout(oA, oB, oCA, oCB, oV1, oV2, oStack);
  if (e.align(n, m, capRounds) === 0) return false;
  changedA.set(new Uint8Array(buf, oCA, n + 2));
  changedB.set(new Uint8Array(buf, oCB, m + 2));
  return true;
}
