// The exact lower bound on the edits between two token sequences that lets myers.ts refuse hopeless pairs before
// any search, and rewrites.ts report a lane's distance when the search is refused.

/**
 * Σ over tokens of |count in a − count in b|: an exact lower bound on the number of insertions and deletions
 * that turn a into b (each edit changes one count by one), equal to it when nothing moved.
 */
export function editLowerBound(a: Int32Array, b: Int32Array): number {
  let lo = 0;
  let hi = -1;
  for (const x of [a, b]) {
    for (let i = 0; i < x.length; i++) {
      const t = x[i]!;
      if (hi < lo) lo = hi = t;
      else if (t < lo) lo = t;
      else if (t > hi) hi = t;
    }
  }
  // Tokens are ids of a side's distinct texts (0, 1, …): counted in an array as wide as their range, unless the
  // range is far wider than the sequences (ids of another numbering: a Map then).
  if (hi - lo + 1 <= 2 * (a.length + b.length) + 1024) {
    const counts = new Int32Array(hi - lo + 1);
    for (let i = 0; i < a.length; i++) counts[a[i]! - lo]!++;
    for (let i = 0; i < b.length; i++) counts[b[i]! - lo]!--;
    let sum = 0;
    for (let i = 0; i < counts.length; i++) sum += Math.abs(counts[i]!);
    return sum;
  }
  const counts = new Map<number, number>();
  for (const t of a) counts.set(t, (counts.get(t) ?? 0) + 1);
  for (const t of b) counts.set(t, (counts.get(t) ?? 0) - 1);
  let sum = 0;
  for (const c of counts.values()) sum += Math.abs(c);
  return sum;
}
