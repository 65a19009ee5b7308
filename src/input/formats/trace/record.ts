// What the trace readers (Chrome-trace JSON: torch_npu trace_view.json and PyTorch kineto; Nsight Systems CSV)
// hand on: one call per kernel, in the order of the file, through a sink the reader does not know the rest of.
// The registry's sink adapts this to the accumulator (and to an order recorder for the rewrites view).

/**
 * - kernel: a compute kernel on the device.
 * - communication: a collective (torch_npu "HCCL" ops; NCCL/RCCL kernels of a kineto trace).
 * - memcpy / memset: device memory copies and sets (kineto `gpu_memcpy` / `gpu_memset`, Nsight `[CUDA memcpy …]`).
 *   They are not kernels: a consumer reports them apart (TraceInfo.apart counts them too).
 */
export type RecordKind = 'kernel' | 'communication' | 'memcpy' | 'memset';

/** One kernel (or memory operation) of a trace. The object is reused: it is valid only during the call. */
export interface TraceRecord {
  kind: RecordKind;
  /** The kernel name as the file gives it (shortened only with the reader's shortNames option). */
  name: string;
  /** Op type: none of these formats has one (null). */
  type: string | null;
  /**
   * What the file says the kernel ran on or is: torch_npu's `Task Type` (`AI_CORE`, `MIX_AIV`, `DSA_SQE`; it reads
   * AI_CORE for cube and vector kernels alike, so it is not kernel_details' Accelerator Core), `HCCL` for
   * communication, kineto's event category (`kernel`, `gpu_memcpy`, `gpu_memset`); null when none.
   */
  category: string | null;
  /** Stream id as text (torch_npu: the "Stream N" thread; kineto: args.stream), null when none. */
  stream: string | null;
  /** Step (ProfilerStep#N), null when the kernel is in no step or the file has no steps. */
  step: number | null;
  /** Start time in µs as a double (16 integer digits: about 0.25 µs of precision); NaN when the file has none. */
  startUs: number;
  /**
   * Start in ticks of 0.1 ns after the reader's origin (its `originUs`: the whole µs of the first start it read),
   * exactly from the digits the file wrote; NaN when the file has none or the reader was not asked for them.
   */
  startTicks: number;
  /** Duration in ticks of 0.1 ns (model/model.ts TICKS_PER_US), exact to the digits the file wrote (rounded at 0.1 ns). */
  ticks: number;
  /**
   * The GPU the kernel ran on, where one file holds several (an Nsight CSV's Device column, `NVIDIA A100 (1)`):
   * each is then a rank. Absent or null: the file's one device.
   */
  device?: number | null;
}

/** A row of an already aggregated export (Nsight `cuda_gpu_kern_sum`): one kernel name. */
export interface StatisticRecord {
  kind: RecordKind;
  name: string;
  count: number;
  /** Total, min and max duration in ticks; min/max are NaN when the file does not give them. */
  ticks: number;
  minTicks: number;
  maxTicks: number;
}

export interface TraceSink {
  kernel(r: TraceRecord): void;
  /** Only aggregated formats call this. */
  statistic?(r: StatisticRecord): void;
  /**
   * A record that could not be read and was skipped: `where` is `byte N` (JSON) or `line N` (CSV). Counted in
   * TraceInfo.skipped as well.
   */
  warn(where: string, message: string): void;
  /** A record read and counted, but for a part said in `message` (a warning; not a row skipped). */
  note?(where: string, message: string): void;
}

/** Which questions a file can answer (the registry shows them in inspect and refuses groupings that need more). */
export interface TraceAnswers {
  names: boolean;
  /** Op types (`--by type`): none of these formats has them. */
  types: boolean;
  /** Accelerator cores as kernel_details means them: none of these formats has them. */
  cores: boolean;
  shapes: boolean;
  /** Per-step figures: ProfilerStep#N windows (or NVTX ranges) were found. */
  steps: boolean;
  /** Kernels come in execution order per stream (the fusion-rewrites view needs it). */
  order: boolean;
  /** The file names its rank. */
  ranks: boolean;
}

export type TraceFormat = 'trace_view' | 'kineto' | 'nsys_gpu_trace' | 'nsys_kern_sum';

/** What a reader found in one file. */
export interface TraceInfo {
  format: TraceFormat;
  /** Producer and variant, for inspect ("torch_npu trace_view.json (JSON array)", "kineto, CUDA" …). */
  traits: string[];
  answers: TraceAnswers;
  /** How steps were found, for inspect and the "steps are host-side" notice; null without steps. */
  stepSource: string | null;
  /** Step ids found (sorted). */
  steps: number[];
  rank: string | null;
  rankSource: string | null;
  /** Bytes read (unpacked), events or rows seen, records handed on, records skipped. */
  bytes: number;
  events: number;
  kernels: number;
  skipped: number;
  /** What was counted and not handed on as a kernel: memcpy, memset, non-kernel device tasks …, by label. */
  apart: Map<string, { count: number; ticks: number }>;
  /** What else the reader noticed (said by inspect). */
  notes: string[];
}

/** A record for a reader to reuse (see TraceRecord): a kernel with no name, start or duration yet. */
export function emptyRecord(): TraceRecord {
  return { kind: 'kernel', name: '', type: null, category: null, stream: null, step: null, startUs: Number.NaN, startTicks: Number.NaN, ticks: 0 };
}

export function noAnswers(): TraceAnswers {
  return { names: false, types: false, cores: false, shapes: false, steps: false, order: false, ranks: false };
}

/** What a reader knows of a file before its first event: nothing yet. */
export function emptyTraceInfo(format: TraceFormat): TraceInfo {
  return {
    format,
    traits: [],
    answers: noAnswers(),
    stepSource: null,
    steps: [],
    rank: null,
    rankSource: null,
    bytes: 0,
    events: 0,
    kernels: 0,
    skipped: 0,
    apart: new Map(),
    notes: [],
  };
}

export function addApart(info: TraceInfo, label: string, ticks: number): void {
  const a = info.apart.get(label);
  if (a) {
    a.count++;
    a.ticks += ticks;
  } else info.apart.set(label, { count: 1, ticks });
}
