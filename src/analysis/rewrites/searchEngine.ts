// The Fusion rewrites' two searches run in WebAssembly (search.wat): the alignment of myers.ts (the same work list
// and middle snakes, so the same change flags) and the near occurrences of match.ts (the same distances and
// sites); so do the tables of regroup.ts (the same cells). A diff runs each once, so the JavaScript ones run mostly before V8 has compiled them; the WebAssembly
// ones are compiled first. test/search-engines.test.ts checks each pair against each other. Where WebAssembly
// does not run, or an input is outside what the module takes (more memory than MAX_BYTES; a chain whose token ids
// span more than a table of masks), the caller searches in JavaScript.

import { SEARCH_WASM_BASE64 } from './searchWasm.js';

interface Exports {
  memory: WebAssembly.Memory;
  layout(a: number, b: number, ca: number, cb: number, v1: number, v2: number, stack: number): void;
  align(n: number, m: number, cap: number): number;
  layoutNear(text: number, chain: number, dist: number, cols: number, table: number, row1: number, row2: number, sites: number): void;
  near(n: number, m: number, k: number, lo: number, span: number): number;
  regroup(a: number, b: number, keep: number, edit: number, n: number, m: number, K: number): void;
}

/**
 * Past this much memory for one call, the search is the JavaScript one: the module works on copies of the
 * sequences (the JavaScript on the arrays themselves), and a search this large (steps of hundreds of thousands of
 * kernels) runs long enough for V8 to compile the JavaScript early in it, so the copies would cost memory for little.
 */
const MAX_BYTES = 32 << 20;

/** A chain's token ids span at most this many values for its masks to be a table (match.ts: MASK_TABLE_SPAN). */
const MAX_SPAN = 1 << 16;

const PAGE = 65536;

/** A site of match.ts nearOccurrences (its Site: this module imports nothing of match.ts, which imports it). */
interface FoundSite {
  start: number;
  end: number;
  edits: number;
}

/** The instance (made on first use, kept: its memory is reused), or null where WebAssembly does not run. */
let instance: Exports | null | undefined;
let compiled: WebAssembly.Module | undefined;

/**
 * Past this much memory after a call, the instance is let go (made again for the next call, in a few ms): its
 * memory never shrinks, and a search of steps of a million kernels would otherwise hold tens of MB to the end of
 * the run.
 */
const KEEP_BYTES = 16 << 20;

/** Let the instance go when its memory has grown past KEEP_BYTES. */
function settle(e: Exports): void {
  if (e.memory.buffer.byteLength > KEEP_BYTES) instance = undefined;
}

/** The bytes of memory the instance holds now (0: none): tests check it is let go. */
export function searchMemoryHeld(): number {
  return instance ? instance.memory.buffer.byteLength : 0;
}

/** Which searches the rewrites use: 'wasm' where they can, else 'js' (tests choose). */
let chosen: 'wasm' | 'js' = 'wasm';

/** Make the rewrites search in JavaScript ('js') or in WebAssembly where they can ('wasm', the default). */
export function useSearchEngine(e: 'wasm' | 'js'): void {
  chosen = e;
}

/** The module's exports with a memory of at least `bytes`, or null when the JavaScript search is to be used. */
function engine(bytes: number): Exports | null {
  if (chosen !== 'wasm' || bytes > MAX_BYTES) return null;
  if (instance === undefined) {
    try {
      // The module is compiled once; an instance let go (settle) is made again from it.
      compiled ??= new WebAssembly.Module(Buffer.from(SEARCH_WASM_BASE64, 'base64'));
      instance = new WebAssembly.Instance(compiled, {}).exports as unknown as Exports;
    } catch {
      instance = null;
    }
  }
  if (instance === null) return null;
  const have = instance.memory.buffer.byteLength;
  if (bytes > have) {
    try {
      instance.memory.grow(Math.ceil((bytes - have) / PAGE));
    } catch {
      // No memory for it (a RangeError): the JavaScript search, which allocates as it goes.
      return null;
    }
  }
  return instance;
}

const align4 = (n: number): number => (n + 3) & ~3;

/**
 * Mark in `changedA` and `changedB` (each sequence's length + 2, zeroed) the changes of a shortest edit script
 * from a to b, as myers.ts compare() marks them. `capRounds`: the most rounds of the first search, min(maxD,
 * ⌈cap / 2⌉ + 1) as bisect takes it (-1: none). True when marked, false when the cap was reached, null when this
 * engine is not used (chosen 'js', no WebAssembly, or the pair too large).
 */
export function alignInWasm(a: Int32Array, b: Int32Array, capRounds: number, changedA: Uint8Array, changedB: Uint8Array): boolean | null {
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
  const e = engine(oCB + m + 2);
  if (e === null) return null;
  const buf = e.memory.buffer;
  new Int32Array(buf, oA, n).set(a);
  new Int32Array(buf, oB, m).set(b);
  new Uint8Array(buf, oCA, oCB + m + 2 - oCA).fill(0);
  e.layout(oA, oB, oCA, oCB, oV1, oV2, oStack);
  const done = e.align(n, m, capRounds) !== 0;
  if (done) {
    changedA.set(new Uint8Array(buf, oCA, n + 2));
    changedB.set(new Uint8Array(buf, oCB, m + 2));
  }
  settle(e);
  return done;
}

/**
 * The sites of match.ts nearOccurrences(text, chain, k), or null when this engine is not used (chosen 'js', no
 * WebAssembly, an empty chain, a k that is not a whole number below 2^20, a chain of at most 32 tokens whose ids
 * span more than MAX_SPAN values, or too much memory).
 */
export function nearInWasm(text: Int32Array, chain: Int32Array, k: number): FoundSite[] | null {
  const n = text.length;
  const m = chain.length;
  if (m === 0 || !Number.isInteger(k) || k < 0 || k >= 2 ** 20) return null;
  let lo = chain[0]!;
  let hi = lo;
  for (let i = 1; i < m; i++) {
    const t = chain[i]!;
    if (t < lo) lo = t;
    else if (t > hi) hi = t;
  }
  const span = m <= 32 ? hi - lo + 1 : 0;
  if (span > MAX_SPAN) return null;
  const oText = 0;
  const oChain = oText + 4 * n;
  const oDist = oChain + 4 * m;
  const oCols = oDist + 4 * n;
  const oTable = oCols + 8 * (m + 1);
  const oRow1 = oTable + 4 * span;
  const oRow2 = oRow1 + 4 * (n + m + 2);
  const oSites = oRow2 + 4 * (n + m + 2);
  const e = engine(oSites + 12 * n);
  if (e === null) return null;
  const buf = e.memory.buffer;
  new Int32Array(buf, oText, n).set(text);
  new Int32Array(buf, oChain, m).set(chain);
  e.layoutNear(oText, oChain, oDist, oCols, oTable, oRow1, oRow2, oSites);
  const count = e.near(n, m, k, lo, span);
  const sites = new Int32Array(buf, oSites, 3 * count);
  const out: FoundSite[] = [];
  for (let i = 0; i < count; i++) out.push({ start: sites[3 * i]!, end: sites[3 * i + 1]!, edits: sites[3 * i + 2]! });
  settle(e);
  return out;
}

/**
 * realignTables of regroup.ts over a[w.aStart, w.aEnd) × b[w.bStart, w.bEnd) (copies of the tables), or null when
 * this engine is not used (chosen 'js', no WebAssembly, or too much memory).
 */
export function regroupInWasm(
  a: Int32Array,
  b: Int32Array,
  w: { aStart: number; aEnd: number; bStart: number; bEnd: number },
  K: number,
): { keep: Int32Array; edit: Int32Array } | null {
  const n = w.aEnd - w.aStart;
  const m = w.bEnd - w.bStart;
  const cells = (n + 1) * (m + 1);
  const oA = 0;
  const oB = oA + 4 * n;
  const oKeep = oB + 4 * m;
  const oEdit = oKeep + 4 * cells;
  const e = engine(oEdit + 4 * cells);
  if (e === null) return null;
  const buf = e.memory.buffer;
  new Int32Array(buf, oA, n).set(a.subarray(w.aStart, w.aEnd));
  new Int32Array(buf, oB, m).set(b.subarray(w.bStart, w.bEnd));
  e.regroup(oA, oB, oKeep, oEdit, n, m, K);
  const keep = new Int32Array(buf, oKeep, cells).slice();
  const edit = new Int32Array(buf, oEdit, cells).slice();
  settle(e);
  return { keep, edit };
}
