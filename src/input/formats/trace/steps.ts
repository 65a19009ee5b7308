// Steps of a Chrome trace: ProfilerStep#N events (`ph: "X"`, host side: `cpu_op` in torch_npu's trace_view,
// `user_annotation` in kineto) are time windows [ts, ts + dur) of the host's clock.
//
// torch_npu: a device kernel is in the window its device start falls in (torch_npu binds host and device by
// timestamp; its kernel_details gives the same Step Id on the real samples).
//
// kineto: a GPU kernel is in the window its *launch* (the `cuda_runtime` event of the same `correlation`) falls
// in, as HTA does: a kernel launched at the end of a step often runs after the host has left the window. In
// kineto's files the launch is written next to its kernel, before or after it, so the reader keeps a few
// thousand recent launches and lets a kernel wait (in order: kernels behind it wait too) until its launch
// comes. A CUDA graph launch runs many kernels of one correlation id: all of them take its step (a launch stays
// known after a match; kernels waiting for one launch are placed together). A kernel whose launch does not come
// within LAUNCH_WINDOW records, or at all, is placed by its own start time, and counted (TraceInfo notes say how
// many).

const STEP_NAME = /^ProfilerStep#(\d+)$/;

/** The step number of a ProfilerStep#N name, or null. */
export function profilerStep(name: string): number | null {
  const m = STEP_NAME.exec(name);
  if (!m) return null;
  const n = Number(m[1]);
  return Number.isSafeInteger(n) ? n : null;
}

export class StepWindows {
  private starts: number[] = [];
  private ends: number[] = [];
  private ids: number[] = [];
  private sorted = true;
  /** Distinct step ids seen. */
  readonly idSet = new Set<number>();
  /**
   * The times asked of at() so far (a kernel or a launch placed), as two hulls: of those placed in a step and of
   * those placed in none. A window added later that overlaps one of them may hold a time already answered
   * otherwise: `late` then says the answers given may not be the trace's (the file is read again, windows first).
   */
  private inMin = Number.POSITIVE_INFINITY;
  private inMax = Number.NEGATIVE_INFINITY;
  private outMin = Number.POSITIVE_INFINITY;
  private outMax = Number.NEGATIVE_INFINITY;
  /** A window came after a time it may hold was answered. */
  late = false;

  get size(): number {
    return this.ids.length;
  }

  add(id: number, startUs: number, durUs: number): void {
    const endUs = startUs + durUs;
    if ((startUs <= this.inMax && endUs > this.inMin) || (startUs <= this.outMax && endUs > this.outMin)) this.late = true;
    const n = this.starts.length;
    if (n > 0 && startUs < this.starts[n - 1]!) this.sorted = false;
    this.starts.push(startUs);
    this.ends.push(endUs);
    this.ids.push(id);
    this.idSet.add(id);
  }

  /** The step whose window holds `us`, or null. With overlapping windows, the latest that started before `us`. */
  at(us: number): number | null {
    const step = this.find(us);
    if (!Number.isNaN(us)) {
      if (step === null) {
        if (us < this.outMin) this.outMin = us;
        if (us > this.outMax) this.outMax = us;
      } else {
        if (us < this.inMin) this.inMin = us;
        if (us > this.inMax) this.inMax = us;
      }
    }
    return step;
  }

  private find(us: number): number | null {
    if (this.ids.length === 0) return null;
    if (!this.sorted) this.sort();
    const s = this.starts;
    let lo = 0;
    let hi = s.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (s[mid]! <= us) lo = mid + 1;
      else hi = mid;
    }
    for (let i = lo - 1; i >= 0 && i >= lo - 4; i--) if (us < this.ends[i]!) return this.ids[i]!;
    return null;
  }

  private sort(): void {
    const order = this.starts.map((_, i) => i).sort((a, b) => this.starts[a]! - this.starts[b]!);
    this.starts = order.map((i) => this.starts[i]!);
    this.ends = order.map((i) => this.ends[i]!);
    this.ids = order.map((i) => this.ids[i]!);
    this.sorted = true;
  }
}
