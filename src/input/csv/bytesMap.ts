// A hash map keyed by raw bytes of a buffer, for the hot loop: looking a group up by the bytes of its key
// cells costs no string and no garbage per row (a latin1 string per row and a Map lookup were a fifth of the
// time on a wide kernel table). Keys are compared byte for byte, so a hash collision never merges two keys.
//
// A key is one or two byte ranges (the second is for a cell that is not next to the first ones); a separator
// byte is hashed between them so that ("ab", "c") and ("a", "bc") differ.

const EMPTY = -1;

export class BytesMap<T> {
  private slots: Int32Array = new Int32Array(1024).fill(EMPTY);
  private mask = 1023;
  private hashes: Int32Array = new Int32Array(256);
  private offs: Int32Array = new Int32Array(256);
  private len1: Int32Array = new Int32Array(256);
  private len2: Int32Array = new Int32Array(256);
  private arena: Buffer = Buffer.allocUnsafe(16384);
  private arenaView: DataView = new DataView(this.arena.buffer, this.arena.byteOffset, this.arena.byteLength);
  private used = 0;
  private values: T[] = [];

  get size(): number {
    return this.values.length;
  }

  /** The hash of a key (pass it to get and set). Four bytes at a time: keys are some 60 bytes long. */
  hash(b: Uint8Array, s1: number, e1: number, s2: number, e2: number): number {
    const dv = this.viewOf(b);
    let h = 0x811c9dc5 | 0;
    let i = s1;
    for (; i + 4 <= e1; i += 4) h = Math.imul(h ^ dv.getInt32(i, true), 0x01000193);
    for (; i < e1; i++) h = Math.imul(h ^ b[i]!, 0x01000193);
    if (s2 >= 0) {
      h = Math.imul(h ^ 0x1e, 0x01000193);
      for (i = s2; i + 4 <= e2; i += 4) h = Math.imul(h ^ dv.getInt32(i, true), 0x01000193);
      for (; i < e2; i++) h = Math.imul(h ^ b[i]!, 0x01000193);
    }
    // Spread the bits of the last words over the whole hash (the slot is taken from the low bits).
    h ^= h >>> 15;
    h = Math.imul(h, 0x2c1b3c6d);
    h ^= h >>> 12;
    return h;
  }

  private lastBuf: Uint8Array | null = null;
  private lastView: DataView = new DataView(new ArrayBuffer(0));

  /** A DataView of the buffer the scanner reads into (it changes only when the buffer grows). */
  private viewOf(b: Uint8Array): DataView {
    if (b !== this.lastBuf) {
      this.lastBuf = b;
      this.lastView = new DataView(b.buffer, b.byteOffset, b.byteLength);
    }
    return this.lastView;
  }

  get(h: number, b: Uint8Array, s1: number, e1: number, s2: number, e2: number): T | undefined {
    const slots = this.slots;
    const mask = this.mask;
    let i = h & mask;
    for (;;) {
      const k = slots[i]!;
      if (k === EMPTY) return undefined;
      if (this.hashes[k] === h && this.equals(k, b, s1, e1, s2, e2)) return this.values[k];
      i = (i + 1) & mask;
    }
  }

  set(h: number, b: Uint8Array, s1: number, e1: number, s2: number, e2: number, value: T): void {
    const k = this.values.length;
    const l1 = e1 - s1;
    const l2 = s2 >= 0 ? e2 - s2 : 0;
    if (k === this.hashes.length) this.growEntries();
    while (this.used + l1 + l2 > this.arena.length) {
      const bigger = Buffer.allocUnsafe(this.arena.length * 2);
      this.arena.copy(bigger, 0, 0, this.used);
      this.arena = bigger;
      this.arenaView = new DataView(bigger.buffer, bigger.byteOffset, bigger.byteLength);
    }
    const a = this.arena;
    a.set(b.subarray(s1, e1), this.used);
    if (l2 > 0) a.set(b.subarray(s2, e2), this.used + l1);
    this.hashes[k] = h;
    this.offs[k] = this.used;
    this.len1[k] = l1;
    this.len2[k] = s2 >= 0 ? l2 : -1;
    this.used += l1 + l2;
    this.values.push(value);
    if ((k + 1) * 2 > this.mask) this.rehash();
    else this.place(k);
  }

  clear(): void {
    this.slots.fill(EMPTY);
    this.values = [];
    this.used = 0;
  }

  private equals(k: number, b: Uint8Array, s1: number, e1: number, s2: number, e2: number): boolean {
    const l1 = e1 - s1;
    if (this.len1[k] !== l1) return false;
    const l2 = this.len2[k]!;
    if (s2 >= 0 ? l2 !== e2 - s2 : l2 !== -1) return false;
    const a = this.arena;
    const av = this.arenaView;
    const dv = this.viewOf(b);
    let o = this.offs[k]!;
    let i = s1;
    for (; i + 4 <= e1; i += 4, o += 4) if (av.getInt32(o, true) !== dv.getInt32(i, true)) return false;
    for (; i < e1; i++, o++) if (a[o] !== b[i]) return false;
    for (i = s2; i < e2; i++, o++) if (a[o] !== b[i]) return false;
    return true;
  }

  private place(k: number): void {
    let i = this.hashes[k]! & this.mask;
    while (this.slots[i] !== EMPTY) i = (i + 1) & this.mask;
    this.slots[i] = k;
  }

  private rehash(): void {
    const size = (this.mask + 1) * 2;
    this.slots = new Int32Array(size).fill(EMPTY);
    this.mask = size - 1;
    for (let k = 0; k < this.values.length; k++) this.place(k);
  }

  private growEntries(): void {
    const size = this.hashes.length * 2;
    const grow = (a: Int32Array): Int32Array => {
      const out = new Int32Array(size);
      out.set(a);
      return out;
    };
    this.hashes = grow(this.hashes);
    this.offs = grow(this.offs);
    this.len1 = grow(this.len1);
    this.len2 = grow(this.len2);
  }
}
