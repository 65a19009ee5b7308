// A streaming scanner for Chrome-trace JSON (kineto `*.pt.trace.json`, torch_npu `trace_view.json`): bytes in,
// one callback per trace event out, with only the fields a reader asked for located (never a parsed object).
//
// The forms read: a bare array of events (`[{…}, …]`, torch_npu) and an object whose `traceEvents` member is
// that array (`{"schemaVersion": 1, …, "traceEvents": […], …}`, kineto). Memory does not grow with the file:
//
// - Bytes come as Buffer chunks. The unit of work is an *item*: one event, one member of the top-level object,
//   or one piece of punctuation between them. An item is parsed only when all its bytes are in the window; when
//   a chunk ends inside one, its bytes stay and the next chunks are appended. A long item is retried only once
//   the window has doubled, so an item of any size is scanned a few times in all, and an item over
//   `maxItemBytes` (64 MiB) is refused: the window never holds more than that plus a chunk.
// - Values the reader did not ask for are skipped without being decoded: strings by searching for the closing
//   quote, containers by a depth count held in a fixed array (nesting past `MAX_DEPTH` is refused, so hostile
//   nesting neither recurses nor allocates).
// - Every chunk is checked to be UTF-8 (JSON text is UTF-8, RFC 8259) by node's native validator, with a
//   sequence cut by a chunk boundary carried over to the next.
// - A reader may say which events are of no use by the strings of their first fields (ScannerOptions.wantRest:
//   host ops, flow arrows): those are checked but not handed on, only counted (`skipped`).
// - Events go through the WebAssembly fast path (events.wat, see fastEvents.ts) unless the engine is 'js': the
//   window is copied to its memory, and one call locates the fields of the next event to hand on there (the
//   view's arrays are its memory) and interns its name. It asks the reader's wantRest once per spelling of the
//   decideOn strings and passes over the events of no use itself, without a call per event. Whatever it leaves
//   (an escaped member name, a decide field written twice, any error) this file's event() scans again from the
//   event's first byte, so both engines give the same events and the same errors.
//
// Errors are JsonTraceError with the absolute byte offset; the readers turn them into input errors that name
// the file. The structure, numbers and literals are checked as a JSON parser checks them; the content of a
// string is checked (escapes, raw control characters) only when it is decoded (names, labels): a skipped call
// stack with a raw TAB passes, where Python's json module would refuse the file. A leading byte-order mark is
// skipped. The object form's `traceEvents` may come anywhere among its members; members the reader asks for
// (`distributedInfo`) are decoded whole up to 1 MiB.
//
// Over 400 lines: one streaming tokenizer: its states (items, the window, skipping values, the errors that name a
// byte) share one cursor and buffer, and are read together with the fast path's contract.

import { isUtf8 } from 'node:buffer';
import { defaultEngine, type Engine } from '../engine.js';
import { FastEvents } from './fastEvents.js';
import { plural } from '../../util/format.js';

/** Value kinds of a located field. */
export const ABSENT = 0;
export const STRING = 1;
export const NUMBER = 2;
export const TRUE = 3;
export const FALSE = 4;
export const NULL = 5;
export const OBJECT = 6;
export const ARRAY = 7;

export const MAX_DEPTH = 512;
export const DEFAULT_MAX_ITEM = 64 << 20;
/**
 * Most white space in a row between items. It is never kept (memory stays a chunk's), but scanned: a small gzip that
 * unpacks to gigabytes of blanks (a gzip bomb) would take minutes without a bound. No profiler writes a MiB of it.
 */
export const MAX_BLANK = 64 << 20;
/** Top-level members the reader asks for are decoded whole (JSON.parse) up to this size; larger ones are skipped. */
const MAX_TOP_VALUE = 1 << 20;
/** A cut item up to this size is finished in a small buffer (see push). */
const BRIDGE = 16 << 10;

const QUOTE = 34;
const BACKSLASH = 92;
const COMMA = 44;
const COLON = 58;
const LBRACE = 123;
const RBRACE = 125;
const LBRACKET = 91;
const RBRACKET = 93;

/** A syntax or limit error at an absolute byte offset of the input. */
export class JsonTraceError extends Error {
  constructor(
    readonly offset: number,
    readonly what: string,
  ) {
    super(`byte ${offset}: ${what}`);
    this.name = 'JsonTraceError';
  }
}

/** Thrown (once per chunk at most) when an item runs past the bytes in the window. */
const NEED = { need: true };

export interface ScannerOptions {
  /** Keys of an event whose values are located (`ph`, `name`, `ts` …). */
  eventKeys: readonly string[];
  /** Keys inside an event's `args` object whose values are located (`Task Type`, `stream` …). */
  argKeys: readonly string[];
  /** Members of the top-level object that are decoded whole and handed to `top` (`distributedInfo`). */
  topKeys?: readonly string[];
  maxItemBytes?: number;
  /**
   * Asked when an event's `args` object is met, with the fields located so far: false skips it unread (its
   * fields stay absent). Lets a reader pass over the args of host events (`cpu_op` …) it does not use.
   */
  wantArgs?: (v: EventView) => boolean;
  /**
   * Asked as soon as all the `decideOn` fields of an event are located (never when one is absent): false says
   * the event is of no use: the rest of it is checked, not read, and it is not handed to `event` (it is counted
   * in EventScanner.skipped). Lets a reader pass over the bulk of a trace (host `cpu_op` events, flow arrows).
   * It must answer by the decideOn fields alone (it looks at nothing else of the view): the fast path asks it
   * once for each spelling of their strings and keeps the answer.
   */
  wantRest?: (v: EventView) => boolean;
  /** The event keys `wantRest` decides on (at most 31 event keys in all when it is given). */
  decideOn?: readonly string[];
  /** An event key whose string values the fast path interns by their bytes (EventView.interned: kernel names). */
  intern?: string;
  /**
   * 'simd' (the default of the run, see input/engine.ts): events go through the WebAssembly fast path
   * (events.wat) where it runs, the JavaScript scanner taking each one it leaves; 'js': the JavaScript scanner
   * alone. The same events either way; the fast path locates every asked-for field of the events it hands on
   * (it takes `wantArgs` as a hint it need not follow: a reader must not rely on a field being left absent).
   */
  engine?: Engine;
}

export interface ScannerHandler {
  /** One event: the view is valid only during the call. */
  event(v: EventView): void;
  /** A top-level member asked for, decoded (null when it was larger than 1 MiB). */
  top?(key: string, value: unknown, offset: number): void;
}

/** Keys by byte length: [field index, bytes, field index, bytes …]. */
type KeyTable = ((number | Uint8Array)[] | undefined)[];

function keyTable(keys: readonly string[]): KeyTable {
  const table: KeyTable = [];
  keys.forEach((k, i) => {
    const bytes = new Uint8Array(Buffer.from(k, 'utf8'));
    const bucket = table[bytes.length] ?? [];
    bucket.push(i, bytes);
    table[bytes.length] = bucket;
  });
  for (let i = 0; i < table.length; i++) table[i] ??= undefined;
  return table;
}

/**
 * The located fields of the current event: field i is `eventKeys[i]`, field `eventKeys.length + j` is
 * `argKeys[j]`. Strings are located without their quotes.
 */
export class EventView {
  buf: Buffer = Buffer.alloc(0);
  /** Absolute byte offset of buf[0]. */
  bufAbs = 0;
  /** Absolute byte offset of the event's `{`. */
  offset = 0;
  /** 0-based position of the event in the events array. */
  index = 0;
  /** The fast path's id of the intern field's bytes (ScannerOptions.intern); negative: none. */
  nameId = -2;
  /** Decoded names by id (emptied with the fast path's table). */
  readonly names: string[] = [];
  /** The field ScannerOptions.intern names (-1: none). */
  internField = -1;
  // Written by the scanner (in the fast path's memory when it runs: the arrays are replaced when it grows).
  kinds: Uint8Array;
  starts: Int32Array;
  ends: Int32Array;

  constructor(fields: number) {
    this.kinds = new Uint8Array(fields);
    this.starts = new Int32Array(fields);
    this.ends = new Int32Array(fields);
  }

  kind(i: number): number {
    return this.kinds[i]!;
  }

  /**
   * The intern field's string, decoded once per distinct spelling (no hashing or decoding per event), or null
   * when the fast path did not intern it (the JavaScript scanner read the event): decode it then.
   */
  interned(): string | null {
    const id = this.nameId;
    if (id < 0) return null;
    let s = this.names[id];
    if (s === undefined) {
      s = this.str(this.internField)!;
      this.names[id] = s;
    }
    return s;
  }

  /** The string value decoded, or null when the field is absent or not a string. */
  str(i: number): string | null {
    if (this.kinds[i] !== STRING) return null;
    return decodeString(this.buf, this.starts[i]!, this.ends[i]!, this.bufAbs);
  }

  /** The field's scalar as text: a string's content, a number's digits; null for others. Map keys (pid, tid). */
  scalar(i: number): string | null {
    const k = this.kinds[i];
    if (k === STRING) return decodeString(this.buf, this.starts[i]!, this.ends[i]!, this.bufAbs);
    if (k === NUMBER) return this.buf.toString('latin1', this.starts[i]!, this.ends[i]!);
    return null;
  }

  /** A non-negative integer field (written as digits, at most 15 of them), else NaN. No string is made. */
  int(i: number): number {
    if (this.kinds[i] !== NUMBER) return Number.NaN;
    const b = this.buf;
    const s = this.starts[i]!;
    const e = this.ends[i]!;
    if (e - s > 15) return Number.NaN;
    let n = 0;
    for (let k = s; k < e; k++) {
      const d = b[k]! - 48;
      if (d < 0 || d > 9) return Number.NaN;
      n = n * 10 + d;
    }
    return n;
  }

  /** Is the field a string equal to `bytes` (as written, without escapes)? No decoding. */
  strIs(i: number, bytes: Uint8Array): boolean {
    if (this.kinds[i] !== STRING) return false;
    const s = this.starts[i]!;
    if (this.ends[i]! - s !== bytes.length) return false;
    const b = this.buf;
    for (let k = 0; k < bytes.length; k++) if (b[s + k] !== bytes[k]) return false;
    return true;
  }

  /** Does the string field start with `bytes`? */
  strStarts(i: number, bytes: Uint8Array): boolean {
    if (this.kinds[i] !== STRING) return false;
    const s = this.starts[i]!;
    if (this.ends[i]! - s < bytes.length) return false;
    const b = this.buf;
    for (let k = 0; k < bytes.length; k++) if (b[s + k] !== bytes[k]) return false;
    return true;
  }

  /** The raw bytes of a number or string field's content (for number parsing straight from bytes). */
  span(i: number): [number, number] {
    return [this.starts[i]!, this.ends[i]!];
  }
}

/** Decode the content of a JSON string located in `b` at [s, e) (without quotes); `abs` is the offset of b[0]. */
export function decodeString(b: Buffer, s: number, e: number, abs: number): string {
  for (let i = s; i < e; i++) {
    if (b[i] !== BACKSLASH) continue;
    try {
      return JSON.parse(b.toString('utf8', s - 1, e + 1)) as string;
    } catch {
      throw new JsonTraceError(abs + s - 1, 'a string with an invalid escape sequence or a raw control character');
    }
  }
  return b.toString('utf8', s, e);
}

enum State {
  Start,
  ObjFirst,
  ObjKey,
  ObjNext,
  EventsFirst,
  Event,
  EventsNext,
  Done,
}

export type TraceForm = 'array' | 'object';

export class EventScanner {
  private readonly eventKeys: KeyTable;
  private readonly argKeys: KeyTable;
  private readonly topKeys: string[];
  private readonly nEvent: number;
  private readonly argsField: number;
  private readonly maxItem: number;
  private readonly view: EventView;
  private readonly wantArgs: ((v: EventView) => boolean) | null;
  private readonly wantRest: ((v: EventView) => boolean) | null;
  /** Bits of the decideOn fields (0: no wantRest), and their indices. */
  private readonly decideMask: number;
  private readonly decide: number[] = [];
  /** The fast path's count of emptied name tables, when last looked at (see fastRun). */
  private generation = 0;
  /** Where the event the fast path stopped at starts, while it is read (the start of a cut item), else -1. */
  private cutAt = -1;
  /** Whether the last member name keyEnd found holds an escape. */
  private keyEscaped = false;
  private readonly stack = new Uint8Array(MAX_DEPTH);
  /** The WebAssembly fast path (null: the JavaScript scanner alone). */
  private fast: FastEvents | null;

  private buf: Buffer = Buffer.alloc(0);
  /** Absolute offset of buf[0]. */
  private bufAbs = 0;
  private end = 0;
  private state: State = State.Start;
  /** Bytes kept from an item cut by a chunk boundary, and chunks that came after it. */
  private tail: Buffer | null = null;
  private tailAbs = 0;
  private pending: Buffer[] = [];
  /** Whether buf is the caller's chunk (else a buffer of the scanner's own). */
  private borrowed = false;
  private pendingBytes = 0;
  /** Bytes fed so far (absolute offset of the next chunk). */
  private fed = 0;
  /** A UTF-8 sequence cut by the end of the last chunk. */
  private utf8Carry: Buffer | null = null;
  private finished = false;
  /** The members of the top-level object read so far that may appear once (traceEvents and the topKeys). */
  private readonly topSeen: string[] = [];
  /** White space in a row up to the end of the bytes scanned, between items (see run). */
  private blank = 0;

  form: TraceForm | null = null;
  /** Events seen (elements of the events array). */
  events = 0;
  /** Whether a `traceEvents` member was found (object form). */
  sawTraceEvents = false;
  /** Events the fast path read (the rest were the JavaScript scanner's). */
  fastEvents = 0;
  /** Events the reader said were of no use (ScannerOptions.wantRest): counted in `events`, not handed on. */
  skipped = 0;

  constructor(
    options: ScannerOptions,
    private readonly handler: ScannerHandler,
  ) {
    this.eventKeys = keyTable(options.eventKeys);
    this.argKeys = keyTable(options.argKeys);
    this.topKeys = [...(options.topKeys ?? [])];
    this.nEvent = options.eventKeys.length;
    this.argsField = options.eventKeys.indexOf('args');
    this.maxItem = Math.max(64, options.maxItemBytes ?? DEFAULT_MAX_ITEM);
    this.view = new EventView(this.nEvent + options.argKeys.length);
    this.wantArgs = options.wantArgs ?? null;
    this.wantRest = options.wantRest ?? null;
    let mask = 0;
    if (this.wantRest !== null) {
      if (this.nEvent > 31) throw new Error('wantRest: at most 31 event keys');
      for (const k of options.decideOn ?? []) {
        const i = options.eventKeys.indexOf(k);
        if (i < 0) throw new Error(`decideOn: ${k} is not an event key`);
        if ((mask & (1 << i)) === 0) this.decide.push(i);
        mask |= 1 << i;
      }
      if (mask === 0) this.wantRest = null;
    }
    this.decideMask = mask;
    const bytesOf = (k: string): Uint8Array => new Uint8Array(Buffer.from(k, 'utf8'));
    this.fast =
      (options.engine ?? defaultEngine()) === 'js'
        ? null
        : FastEvents.create(
            options.eventKeys.map(bytesOf),
            options.argKeys.map(bytesOf),
            this.argsField,
            options.intern === undefined ? -1 : options.eventKeys.indexOf(options.intern),
            this.decide,
          );
    this.view.internField = options.intern === undefined ? -1 : options.eventKeys.indexOf(options.intern);
  }

  /**
   * Feed the next chunk. The scanner keeps no reference to it once push returns (what it keeps it copies): the
   * caller may read the next chunk into the same memory.
   */
  push(chunk: Buffer): void {
    if (chunk.length === 0) return;
    this.checkUtf8(chunk);
    const abs = this.fed;
    this.fed += chunk.length;
    if (this.tail === null) {
      this.buf = chunk;
      this.borrowed = true;
      this.bufAbs = abs;
    } else if (this.pending.length === 0 && this.tail.length <= BRIDGE) {
      // The item cut by the last chunk's end is finished in a small buffer of its bytes and the first bytes of
      // this chunk; the rest of the chunk is then scanned where it is (no copy of the whole chunk).
      const tail = this.tail;
      const take = Math.min(chunk.length, 4 * BRIDGE);
      this.buf = Buffer.concat([tail, chunk.subarray(0, take)]);
      this.borrowed = false;
      this.bufAbs = this.tailAbs;
      this.tail = null;
      const stop = this.run(false, tail.length);
      if (stop >= 0) {
        this.buf = chunk;
        this.borrowed = true;
        this.bufAbs = abs;
        this.run(false, -1, stop - tail.length);
      } else if (take < chunk.length) {
        // Still cut (an item longer than the bridge): the rest of the chunk waits with it.
        this.pending.push(Buffer.from(chunk.subarray(take)));
        this.pendingBytes += chunk.length - take;
        if (this.pendingBytes >= this.tail!.length) this.retry();
      }
      return;
    } else {
      this.pending.push(Buffer.from(chunk));
      this.pendingBytes += chunk.length;
      // Retry a cut item only once the window has doubled (each byte of a long item is scanned a few times in
      // all), or holds more than the item limit: the cut item must then end within the limit's first bytes.
      if (this.pendingBytes < this.tail.length && this.tail.length + this.pendingBytes <= this.maxItem) return;
      this.retry();
      return;
    }
    this.run(false);
  }

  /** The input ended: throws if it ended inside the trace. */
  finish(): void {
    if (this.finished) return;
    this.finished = true;
    if (this.utf8Carry !== null) throw new JsonTraceError(this.fed - this.utf8Carry.length, 'the file ends inside a UTF-8 character (cut short?)');
    if (this.tail !== null) this.join();
    else {
      // Everything fed has been scanned: only the end is left to check.
      this.bufAbs = this.fed;
      this.buf = Buffer.alloc(0);
      this.borrowed = false;
    }
    this.run(true);
    // The trace was read whole: the fast path's instance goes back for the next scanner.
    this.fast?.release();
    this.fast = null;
  }

  /** Total bytes fed. */
  get bytes(): number {
    return this.fed;
  }

  /**
   * The cut item and the chunks after it, scanned on. When they hold more than the item limit, the cut item is
   * scanned in their first `maxItem` bytes alone: one that does not end there is refused (as cut), before its
   * fields are handed on, so the limit holds to the byte and the window to the limit and a chunk.
   */
  private retry(): void {
    this.join();
    const whole = this.buf;
    if (whole.length <= this.maxItem) {
      this.run(false);
      return;
    }
    this.buf = whole.subarray(0, this.maxItem);
    const stop = this.run(false, 1);
    this.buf = whole;
    if (stop >= 0) this.run(false, -1, stop);
  }

  private join(): void {
    this.buf = this.pending.length === 0 ? this.tail! : Buffer.concat([this.tail!, ...this.pending]);
    this.borrowed = false;
    this.bufAbs = this.tailAbs;
    this.tail = null;
    this.pending = [];
    this.pendingBytes = 0;
  }

  private checkUtf8(chunk: Buffer): void {
    let from = 0;
    if (this.utf8Carry !== null) {
      const carry = this.utf8Carry;
      const len = seqLength(carry[0]!);
      const take = Math.min(len - carry.length, chunk.length);
      const joined = Buffer.concat([carry, chunk.subarray(0, take)]);
      if (joined.length < len) {
        this.utf8Carry = joined;
        return;
      }
      if (!isUtf8(joined))
        throw new JsonTraceError(
          this.fed - carry.length,
          'a byte that is not UTF-8 (JSON text is UTF-8: is the file in another encoding, or damaged?)',
        );
      this.utf8Carry = null;
      from = take;
    }
    const cut = completeEnd(chunk, from, chunk.length);
    if (!isUtf8(chunk.subarray(from, cut))) {
      throw new JsonTraceError(
        this.fed + firstBadUtf8(chunk, from, cut),
        'a byte that is not UTF-8 (JSON text is UTF-8: is the file in another encoding, or damaged?)',
      );
    }
    if (cut < chunk.length) this.utf8Carry = Buffer.from(chunk.subarray(cut));
  }

  /**
   * Scan items from `start` until the window ends (or, with `stopAt` ≥ 0, until an item ends at or past it: then
   * the position is returned). -1 when the window ended: a cut item is kept as the tail.
   */
  private run(eof: boolean, stopAt = -1, start = 0): number {
    const b = this.buf;
    this.end = b.length;
    const fast = this.fast;
    if (fast !== null) {
      fast.load(b, start);
      const v = this.view;
      v.kinds = fast.kinds;
      v.starts = fast.starts;
      v.ends = fast.ends;
    }
    let p = start;
    let itemStart = start;
    this.cutAt = -1;
    try {
      for (;;) {
        if (stopAt >= 0 && p >= stopAt) return p;
        itemStart = p;
        switch (this.state) {
          case State.Start: {
            p = this.ws(p);
            // A byte-order mark (an editor's re-save) is not JSON, but says nothing against the trace.
            if (b[p] === 0xef && this.bufAbs + p === 0) {
              if (p + 3 > this.end) throw NEED;
              if (b[p + 1] === 0xbb && b[p + 2] === 0xbf) p = this.ws(p + 3);
            }
            const c = b[p];
            if (c === LBRACKET) {
              this.form = 'array';
              this.state = State.EventsFirst;
            } else if (c === LBRACE) {
              this.form = 'object';
              this.state = State.ObjFirst;
            } else {
              this.fail(p, `expected a JSON array of trace events or an object with "traceEvents"; found ${describe(b, p)}`);
            }
            p++;
            break;
          }
          case State.ObjFirst:
            p = this.ws(p);
            if (b[p] === RBRACE) {
              p++;
              this.state = State.Done;
            } else this.state = State.ObjKey;
            break;
          case State.ObjKey: {
            p = this.ws(p);
            if (b[p] !== QUOTE) this.fail(p, `expected a member name in quotes; found ${describe(b, p)}`);
            const ks = p + 1;
            const ke = this.strEnd(p);
            p = this.ws(ke + 1);
            if (b[p] !== COLON) this.fail(p, `expected ':' after a member name; found ${describe(b, p)}`);
            p = this.ws(p + 1);
            const key = decodeString(b, ks, ke, this.bufAbs);
            // A member named twice is the last one for JSON.parse (and the tools built on it), the first one for
            // a scan that stops at it: the two would read different traces, so neither is chosen.
            // (Kept once its value is scanned whole: a value cut by the window's end is scanned again.)
            if (this.topSeen.includes(key))
              this.fail(ks - 1, `a second "${key}" member in the top-level object (JSON readers differ on which one counts); expected one`);
            if (key === 'traceEvents') {
              if (b[p] !== LBRACKET) this.fail(p, `expected "traceEvents" to be an array of events; found ${describe(b, p)}`);
              this.sawTraceEvents = true;
              this.topSeen.push(key);
              p++;
              this.state = State.EventsFirst;
            } else {
              const vs = p;
              p = this.skipValue(p);
              if (this.topKeys.includes(key)) this.topSeen.push(key);
              if (this.topKeys.includes(key) && this.handler.top) {
                const value = p - vs <= MAX_TOP_VALUE ? this.parseTop(b, vs, p) : null;
                this.handler.top(key, value, this.bufAbs + vs);
              }
              this.state = State.ObjNext;
            }
            break;
          }
          case State.ObjNext:
            p = this.ws(p);
            if (b[p] === COMMA) this.state = State.ObjKey;
            else if (b[p] === RBRACE) this.state = State.Done;
            else this.fail(p, `expected ',' or '}' after a member of the top-level object; found ${describe(b, p)}`);
            p++;
            break;
          case State.EventsFirst:
            p = this.ws(p);
            if (b[p] === RBRACKET) {
              p++;
              this.state = this.form === 'array' ? State.Done : State.ObjNext;
            } else this.state = State.Event;
            break;
          case State.Event:
            p = this.ws(p);
            if (b[p] !== LBRACE) this.fail(p, `expected trace event ${this.events} to be an object; found ${describe(b, p)}`);
            if (this.fast === null) {
              p = this.event(p);
              this.state = State.EventsNext;
            } else p = this.fastRun(p, stopAt);
            break;
          case State.EventsNext:
            p = this.ws(p);
            if (b[p] === COMMA) this.state = State.Event;
            else if (b[p] === RBRACKET) this.state = this.form === 'array' ? State.Done : State.ObjNext;
            else this.fail(p, `expected ',' or ']' after trace event ${this.events - 1}; found ${describe(b, p)}`);
            p++;
            break;
          case State.Done:
            p = this.ws(p);
            this.fail(p, `unexpected ${describe(b, p)} after the end of the trace`);
        }
      }
    } catch (e) {
      if (e !== NEED) throw e;
      // The fast path went on past the item this loop started: the cut one starts where it stopped.
      if (this.cutAt >= 0) itemStart = this.cutAt;
    }
    // Out of bytes: at the end of the input only white space may be left, after a complete trace.
    if (eof) {
      if (this.state === State.Done) return -1;
      this.cutShort(itemStart);
    }
    // White space between items is no part of one: it is not kept (a file of white space would otherwise grow
    // the window to the item limit, and be refused as an item that is not there).
    const blankFrom = itemStart;
    while (itemStart < this.end && (b[itemStart] === 32 || b[itemStart] === 10 || b[itemStart] === 13 || b[itemStart] === 9)) itemStart++;
    if (itemStart === this.end) {
      // Counted over the chunks it spans, and bounded (MAX_BLANK).
      this.blank = blankFrom === start && this.blank > 0 ? this.blank + (this.end - blankFrom) : this.end - blankFrom;
      if (this.blank > MAX_BLANK) {
        throw new JsonTraceError(
          this.bufAbs + this.end - this.blank,
          `more than ${MAX_BLANK >> 20} MiB of white space in a row, the limit (no profiler writes that much between two items of a trace)`,
        );
      }
    } else this.blank = 0;
    if (itemStart < this.end) {
      const keep = b.subarray(itemStart);
      if (keep.length >= this.maxItem) {
        let at = itemStart;
        while (at < this.end && b[at]! <= 32) at++;
        this.fail(at, `${this.itemName()} is longer than ${this.maxItem >> 20} MiB, the limit (no real trace has one that long)`);
      }
      // A cut item in the caller's chunk is copied: the caller may reuse the chunk's memory.
      this.tail = this.borrowed ? Buffer.from(keep) : keep;
      this.tailAbs = this.bufAbs + itemStart;
    }
    return -1;
  }

  private parseTop(b: Buffer, s: number, e: number): unknown {
    try {
      return JSON.parse(b.toString('utf8', s, e)) as unknown;
    } catch {
      throw new JsonTraceError(this.bufAbs + s, 'a value with an invalid string escape or a raw control character');
    }
  }

  private itemName(): string {
    return this.state === State.Event ? `trace event ${this.events}` : this.state === State.ObjKey ? 'a member of the top-level object' : 'a value';
  }

  private cutShort(itemStart: number): never {
    const at = this.bufAbs + this.end;
    const s = this.state;
    if (s === State.Start) throw new JsonTraceError(at, 'the file holds no JSON (empty or only white space); expected a trace');
    if (s === State.Event) {
      let p = itemStart;
      while (p < this.end && this.buf[p]! <= 32) p++;
      if (p < this.end)
        throw new JsonTraceError(
          at,
          `the file ends inside trace event ${this.events} (which starts at byte ${this.bufAbs + p}): the file is cut short`,
        );
    }
    if (s === State.Event || s === State.EventsFirst || s === State.EventsNext) {
      throw new JsonTraceError(
        at,
        `the file ends inside the array of trace events, after ${plural(this.events, 'event')}, without its closing ']': the file is cut short`,
      );
    }
    throw new JsonTraceError(at, "the file ends inside the top-level object, without its closing '}': the file is cut short");
  }

  private fail(p: number, what: string): never {
    if (p >= this.end) throw NEED;
    throw new JsonTraceError(this.bufAbs + p, what);
  }

  private ws(p: number): number {
    const b = this.buf;
    const end = this.end;
    while (p < end) {
      const c = b[p]!;
      if (c > 32 || (c !== 32 && c !== 10 && c !== 13 && c !== 9)) return p;
      p++;
    }
    throw NEED;
  }

  /** `p` is at an opening quote: the index of the closing one. */
  private strEnd(p: number): number {
    const b = this.buf;
    const end = this.end;
    let q = p + 1;
    // Short strings (keys, most values) by a plain loop; long ones by the native search.
    const stop = Math.min(end, q + 24);
    for (; q < stop; q++) {
      const c = b[q]!;
      if (c === QUOTE) return q;
      if (c === BACKSLASH) {
        q++;
      }
    }
    if (q >= end) throw NEED;
    for (;;) {
      const i = b.indexOf(QUOTE, q);
      if (i < 0) throw NEED;
      let k = i - 1;
      let n = 0;
      while (k > p && b[k] === BACKSLASH) {
        n++;
        k--;
      }
      if ((n & 1) === 0) return i;
      q = i + 1;
    }
  }

  /** `p` is at the first byte of a number: the index past it. The JSON number grammar, in one pass. */
  private numEnd(p: number): number {
    const b = this.buf;
    const end = this.end;
    const start = p;
    let c = b[p]!;
    if (c === 45) c = b[++p]!;
    if (c === 48) p++;
    else if (c >= 49 && c <= 57) {
      p++;
      while (p < end && isDigit(b[p]!)) p++;
    } else this.fail(p, `not a valid number: ${describe(b, start)}${notJson(b, start)}`);
    if (p < end && b[p] === 46) {
      const d = ++p;
      while (p < end && isDigit(b[p]!)) p++;
      if (p === d) this.fail(p, `not a valid number (no digit after the decimal point): ${describe(b, start)}`);
    }
    if (p < end && (b[p] === 101 || b[p] === 69)) {
      p++;
      if (p < end && (b[p] === 43 || b[p] === 45)) p++;
      const d = p;
      while (p < end && isDigit(b[p]!)) p++;
      if (p === d) this.fail(p, `not a valid number (no digit in the exponent): ${describe(b, start)}`);
    }
    // A number that touches the end of the window may go on in the next chunk.
    if (p >= end) throw NEED;
    return p;
  }

  private literal(p: number, word: string): number {
    const b = this.buf;
    if (p + word.length > this.end) throw NEED;
    for (let k = 0; k < word.length; k++) if (b[p + k] !== word.charCodeAt(k)) this.fail(p, `expected a value; found ${describe(b, p)}`);
    return p + word.length;
  }

  /** The index past the string whose quote is at `p`: short ones (most skipped values) in a loop; long ones, or ones with escapes, by strEnd. */
  private stringPast(p: number): number {
    const b = this.buf;
    let q = p + 1;
    const stop = Math.min(q + 32, this.end);
    let x = 0;
    while (q < stop) {
      x = b[q]!;
      if (x === QUOTE || x === BACKSLASH) break;
      q++;
    }
    return q < stop && x === QUOTE ? q + 1 : this.strEnd(p) + 1;
  }

  /** Skip one value starting at `p` (white space allowed before it): the index past it. */
  private skipValue(p: number): number {
    const b = this.buf;
    const end = this.end;
    let c = p < end ? b[p]! : -1;
    while (c === 32 || c === 10 || c === 13 || c === 9) c = ++p < end ? b[p]! : -1;
    if (c === QUOTE) return this.stringPast(p);
    if (c >= 48 ? c <= 57 : c === 45) return this.numEnd(p);
    return this.skip(p, 0, true);
  }

  /** `p` is past a member of the event object: skip the rest of it, and its closing brace. */
  private skipRest(p: number): number {
    this.stack[0] = LBRACE;
    return this.skip(p, 1, false);
  }

  /**
   * The validating skip, in one loop (no call per token but for long strings and numbers): with `d` containers
   * open (their brackets in the stack) and `value` true, a value is expected at `p`; with `value` false, `p` is
   * past a value in the innermost container. Returns the index past the container that was open at depth 0 (or
   * past the one value when `d` is 0). Iterative; depth bounded by MAX_DEPTH.
   */
  private skip(p: number, d: number, value: boolean): number {
    const b = this.buf;
    const end = this.end;
    const stack = this.stack;
    let c = 0;
    for (;;) {
      if (value) {
        c = p < end ? b[p]! : -1;
        while (c === 32 || c === 10 || c === 13 || c === 9) c = ++p < end ? b[p]! : -1;
        if (c === QUOTE) {
          p = this.stringPast(p);
        } else if (c >= 48 ? c <= 57 : c === 45) {
          p = this.numEnd(p);
        } else if (c === LBRACE || c === LBRACKET) {
          if (d >= MAX_DEPTH) this.fail(p, `values nested deeper than ${MAX_DEPTH} levels (no real trace nests that deep)`);
          stack[d++] = c;
          let t = ++p < end ? b[p]! : -1;
          while (t === 32 || t === 10 || t === 13 || t === 9) t = ++p < end ? b[p]! : -1;
          if (c === LBRACE) {
            if (t !== RBRACE) {
              p = this.memberName(p);
              continue;
            }
          } else if (t !== RBRACKET) continue;
          p++;
          d--;
        } else if (c === 116) p = this.literal(p, 'true');
        else if (c === 102) p = this.literal(p, 'false');
        else if (c === 110) p = this.literal(p, 'null');
        else this.fail(p, `expected a value; found ${describe(b, p)}${notJson(b, p)}`);
      }
      value = true;
      // After a value: close containers, or go on to the next element.
      for (;;) {
        if (d === 0) return p;
        c = p < end ? b[p]! : -1;
        while (c === 32 || c === 10 || c === 13 || c === 9) c = ++p < end ? b[p]! : -1;
        const open = stack[d - 1];
        if (c === COMMA) {
          p++;
          if (open === LBRACE) {
            c = p < end ? b[p]! : -1;
            while (c === 32 || c === 10 || c === 13 || c === 9) c = ++p < end ? b[p]! : -1;
            p = this.memberName(p);
          }
          break;
        }
        if (c === RBRACE ? open === LBRACE : c === RBRACKET && open === LBRACKET) {
          p++;
          d--;
          continue;
        }
        this.fail(p, `expected ',' or '${open === LBRACE ? '}' : ']'}'; found ${describe(b, p)}`);
      }
    }
  }

  /** `p` is at a member name's quote: past the name, the white space and the colon. */
  private memberName(p: number): number {
    const b = this.buf;
    if (b[p] !== QUOTE) this.fail(p, `expected a member name in quotes; found ${describe(b, p)}`);
    p = this.keyEnd(p) + 1;
    if (b[p] !== COLON) {
      p = this.ws(p);
      if (b[p] !== COLON) this.fail(p, `expected ':' after a member name; found ${describe(b, p)}`);
    }
    return p + 1;
  }

  /** `p` is at a member name's opening quote: the index of the closing one. Names are short, and rarely escaped. */
  private keyEnd(p: number): number {
    const b = this.buf;
    const end = this.end;
    let q = p + 1;
    this.keyEscaped = false;
    for (;;) {
      if (q >= end) throw NEED;
      const x = b[q]!;
      if (x === QUOTE) return q;
      if (x === BACKSLASH) {
        this.keyEscaped = true;
        return this.strEnd(p);
      }
      q++;
    }
  }

  /** Record the value at `p` in field `f`; returns the index past it. */
  private record(f: number, p: number): number {
    const b = this.buf;
    const v = this.view;
    const c = b[p]!;
    if (c === QUOTE) {
      const e = this.strEnd(p);
      v.kinds[f] = STRING;
      v.starts[f] = p + 1;
      v.ends[f] = e;
      return e + 1;
    }
    let kind: number;
    const start = p;
    if (c === 45 || (c >= 48 && c <= 57)) {
      p = this.numEnd(p);
      kind = NUMBER;
    } else {
      p = this.skipValue(p);
      kind = c === LBRACE ? OBJECT : c === LBRACKET ? ARRAY : c === 116 ? TRUE : c === 102 ? FALSE : NULL;
    }
    v.kinds[f] = kind;
    v.starts[f] = start;
    v.ends[f] = p;
    return p;
  }

  /**
   * Field index of the member name at [s, e) (the bytes between its quotes), or -1. Names are bucketed by length,
   * then told apart by their bytes; a name written with escapes is decoded first (JSON.parse reads `"n\u0061me"`
   * as `name`).
   */
  private match(table: KeyTable, s: number, e: number): number {
    const n = e - s;
    const b = this.buf;
    if (n < table.length) {
      const bucket = table[n];
      if (bucket !== undefined) {
        for (let i = 0; i < bucket.length; i += 2) {
          const k = bucket[i + 1] as Uint8Array;
          let j = 0;
          while (j < n && b[s + j] === k[j]) j++;
          if (j === n) return bucket[i] as number;
        }
      }
    }
    return this.keyEscaped ? this.matchEscaped(table, s, e) : -1;
  }

  private matchEscaped(table: KeyTable, s: number, e: number): number {
    const key = Buffer.from(decodeString(this.buf, s, e, this.bufAbs), 'utf8');
    const bucket = table[key.length];
    if (bucket === undefined) return -1;
    for (let i = 0; i < bucket.length; i += 2) if (key.equals(bucket[i + 1] as Uint8Array)) return bucket[i] as number;
    return -1;
  }

  /**
   * Events from the one at `p` (its `{`) by the fast path, the events of no use passed over, each other handed
   * on, until one ends at or past `stopAt` (≥ 0) or is not followed by a comma and another event: the position
   * past the last one read, with the state set for what follows. An event the fast path leaves, event() reads.
   */
  private fastRun(p: number, stopAt: number): number {
    const fast = this.fast!;
    const v = this.view;
    const end = this.end;
    const stop = stopAt >= 0 ? stopAt : end;
    for (;;) {
      const q = fast.events(p, end, stop);
      const skipped = fast.skipped();
      if (skipped > 0) {
        this.events += skipped;
        this.skipped += skipped;
        this.fastEvents += skipped;
      }
      if (fast.generation() !== this.generation) {
        // The fast path emptied its full name table (more names than a trace has): ids start again.
        this.generation = fast.generation();
        v.names.length = 0;
      }
      const at = fast.start();
      if (q < 0) {
        if (q === -3) {
          this.state = State.EventsNext;
          return at;
        }
        this.cutAt = at;
        if (q === -1) throw NEED;
        v.nameId = -2;
        const r = this.event(at);
        this.cutAt = -1;
        this.state = State.EventsNext;
        return r;
      }
      this.fastEvents++;
      v.nameId = fast.nameId();
      v.buf = fast.data;
      v.bufAbs = this.bufAbs;
      v.offset = this.bufAbs + at;
      v.index = this.events;
      this.events++;
      if (this.use(fast.verdict())) this.handler.event(v);
      else this.skipped++;
      const next = fast.next();
      if (next < 0 || q >= stop) {
        this.state = State.EventsNext;
        return q;
      }
      p = next;
    }
  }

  /** Is the event the fast path handed on of use (ScannerOptions.wantRest; see FastEvents.verdict)? */
  private use(verdict: number): boolean {
    const want = this.wantRest;
    if (want === null || verdict === 1) return true;
    if (verdict === 0) {
      // Asked only when every decide field is there, as event() asks.
      const kinds = this.view.kinds;
      for (const i of this.decide) if (kinds[i] === ABSENT) return true;
      return want(this.view);
    }
    const use = want(this.view);
    this.fast!.setVerdict(use);
    return use;
  }

  /** One event object at `p` (its `{`): located fields, then the handler. */
  private event(p: number): number {
    const b = this.buf;
    const end = this.end;
    const v = this.view;
    const start = p;
    const decideMask = this.decideMask;
    let seen = 0;
    let decided = decideMask === 0;
    v.kinds.fill(0);
    v.buf = b;
    v.bufAbs = this.bufAbs;
    p = this.ws(p + 1);
    if (b[p] === RBRACE) p++;
    else {
      for (;;) {
        if (b[p] !== QUOTE) this.fail(p, `expected a member name in quotes in trace event ${this.events}; found ${describe(b, p)}`);
        const ks = p + 1;
        const ke = this.keyEnd(p);
        p = ke + 1;
        if (b[p] !== COLON) {
          p = this.ws(p);
          if (b[p] !== COLON) this.fail(p, `expected ':' after a member name; found ${describe(b, p)}`);
        }
        p++;
        let c = p < end ? b[p]! : -1;
        if (c <= 32) {
          p = this.ws(p);
          c = b[p]!;
        }
        const f = this.match(this.eventKeys, ks, ke);
        if (f < 0) p = this.skipValue(p);
        else {
          if (f === this.argsField && c === LBRACE && (this.wantArgs === null || this.wantArgs(v))) p = this.args(p);
          else p = this.record(f, p);
          seen |= 1 << f;
          if (!decided && (seen & decideMask) === decideMask) {
            decided = true;
            if (!this.wantRest!(v)) {
              // The event is of no use to the reader: the rest is checked, not looked at, and it is not handed on.
              p = this.skipRest(p);
              this.events++;
              this.skipped++;
              return p;
            }
          }
        }
        c = p < end ? b[p]! : -1;
        if (c <= 32) {
          p = this.ws(p);
          c = b[p]!;
        }
        if (c === COMMA) {
          p = this.ws(p + 1);
          continue;
        }
        if (c === RBRACE) {
          p++;
          break;
        }
        this.fail(p, `expected ',' or '}' in trace event ${this.events}; found ${describe(b, p)}`);
      }
    }
    v.buf = b;
    v.bufAbs = this.bufAbs;
    v.offset = this.bufAbs + start;
    v.index = this.events;
    this.events++;
    this.handler.event(v);
    return p;
  }

  /** The `args` object at `p`: its asked-for members located. */
  private args(p: number): number {
    const b = this.buf;
    const end = this.end;
    const start = p;
    const nEvent = this.nEvent;
    p = this.ws(p + 1);
    if (b[p] === RBRACE) return this.markArgs(start, p + 1);
    for (;;) {
      if (b[p] !== QUOTE) this.fail(p, `expected a member name in quotes in "args"; found ${describe(b, p)}`);
      const ks = p + 1;
      const ke = this.keyEnd(p);
      p = ke + 1;
      if (b[p] !== COLON) {
        p = this.ws(p);
        if (b[p] !== COLON) this.fail(p, `expected ':' after a member name; found ${describe(b, p)}`);
      }
      p++;
      let c = p < end ? b[p]! : -1;
      if (c <= 32) p = this.ws(p);
      const f = this.match(this.argKeys, ks, ke);
      p = f >= 0 ? this.record(nEvent + f, p) : this.skipValue(p);
      c = p < end ? b[p]! : -1;
      if (c <= 32) {
        p = this.ws(p);
        c = b[p]!;
      }
      if (c === COMMA) {
        p = this.ws(p + 1);
        continue;
      }
      if (c === RBRACE) return this.markArgs(start, p + 1);
      this.fail(p, `expected ',' or '}' in "args"; found ${describe(b, p)}`);
    }
  }

  private markArgs(start: number, end: number): number {
    const v = this.view;
    v.kinds[this.argsField] = OBJECT;
    v.starts[this.argsField] = start;
    v.ends[this.argsField] = end;
    return end;
  }
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

/**
 * What to do about a value that JSON has not but Python's json module writes for a float NaN or infinity (a trace
 * rewritten by a Python tool): '' for anything else. Only the bytes at `p` are looked at (they may be cut: '').
 */
function notJson(b: Buffer, p: number): string {
  const at = (w: string): boolean => b.length >= p + w.length && b.toString('latin1', p, p + w.length) === w;
  if (!at('NaN') && !at('Infinity') && !at('-Infinity')) return '';
  return " (NaN and Infinity are not JSON; Python's json module writes them for a float NaN or infinity: write null there, or the trace again without them)";
}

/** A byte for a message: the character, or its hex code when it is not printable ASCII. */
function describe(b: Buffer, p: number): string {
  const c = b[p];
  if (c === undefined) return 'the end of the file';
  if (c >= 33 && c <= 126) return `'${String.fromCharCode(c)}'`;
  return `byte 0x${c.toString(16).padStart(2, '0')}`;
}

function seqLength(lead: number): number {
  return lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
}

/** `end`, or the start of a UTF-8 sequence cut off by it. */
function completeEnd(buf: Buffer, start: number, end: number): number {
  for (let k = 1; k <= 3 && end - k >= start; k++) {
    const c = buf[end - k]!;
    if ((c & 0xc0) === 0x80) continue;
    if (c < 0xc0) return end;
    return seqLength(c) > k ? end - k : end;
  }
  return end;
}

/** The offset of the first byte of [start, end) that does not begin a valid UTF-8 sequence (slow; on error only). */
function firstBadUtf8(b: Buffer, start: number, end: number): number {
  let i = start;
  while (i < end) {
    const c = b[i]!;
    if (c < 0x80) {
      i++;
      continue;
    }
    const len = c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
    if (len === 0 || i + len > end || !isUtf8(b.subarray(i, i + len))) return i;
    i += len;
  }
  return end;
}
