// The event scanner's fast path (events.wat, assembled into eventsWasm.ts) behind a typed interface. The scanner
// copies its window of bytes to DATA and asks for the next event it is to see (the module passes over the events
// the reader said are of no use, see `events`); the located fields are read where the module writes them (the
// views below). Where WebAssembly does not run, or KPROF_ENGINE=js, the JavaScript
// scanner alone reads the trace (the reference: the same events).

import { EVENTS_WASM_BASE64 } from './eventsWasm.js';

/** Where events.wat keeps what it shares (bytes of its memory; see the top of the .wat). */
const KINDS = 512;
const STARTS = 1024;
const ENDS = 1536;
const KEYLEN = 2048;
const KEYS = 4096;
const CAND_EVENT = 8192;
const CAND_ARGS = 16896;
/** A candidate table: 33 lengths × 256 first bytes. */
const CAND_BYTES = 33 * 256;
/**
 * Instances no scanner uses: a thread reading many traces reuses them (a new one costs a millisecond and a new
 * memory of several MiB), the ones whose memory stayed small only.
 */
const idle: Exports[] = [];
const MAX_IDLE = 4;
const MAX_IDLE_BYTES = 16 << 20;
const NAME_ID = 1800;
const INTERNS = 2304;
const DECIDE = 2880;
const START = 2944;
const SKIPPED = 2948;
const NEXT = 2952;
const VERDICT = 2956;
const GEN = 2960;
/** Decide fields the module keeps verdicts for (more: the reader is asked for every event). */
export const MAX_DECIDE = 4;
export const DATA = 7340032;
/** Fields and key length the module handles. */
export const MAX_FIELDS = 64;
export const MAX_KEY = 32;
const PAGE = 65536;

interface Exports {
  memory: WebAssembly.Memory;
  configure(nEvent: number, nFields: number, argsField: number, internField: number, nDecide: number, decideMask: number): void;
  events(p: number, end: number, stop: number): number;
  setVerdict(use: number): void;
  resetNames(): void;
}

let compiled: WebAssembly.Module | null | undefined;

function compiledModule(): WebAssembly.Module | null {
  if (compiled === undefined) {
    try {
      compiled = new WebAssembly.Module(Buffer.from(EVENTS_WASM_BASE64, 'base64'));
    } catch {
      compiled = null;
    }
  }
  return compiled;
}

export class FastEvents {
  kinds!: Uint8Array;
  starts!: Int32Array;
  ends!: Int32Array;
  private bytes!: Uint8Array;
  /**
   * The window's bytes as the module holds them (data[i] is byte i of the window): what it has just scanned is in
   * the CPU's cache there, where the caller's chunk was copied from long before.
   */
  data!: Buffer;
  private words!: Int32Array;
  private readonly exports: Exports;

  private constructor(
    exports: Exports,
    private readonly fields: number,
  ) {
    this.exports = exports;
    this.views();
  }

  /**
   * An instance for these keys (event keys, then args keys), or null where it cannot serve (see top). `decide`:
   * the event fields (indices, below 31) whose strings decide whether an event is of use (ScannerOptions.decideOn).
   */
  static create(
    eventKeys: readonly Uint8Array[],
    argKeys: readonly Uint8Array[],
    argsField: number,
    internField: number,
    decide: readonly number[] = [],
  ): FastEvents | null {
    const keys = [...eventKeys, ...argKeys];
    if (keys.length > MAX_FIELDS || keys.some((k) => k.length === 0 || k.length > MAX_KEY)) return null;
    // Keys are told apart by length and first byte, then checked byte for byte: two keys of the event (or of
    // args) alike in both are left to the JavaScript scanner.
    const cand = (ks: readonly Uint8Array[], first: number): Map<number, number> | null => {
      const m = new Map<number, number>();
      for (let i = 0; i < ks.length; i++) {
        const slot = (ks[i]!.length << 8) | ks[i]![0]!;
        if (m.has(slot)) return null;
        m.set(slot, first + i + 1);
      }
      return m;
    };
    const ce = cand(eventKeys, 0);
    const ca = cand(argKeys, eventKeys.length);
    if (ce === null || ca === null) return null;
    const mod = compiledModule();
    if (mod === null) return null;
    const reused = idle.pop();
    const exports = reused ?? (new WebAssembly.Instance(mod, {}).exports as unknown as Exports);
    const f = new FastEvents(exports, keys.length);
    if (reused !== undefined) {
      // The last scanner's keys, candidates and names go.
      f.bytes.fill(0, KEYLEN, CAND_ARGS + CAND_BYTES);
      exports.resetNames();
    }
    keys.forEach((k, i) => {
      f.bytes[KEYLEN + i] = k.length;
      f.bytes.set(k, KEYS + i * MAX_KEY);
    });
    for (const [slot, v] of ce) f.bytes[CAND_EVENT + slot] = v;
    for (const [slot, v] of ca) f.bytes[CAND_ARGS + slot] = v;
    const kept = decide.length <= MAX_DECIDE ? decide : [];
    if (internField >= 0) f.bytes[INTERNS + internField] = 1;
    let mask = 0;
    kept.forEach((d, i) => {
      f.bytes[INTERNS + d] = 1;
      f.bytes[DECIDE + i] = d;
      mask |= 1 << d;
    });
    exports.configure(eventKeys.length, keys.length, argsField, internField, kept.length, mask);
    return f;
  }

  /** The scanner is done with it: it goes back for the next one of this thread. */
  release(): void {
    if (idle.length < MAX_IDLE && this.exports.memory.buffer.byteLength <= MAX_IDLE_BYTES) idle.push(this.exports);
  }

  private views(): void {
    const buf = this.exports.memory.buffer;
    this.bytes = new Uint8Array(buf);
    this.data = Buffer.from(buf, Math.min(DATA, buf.byteLength), Math.max(0, buf.byteLength - DATA));
    this.words = new Int32Array(buf, 0, 1024);
    this.kinds = new Uint8Array(buf, KINDS, this.fields);
    this.starts = new Int32Array(buf, STARTS, this.fields);
    this.ends = new Int32Array(buf, ENDS, this.fields);
  }

  /** Copy the window from `from` on to DATA (growing the memory when it is too small: the views are then made anew). */
  load(b: Uint8Array, from: number): void {
    const need = DATA + b.length + 64;
    const have = this.exports.memory.buffer.byteLength;
    if (need > have) {
      this.exports.memory.grow(Math.ceil((need - have) / PAGE));
      this.views();
    }
    this.bytes.set(from === 0 ? b : b.subarray(from), DATA + from);
    // Zeros past the end: the module loads sixteen bytes at a time, and compares nothing it has not checked.
    this.bytes.fill(0, DATA + b.length, DATA + b.length + 64);
  }

  /**
   * The id of the last event's name in the intern field (the same id for the same bytes, until the table is
   * emptied: see generation): -1 when it was not interned, -2 when the event had no string there.
   */
  nameId(): number {
    return this.words[NAME_ID >> 2]!;
  }

  /** Counts the times the module emptied its name table (it does when it is full): ids given before are void. */
  generation(): number {
    return this.words[GEN >> 2]!;
  }

  /**
   * From the event at p of the window (its brace), the next event the reader is to see (see `events` in the
   * .wat): the position past it (with start() its brace and next() the brace of the event after it, or -1),
   * -1 (the event at start() needs more data), -2 (JavaScript reads the event at start()) or -3 (the events
   * passed over end at start(): go on from there). Events passed over: skipped(). No event ends past `stop`
   * unseen.
   */
  events(p: number, end: number, stop: number): number {
    const r = this.exports.events(DATA + p, DATA + end, DATA + stop);
    return r >= 0 ? r - DATA : r;
  }

  start(): number {
    return this.words[START >> 2]! - DATA;
  }

  next(): number {
    const n = this.words[NEXT >> 2]!;
    return n >= 0 ? n - DATA : n;
  }

  skipped(): number {
    return this.words[SKIPPED >> 2]!;
  }

  /** What the reader said of events with the last one's decide strings: 1 of use, 2 not asked yet, 0 ask (not kept). */
  verdict(): number {
    return this.words[VERDICT >> 2]!;
  }

  /** The reader's answer for the last event (verdict 2), kept for the events with the same decide strings. */
  setVerdict(use: boolean): void {
    this.exports.setVerdict(use ? 1 : 0);
  }
}
