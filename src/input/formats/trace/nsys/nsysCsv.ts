// Nsight Systems CSV (`nsys stats --format csv`, FORMATS.md §14); no real file was collected, so this follows
// the documented columns and the hazards listed there:
// - `cuda_gpu_trace` (older: `gputrace`): one row per kernel or memory operation, in the order nsys wrote them:
//   `Start (ns),Duration (ns),CorrId,GrdX,…,Strm,Name`. Memory operations (`[CUDA memcpy HtoD]`,
//   `[CUDA memset]`) are handed on as memcpy/memset. No step column: steps only from NVTX ranges named
//   ProfilerStep#N (an `nvtx_gpu_proj_trace` or `nvtx_pushpop_trace` CSV, read by nvtxSteps.ts), else none.
// - `cuda_gpu_kern_sum` (older: `gpukernsum`): one row per kernel name, already aggregated (like op_statistic):
//   `Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name`. Names only; no
//   steps, no order.
// - Lines before the header (`Processing [report.sqlite] with […]`, `NOTICE: …`, blank lines) are skipped.
// - Units in headers vary: times in ns, us/µs, ms or s (each converted exactly to ticks of 0.1 ns), sizes in
//   MB or B/byte, throughput MBps or MB/s (not read); `GreenCtx` only in newer versions; older reports give
//   `Average`/`Minimum`/`Maximum` without a unit (then the unit of `Total Time` is theirs).

import { MAX_EXACT_TEXT, MAX_EXACT_TICKS } from '../../../../model/model.js';
import { inputError } from '../../../../util/errors.js';
import {
  addApart,
  emptyRecord,
  emptyTraceInfo,
  type RecordKind,
  type StatisticRecord,
  type TraceInfo,
  type TraceRecord,
  type TraceSink,
} from '../record.js';
import type { StepWindows } from '../steps.js';
import { CsvRecords } from './csvRecords.js';

/** How many lines may come before the header. */
export const MAX_PREAMBLE_LINES = 50;

/** Decimal digits a unit's value is shifted by to give ticks of 0.1 ns. */
export const TIME_UNITS: Record<string, number> = { ns: 1, us: 4, µs: 4, μs: 4, usec: 4, ms: 7, msec: 7, s: 10, sec: 10, nsec: 1 };

export interface HeaderCell {
  label: string;
  unit: string | null;
}

/** `Total Time (ns)` → { label: 'total time', unit: 'ns' }; `Time(%)` → { label: 'time', unit: '%' }. */
export function headerCell(text: string): HeaderCell {
  const m = /^\s*(.*?)\s*(?:\(([^()]*)\))?\s*$/.exec(text.replace(/^\uFEFF/, ''));
  return { label: (m?.[1] ?? text).toLowerCase(), unit: m?.[2]?.trim() ?? null };
}

type Report = 'gpu_trace' | 'kern_sum';

interface Columns {
  report: Report;
  name: number;
  /** gpu_trace */
  start: number;
  duration: number;
  stream: number;
  device: number;
  /** kern_sum */
  total: number;
  instances: number;
  min: number;
  max: number;
  /** Decimal shift to ticks of each time column. */
  shift: Map<number, number>;
  width: number;
  units: string[];
}

export function find(cells: HeaderCell[], ...labels: string[]): number {
  return cells.findIndex((c) => labels.includes(c.label));
}

/** The report a header row belongs to, and where its columns are; null when the row is not an nsys header. */
export function nsysHeader(raw: string[]): Columns | null | { unknownUnit: string; column: string } {
  const cells = raw.map(headerCell);
  const name = find(cells, 'name');
  if (name < 0) return null;
  const start = find(cells, 'start');
  const duration = find(cells, 'duration');
  const total = find(cells, 'total time');
  const instances = find(cells, 'instances');
  let report: Report;
  if (start >= 0 && duration >= 0) report = 'gpu_trace';
  else if (total >= 0 && instances >= 0) report = 'kern_sum';
  else return null;
  const shift = new Map<number, number>();
  const units = new Set<string>();
  const timeCols = report === 'gpu_trace' ? [start, duration] : [total, find(cells, 'min', 'minimum'), find(cells, 'max', 'maximum')];
  const base = cells[report === 'gpu_trace' ? duration : total]!.unit;
  for (const i of timeCols) {
    if (i < 0) continue;
    const unit = cells[i]!.unit ?? base ?? 'ns';
    const s = TIME_UNITS[unit.toLowerCase()] ?? TIME_UNITS[unit];
    if (s === undefined) return { unknownUnit: unit, column: raw[i]! };
    shift.set(i, s);
    units.add(unit);
  }
  return {
    report,
    name,
    start,
    duration,
    stream: find(cells, 'strm', 'stream'),
    device: find(cells, 'device'),
    total,
    instances,
    min: find(cells, 'min', 'minimum'),
    max: find(cells, 'max', 'maximum'),
    shift,
    width: raw.length,
    units: [...units],
  };
}

/**
 * A decimal number of a unit `10^shift` ticks (ns: 1, µs: 4, ms: 7, s: 10) → integer ticks, exactly from the
 * digits (more decimals than a tick holds are rounded half up). NaN when the text is not a plain decimal. A
 * negative zero (`-0`, `-0.000`) is zero, as a kineto trace's `"dur": -0` and a kernel table's `-0` are; any
 * other negative number is NaN.
 */
export function decimalTicks(text: string, shift: number): number {
  const m = /^\s*(-?)(\d+)(?:\.(\d*))?\s*$/.exec(text);
  if (!m) return Number.NaN;
  if (m[1] === '-') return /^0+$/.test(m[2]!) && /^0*$/.test(m[3] ?? '') ? 0 : Number.NaN;
  const frac = m[3] ?? '';
  const kept = (frac + '0'.repeat(shift)).slice(0, shift);
  const ticks = Number(m[2]! + kept) + (frac.length > shift && frac.charCodeAt(shift) >= 53 ? 1 : 0);
  return Number.isSafeInteger(ticks) ? ticks : Number.NaN;
}

/** The GPU of a Device cell: `NVIDIA A100-SXM4-80GB (1)` (nsys names it and numbers it) or `1`; null otherwise. */
export function deviceNumber(cell: string): number | null {
  const m = /\((\d{1,9})\)\s*$/.exec(cell) ?? /^\s*(\d{1,9})\s*$/.exec(cell);
  return m === null ? null : Number(m[1]);
}

function memoryKind(name: string): RecordKind {
  if (name.startsWith('[CUDA memcpy') || name.startsWith('[CUDA Memcpy')) return 'memcpy';
  if (name.startsWith('[CUDA memset') || name.startsWith('[CUDA Memset')) return 'memset';
  return name.startsWith('nccl') || name.startsWith('rccl') ? 'communication' : 'kernel';
}

export interface NsysOptions {
  /** ProfilerStep#N ranges from an NVTX report of the same run (readNvtxSteps); without them, no steps. */
  steps?: StepWindows;
  /** Where the step ranges came from, for inspect. */
  stepSource?: string;
}

export class NsysCsvReader {
  private readonly csv: CsvRecords;
  private cols: Columns | null = null;
  private preamble = 0;
  /** A `SKIPPED: …` line before any header: nsys's console output saved in place of a report it did not write. */
  private skippedBy: string | null = null;
  private readonly rec: TraceRecord = emptyRecord();
  /** The whole µs the records' startTicks count from: the first start read (NaN until one is). */
  originUs = Number.NaN;
  private readonly stat: StatisticRecord = { kind: 'kernel', name: '', count: 0, ticks: 0, minTicks: Number.NaN, maxTicks: Number.NaN };
  private readonly stepsSeen = new Set<number>();
  private lastStart = new Map<string, number>();
  private outOfOrder = 0;
  readonly info: TraceInfo;

  constructor(
    private readonly file: string,
    private readonly sink: TraceSink,
    private readonly options: NsysOptions = {},
  ) {
    this.info = emptyTraceInfo('nsys_gpu_trace');
    this.csv = new CsvRecords(
      (cells, line) => this.record(cells, line),
      (line) => {
        throw inputError(`${this.file}:${line}: a CSV record longer than 16 MiB characters (no nsys export has one); is the file an nsys stats CSV?`);
      },
    );
  }

  push(chunk: Buffer): void {
    this.info.bytes += chunk.length;
    this.csv.push(chunk);
  }

  finish(): TraceInfo {
    this.csv.finish();
    const info = this.info;
    if (this.cols === null && this.skippedBy !== null) {
      throw inputError(
        `${this.file}: nsys wrote no table here: it says "${this.skippedBy}" ` +
          'Profile with CUDA tracing on (`nsys profile --trace=cuda`, the default) and run `nsys stats` again.',
      );
    }
    if (this.cols === null) {
      throw inputError(
        `${this.file}: no nsys stats header in the first ${Math.min(this.preamble, MAX_PREAMBLE_LINES)} lines; expected the CSV of ` +
          '`nsys stats --report cuda_gpu_trace --format csv` (Start, Duration, …, Name) or `--report cuda_gpu_kern_sum` (Total Time, Instances, …, Name).',
      );
    }
    const a = info.answers;
    a.names = true;
    if (this.cols.report === 'gpu_trace') {
      a.order = true;
      a.steps = this.options.steps !== undefined && this.options.steps.size > 0;
      if (a.steps) info.stepSource = this.options.stepSource ?? 'NVTX ranges named ProfilerStep#N';
      else info.notes.push('no steps: cuda_gpu_trace has no step column (give the NVTX ranges of ProfilerStep#N for steps)');
      if (this.outOfOrder > 0)
        info.notes.push(`rows that start before the row written before them on the same stream: ${this.outOfOrder} (the order kept is the file's)`);
    }
    info.steps = [...this.stepsSeen].sort((x, y) => x - y);
    if (this.preamble > 0) info.traits.push(`${this.preamble} lines before the header skipped`);
    if (info.kernels === 0) info.notes.push('no kernels in the file');
    return info;
  }

  private record(cells: string[], line: number): void {
    if (this.cols === null) {
      this.header(cells, line);
      return;
    }
    const c = this.cols;
    if (cells.length === 1 && cells[0]!.trim() === '') return;
    this.info.events++;
    if (cells.length !== c.width) {
      this.skip(line, `row has ${cells.length} cells, the header has ${c.width}; row skipped`);
      return;
    }
    const name = cells[c.name]!;
    if (c.report === 'kern_sum') {
      this.statistic(cells, line, name);
      return;
    }
    const ticks = decimalTicks(cells[c.duration]!, c.shift.get(c.duration)!);
    if (!(ticks >= 0) && /^\s*\d+(\.\d*)?\s*$/.test(cells[c.duration]!)) {
      this.skip(line, `Duration is ${cells[c.duration]!.trim().slice(0, 40)}, more than kprof sums exactly (${MAX_EXACT_TEXT}); row skipped`);
      return;
    }
    if (!(ticks >= 0)) {
      this.skip(line, `Duration is "${cells[c.duration]!.slice(0, 40)}", expected a number; row skipped`);
      return;
    }
    if (!(ticks < MAX_EXACT_TICKS)) {
      this.skip(line, `Duration is ${cells[c.duration]!.trim().slice(0, 40)}, more than kprof sums exactly (${MAX_EXACT_TEXT}); row skipped`);
      return;
    }
    const kind = memoryKind(name);
    const device = c.device >= 0 ? deviceNumber(cells[c.device]!) : null;
    if (c.device >= 0 && device === null && kind !== 'memcpy' && kind !== 'memset') {
      this.skip(line, `Device is "${cells[c.device]!.trim().slice(0, 40)}", expected a GPU (NVIDIA A100-SXM4-80GB (0)) or its number; row skipped`);
      return; // on no GPU (N/A, empty): said, never put on the GPU of the row before (a memcpy is only counted apart)
    }
    const startTicks = decimalTicks(cells[c.start]!, c.shift.get(c.start)!);
    const r = this.rec;
    r.kind = kind;
    r.name = name;
    r.category = null;
    r.stream = c.stream >= 0 && cells[c.stream]!.trim() !== '' ? cells[c.stream]!.trim() : null;
    r.startUs = startTicks / 10_000;
    if (Number.isNaN(this.originUs) && startTicks >= 0) this.originUs = Math.floor(startTicks / 10_000);
    r.startTicks = startTicks >= 0 ? startTicks - this.originUs * 10_000 : Number.NaN;
    r.ticks = ticks;
    r.device = device;
    r.step = this.options.steps && startTicks >= 0 ? this.options.steps.at(r.startUs) : null;
    if (r.stream !== null && startTicks >= 0) {
      const key = c.device >= 0 ? `${cells[c.device]}/${r.stream}` : r.stream;
      const last = this.lastStart.get(key);
      if (last !== undefined && r.startUs < last) this.outOfOrder++;
      this.lastStart.set(key, r.startUs);
    }
    if (r.kind === 'memcpy' || r.kind === 'memset') addApart(this.info, r.kind, ticks);
    else {
      this.info.kernels++;
      if (r.step !== null) this.stepsSeen.add(r.step);
    }
    this.sink.kernel(r);
  }

  private statistic(cells: string[], line: number, name: string): void {
    const c = this.cols!;
    const count = /^\s*\d+\s*$/.test(cells[c.instances]!) ? Number(cells[c.instances]) : Number.NaN;
    const ticks = decimalTicks(cells[c.total]!, c.shift.get(c.total)!);
    const digits = /^\s*\d+(\.\d*)?\s*$/.test(cells[c.total]!);
    if (Number.isSafeInteger(count) && ((!(ticks >= 0) && digits) || ticks >= MAX_EXACT_TICKS)) {
      this.skip(line, `Total Time is ${cells[c.total]!.trim().slice(0, 40)}, more than kprof sums exactly (${MAX_EXACT_TEXT}); row skipped`);
      return;
    }
    if (!Number.isSafeInteger(count) || !(ticks >= 0)) {
      this.skip(
        line,
        `Instances "${cells[c.instances]!.slice(0, 20)}" and Total Time "${cells[c.total]!.slice(0, 20)}" must be numbers; row skipped`,
      );
      return;
    }
    const s = this.stat;
    s.kind = memoryKind(name);
    s.name = name;
    s.count = count;
    s.ticks = ticks;
    s.minTicks = c.min >= 0 ? decimalTicks(cells[c.min]!, c.shift.get(c.min)!) : Number.NaN;
    s.maxTicks = c.max >= 0 ? decimalTicks(cells[c.max]!, c.shift.get(c.max)!) : Number.NaN;
    this.info.kernels += count;
    this.sink.statistic?.(s);
  }

  private header(cells: string[], line: number): void {
    const cols = nsysHeader(cells);
    if (cols !== null && 'unknownUnit' in cols) {
      throw inputError(
        `${this.file}:${line}: the column "${cols.column.slice(0, 60)}" is in "${cols.unknownUnit.slice(0, 20)}", not a unit of time kprof knows ` +
          '(ns, us, µs, ms, s). Export it again with `nsys stats --timeunit nsec`.',
      );
    }
    if (cols === null) {
      const text = cells.join(',').trim();
      if (this.skippedBy === null && text.startsWith('SKIPPED:')) this.skippedBy = text.slice(0, 200);
      this.preamble++;
      if (this.preamble > MAX_PREAMBLE_LINES) {
        throw inputError(
          `${this.file}: no nsys stats header in the first ${MAX_PREAMBLE_LINES} lines (line ${line} is not one); expected the CSV of ` +
            '`nsys stats --report cuda_gpu_trace --format csv` (Start, Duration, …, Name) or `--report cuda_gpu_kern_sum` (Total Time, Instances, …, Name).',
        );
      }
      return;
    }
    this.cols = cols;
    const info = this.info;
    info.format = cols.report === 'gpu_trace' ? 'nsys_gpu_trace' : 'nsys_kern_sum';
    info.traits.push(
      cols.report === 'gpu_trace' ? 'nsys stats cuda_gpu_trace' : 'nsys stats cuda_gpu_kern_sum (aggregated)',
      `times in ${cols.units.join(', ')}`,
    );
  }

  private skip(line: number, message: string): void {
    this.info.skipped++;
    this.sink.warn(`line ${line}`, message);
  }
}
