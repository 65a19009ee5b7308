// Kernels of a Chrome-trace JSON file: torch_npu's trace_view.json (FORMATS.md §9) and PyTorch kineto traces
// from CUDA or ROCm (§13), told apart by their content. One pass, in the order of the file; memory grows with
// processes, threads, streams and steps, never with events (see json/eventScanner.ts).
//
// torch_npu: device kernels are the `ph: "X"` events of the process whose `process_name` metadata is
// "Ascend Hardware" (one thread per stream, "Stream N") with a compute `Task Type`; the other device tasks
// (`Notify Wait`, `SDMA`, `*_SQE` event and DMA tasks, `PLACE_HOLDER_SQE` …) are counted apart. Communication
// ops are the events of the "HCCL" process on its "Group N Communication" threads (the "Plane N" threads hold
// their tasks). There is no op type and no Step Id: steps are host-side ProfilerStep#N windows.
//
// kineto: kernels are `cat: "kernel"` events, memory copies and sets `gpu_memcpy` / `gpu_memset` (handed on as
// such, to be reported apart); steps from ProfilerStep#N through each kernel's launch (steps.ts); the rank from
// the top-level `distributedInfo.rank`.
//
// Over 400 lines: one reader of one pass over the events, for both dialects (trace_view, kineto) whose processes,
// streams and steps it tells apart as it goes; the shared parts are record.ts, steps.ts and shortName.ts.

import { BytesMap } from '../../csv/bytesMap.js';
import { parseFloatCell, parseTicks } from '../../csv/numbers.js';
import { startOriginUsBytes, startTicksAfterBytes } from '../../kernelCells.js';
import { MAX_EXACT_TEXT, MAX_EXACT_TICKS } from '../../../model/model.js';
import { inputError } from '../../../util/errors.js';
import type { Engine } from '../../engine.js';
import { ABSENT, EventScanner, JsonTraceError, STRING, NUMBER, type EventView } from '../../json/eventScanner.js';
import { addApart, emptyRecord, emptyTraceInfo, type RecordKind, type TraceInfo, type TraceRecord, type TraceSink } from './record.js';
import { Shortener } from './shortName.js';
import { profilerStep, StepWindows } from './steps.js';

export interface ChromeTraceOptions {
  /** Strip template arguments, parameters and return types from kineto kernel names (shortName.ts). */
  shortNames?: boolean;
  /** Largest single event (or top-level member) accepted, in bytes (default 64 MiB). */
  maxItemBytes?: number;
  /** The scanner's engine (json/eventScanner.ts; default: the run's, see input/engine.ts). The same records either way. */
  engine?: Engine;
  /** Give each record its exact start ticks (TraceRecord.startTicks; an exact decimal parse per kernel). */
  exactStarts?: boolean;
  /**
   * The file's step windows, read before (a first read whose ProfilerStep#N events came after kernels they hold):
   * every kernel is placed with them from the start, and the file's ProfilerStep#N events are not added again.
   */
  steps?: StepWindows;
  /** The file is gzip: its byte offsets are of the unpacked data, and said so. */
  packed?: boolean;
}

// Fields located in each event (indices into the view).
const EVENT_KEYS = ['ph', 'name', 'cat', 'pid', 'tid', 'ts', 'dur', 'args'] as const;
const ARG_KEYS = ['name', 'Task Type', 'stream', 'correlation', 'Physic Stream Id', 'Stream Id'] as const;
const PH = 0;
const NAME = 1;
const CAT = 2;
const PID = 3;
const TID = 4;
const TS = 5;
const DUR = 6;
const A_NAME = 8;
const A_TASK = 9;
const A_STREAM = 10;
const A_CORR = 11;
const A_PSTREAM = 12;
const A_STREAM_ID = 13;

const bytes = (s: string): Uint8Array => new Uint8Array(Buffer.from(s, 'utf8'));
const X = bytes('X');
const M = bytes('M');
const KERNEL = bytes('kernel');
const MEMCPY = bytes('gpu_memcpy');
const MEMSET = bytes('gpu_memset');
const GPU_ANNOTATION = bytes('gpu_user_annotation');
const RUNTIMES = ['cuda_runtime', 'cuda_driver', 'hip_runtime', 'privateuse1_runtime'].map(bytes);
/** What an event's category says it is (category()). */
const C_OTHER = 0;
const C_KERNEL = 1;
const C_MEMCPY = 2;
const C_MEMSET = 3;
const C_RUNTIME = 4;
/** The categories read, by byte length: [bytes, code, bytes, code …] (one length check rules most out). */
const CATEGORIES: (Uint8Array | number)[][] = [];
const CATEGORY_CODES: [Uint8Array, number][] = [
  [KERNEL, C_KERNEL],
  [MEMCPY, C_MEMCPY],
  [MEMSET, C_MEMSET],
  ...RUNTIMES.map((r): [Uint8Array, number] => [r, C_RUNTIME]),
];
for (const [b, code] of CATEGORY_CODES) {
  const bucket = CATEGORIES[b.length] ?? [];
  bucket.push(b, code);
  CATEGORIES[b.length] = bucket;
}
const PROCESS_NAME = bytes('process_name');
const THREAD_NAME = bytes('thread_name');
const STEP_PREFIX = bytes('ProfilerStep#');
/** The largest start time read (exclusive), in µs: past it a double holds no whole µs. */
const MAX_START_US = 2 ** 53;
const HCOM = bytes('hcom_');

/** torch_npu `Task Type`s of compute kernels (kernel_details' Accelerator Core values, FORMATS.md §8). */
const NPU_KERNEL_TASKS = new Set(['AI_CORE', 'AI_VECTOR_CORE', 'AI_CPU', 'MIX_AIC', 'MIX_AIV', 'DSA_SQE']);
/**
 * Device tasks that are not kernels (FORMATS.md §9), by Task Type (DSA_SQE, above, excepted) or by name (an older
 * CANN labels every task `Other`, copies and events included: msprof-analyze's timeline_advice sample). Any other
 * Task Type is read as a kernel and named in a note.
 */
const NPU_OTHER_TASKS = /^(Write Value|Notify Wait|Notify Record|SDMA|PLACE_HOLDER|MEMCPY_ASYNC|EVENT_RECORD|EVENT_WAIT)$|_SQE$/;
const NPU_OTHER_NAMES =
  /^(MEMCPY_ASYNC|EVENT_RECORD|EVENT_WAIT|PROFILING_ENABLE|PROFILING_DISABLE|Notify Wait|Notify Record|Write Value|SDMA|PLACE_HOLDER)$/;

const NAME_CACHE_LIMIT = 100_000;
/** Recent launches kept, and kernels that may wait for their launch (steps.ts). */
const LAUNCH_WINDOW = 4096;
/** Slots of the table of launches seen (chromeTrace's recentIds). */
const RECENT_SLOTS = 4 * LAUNCH_WINDOW;
/** Device events that may wait for their process's metadata. */
const MAX_WAITING_FOR_PROCESS = 100_000;
/** Processes, threads and streams kept by name (real traces have tens). */
const MAX_NAMED = 100_000;
/** ProfilerStep windows accepted. */
const MAX_STEPS = 1_000_000;

interface Waiting {
  rec: TraceRecord;
  /** Correlation id of the launch awaited (-1: none awaited). */
  corr: number;
  resolved: boolean;
  /**
   * The kernel written before it that waits for the same launch (a CUDA graph launch runs many kernels of one
   * correlation id): the waiting kernels of one id form a chain from the newest, held by lastWaiting or the map.
   */
  next: Waiting | null;
}

interface Orphan {
  pid: string;
  tid: string;
  name: string;
  task: string | null;
  startUs: number;
  startTicks: number;
  ticks: number;
  argStream: string | null;
}

/** What the category of an event (a string) says it is: C_KERNEL, C_MEMCPY, C_MEMSET, C_RUNTIME or C_OTHER. */
function category(v: EventView): number {
  const length = v.ends[CAT]! - v.starts[CAT]!;
  const known = length < CATEGORIES.length ? CATEGORIES[length] : undefined;
  if (known === undefined) return C_OTHER;
  for (let i = 0; i < known.length; i += 2) if (v.strIs(CAT, known[i] as Uint8Array)) return known[i + 1] as number;
  return C_OTHER;
}

function copy(r: TraceRecord): TraceRecord {
  return {
    kind: r.kind,
    name: r.name,
    type: r.type,
    category: r.category,
    stream: r.stream,
    step: r.step,
    startUs: r.startUs,
    startTicks: r.startTicks,
    ticks: r.ticks,
  };
}

export class ChromeTraceReader {
  private readonly scanner: EventScanner;
  private readonly names = new BytesMap<string>();
  /** --short-names (shortName.ts): the names and which of them stand for several kernels. */
  readonly shortener = new Shortener();
  private readonly rec: TraceRecord = emptyRecord();
  /** The whole µs the records' startTicks count from: the first start read (NaN until one is). */
  originUs = Number.NaN;
  private readonly windows: StepWindows;
  private readonly processes = new Map<string, string>();
  /** thread names by pid, then tid. */
  private readonly threads = new Map<string, Map<string, string>>();
  private threadCount = 0;
  private readonly lastStart = new Map<string, number>();
  /** The stream of the last device event ordered (kept in lastStart, whose value may be older), and its start. */
  private orderStream: string | null = null;
  private orderLast = 0;
  private outOfOrder = 0;
  private withPh = 0;
  private npuKernels = 0;
  /** Task Types neither known as kernels nor as other tasks, read as kernels: how many of each. */
  private readonly unknownTasks = new Map<string, number>();
  private orphans: Orphan[] = [];
  private kernelsBeforeSteps = 0;
  private readonly stepsSeen = new Set<number>();
  /** The step last added to stepsSeen (kernels of one step come together). */
  private lastStepSeen: number | null = null;
  // kineto launches (steps.ts)
  /**
   * Launches seen, by correlation id, in a table of RECENT_SLOTS slots (slot: the id modulo its size; a launch
   * stays until one whose id falls in its slot replaces it, RECENT_SLOTS ids later in kineto's counting order) and
   * kept after a match: a CUDA graph launch runs many kernels of its id. No map: one is written per launch.
   */
  private readonly recentIds = new Float64Array(RECENT_SLOTS).fill(Number.NaN);
  /** The step of the launch in the same slot of recentIds (-1: in no step). */
  private readonly recentSteps = new Float64Array(RECENT_SLOTS);
  /**
   * Kernels waiting in order: those of queue[qHead, qEnd). The array is never shortened (slots past qEnd are stale
   * and overwritten): emptying it would drop its memory, and a kernel that waits for its launch right after it
   * would then make a new one.
   */
  private readonly queue: Waiting[] = [];
  private qHead = 0;
  private qEnd = 0;
  /** The newest waiting kernel of each correlation id (the head of its chain), but that of lastWaiting. */
  private readonly waiting = new Map<number, Waiting>();
  /** The kernel that waits last, with its chain, kept out of the map (its launch most often comes next). */
  private lastWaiting: Waiting | null = null;
  private readonly free: Waiting[] = [];
  private byLaunch = 0;
  private lastStream: Buffer | null = null;
  private lastStreamKind = 0;
  private lastStreamText: string | null = null;
  private byOwnTime = 0;
  /** What timing() read of the last event: start (µs), exact start (ticks after originUs), duration (ticks). */
  private tStart = Number.NaN;
  private tStartTicks = Number.NaN;
  private tTicks = 0;
  readonly info: TraceInfo;

  constructor(
    private readonly file: string,
    private readonly sink: TraceSink,
    private readonly options: ChromeTraceOptions = {},
  ) {
    this.info = emptyTraceInfo('kineto');
    this.windows = options.steps ?? new StepWindows();
    this.scanner = new EventScanner(
      {
        eventKeys: EVENT_KEYS,
        argKeys: ARG_KEYS,
        topKeys: ['distributedInfo'],
        maxItemBytes: options.maxItemBytes,
        engine: options.engine,
        wantArgs: (v) => this.wantArgs(v),
        wantRest: (v) => this.wantRest(v),
        decideOn: ['ph', 'cat', 'name'],
        intern: 'name',
      },
      { event: (v) => this.event(v), top: (k, v) => this.top(k, v) },
    );
  }

  /** ProfilerStep#N windows read so far. */
  get stepWindows(): number {
    return this.windows.size;
  }

  /** The step windows read (for a second read: lateSteps). */
  get steps(): StepWindows {
    return this.windows;
  }

  /**
   * A ProfilerStep#N window came after a kernel (or launch) it may hold was placed, or after kernels were handed
   * on as of a file without steps: the steps handed on may not be the trace's. Read the file again with `steps`
   * (ChromeTraceOptions.steps) into fresh sinks.
   */
  get lateSteps(): boolean {
    return this.windows.late || (this.kernelsBeforeSteps > 0 && this.windows.size > 0);
  }

  push(chunk: Buffer): void {
    try {
      this.scanner.push(chunk);
    } catch (e) {
      throw this.translate(e);
    }
  }

  /** The input ended: settle what waits, check that it was a trace, and say what was found. */
  finish(): TraceInfo {
    try {
      this.scanner.finish();
    } catch (e) {
      throw this.translate(e);
    }
    const s = this.scanner;
    if (s.form === 'object' && !s.sawTraceEvents) {
      throw inputError(
        `${this.file}: a JSON object without a "traceEvents" array: not a Chrome trace. ` +
          'Expected a PyTorch profiler trace (*.pt.trace.json) or torch_npu trace_view.json.',
      );
    }
    // Events passed over (wantRest) all have a "ph".
    if (s.events > 0 && this.withPh + s.skipped === 0) {
      throw inputError(
        `${this.file}: ${s.events} JSON objects, none with a "ph" (phase) member: not trace events. ` +
          'Expected a PyTorch profiler trace (*.pt.trace.json) or torch_npu trace_view.json.',
      );
    }
    this.settleLaunches();
    const info = this.info;
    info.bytes = s.bytes;
    info.events = s.events;
    const npu = this.npuKernels > 0 || [...this.processes.values()].includes('Ascend Hardware');
    info.format = npu ? 'trace_view' : 'kineto';
    info.traits.push(
      npu ? 'torch_npu trace_view.json' : 'PyTorch kineto trace',
      s.form === 'array' ? 'JSON array of events' : 'JSON object with traceEvents',
    );
    if (!npu && this.options.shortNames) info.traits.push('kernel names shortened');
    const a = info.answers;
    a.names = true;
    a.order = true;
    a.ranks = info.rank !== null;
    a.steps = this.windows.size > 0;
    info.steps = [...this.stepsSeen].sort((x, y) => x - y);
    if (a.steps) {
      info.stepSource = npu
        ? 'ProfilerStep#N windows of the host (cpu_op events); a device kernel is in the window its start falls in'
        : 'ProfilerStep#N windows of the host (user_annotation events); a kernel is in the window of its launch';
    }
    if (info.kernels === 0)
      info.notes.push(npu ? 'no device kernels in the "Ascend Hardware" process' : 'no kernel events (cat "kernel"): a CPU-only trace?');
    if (this.byOwnTime > 0 && !npu) {
      info.notes.push(
        `${this.byOwnTime} of ${this.byOwnTime + this.byLaunch} device events (kernels, memcpy, memset) were placed in a step by their own start time: no launch event of their args.correlation is in the file, or it is too far from them for the reader to wait for it`,
      );
    }
    if (this.outOfOrder > 0)
      info.notes.push(
        `device events that start before the one written before them on the same stream: ${this.outOfOrder} (the order kept is the file's)`,
      );
    if (this.unknownTasks.size > 0) {
      const types = [...this.unknownTasks].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([t, n]) => `${t} (${n})`);
      info.notes.push(`device tasks read as kernels though their Task Type is not a known kernel type: ${types.join(', ')}`);
    }
    if (this.orphans.length > 0) info.notes.push(`${this.orphans.length} device tasks in processes without process_name metadata were not read`);
    return info;
  }

  /** `byte N`, of the unpacked data when the file is gzip (the offset of no byte of the file itself). */
  private at(offset: number): string {
    return this.options.packed === true ? `byte ${offset} of the unpacked data` : `byte ${offset}`;
  }

  private translate(e: unknown): unknown {
    if (e instanceof JsonTraceError) {
      return inputError(
        `${this.file}: ${this.at(e.offset)}: ${e.what}. Expected a complete Chrome-trace JSON file (PyTorch profiler *.pt.trace.json or torch_npu trace_view.json); copy or export it again.`,
      );
    }
    return e;
  }

  private top(key: string, value: unknown): void {
    if (key === 'distributedInfo' && value !== null && typeof value === 'object') {
      const rank = (value as Record<string, unknown>).rank;
      if ((typeof rank === 'number' && Number.isSafeInteger(rank) && rank >= 0) || (typeof rank === 'string' && /^\d{1,9}$/.test(rank))) {
        this.info.rank = String(rank);
        this.info.rankSource = 'distributedInfo.rank';
      }
    }
  }

  /** Args are read for metadata, device events (no category), kernels, memory operations and launches. */
  private wantArgs(v: EventView): boolean {
    if (v.kind(CAT) !== STRING || !v.strIs(PH, X)) return true;
    return category(v) !== C_OTHER;
  }

  /**
   * Asked once ph, cat and name are located (kineto writes them first), by them alone: an event of a phase other
   * than X and M (flow arrows, instants, counters), or an X event with a category that is none of those read (host
   * ops, annotations other than ProfilerStep#N), is of no use (the scanner passes over it).
   */
  private wantRest(v: EventView): boolean {
    if (v.kind(PH) === STRING && !v.strIs(PH, X)) return v.strIs(PH, M);
    if (v.kind(CAT) !== STRING || !v.strIs(PH, X)) return true;
    if (category(v) !== C_OTHER) return true;
    return v.strStarts(NAME, STEP_PREFIX) && !v.strIs(CAT, GPU_ANNOTATION);
  }

  private name(v: EventView): string {
    const known = v.interned();
    if (known !== null) return known;
    const [s, e] = v.span(NAME);
    const b = v.buf;
    const h = this.names.hash(b, s, e, -1, -1);
    let n = this.names.get(h, b, s, e, -1, -1);
    if (n === undefined) {
      n = v.str(NAME)!;
      if (this.names.size >= NAME_CACHE_LIMIT) this.names.clear();
      this.names.set(h, b, s, e, -1, -1, n);
    }
    return n;
  }

  private event(v: EventView): void {
    if (v.kind(PH) !== STRING) return;
    this.withPh++;
    if (v.strIs(PH, X)) {
      if (v.kind(NAME) !== STRING) {
        // A device event of no name (missing, a number, null) cannot be grouped: skipped and said, as one of no
        // duration is, never dropped unsaid. Host events of no name are of no use to kprof and passed over. A
        // torch_npu device task has no category: it is one by its Task Type, or by its process.
        const c = v.kind(CAT) === STRING ? category(v) : C_OTHER;
        const what =
          c === C_KERNEL
            ? 'kernel'
            : c === C_MEMCPY
              ? 'memcpy'
              : c === C_MEMSET
                ? 'memset'
                : v.kind(CAT) !== STRING && this.onDevice(v)
                  ? 'device'
                  : null;
        if (what !== null)
          this.skip(v, `${what} event ${v.index} has ${v.kind(NAME) === ABSENT ? 'no name' : 'a name that is not a string'}; skipped`);
        return;
      }
      if (v.kind(CAT) === STRING) {
        switch (category(v)) {
          case C_KERNEL:
            this.kineto(v, 'kernel');
            return;
          case C_MEMCPY:
            this.kineto(v, 'memcpy');
            return;
          case C_MEMSET:
            this.kineto(v, 'memset');
            return;
          case C_RUNTIME:
            this.launch(v);
            return;
        }
        if (v.strStarts(NAME, STEP_PREFIX) && !v.strIs(CAT, GPU_ANNOTATION)) this.step(v);
        return;
      }
      // Device events of torch_npu carry no category.
      if (v.strStarts(NAME, STEP_PREFIX)) {
        this.step(v);
        return;
      }
      this.npu(v);
      return;
    }
    if (v.strIs(PH, M)) this.metadata(v);
  }

  private metadata(v: EventView): void {
    const pid = v.scalar(PID);
    const label = v.str(A_NAME);
    if (pid === null || label === null) return;
    // Real traces name tens of processes and threads; past MAX_NAMED the rest are not kept (memory stays bounded).
    if (v.strIs(NAME, PROCESS_NAME)) {
      if (this.processes.size >= MAX_NAMED && !this.processes.has(pid)) {
        this.tooMany('processes');
        return;
      }
      this.processes.set(pid, label);
      if (this.orphans.length > 0) this.adopt(pid);
    } else if (v.strIs(NAME, THREAD_NAME)) {
      const tid = v.scalar(TID);
      if (tid === null) return;
      if (this.threadCount >= MAX_NAMED) {
        this.tooMany('threads');
        return;
      }
      let t = this.threads.get(pid);
      if (!t) {
        t = new Map();
        this.threads.set(pid, t);
      }
      if (!t.has(tid)) this.threadCount++;
      t.set(tid, label);
    }
  }

  private step(v: EventView): void {
    const id = profilerStep(v.str(NAME)!);
    if (id === null) return;
    const start = this.startUs(v);
    const dur = this.durTicks(v);
    if (!(start >= 0) || !(dur >= 0)) {
      this.skip(v, `${v.str(NAME)} has no readable ts and dur; its step window is not used`);
      return;
    }
    // A second read: the windows are known already.
    if (this.options.steps !== undefined) return;
    if (this.windows.size >= MAX_STEPS) {
      throw inputError(
        `${this.file}: ${this.at(v.offset)}: more than ${MAX_STEPS} ProfilerStep#N events; no real trace has that many steps. Is the file a trace of one profiling session?`,
      );
    }
    this.windows.add(id, start, dur / 10_000);
  }

  private startUs(v: EventView): number {
    const k = v.kind(TS);
    if (k !== STRING && k !== NUMBER) return Number.NaN;
    // A ts past 2^53 µs (the year 2255 after the epoch; 1e400 reads as Infinity) is no start time either: a double
    // holds it to no whole µs, and it would stretch its step's wall span to centuries.
    const us = parseFloatCell(v.buf, v.starts[TS]!, v.ends[TS]!);
    return us < MAX_START_US ? us : Number.NaN;
  }

  private durTicks(v: EventView): number {
    const k = v.kind(DUR);
    if (k !== STRING && k !== NUMBER) return Number.NaN;
    return parseTicks(v.buf, v.starts[DUR]!, v.ends[DUR]!);
  }

  private skip(v: EventView, message: string): void {
    this.info.skipped++;
    this.sink.warn(this.at(v.offset), message);
  }

  /** The exact start of an event in ticks after originUs (the first start read sets it); NaN when not asked or none. */
  private startTicks(v: EventView): number {
    if (this.options.exactStarts !== true) return Number.NaN;
    const k = v.kind(TS);
    if (k !== STRING && k !== NUMBER) return Number.NaN;
    const s = v.starts[TS]!;
    const e = v.ends[TS]!;
    if (Number.isNaN(this.originUs)) {
      const us = startOriginUsBytes(v.buf, s, e);
      if (Number.isNaN(us)) return Number.NaN;
      this.originUs = us;
    }
    return startTicksAfterBytes(v.buf, s, e, this.originUs);
  }

  /**
   * Duration and start of a kernel event into tStart, tStartTicks and tTicks (fields, not an object per kernel);
   * false when it is skipped, with a warning.
   */
  private timing(v: EventView, what: string): boolean {
    const ticks = this.durTicks(v);
    if (!(ticks >= 0)) {
      this.skip(v, `${what} event ${v.index} has dur ${this.cellText(v, DUR)}, expected a duration in µs; skipped`);
      return false;
    }
    if (!(ticks < MAX_EXACT_TICKS)) {
      const d = v.buf.toString('utf8', v.starts[DUR]!, Math.min(v.ends[DUR]!, v.starts[DUR]! + 40));
      this.skip(v, `${what} event ${v.index} has dur ${d}, more than kprof sums exactly (${MAX_EXACT_TEXT}); skipped`);
      return false;
    }
    this.tStart = this.startUs(v);
    // Counted all the same (its duration is read), but with no start: its time places it in no step window and no
    // stream order (a negative one too, as the note says, not kept as a start before every other).
    if (!(this.tStart >= 0)) {
      this.sink.note?.(
        this.at(v.offset),
        `${what} event ${v.index} has ts ${this.cellText(v, TS)}, expected a start time in µs; counted without one`,
      );
      this.tStart = Number.NaN;
    }
    this.tStartTicks = Number.isNaN(this.tStart) ? Number.NaN : this.startTicks(v);
    this.tTicks = ticks;
    return true;
  }

  /** The cell `i` of an event as its file writes it (quoted, its first 40 bytes), or `missing`. */
  private cellText(v: EventView, i: number): string {
    return v.kind(i) === NUMBER || v.kind(i) === STRING
      ? `"${v.buf.toString('utf8', v.starts[i]!, Math.min(v.ends[i]!, v.starts[i]! + 40))}"`
      : 'missing';
  }

  private tooMany(what: string): void {
    const note = `more than ${MAX_NAMED} ${what} named in metadata: the rest were not kept`;
    if (!this.info.notes.includes(note)) this.info.notes.push(note);
  }

  private order(stream: string, start: number): void {
    // Device events of one stream come in runs: the last start of the stream of the last one is kept apart
    // (orderStream, orderLast), and written back to lastStart only when another stream comes.
    if (stream === this.orderStream) {
      if (start < this.orderLast) this.outOfOrder++;
      this.orderLast = start;
      return;
    }
    if (this.orderStream !== null) this.lastStart.set(this.orderStream, this.orderLast);
    this.orderStream = null;
    const last = this.lastStart.get(stream);
    if (last !== undefined && start < last) this.outOfOrder++;
    if (last !== undefined || this.lastStart.size < MAX_NAMED) {
      this.lastStart.set(stream, start);
      this.orderStream = stream;
      this.orderLast = start;
    } else this.tooMany('streams');
  }

  // ----- torch_npu -----

  /** A torch_npu event of a device task: with a Task Type, or of the Ascend Hardware or HCCL process. */
  private onDevice(v: EventView): boolean {
    if (v.kind(A_TASK) === STRING) return true;
    const pid = v.scalar(PID);
    const proc = pid === null ? undefined : this.processes.get(pid);
    return proc === 'Ascend Hardware' || proc === 'HCCL';
  }

  private npu(v: EventView): void {
    const pid = v.scalar(PID);
    if (pid === null) return;
    const proc = this.processes.get(pid);
    if (proc === undefined) {
      // Metadata usually comes first; device tasks before it wait for it (bounded).
      if (v.kind(A_TASK) === STRING || v.strStarts(NAME, HCOM)) this.orphan(v, pid);
      return;
    }
    if (proc !== 'Ascend Hardware' && proc !== 'HCCL') return;
    if (!this.timing(v, proc === 'HCCL' ? 'communication' : 'device')) return;
    this.npuTask(
      pid,
      v.scalar(TID) ?? '',
      this.name(v),
      proc === 'HCCL' ? null : v.str(A_TASK),
      this.tStart,
      this.tStartTicks,
      this.tTicks,
      v.scalar(A_PSTREAM) ?? v.scalar(A_STREAM_ID),
    );
  }

  private npuTask(
    pid: string,
    tid: string,
    name: string,
    task: string | null,
    start: number,
    startTicks: number,
    ticks: number,
    argStream: string | null,
  ): void {
    const proc = this.processes.get(pid);
    const thread = this.threads.get(pid)?.get(tid);
    const r = this.rec;
    if (proc === 'HCCL') {
      // "Group N Communication" threads hold the ops; "Plane N" threads their tasks.
      if (thread !== undefined ? !thread.endsWith('Communication') : !name.startsWith('hcom_')) return;
      r.kind = 'communication';
      r.category = 'HCCL';
    } else {
      const kernel = task !== null && (NPU_KERNEL_TASKS.has(task) || (!NPU_OTHER_TASKS.test(task) && !NPU_OTHER_NAMES.test(name)));
      if (!kernel) {
        addApart(
          this.info,
          task === null ? 'device task without Task Type' : NPU_KERNEL_TASKS.has(task) || NPU_OTHER_TASKS.test(task) ? task : name,
          ticks,
        );
        return;
      }
      if (!NPU_KERNEL_TASKS.has(task)) this.unknownTasks.set(task, (this.unknownTasks.get(task) ?? 0) + 1);
      r.kind = 'kernel';
      r.category = task;
    }
    const m = thread !== undefined ? /^Stream (\d+)$/.exec(thread) : null;
    r.stream = m ? m[1]! : (argStream ?? tid);
    r.name = name;
    r.type = null;
    r.startUs = start;
    r.startTicks = startTicks;
    r.ticks = ticks;
    r.step = this.windows.at(start);
    if (this.windows.size === 0) this.kernelsBeforeSteps++;
    this.emit(r);
    this.npuKernels++;
  }

  private orphan(v: EventView, pid: string): void {
    if (this.orphans.length >= MAX_WAITING_FOR_PROCESS) {
      throw inputError(
        `${this.file}: ${this.at(v.offset)}: more than ${MAX_WAITING_FOR_PROCESS} device events come before the process_name metadata that says ` +
          'which process they belong to; kprof reads traces whose metadata comes first (as torch_npu writes them). Export the trace again.',
      );
    }
    if (!this.timing(v, 'device')) return;
    this.orphans.push({
      pid,
      tid: v.scalar(TID) ?? '',
      name: this.name(v),
      task: v.str(A_TASK),
      startUs: this.tStart,
      startTicks: this.tStartTicks,
      ticks: this.tTicks,
      argStream: v.scalar(A_PSTREAM) ?? v.scalar(A_STREAM_ID),
    });
  }

  private adopt(pid: string): void {
    const rest: Orphan[] = [];
    for (const o of this.orphans) {
      if (o.pid !== pid) rest.push(o);
      else if (this.processes.get(pid) === 'Ascend Hardware' || this.processes.get(pid) === 'HCCL')
        this.npuTask(o.pid, o.tid, o.name, o.task, o.startUs, o.startTicks, o.ticks, o.argStream);
    }
    this.orphans = rest;
  }

  // ----- kineto -----

  private kineto(v: EventView, kind: RecordKind): void {
    if (!this.timing(v, kind)) return;
    const r = this.rec;
    let name = this.name(v);
    if (kind === 'kernel') {
      if (name.startsWith('nccl') || name.startsWith('rccl')) kind = 'communication';
      if (this.options.shortNames) name = this.short(name);
    }
    r.kind = kind;
    r.name = name;
    r.type = null;
    r.category = kind === 'memcpy' ? 'gpu_memcpy' : kind === 'memset' ? 'gpu_memset' : 'kernel';
    r.stream = this.stream(v);
    const start = this.tStart;
    r.startUs = start;
    r.startTicks = this.tStartTicks;
    r.ticks = this.tTicks;
    r.step = null;
    if (this.windows.size === 0) {
      this.kernelsBeforeSteps++;
      // Asked only so that a window coming later and holding it is noticed (lateSteps).
      this.windows.at(start);
      this.queueOrEmit(r, -1, true);
      return;
    }
    const corr = v.int(A_CORR);
    if (!Number.isSafeInteger(corr)) {
      r.step = this.windows.at(start);
      this.byOwnTime++;
      this.queueOrEmit(r, -1, true);
      return;
    }
    let slot = corr % RECENT_SLOTS;
    if (slot < 0) slot += RECENT_SLOTS;
    if (this.recentIds[slot] === corr) {
      const launched = this.recentSteps[slot]!;
      r.step = launched < 0 ? null : launched;
      this.byLaunch++;
      this.queueOrEmit(r, -1, true);
      return;
    }
    this.queueOrEmit(r, corr, false);
  }

  /** args.stream (else tid) as text; the last one is kept, as kernels of one stream come in runs. */
  private stream(v: EventView): string | null {
    const f = v.kind(A_STREAM) === NUMBER || v.kind(A_STREAM) === STRING ? A_STREAM : TID;
    const k = v.kind(f);
    if (k !== NUMBER && k !== STRING) return null;
    const s = v.starts[f]!;
    const e = v.ends[f]!;
    const last = this.lastStream;
    if (last !== null && k === this.lastStreamKind && e - s === last.length) {
      const b = v.buf;
      let j = 0;
      while (j < last.length && b[s + j] === last[j]) j++;
      if (j === last.length) return this.lastStreamText;
    }
    this.lastStream = Buffer.from(v.buf.subarray(s, e));
    this.lastStreamKind = k;
    this.lastStreamText = v.scalar(f);
    return this.lastStreamText;
  }

  private short(name: string): string {
    return this.shortener.name(name);
  }

  private launch(v: EventView): void {
    if (this.windows.size === 0) {
      // No step to give it yet; asked so that a window coming later and holding it is noticed (lateSteps).
      this.windows.at(this.startUs(v));
      return;
    }
    const corr = v.int(A_CORR);
    if (!Number.isSafeInteger(corr)) return;
    const start = this.startUs(v);
    const step = start >= 0 ? this.windows.at(start) : null;
    // Most often the launch is written right after its kernel: that one is looked at before the map.
    let w = this.lastWaiting;
    if (w !== null && w.corr === corr) this.lastWaiting = null;
    else {
      w = this.waiting.get(corr) ?? null;
      if (w !== null) this.waiting.delete(corr);
    }
    if (w !== null) {
      // Every kernel waiting for it (a graph launch has many), then kernels of it written later (recentIds).
      for (; w !== null; w = w.next) {
        w.rec.step = step;
        w.resolved = true;
        this.byLaunch++;
      }
      this.drain();
    }
    let slot = corr % RECENT_SLOTS;
    if (slot < 0) slot += RECENT_SLOTS;
    this.recentIds[slot] = corr;
    this.recentSteps[slot] = step === null ? -1 : step;
  }

  private queueOrEmit(r: TraceRecord, corr: number, resolved: boolean): void {
    if (resolved && this.qHead === this.qEnd) {
      this.emit(r);
      return;
    }
    const w = this.free.pop() ?? { rec: copy(r), corr, resolved, next: null };
    const c = w.rec;
    c.kind = r.kind;
    c.name = r.name;
    c.type = r.type;
    c.category = r.category;
    c.stream = r.stream;
    c.step = r.step;
    c.startUs = r.startUs;
    c.startTicks = r.startTicks;
    c.ticks = r.ticks;
    w.corr = corr;
    w.resolved = resolved;
    w.next = null;
    this.queue[this.qEnd++] = w;
    if (!resolved) {
      const last = this.lastWaiting;
      if (last !== null && last.corr === corr) w.next = last;
      else {
        if (last !== null) this.waiting.set(last.corr, last);
        const head = this.waiting.get(corr);
        if (head !== undefined) {
          this.waiting.delete(corr);
          w.next = head;
        }
      }
      this.lastWaiting = w;
    }
    // Bounded: the oldest kernel still waiting is placed by its own start time.
    if (this.waiting.size >= LAUNCH_WINDOW) this.settle(this.queue[this.qHead]!);
    this.drain();
    // Kernels that could be handed on wait behind one whose launch has not come: bounded too.
    while (this.qEnd - this.qHead > 4 * LAUNCH_WINDOW) {
      this.settle(this.queue[this.qHead]!);
      this.drain();
    }
  }

  /** A kernel whose launch is given up on: it and every kernel waiting for the same launch go by their own start. */
  private settle(w: Waiting): void {
    if (w.resolved) return;
    let head: Waiting | null = this.lastWaiting;
    if (head !== null && head.corr === w.corr) this.lastWaiting = null;
    else {
      head = this.waiting.get(w.corr) ?? null;
      this.waiting.delete(w.corr);
    }
    if (head === null) head = w;
    for (let k: Waiting | null = head; k !== null; k = k.next) {
      k.rec.step = this.windows.at(k.rec.startUs);
      k.resolved = true;
      this.byOwnTime++;
    }
  }

  private drain(): void {
    const q = this.queue;
    while (this.qHead < this.qEnd && q[this.qHead]!.resolved) {
      const w = q[this.qHead++]!;
      this.emit(w.rec);
      w.next = null;
      if (this.free.length < 64) this.free.push(w);
    }
    if (this.qHead === this.qEnd) {
      this.qHead = 0;
      this.qEnd = 0;
    } else if (this.qHead > 1024 && this.qHead * 2 > this.qEnd) {
      q.copyWithin(0, this.qHead, this.qEnd);
      this.qEnd -= this.qHead;
      this.qHead = 0;
    }
  }

  private settleLaunches(): void {
    for (let i = this.qHead; i < this.qEnd; i++) this.settle(this.queue[i]!);
    this.drain();
  }

  private emit(r: TraceRecord): void {
    if (r.stream !== null && r.startUs >= 0) this.order(r.stream, r.startUs);
    if (r.kind === 'memcpy' || r.kind === 'memset') addApart(this.info, r.kind, r.ticks);
    else {
      this.info.kernels++;
      const step = r.step;
      if (step !== null && step !== this.lastStepSeen) {
        this.stepsSeen.add(step);
        this.lastStepSeen = step;
      }
    }
    this.sink.kernel(r);
  }
}

/** Read a whole trace from chunks (tests, and the registry's file reader). */
export async function readChromeTrace(
  file: string,
  chunks: AsyncIterable<Buffer> | Iterable<Buffer>,
  sink: TraceSink,
  options: ChromeTraceOptions = {},
): Promise<TraceInfo> {
  const reader = new ChromeTraceReader(file, sink, options);
  for await (const c of chunks) reader.push(c);
  return reader.finish();
}
