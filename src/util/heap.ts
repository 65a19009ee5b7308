// A full garbage collection at the few points where a run has just left a large heap of garbage behind it: the end
// of a large read (in the main thread, and in a read worker once its answer is packed and again once posted).
// V8 collects when it decides to, and an idle worker never does, so the garbage of a read of a million distinct
// names (hundreds of MB) would stay in the process, and later stages grow the heap beside it: collected at once,
// they reuse its pages. V8 makes the collection callable only with --expose-gc, which applies to contexts made
// after it is set: hence a new context, made once, to get it (the flag set back then). Nothing else in kprof collects.
// And the young generations are kept from growing once a read holds many distinct kinds (holdYoungGeneration).

import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** V8's full collection, callable from the first use on; null where it cannot be had. */
let collect: (() => void) | null | undefined;

/** Collect this thread's garbage now, when its heap in use (live and garbage) is at least `minBytes`. */
export function collectGarbage(minBytes: number): void {
  if (getHeapStatistics().used_heap_size < minBytes) return;
  if (collect === undefined) {
    const own = (globalThis as { gc?: unknown }).gc;
    if (typeof own === 'function') collect = own as () => void;
    else {
      try {
        setFlagsFromString('--expose-gc');
        collect = runInNewContext('gc') as () => void;
      } catch {
        collect = null;
      } finally {
        // Set back at once (the function got stays callable): V8 takes a code cache only under the flags it was
        // made with, and a read worker that compiles its bundle after this (started later, or still starting up)
        // would compile it without the cache the build made.
        setFlagsFromString('--no-expose-gc');
      }
    }
  }
  collect?.();
  heapGrowth.collected();
}

/**
 * V8 grows a thread's young generation (its two semi-spaces) while much of what it allocates survives, up to 16 MB
 * a semi-space: 32 MB of the process's memory for the rest of the run, once a read of many distinct kinds has made
 * it grow (a million names: 24 MB more at each stage's peak than at 4 MB). A read of a million kinds gains no speed
 * from it: its kinds live on either way. V8 reads its growth factor each time it would grow, so a factor of 1 keeps
 * every young generation of the process as large as it is then (a read worker's is capped: workers/prestart.ts).
 */
let youngHeld = false;

/** The V8 flag that keeps young generations as large as they are. */
export const YOUNG_HOLD_FLAG = '--semi-space-growth-factor=1';

/** Keep this process's young generations from growing any more (once a read turns out to hold many distinct kinds). */
export function holdYoungGeneration(): void {
  if (youngHeld) return;
  youngHeld = true;
  try {
    setFlagsFromString(YOUNG_HOLD_FLAG);
  } catch {
    // A V8 that does not take the flag grows as it would.
  }
}

/** Collections by the growth of the heap since the last one (collectGrown): the rule, over a heap's figure and a collection. */
export class GrowthCollector {
  /** The heap in use right after the last collection, 0 before any. */
  private liveAfter = 0;

  constructor(
    private readonly used: () => number,
    private readonly collect: () => void,
  ) {}

  /** A collection was made: the heap in use now is the mark. */
  collected(): void {
    this.liveAfter = this.used();
  }

  /** Collect when the heap in use has grown by `slackBytes` since the last collection. */
  collectGrown(slackBytes: number): void {
    if (this.used() < this.liveAfter + slackBytes) return;
    this.collect();
    this.collected();
  }
}

/** This thread's collections by growth (collectGrown; a report's writer asks it along the way: util/io.ts). */
export const heapGrowth = new GrowthCollector(
  () => getHeapStatistics().used_heap_size,
  () => collectGarbage(0),
);

/**
 * Collect when this thread's heap in use has grown by `slackBytes` since its last collection made here: at a point
 * where the caller knows it has let go of many objects that lived long enough to be promoted (a cache of a read,
 * cleared), which V8 lets pile up until its own limit (a read of a million kinds folded into a few groups left
 * 150 MB of them).
 */
export function collectGrown(slackBytes: number): void {
  heapGrowth.collectGrown(slackBytes);
}

/**
 * The heap a report's making may leave as garbage before it is collected (REPORT_GARBAGE_BYTES). The pieces a
 * chunk is joined from live while the chunk grows, and many outlive two young collections and are moved to the old
 * heap, which V8 lets grow to twice what is live and more before it collects it: a summary JSON of a million groups
 * peaked at 510 MB, of which some 200 MB was such garbage.
 */
const REPORT_GARBAGE_BYTES = 64 << 20;

/**
 * A report's chunks, its garbage collected along the way whenever the heap in use has grown by
 * REPORT_GARBAGE_BYTES since the last collection (a run's garbage from before the report too).
 */
export function* collectedAlong(chunks: Iterable<string>): Generator<string> {
  for (const chunk of chunks) {
    yield chunk;
    heapGrowth.collectGrown(REPORT_GARBAGE_BYTES);
  }
}
