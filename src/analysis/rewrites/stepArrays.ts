// The loops of a SequenceRecorder (sequence.ts) over one step's kernels at a time: each runs once a step, over its
// thousands of kernels, a few hundred times a read, so most of their runs come before V8 has optimised them. What
// can be native is (a compare of tokens is a compare of bytes); the sums of a step that has the shape of its lane's
// last one are made as its kernels come (sequence.ts add), and these loops run for the other steps only.

/** What thin() reads and writes of a step shape (sequence.ts StepShape). */
interface SampledShape {
  tokens: Int32Array;
  sampled: number[];
  sampleDurTicks: Float64Array[];
  sampleStartTicks: Float64Array[];
  stride: number;
}

/** The same tokens, compared as bytes (memcmp: the loop it replaced took ~10 ms of a 250 MB read). */
export function sameTokens(a: Int32Array, b: Int32Array): boolean {
  if (a.length !== b.length) return false;
  return Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(Buffer.from(b.buffer, b.byteOffset, b.byteLength));
}

/** sums[i] += add[i] for i < n. */
export function addInto(sums: Float64Array, add: Float64Array, n: number): void {
  for (let i = 0; i < n; i++) sums[i]! += add[i]!;
}

/** The first n starts, after `first`, into `out` (of length n). */
export function startsAfter(starts: Float64Array, n: number, first: number, out: Float64Array): Float64Array {
  for (let i = 0; i < n; i++) out[i] = starts[i]! - first;
  return out;
}

/** Keep every other sampled step (see SAMPLE_CAP); the arrays of the others (held by nothing else) go to `spare`. */
export function thin(shape: SampledShape, spare: Map<number, Float64Array[]>): void {
  const keep: number[] = [];
  for (let j = 0; j < shape.sampled.length; j += 2) keep.push(j);
  const free = spare.get(shape.tokens.length) ?? [];
  spare.set(shape.tokens.length, free);
  for (let j = 1; j < shape.sampled.length; j += 2) free.push(shape.sampleDurTicks[j]!, shape.sampleStartTicks[j]!);
  shape.sampled = keep.map((j) => shape.sampled[j]!);
  shape.sampleDurTicks = keep.map((j) => shape.sampleDurTicks[j]!);
  shape.sampleStartTicks = keep.map((j) => shape.sampleStartTicks[j]!);
  shape.stride *= 2;
}
