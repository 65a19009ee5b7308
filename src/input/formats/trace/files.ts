// The registry's readers of the trace formats: a Chrome-trace JSON file (torch_npu trace_view.json, PyTorch
// kineto) or an Nsight Systems CSV, read into the rank's KernelTarget. The readers (chromeTrace.ts,
// nsys/nsysCsv.ts) hand on one TraceRecord per kernel; this module binds names to kernel ids, counts rows, and
// says in the SourceFile what the file held and can answer:
// - memory copies and sets are not kernels: they are left out of the figures and listed apart in the file's
//   traits (kprof inspect shows them; summary and diff say so on stderr);
// - kernels have names only (no op type, no core type, no shapes); steps when the file has ProfilerStep#N
//   windows (kineto, trace_view: host-side) or NVTX ranges beside it (Nsight).

import { existsSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { inputError } from '../../../util/errors.js';
import { excerpt, inQuotes } from '../../../util/inputText.js';
import { onDisk } from '../../../util/files.js';
import { fmtCount, fmtUs } from '../../../util/format.js';
import { pastMean, type SourceFile } from '../../../model/model.js';
import { besides, MAX_NAME_BYTES, NO_STREAM, nameTooLong, type KernelSink, type RowLog, type SourceFacts } from '../../sink.js';
import { normaliseName } from '../names.js';
import { formatOf, ReadAgain, sourceFacts, type KernelReadOptions, type KernelTarget } from '../registry.js';
import { NsysCsvReader, type NsysOptions } from './nsys/nsysCsv.js';
import { NvtxStepsReader } from './nsys/nvtxSteps.js';
import { ChromeTraceReader } from './chromeTrace.js';
import type { StatisticRecord, TraceInfo, TraceRecord, TraceSink } from './record.js';
import { Shortener } from './shortName.js';
import { isGzipFile, traceChunks } from '../../bytes/chunks.js';
import type { StepWindows } from './steps.js';

/** A stream id as the readers give it (`7`, a "Stream 7" thread's number) → the sink's integer; NO_STREAM otherwise. */
export function streamId(text: string | null): number {
  if (text === null || text.length === 0 || text.length > 9) return NO_STREAM;
  let v = 0;
  for (let i = 0; i < text.length; i++) {
    const d = text.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return NO_STREAM;
    v = v * 10 + d;
  }
  return v;
}

/** Where the kernels of one device go: its sink and row log, with the names bound and what it was told. */
interface Route {
  readonly sink: KernelSink;
  readonly log: RowLog;
  /** Kernel ids by kind, then by name: the readers hand on one string per distinct name, so no key is built per kernel. */
  readonly ids: Map<string, Map<string, number>>;
  nextId: number;
  begun: boolean;
  toldOrigin: boolean;
}

/**
 * A TraceSink that feeds a KernelTarget: names bound to ids, rows counted, begin() before the first kernel. The
 * kernels of a file that holds several devices (an Nsight CSV's Device column) go to one target per device
 * (options.split): each is a rank, as msprof's Device_id makes one.
 */
class TraceTarget implements TraceSink {
  private route: Route;
  /** The route of each device seen (the first one is the route of `into`). */
  private readonly routes = new Map<number, Route>();
  private device: number | null = null;
  private facts: SourceFacts | null = null;
  private steps = false;
  private lastStream: string | null = null;
  private lastStreamId = NO_STREAM;
  /** Rows (kernels and skipped records) of the file, on every device. */
  rows = 0;
  /** Names shortened here (--short-names on an Nsight CSV; the Chrome-trace reader shortens its own). */
  readonly short: Shortener | null;

  constructor(
    private readonly path: string,
    /** The registry id whose answers the file has (asked when the first kernel comes). */
    private readonly format: () => string,
    into: KernelTarget,
    private readonly options: KernelReadOptions,
    /** Does the file have step windows (asked when the first kernel comes: the windows come before it). */
    private readonly hasSteps: () => boolean,
    /** The whole µs the records' startTicks count from (the reader's originUs). */
    private readonly originUs: () => number,
    /** Shorten names here with --short-names (the reader does not). */
    shortenHere = false,
  ) {
    this.route = { sink: besides(into, options.beside), log: into, ids: new Map(), nextId: 0, begun: false, toldOrigin: false };
    this.short = shortenHere && options.shortNames === true ? new Shortener() : null;
  }

  /** The name a kernel is grouped by: shortened when asked (memory bounded as the reader's name cache is). */
  private named(name: string): string {
    return this.short === null ? name : this.short.name(name);
  }

  /** What the file answers, told to the sinks once, before the first kernel (or at the end when there is none). */
  begin(): void {
    const r = this.route;
    if (r.begun) return;
    r.begun = true;
    if (this.facts === null) {
      this.steps = this.hasSteps();
      const answers = formatOf(this.format()).answers;
      this.facts = sourceFacts(
        this.path,
        answers,
        { steps: this.steps, starts: answers.starts !== 'no', streams: answers.streams !== 'no' },
        this.options.withShapes,
      );
    }
    r.sink.begin(this.facts);
  }

  /** Send the kernels of this device to its own target from now on (a record without a device stays put). */
  private toDevice(d: number): void {
    this.device = d;
    let r = this.routes.get(d);
    if (r === undefined) {
      const split = this.options.split!;
      const target = split.targetFor(d, 'Device');
      // The first device is the rank's own target, which this file began to feed already.
      r = this.routes.size === 0 ? this.route : { sink: target.sink, log: target.log, ids: new Map(), nextId: 0, begun: false, toldOrigin: false };
      this.routes.set(d, r);
    }
    this.route = r;
  }

  private id(kind: string, raw: string): number {
    const name = this.named(raw);
    const route = this.route;
    let byName = route.ids.get(kind);
    if (byName === undefined) {
      byName = new Map();
      route.ids.set(kind, byName);
    }
    let id = byName.get(name);
    if (id === undefined) {
      id = route.nextId++;
      byName.set(name, id);
      route.sink.bind(id, { name: normaliseName(name), rawName: name, type: null, core: null, shapes: null });
    }
    return id;
  }

  kernel(r: TraceRecord): void {
    // Not kernels: the readers count them apart (TraceInfo.apart).
    if (r.kind === 'memcpy' || r.kind === 'memset') return;
    if (r.device != null && r.device !== this.device && this.options.split !== undefined) this.toDevice(r.device);
    this.begin();
    if (this.tooLong(r.name, r.startUs)) return;
    const route = this.route;
    route.log.rowsRead++;
    this.rows++;
    const sink = route.sink;
    if (!route.toldOrigin && !Number.isNaN(r.startTicks)) {
      // Before the first kernel with a start: what its ticks count from.
      sink.origin(this.originUs());
      route.toldOrigin = true;
    }
    let stream = NO_STREAM;
    if (sink.wantsStreams) {
      if (r.stream !== this.lastStream) {
        this.lastStream = r.stream;
        this.lastStreamId = streamId(r.stream);
      }
      stream = this.lastStreamId;
    }
    sink.addKernel(this.id(r.kind, r.name), this.steps ? r.step : null, r.ticks, r.startTicks, stream);
  }

  /** Do the sinks want exact start ticks (the readers parse them only then)? */
  get wantsStarts(): boolean {
    return this.route.sink.wantsStarts;
  }

  statistic(r: StatisticRecord): void {
    this.begin();
    if (this.tooLong(r.name, Number.NaN)) return;
    this.route.log.rowsRead++;
    this.rows++;
    if (r.kind === 'memcpy' || r.kind === 'memset') return;
    // A Min above Total ÷ Instances, or a Max below it, no kernels have: unknown, as an op_statistic row's are.
    const known = pastMean(r.count, r.ticks, r.minTicks, r.maxTicks) === null;
    if (!known) {
      this.route.log.warn(
        this.path,
        0,
        `the kernel ${inQuotes(excerpt(r.name))}: its Min or Max is past its mean (Total ÷ Instances); both taken as unknown (its count and time are read)`,
      );
    }
    this.route.sink.addAggregated(
      { name: normaliseName(this.named(r.name)), rawName: r.name, type: null, core: null, shapes: null },
      {
        count: r.count,
        ticks: r.ticks,
        minTicks: known && Number.isFinite(r.minTicks) ? r.minTicks : Number.POSITIVE_INFINITY,
        maxTicks: known && Number.isFinite(r.maxTicks) ? r.maxTicks : Number.NEGATIVE_INFINITY,
      },
    );
  }

  /** A kernel whose name is over MAX_NAME_BYTES: skipped (counted, and reported with its start), never kept. */
  private tooLong(name: string, startUs: number): boolean {
    if (name.length * 3 <= MAX_NAME_BYTES) return false;
    const bytes = Buffer.byteLength(name);
    if (bytes <= MAX_NAME_BYTES) return false;
    this.warn(Number.isNaN(startUs) ? 'a kernel' : `the kernel at ${startUs} µs`, nameTooLong('its name', bytes));
    return true;
  }

  warn(where: string, message: string): void {
    const log = this.route.log;
    log.rowsRead++;
    this.rows++;
    const line = /^line (\d+)$/.exec(where);
    if (line) log.skip(this.path, Number(line[1]), message);
    else log.skip(this.path, 0, `${where}: ${message}`);
  }

  note(where: string, message: string): void {
    const line = /^line (\d+)$/.exec(where);
    if (line) this.route.log.warn(this.path, Number(line[1]), message);
    else this.route.log.warn(this.path, 0, `${where}: ${message}`);
  }
}

/** What a file can answer and what it held, for inspect: the SourceFile of a trace. */
function sourceFile(path: string, info: TraceInfo, bytes: number, rowsRead: number, shortened: SourceFile['shortened'] & {}): SourceFile {
  const a = info.answers;
  const answers = ['kernel names', ...(a.steps ? ['steps'] : []), ...(a.order ? ['kernel order'] : [])];
  const notes = [`answers: ${answers.join(', ')}; kprof groups it by name (it has no op types)`];
  if (info.stepSource !== null) notes.push(`steps from ${info.stepSource}`);
  if (info.rank !== null) notes.push(`rank ${info.rank} in ${info.rankSource}`);
  const apart = [...info.apart].sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0));
  if (apart.length > 0) {
    const what = apart.map(([label, v]) => `${label} ${fmtCount(v.count)} (${fmtUs(v.ticks / 10_000)})`);
    notes.push(`not kernels, left out of the figures: ${what.join(', ')}`);
  }
  notes.push(...info.notes);
  const missing = ['op types', 'core types', 'input shapes'];
  if (!a.steps)
    missing.push(
      info.format === 'nsys_kern_sum'
        ? 'steps (aggregated per name)'
        : info.format === 'nsys_gpu_trace'
          ? 'steps (no NVTX report of ProfilerStep#N ranges beside it)'
          : 'steps (no ProfilerStep#N)',
    );
  const file: SourceFile = { path, format: info.format, traits: info.traits, columns: [], missing, bytes, rowsRead, rowsSkipped: 0, notes };
  if (apart.length > 0) file.apart = apart.map(([label, v]) => ({ label, count: v.count, ticks: v.ticks }));
  if (shortened.length > 0) file.shortened = shortened;
  return file;
}

/** A file with no kernel at all reads nothing: refused, saying what it held (a gate over it would pass on nothing). */
function noKernels(path: string, info: TraceInfo): never {
  const apart = [...info.apart].map(([label, v]) => `${fmtCount(v.count)} ${label}`);
  const found = `${fmtCount(info.events)} ${info.format.startsWith('nsys') ? 'rows' : 'events'}${apart.length > 0 ? `, ${apart.join(', ')}` : ''}`;
  const hint = info.format.startsWith('nsys')
    ? 'export the report of a run that launched kernels'
    : 'was it collected with device activities on (ProfilerActivity.CUDA, or torch_npu.profiler.ProfilerActivity.NPU)?';
  throw inputError(`${path}: no kernels in the file (found ${found}; ${info.notes[0] ?? 'none of them a kernel'}). Expected kernel events; ${hint}`);
}

/** What the first read of a trace learnt too late: its step windows, and how many bytes it read (ReadAgain). */
export class LateSteps {
  constructor(
    readonly windows: StepWindows,
    readonly bytes: number,
  ) {}
}

/** A Chrome-trace JSON file (trace_view.json or a kineto trace), plain or gzip. */
export async function readChromeTraceFile(path: string, into: KernelTarget, options: KernelReadOptions): Promise<SourceFile> {
  let reader: ChromeTraceReader | null = null;
  const target = new TraceTarget(
    path,
    () => 'trace_view',
    into,
    options,
    () => reader!.stepWindows > 0,
    () => reader!.originUs,
  );
  // A second read: the step windows of the first, which came after kernels they hold (ReadAgain below).
  const known = options.known instanceof LateSteps ? options.known : undefined;
  reader = new ChromeTraceReader(path, target, {
    shortNames: options.shortNames === true,
    exactStarts: target.wantsStarts,
    packed: isGzipFile(path),
    ...(known !== undefined ? { steps: known.windows } : {}),
  });
  let bytes = 0;
  // The reader keeps no reference to a chunk (EventScanner.push): the chunks' memory is reused.
  for await (const chunk of traceChunks(
    path,
    (n) => {
      bytes += n;
      options.onBytes?.(n);
    },
    { reuse: true },
  ))
    reader.push(chunk);
  const info = reader.finish();
  // ProfilerStep#N events after kernels they hold (a merged or rewritten trace): the figures handed on are not the
  // trace's; the rank is read again, this file with the windows known from its first kernel on.
  if (known === undefined && reader.lateSteps) throw new ReadAgain(path, new LateSteps(reader.steps, bytes));
  if (known !== undefined && known.bytes !== bytes) {
    throw inputError(
      `${path}: ${fmtCount(known.bytes)} bytes when read first, ${fmtCount(bytes)} when read again (its ProfilerStep#N events come after kernels they hold, so it is read twice): ` +
        'the file changed while kprof read it. Read it again once it is written.',
    );
  }
  if (known !== undefined)
    info.notes.push(
      'ProfilerStep#N events come after kernels they hold: the file was read twice, the second time with the step windows known from the start',
    );
  if (info.kernels === 0) noKernels(path, info);
  target.begin();
  return sourceFile(path, info, bytes, target.rows, reader.shortener.merged());
}

/**
 * The NVTX report beside an nsys CSV (`report_cuda_gpu_trace.csv` → `report_nvtx_gpu_proj_trace.csv`), or null;
 * gzipped or not, whichever the CSV is (a large trace is often gzipped and its small NVTX report left as it was).
 */
export function nvtxBeside(path: string): string | null {
  const m = /^(.*?)(cuda_gpu_trace|gputrace)(\.csv(?:\.gz)?)$/i.exec(basename(path));
  if (!m) return null;
  const exts = [m[3]!, /\.gz$/i.test(m[3]!) ? '.csv' : '.csv.gz'];
  for (const report of ['nvtx_gpu_proj_trace', 'nvtx_pushpop_trace']) {
    for (const ext of exts) {
      const p = join(dirname(path), `${m[1]}${report}${ext}`);
      if (existsSync(onDisk(p))) return p;
    }
  }
  return null;
}

/** An Nsight Systems `nsys stats` CSV: cuda_gpu_trace (per kernel) or cuda_gpu_kern_sum (per name). */
export async function readNsysFile(path: string, into: KernelTarget, options: KernelReadOptions): Promise<SourceFile> {
  const nsys: NsysOptions = {};
  const nvtx = nvtxBeside(path);
  let unreadSteps = '';
  if (nvtx !== null) {
    const steps = new NvtxStepsReader(nvtx);
    for await (const chunk of traceChunks(nvtx)) steps.push(chunk);
    const found = steps.finish();
    nsys.steps = found.windows;
    nsys.stepSource = `${found.source} (${basename(nvtx)})`;
    // Ranges named ProfilerStep#N that give no window are said, not dropped in silence: with none left the trace
    // has no steps, though the report is beside it.
    if (found.unreadable > 0)
      unreadSteps = `${fmtCount(found.unreadable)} ProfilerStep#N range${found.unreadable === 1 ? '' : 's'} of ${basename(nvtx)} (the first at line ${found.firstUnreadable}) ${found.unreadable === 1 ? 'has' : 'have'} a start or duration that is no time: not used as steps`;
  }
  let reader: NsysCsvReader | null = null;
  const format = (): string => reader?.info.format ?? 'nsys_gpu_trace';
  const target = new TraceTarget(
    path,
    format,
    into,
    options,
    () => (nsys.steps?.size ?? 0) > 0 && format() === 'nsys_gpu_trace',
    () => reader!.originUs,
    true,
  );
  reader = new NsysCsvReader(path, target, nsys);
  let bytes = 0;
  for await (const chunk of traceChunks(path, (n) => {
    bytes += n;
    options.onBytes?.(n);
  }))
    reader.push(chunk);
  const info = reader.finish();
  if (unreadSteps !== '') info.notes.push(unreadSteps);
  if (info.kernels === 0) noKernels(path, info);
  target.begin();
  const file = sourceFile(path, info, bytes, target.rows, target.short?.merged() ?? []);
  // The report is beside it, but holds no ProfilerStep#N range kprof reads.
  if (nvtx !== null && info.format === 'nsys_gpu_trace' && (nsys.steps?.size ?? 0) === 0)
    file.missing = file.missing.map((m) => (m.startsWith('steps (') ? `steps (no ProfilerStep#N range in ${basename(nvtx)} beside it)` : m));
  return file;
}
