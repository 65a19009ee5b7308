// JSON reports as a stream of chunks. A report of a million groups, or of thousands of groups with hundreds of
// steps each, is more text than a V8 string can hold (512 MB), and as one object tree it is most of the memory
// of the run: the reporters hand their long arrays over as JsonLists, whose items are made one at a time while
// the report is written, and jsonChunks writes the text in chunks, byte for byte what
// `${JSON.stringify(value, null, 2)}\n` would write. Pure: nothing here writes anywhere.

/** An array written item by item: its items are made (and can be freed) only as the report is written. */
export class JsonList<T = unknown> {
  constructor(readonly items: Iterable<T>) {}

  /** JSON.stringify met a list inside the value it writes: jsonChunks then writes that value member by member. */
  toJSON(): never {
    throw NESTED;
  }
}

const NESTED = new Error('a JsonList is written by jsonChunks only');

/** `items` mapped by `f`, lazily. */
export function* mapped<T, U>(items: Iterable<T>, f: (item: T) => U): Generator<U> {
  for (const item of items) yield f(item);
}

/** How the reporters make a long array of their JSON objects: a plain array (to read) or a JsonList (to write). */
export type ListOf = <T>(items: Iterable<T>) => T[];

/** Lists as plain arrays: the JSON object of a report, to read in code. */
export const arrays: ListOf = (items) => Array.from(items);

/** Lists as JsonLists: the object jsonChunks writes. Its arrays are typed as arrays, so pass it nowhere else. */
export const lazyLists: ListOf = <T>(items: Iterable<T>) => new JsonList(items) as unknown as T[];

/** Characters per chunk, about: large enough that writing costs little per chunk, small beside any limit. */
export const CHUNK_CHARS = 1 << 16;

type Frame = ArrayFrame | { kind: 'object'; obj: Record<string, unknown>; keys: string[]; i: number; n: number; depth: number };

/** An array being written: its items are written a batch at a time (see batchText), or one by one. */
interface ArrayFrame {
  kind: 'array';
  items: Iterator<unknown>;
  /** Items written. */
  n: number;
  depth: number;
  /** No more items in `items`. */
  done: boolean;
  /** Items a batch handed back, to write one by one before the next are taken (`next` is the first). */
  queued: unknown[];
  next: number;
  /** Items are taken in batches: false once a batch held a JsonList, and for arrays nested past BATCH_DEPTH. */
  batching: boolean;
  /** Items in the next batch. */
  size: number;
  /** Items to write one by one before the next batch, and how many after the next lone item too long. */
  solo: number;
  backoff: number;
}

/** The most items in a batch, and the deepest array whose items are batched (JSON.stringify recurses). */
const BATCH_ITEMS = 4096;
const BATCH_DEPTH = 32;

function arrayFrame(items: Iterator<unknown>, depth: number): ArrayFrame {
  return { kind: 'array', items, n: 0, depth, done: false, queued: [], next: 0, batching: depth <= BATCH_DEPTH, size: 1, solo: 0, backoff: 1 };
}

/**
 * The text of `items`, as they are written in an array at `depth`, from the line break before the first to the end
 * of the last (`\n` + indent, item, `,\n` + indent, item …), or null when an item holds a JsonList. One call of
 * JSON.stringify for the whole batch, with the items wrapped in `depth` arrays so that it indents them as deep as
 * they are written: what jsonChunks would write of them one by one, at a fraction of the cost (a diff of a million
 * rows spent most of its writing stringifying and indenting each row). `[` + indent is written before each level of
 * wrapping and the items' own array (depth + 1 brackets, `2(k + 1)` spaces after the k-th), indent + `]` after each
 * (`2k` spaces before the k-th).
 */
function batchText(items: unknown[], depth: number): string | null {
  let wrapped: unknown = items;
  for (let k = 0; k < depth; k++) wrapped = [wrapped];
  let s: string;
  try {
    s = JSON.stringify(wrapped, null, 2);
  } catch (e) {
    if (e !== NESTED) throw e;
    return null;
  }
  const head = depth * depth + 3 * depth + 1;
  const tail = (depth + 1) * (depth + 2);
  return s.slice(head, s.length - tail);
}

/**
 * `${JSON.stringify(value, null, 2)}\n` in chunks of about `chunkChars` characters. JsonLists are written as
 * arrays; a plain object or array that holds a JsonList (at any depth), or a long string (see holdsLong), is
 * written member by member, and every other value by JSON.stringify itself, indented to its depth (the text
 * JSON.stringify makes of a value holds no line break but those between members, so indenting it is adding
 * spaces after each one). The items of an array are written a batch at a time, by one JSON.stringify that
 * indents them too (batchText), and one by one as above where a batch holds a JsonList or is longer than a chunk.
 * An explicit stack, not recursion. A chunk ends only where a piece that JSON.stringify
 * made whole ends: no JSON string (a key or a value) is ever split between two chunks, so a rewrite of strings
 * (jsonSafe) can be made chunk by chunk. A piece that would take a chunk past `chunkChars` begins the next one,
 * so a chunk is longer than `chunkChars` only when one piece is: V8 makes and reads a string of more than ~128 K
 * characters several times slower than shorter ones (a chunk of two kernel names of 64 KiB cost ~5× the time of
 * two chunks of one), and a report of long names was most of its run in JSON.stringify and jsonSafe.
 */
export function* jsonChunks(value: unknown, chunkChars = CHUNK_CHARS): Generator<string> {
  let buf = '';
  /** Chunks made, to yield. */
  const ready: string[] = [];
  const stack: Frame[] = [];
  const pads = ['\n'];
  const pad = (depth: number): string => {
    while (pads.length <= depth) pads.push(`${pads[pads.length - 1]!}  `);
    return pads[depth]!;
  };
  // A string this long is a piece of its own (see holdsLong).
  const long = chunkChars >>> 4;
  /** Add a piece of text, in the next chunk when it would take this one past its size. */
  const add = (piece: string): void => {
    if (buf.length > 0 && buf.length + piece.length > chunkChars) {
      ready.push(buf);
      buf = '';
    }
    buf += piece;
  };
  /** Write a plain object or array member by member. */
  const open = (v: unknown, depth: number): void => {
    if (Array.isArray(v)) stack.push(arrayFrame(v[Symbol.iterator](), depth));
    else if (isPlainObject(v)) stack.push({ kind: 'object', obj: v, keys: Object.keys(v), i: 0, n: 0, depth });
    else throw new Error('jsonChunks: a JsonList inside an object that is not a plain object or array');
  };
  /** Write a value at `depth`: open a frame for it, or write it whole. */
  const put = (v: unknown, depth: number): void => {
    if (v instanceof JsonList) {
      stack.push(arrayFrame(v.items[Symbol.iterator](), depth));
      return;
    }
    if (typeof v === 'object' && v !== null && holdsLong(v, long, 0)) {
      open(v, depth);
      return;
    }
    let s: string | undefined;
    try {
      s = JSON.stringify(v, null, 2) as string | undefined;
    } catch (e) {
      if (e !== NESTED) throw e;
      // A list inside: the text so far is thrown away, and the value is written member by member.
      open(v, depth);
      return;
    }
    // Undefined, functions and symbols are null in an array (object members that are are left out before put()).
    if (s === undefined) add('null');
    else add(depth === 0 ? s : s.replaceAll('\n', pad(depth)));
  };
  /**
   * Write the next batch of an array's items as one piece (batchText), as many as make about half a chunk; hand
   * them back to be written one by one when they do not make one piece of at most a chunk (a long string among
   * them, which is to be a piece of its own) or hold a JsonList (then the array's items are written one by one).
   */
  const batch = (f: ArrayFrame): void => {
    const items: unknown[] = [];
    while (items.length < f.size) {
      const next = f.items.next();
      if (next.done === true) {
        f.done = true;
        f.batching = false;
        break;
      }
      items.push(next.value);
    }
    if (items.length === 0) return;
    const text = batchText(items, f.depth);
    if (text !== null && text.length <= chunkChars) {
      add((f.n === 0 ? '[' : ',') + text);
      f.n += items.length;
      f.backoff = 1;
      f.size = Math.max(1, Math.min(2 * items.length, BATCH_ITEMS, Math.floor((items.length * (chunkChars >>> 1)) / text.length)));
      return;
    }
    f.queued = items;
    f.next = 0;
    if (text === null) f.batching = false;
    else if (items.length > 1) f.size = Math.max(1, Math.floor((items.length * (chunkChars >>> 1)) / text.length));
    else {
      // A lone item too long: the next few are written one by one, more after each such item in a row.
      f.solo = f.backoff;
      f.backoff = Math.min(2 * f.backoff, BATCH_ITEMS);
    }
  };
  put(value, 0);
  while (stack.length > 0) {
    const f = stack[stack.length - 1]!;
    if (f.kind === 'array') {
      if (f.next < f.queued.length) {
        const v = f.queued[f.next++];
        if (f.next === f.queued.length) {
          f.queued = [];
          f.next = 0;
        }
        add((f.n++ === 0 ? '[' : ',') + pad(f.depth + 1));
        put(v, f.depth + 1);
      } else if (f.batching && f.solo === 0) batch(f);
      else {
        const next = f.done ? null : f.items.next();
        if (next === null || next.done === true) {
          add(f.n === 0 ? '[]' : `${pad(f.depth)}]`);
          stack.pop();
        } else {
          if (f.solo > 0) f.solo--;
          add((f.n++ === 0 ? '[' : ',') + pad(f.depth + 1));
          put(next.value, f.depth + 1);
        }
      }
    } else {
      let key: string | undefined;
      while (f.i < f.keys.length) {
        const k = f.keys[f.i++]!;
        if (written(f.obj[k])) {
          key = k;
          break;
        }
      }
      if (key === undefined) {
        add(f.n === 0 ? '{}' : `${pad(f.depth)}}`);
        stack.pop();
      } else {
        add(`${f.n++ === 0 ? '{' : ','}${pad(f.depth + 1)}${JSON.stringify(key)}: `);
        put(f.obj[key], f.depth + 1);
      }
    }
    for (const chunk of ready) yield chunk;
    ready.length = 0;
    if (buf.length >= chunkChars) {
      yield buf;
      buf = '';
    }
  }
  for (const chunk of ready) yield chunk;
  yield `${buf}\n`;
}

/**
 * Does a plain object or array hold a string (or a key) of more than `long` characters, at any depth? Such a value
 * is written member by member, so that each long string is a piece of its own (jsonChunks). Looks no deeper than
 * 64 levels, and not into other objects (a JsonList, an object with toJSON: JSON.stringify or a frame of their own
 * writes those).
 */
function holdsLong(v: unknown, long: number, depth: number): boolean {
  if (typeof v === 'string') return v.length > long;
  if (typeof v !== 'object' || v === null || depth > 64) return false;
  if (Array.isArray(v)) {
    for (const x of v) if (holdsLong(x, long, depth + 1)) return true;
    return false;
  }
  if (!isPlainObject(v)) return false;
  for (const k of Object.keys(v)) if (k.length > long || holdsLong(v[k], long, depth + 1)) return true;
  return false;
}

/** All the chunks as one string (small reports, tests). */
export function jsonText(value: unknown): string {
  let s = '';
  for (const chunk of jsonChunks(value)) s += chunk;
  return s;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (typeof v !== 'object' || v === null) return false;
  const proto = Object.getPrototypeOf(v) as unknown;
  return (proto === Object.prototype || proto === null) && typeof (v as { toJSON?: unknown }).toJSON !== 'function';
}

/** Does JSON.stringify write an object member of this value (it leaves out undefined, functions and symbols)? */
function written(v: unknown): boolean {
  return v !== undefined && typeof v !== 'function' && typeof v !== 'symbol';
}
