// A text → number index that grows, for the tables that meet a text once per distinct kernel while a rank is read
// (a fine-group table's first group of each name, a recorder's token ids). Its owner holds each text already (a
// table's names, a token list): the index keeps only a slot per value, 8 bytes (the value and its text's hash, so
// that growing hashes no text again), at most half full: 16 MB of a million texts, where a Map<string, number> holds
// some 28 MB and, as it doubles, its old table beside the new one.
//
// Texts come from the input: the hash is seeded per process (the order of nothing depends on it), and an index
// whose texts still pile up (a run of more than MAX_RUN filled slots, which a lookup may walk) moves to a Map, so no
// input makes lookups slow. The hash reads every code unit: V8 hashes a string past 16,383 of them by its length
// alone, which made a Map of 400 names of 64 KiB alike in length compare each with all the others.

/** The longest run of filled slots kept (see above). */
export const MAX_RUN = 256;

/** This process's seed of the hash. */
const SEED = (Math.random() * 0x100000000) | 0;

/** FNV-1a of the text's UTF-16 code units (from this process's seed), its bits spread over the low ones (a slot is taken from them). */
export function textHash(text: string): number {
  let h = (0x811c9dc5 ^ SEED) | 0;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  h ^= h >>> 15;
  h = Math.imul(h, 0x2c1b3c6d);
  h ^= h >>> 12;
  return h;
}

/**
 * Texts to values (integers from 0 to 2^31 - 2), where the owner knows the text of each value it set (`textOf`):
 * a table's names by group, a token list by id. `set` of a text already in gives it the new value (whose text
 * must be the same).
 */
export class TextIndex {
  /**
   * Per slot two numbers: value + 1 of the text whose probe reaches it first (0: empty), and that text's hash (a
   * lookup compares texts only where the hashes are equal, and growing hashes no text again).
   */
  private slots = new Int32Array(2 * 64);
  private count = 0;
  /** The values by text instead, once texts piled up in the slots. */
  private map: Map<string, number> | null = null;
  /** The last text hashed and its hash: a text is looked up, then set (a long one costs its length each time). */
  private lastText: string | null = null;
  private lastHash = 0;

  constructor(
    private readonly textOf: (value: number) => string,
    /** The longest run of filled slots kept (tests: 0 moves to a Map at the first collision). */
    private readonly maxRun = MAX_RUN,
  ) {}

  get size(): number {
    return this.map !== null ? this.map.size : this.count;
  }

  get(text: string): number | undefined {
    if (this.map !== null) return this.map.get(text);
    const slots = this.slots;
    const mask = (slots.length >> 1) - 1;
    const h = this.hash(text);
    for (let s = h & mask; ; s = (s + 1) & mask) {
      const at = slots[2 * s]!;
      if (at === 0) return undefined;
      if (slots[2 * s + 1] === h && this.textOf(at - 1) === text) return at - 1;
    }
  }

  set(text: string, value: number): void {
    if (this.map === null && (this.count + 1) * 4 > this.slots.length) this.grow();
    // (After grow too: one that moved every value to a Map leaves no slots to place this one in.)
    if (this.map !== null) {
      this.map.set(text, value);
      return;
    }
    if (!this.place(text, this.hash(text), value)) this.toMap(text, value);
  }

  /** Put `value` in the slot of `text` (new or its own); false when the walk passed maxRun slots. */
  private place(text: string | null, h: number, value: number): boolean {
    const slots = this.slots;
    const mask = (slots.length >> 1) - 1;
    let s = h & mask;
    for (let walked = 0; ; walked++, s = (s + 1) & mask) {
      if (walked > this.maxRun) return false;
      const at = slots[2 * s]!;
      if (at === 0) {
        slots[2 * s] = value + 1;
        slots[2 * s + 1] = h;
        this.count++;
        return true;
      }
      // (text null: a text moved by grow, distinct from every other there.)
      if (text !== null && slots[2 * s + 1] === h && this.textOf(at - 1) === text) {
        slots[2 * s] = value + 1;
        return true;
      }
    }
  }

  private grow(): void {
    const old = this.slots;
    this.slots = new Int32Array(old.length * 2);
    this.count = 0;
    for (let i = 0; i < old.length; i += 2) {
      const at = old[i]!;
      if (at !== 0 && !this.place(null, old[i + 1]!, at - 1)) {
        // Piled up at the new size too: every value goes to a Map (the slots' own first).
        this.slots = old;
        this.toMap(null, 0);
        return;
      }
    }
  }

  /** Every value in a Map, and `text` → `value` (null: none) after them. */
  private toMap(text: string | null, value: number): void {
    const map = new Map<string, number>();
    for (let i = 0; i < this.slots.length; i += 2) if (this.slots[i] !== 0) map.set(this.textOf(this.slots[i]! - 1), this.slots[i]! - 1);
    if (text !== null) map.set(text, value);
    this.map = map;
    this.slots = new Int32Array(0);
    this.count = 0;
  }

  private hash(text: string): number {
    if (text !== this.lastText) {
      this.lastText = text;
      this.lastHash = textHash(text);
    }
    return this.lastHash;
  }
}
