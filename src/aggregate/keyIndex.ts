// A list of groups indexed by key, for the diff's passes over a summary (rows, noise test, per-rank and per-step
// checks). A Map of a million keys costs some 50 MB and doubles its table as it grows; this index is one array of
// slots (a group's position in the list, 4 bytes) at most half full: 8 MB for a million groups. Read-only, and
// answers as a Map of the list's groups set one by one in order would (a key set twice keeps its first place and
// its last group).
//
// Keys come from the input: the hash is seeded per process, and an index whose keys still pile up (a run of more
// than MAX_RUN filled slots, which a lookup may walk) is kept in a Map instead, so no input makes lookups slow
// (model/textIndex.ts: the hash and the run are that index's, which grows).

import type { Group } from '../model/model.js';
import { listReader } from '../model/fineGroups.js';
import { MAX_RUN, textHash as hashOf } from '../model/textIndex.js';

export class KeyIndex implements Iterable<[string, Group]> {
  /** Position + 1 in the list of the key's first group, 0 for an empty slot. */
  private slots: Int32Array;
  private readonly mask: number;
  /** The positions by key instead, where the keys piled up in the slots. */
  private map: Map<string, number> | null = null;
  /** Of a key set more than once: its first position → its last group. */
  private readonly later = new Map<number, Group>();
  /** Positions of keys set before (shadowed by their first place). */
  private readonly repeated = new Set<number>();
  /** The group and the key at a position of the list (listReader: past the Proxy of a list made on read). */
  private readonly groupOf: (i: number) => Group;
  private readonly keyAt: (i: number) => string;

  constructor(
    private readonly groups: readonly Group[],
    /** The longest run of filled slots kept (tests: 0 keeps every index in a Map). */
    private readonly maxRun = MAX_RUN,
  ) {
    const read = listReader(groups);
    this.groupOf = read.group;
    this.keyAt = read.key;
    let size = 1024;
    while (size < groups.length * 2) size *= 2;
    this.slots = new Int32Array(size);
    this.mask = size - 1;
    if (!this.fill() || longestRun(this.slots) > this.maxRun) {
      this.later.clear();
      this.repeated.clear();
      this.map = new Map();
      for (let i = 0; i < groups.length; i++) {
        const key = this.keyAt(i);
        const first = this.map.get(key);
        if (first === undefined) this.map.set(key, i);
        else {
          this.later.set(first, this.groupOf(i));
          this.repeated.add(i);
        }
      }
      this.slots = new Int32Array(0);
    }
  }

  /** Put each group's position in its slot; false as soon as one walks past maxRun slots. */
  private fill(): boolean {
    const groups = this.groups;
    for (let i = 0; i < groups.length; i++) {
      const key = this.keyAt(i);
      let s = hashOf(key) & this.mask;
      for (let walked = 0; ; walked++) {
        if (walked > this.maxRun) return false;
        const at = this.slots[s]!;
        if (at === 0) {
          this.slots[s] = i + 1;
          break;
        }
        if (this.keyAt(at - 1) === key) {
          this.later.set(at - 1, this.groupOf(i));
          this.repeated.add(i);
          break;
        }
        s = (s + 1) & this.mask;
      }
    }
    return true;
  }

  get size(): number {
    return this.groups.length - this.repeated.size;
  }

  /** The position of the key's first group in the list, or -1 (groupAt reads its group). */
  position(key: string): number {
    return this.find(key);
  }

  /** The group of a key whose first position this is (position): its last group. */
  groupAt(position: number): Group {
    return (this.later.size > 0 ? this.later.get(position) : undefined) ?? this.groupOf(position);
  }

  /** Each key as iteration gives it, with its group and first position, and no entry made a key. */
  forEachEntry(fn: (key: string, g: Group, position: number) => void): void {
    const groups = this.groups;
    // Most lists set no key twice: then each group is its key's, with no lookup in the Maps of a million keys.
    if (this.repeated.size === 0) {
      for (let i = 0; i < groups.length; i++) {
        const g = this.groupOf(i);
        fn(g.key, g, i);
      }
      return;
    }
    for (let i = 0; i < groups.length; i++) {
      if (this.repeated.has(i)) continue;
      const g = this.groupOf(i);
      fn(g.key, this.later.get(i) ?? g, i);
    }
  }

  /** Is the group at `position` of the list the one of its key (groupAt's: no later group of the key set)? */
  listed(position: number): boolean {
    return this.later.size === 0 || !this.later.has(position);
  }

  /** The position of the key's first group, or -1. */
  private find(key: string): number {
    if (this.map !== null) return this.map.get(key) ?? -1;
    let s = hashOf(key) & this.mask;
    for (;;) {
      const at = this.slots[s]!;
      if (at === 0) return -1;
      if (this.keyAt(at - 1) === key) return at - 1;
      s = (s + 1) & this.mask;
    }
  }

  get(key: string): Group | undefined {
    const i = this.find(key);
    return i < 0 ? undefined : this.groupAt(i);
  }

  has(key: string): boolean {
    return this.find(key) >= 0;
  }

  *[Symbol.iterator](): Iterator<[string, Group]> {
    for (let i = 0; i < this.groups.length; i++) {
      if (this.repeated.size > 0 && this.repeated.has(i)) continue;
      const g = this.groupOf(i);
      yield [g.key, this.later.get(i) ?? g];
    }
  }

  *keys(): IterableIterator<string> {
    for (const [k] of this) yield k;
  }

  *values(): IterableIterator<Group> {
    for (const [, g] of this) yield g;
  }
}

/** The longest run of filled slots, wrapping around the end. */
function longestRun(slots: Int32Array): number {
  let longest = 0;
  let run = 0;
  for (let i = 0; i < slots.length * 2 && longest < slots.length; i++) {
    if (slots[i % slots.length] !== 0) {
      run++;
      if (run > longest) longest = run;
    } else {
      run = 0;
      if (i >= slots.length) break;
    }
  }
  return longest;
}
