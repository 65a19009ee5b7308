// A member named twice in one JSON object: JSON.parse keeps the last, a streaming reader may keep the first, so
// the text means two things and an untrusted file that holds one (a summary JSON) is refused instead of read as
// either. The traces' scanner refuses it for its top-level members (eventScanner.ts); this finds it anywhere.
//
// Before JSON.parse, keyNames counts the keys written in the text (each string a colon follows; strings passed
// over with indexOf) and the different names they have, up to a bound: each name JSON.parse meets is a string it
// interns and a shape its objects take, so 15 million names (one object of 15 million members, or many objects of
// other names) ran for minutes in gigabytes, where the few dozen names of a summary JSON's fields parse at the
// speed of the text. It stops at the first name past the bound, so a file of too many is refused at once.
//
// After JSON.parse has accepted the text (so it is well-formed), the check (duplicateKey) compares that count with
// the keys of the parsed value, which lost one for each key written again. Only when the counts differ is the text
// scanned for where (firstDuplicateKey): each object's keys compared as written (decoded only when they hold an
// escape, so "a" and "\u0061" are one key), a small object's with each other, a larger one's through a Map. Both
// are linear in the text: counting the keys and their names costs a summary JSON of 300,000 groups (236 MB) some
// 0.3 s beside JSON.parse's 2.5 s.

/** Where `text` (valid JSON, parsed as `value`, with `keys` keys written: keyNames) writes a key twice in one object; null when it writes none twice. */
export function duplicateKey(text: string, value: unknown, keys = keyNames(text, Number.POSITIVE_INFINITY).keys): DuplicateKey | null {
  return keys === valueKeyCount(value) ? null : firstDuplicateKey(text);
}

/** The keys written in a JSON text, and the first key whose name is past the most names read (null when none is). */
export interface KeyNames {
  keys: number;
  pastMost: { key: string; at: number } | null;
  /** The offset of the first `[` or `{` nested deeper than the most levels read (absent when none is). */
  tooDeep?: number;
}

/**
 * The keys written in `text` (the strings followed by a colon) and, when it names more than `most` different keys
 * (as written: "a" and "\u0061" are two names here, which only counts more), the first key past them: the key
 * (decoded when it can be) and the offset of its opening quote. Read before JSON.parse, the text may be invalid: the count is then
 * of what it holds up to a string that does not end, and JSON.parse says what is wrong. With `deepest`, the first
 * `[` or `{` (outside strings) nested more than `deepest` levels deep stops the count too (tooDeep): JSON.parse
 * holds each level open, some 100 bytes a level, so 40 MB of `[` took it 19 s and 2 GB.
 */
export function keyNames(text: string, most: number, deepest = Number.POSITIVE_INFINITY): KeyNames {
  let keys = 0;
  // The nesting outside strings: the text between a string's end and the next string's start (`from` to `i`).
  let depth = 0;
  let from = 0;
  const names = new Set<string>();
  // The last name seen at each slot of a small table (by length and first, middle and last character, chosen so
  // that the names of a summary JSON take a slot each): the names of a file that names few are found there
  // without making a string of each.
  const recent: (string | undefined)[] = new Array<string | undefined>(1024).fill(undefined);
  const nesting = deepest < Number.POSITIVE_INFINITY;
  let i = text.indexOf('"');
  for (;;) {
    const to = nesting ? (i < 0 ? text.length : i) : from;
    for (let k = from; k < to; k++) {
      const c = text.charCodeAt(k);
      if (c === LBRACKET || c === LBRACE) {
        if (++depth > deepest) return { keys, pastMost: null, tooDeep: k };
      } else if (c === RBRACKET || c === RBRACE) depth--;
    }
    if (i < 0) break;
    const end = stringEnd(text, i);
    if (end < 0) break;
    from = end + 1;
    if (nextIsColon(text, end + 1)) {
      keys++;
      const length = end - i - 1;
      const slot = (length * 37 + text.charCodeAt(i + 1) * 5 + text.charCodeAt(i + 1 + (length >> 1)) + text.charCodeAt(end - 1)) & 1023;
      const seen = recent[slot];
      if (seen === undefined || seen.length !== length || !text.startsWith(seen, i + 1)) {
        const name = text.slice(i + 1, end);
        recent[slot] = name;
        if (!names.has(name)) {
          if (names.size >= most) return { keys, pastMost: { key: decoded(name), at: i } };
          names.add(name);
        }
      }
    }
    i = text.indexOf('"', end + 1);
  }
  return { keys, pastMost: null };
}

/** A key's text as written, decoded; as written when it is not valid JSON (the text is not parsed yet). */
function decoded(raw: string): string {
  if (!raw.includes('\\')) return raw;
  try {
    return JSON.parse(`"${raw}"`) as string;
  } catch {
    return raw;
  }
}

/** The keys of every object in a parsed JSON value (no recursion: a deeply nested file does not overflow the stack). */
function valueKeyCount(value: unknown): number {
  let count = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const x = stack.pop();
    if (typeof x !== 'object' || x === null) continue;
    if (Array.isArray(x)) {
      for (const y of x) if (typeof y === 'object' && y !== null) stack.push(y);
      continue;
    }
    for (const k in x) {
      count++;
      const y = (x as Record<string, unknown>)[k];
      if (typeof y === 'object' && y !== null) stack.push(y);
    }
  }
  return count;
}

/** A key written twice in one object: the key (decoded) and the character offsets of its two opening quotes. */
export interface DuplicateKey {
  key: string;
  first: number;
  second: number;
}

/** Past this many keys an object's keys go into a Map (below, comparing each new key with the others is cheaper). */
const SMALL_OBJECT = 16;

const QUOTE = 34;
const BACKSLASH = 92;
const COLON = 58;
const LBRACE = 123;
const RBRACE = 125;
const LBRACKET = 91;
const RBRACKET = 93;

/** The first key written twice in one object of `text` (valid JSON), or null. */
export function firstDuplicateKey(text: string): DuplicateKey | null {
  // The keys of the open objects, one after another: each open object's start in `keys`, and its Map once large.
  const keys: string[] = [];
  const at: number[] = [];
  const frames: { from: number; set: Map<string, number> | null }[] = [];
  // For each open container, whether it is an object (arrays hold no keys).
  const isObject: boolean[] = [];
  const n = text.length;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const end = stringEnd(text, i);
      // A string in an object is a key when a colon follows it (a value is followed by `,` or `}`).
      if (isObject.length > 0 && isObject[isObject.length - 1] === true && nextIsColon(text, end + 1)) {
        const raw = text.slice(i + 1, end);
        const key = raw.includes('\\') ? (JSON.parse(`"${raw}"`) as string) : raw;
        const frame = frames[frames.length - 1]!;
        let first = -1;
        if (frame.set !== null) first = frame.set.get(key) ?? -1;
        else {
          for (let k = frame.from; k < keys.length; k++) {
            if (keys[k] === key) {
              first = at[k]!;
              break;
            }
          }
        }
        if (first >= 0) return { key, first, second: i };
        if (frame.set !== null) frame.set.set(key, i);
        else {
          keys.push(key);
          at.push(i);
          if (keys.length - frame.from > SMALL_OBJECT) {
            frame.set = new Map();
            for (let k = frame.from; k < keys.length; k++) frame.set.set(keys[k]!, at[k]!);
            keys.length = frame.from;
            at.length = frame.from;
          }
        }
      }
      i = end + 1;
    } else if (c === LBRACE) {
      isObject.push(true);
      frames.push({ from: keys.length, set: null });
      i++;
    } else if (c === RBRACE) {
      isObject.pop();
      const frame = frames.pop()!;
      keys.length = frame.from;
      at.length = frame.from;
      i++;
    } else if (c === LBRACKET) {
      isObject.push(false);
      i++;
    } else if (c === RBRACKET) {
      isObject.pop();
      i++;
    } else i++;
  }
  return null;
}

/** The offset of the quote that closes the string opened at `open` (one preceded by an even run of backslashes); -1 if none does. */
function stringEnd(text: string, open: number): number {
  let q = text.indexOf('"', open + 1);
  for (;;) {
    if (q < 0) return -1;
    let b = q - 1;
    while (text.charCodeAt(b) === BACKSLASH) b--;
    if ((q - 1 - b) % 2 === 0) return q;
    q = text.indexOf('"', q + 1);
  }
}

/** Whether the first character from `p` that is not JSON white space is a colon. */
function nextIsColon(text: string, p: number): boolean {
  for (;;) {
    const c = text.charCodeAt(p);
    if (c === 32 || c === 10 || c === 13 || c === 9) p++;
    else return c === COLON;
  }
}
