// The wall span of each step of a rank on its device: a small table the rank's accumulator feeds (with
// --step-time) that keeps, per Step Id, the first kernel start and the last kernel end (start + duration) over every kernel of the step,
// communication kernels too, in exact integer ticks (model.ts TICKS_PER_US). Memory grows with steps, not rows.
//
// Starts are ticks after an origin: a whole number of µs that the reader gives before the first start of a file
// (origin). A rank read from several files gets one origin per file; the table counts from the first one and
// rebases the others ((us - firstUs) · 10^4 ticks, exact: both are whole µs below 2^53).

import { TICKS_PER_US, type StepSpan, type StepSpans } from '../model/model.js';

/** Per step: first start, last end, kernels; fed start ticks after the current origin. */
export class StepSpanTable {
  private readonly spans = new Map<number, StepSpan>();
  /** The step of the last kernel added and its span (the rows of a step are contiguous). */
  private lastStep = Number.NaN;
  private last: StepSpan | null = null;
  private firstUs: number | null = null;
  /** Ticks from the table's origin to the current file's origin. */
  private offset = 0;
  withoutStart = 0;
  available = true;

  /** Start ticks from now on are after this whole number of µs. */
  origin(us: number): void {
    if (this.firstUs === null) this.firstUs = us;
    this.offset = (us - this.firstUs) * TICKS_PER_US;
  }

  /** One kernel of `step` (null: none, in no span), starting `startTicks` after the current origin (NaN: no start). */
  add(step: number | null, startTicks: number, ticks: number): void {
    if (step === null) return;
    if (!Number.isFinite(startTicks)) {
      this.noStart(step);
      return;
    }
    const start = startTicks + this.offset;
    const end = start + ticks;
    let s = this.last;
    if (s === null || step !== this.lastStep) {
      s = this.spans.get(step) ?? null;
      if (s === null) {
        s = { step, startTicks: start, endTicks: end, kernels: 0 };
        this.spans.set(step, s);
      }
      this.lastStep = step;
      this.last = s;
    }
    s.kernels++;
    if (start < s.startTicks) s.startTicks = start;
    if (end > s.endTicks) s.endTicks = end;
  }

  private readonly missing = new Map<number, number>();

  private noStart(step: number): void {
    this.withoutStart++;
    this.missing.set(step, (this.missing.get(step) ?? 0) + 1);
  }

  /** A file begins: without start times (or kernel order) it gives no spans. */
  beginFile(starts: boolean): void {
    if (!starts) this.available = false;
  }

  result(): StepSpans {
    const steps = [...this.spans.values()].sort((a, b) => a.step - b.step).map((s) => ({ ...s }));
    const withoutStartBySteps = [...this.missing].sort((a, b) => a[0] - b[0]);
    return { originUs: this.firstUs, steps, withoutStart: this.withoutStart, withoutStartBySteps, available: this.available };
  }
}

/** The span of a step in ticks. */
export function spanTicks(s: StepSpan): number {
  return s.endTicks - s.startTicks;
}
