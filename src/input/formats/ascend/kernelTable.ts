// Rows of a kernel table (torch_npu / MindSpore kernel_details.csv, msprof op_summary_*.csv) → kernels, in file
// order, into a KernelSink. This is the hot loop: per row it parses the duration and step from bytes and looks
// the kernel's kind up by the raw bytes of its key cells, decoding strings only the first time a combination is
// seen.

import { MAX_EXACT_TEXT, MAX_EXACT_TICKS } from '../../../model/model.js';
import { parseIntCell, parseTicks, trimCell } from '../../csv/numbers.js';
import { BytesMap } from '../../csv/bytesMap.js';
import { ROWS_LAYOUT } from './kernelRowsLayout.js';
import { REPEATED_HEADER, readableRow } from '../../csv/rowCheck.js';
import type { RowView } from '../../csv/scan.js';
import type { BatchSpec, KernelRowBatcher, RowBatch } from './kernelBatch.js';
import { parseStreamCell, startOriginUsBytes, startTicksAfterBytes } from '../../kernelCells.js';
import {
  MAX_NAME_BYTES,
  NO_STREAM,
  nameTooLong,
  type KernelBatch,
  type KernelKind,
  type KernelSink,
  type RankTarget,
  type RowLog,
  type SourceFacts,
} from '../../sink.js';
import type { KernelTableHeader } from './detect.js';
import { normaliseName } from '../names.js';
import { excerpt as clip } from '../../../util/inputText.js';

/**
 * Bound on the raw-key cache; past it the cache is cleared (it is only a cache). As many kinds as the scanner's
 * key table holds (kernelRows.wat): a profile of more distinct kinds than that misses either way, and a larger
 * cache only keeps its entries long enough to be garbage the collector must compact (1 M distinct names: 200 k
 * entries cost 30 MB more at the read's peak).
 */
const CACHE_LIMIT = ROWS_LAYOUT.MAX_KEYS;

/**
 * Where the rows of each device go. msprof writes one op_summary for every device of a collection, told apart
 * by its Device_id column (FORMATS.md §1.4): each device is then a rank of its own.
 */
export interface DeviceSplit {
  /** Where the rows of a Device_id go. */
  targetFor(device: number): RankTarget;
  /** Where a row whose Device_id is no device goes: on no rank (absent: the device before it). */
  readonly noRank?: RowLog;
}

/** A kind of kernel as the reader's cache holds it, with the id it is bound to in the sink. */
interface KindEntry {
  kind: KernelKind;
  id: number;
}

/**
 * Kinds by the raw bytes of their key cells, and the ids they are bound to when the reader gives the ids itself
 * (no batches: the scanner's key ids are used otherwise). Cleared past CACHE_LIMIT, its ids then given anew.
 */
class KindCache {
  readonly map = new BytesMap<KindEntry>();
  next = 0;
}

/** A batch of kernels as handed to the sink: the scanner's arrays, and the start times parsed when wanted. */
class Batch implements KernelBatch {
  ids: Int32Array = new Int32Array(0);
  steps: Int32Array = new Int32Array(0);
  ticks: Int32Array = new Int32Array(0);
  starts: Float64Array | null = null;
  streams: Int32Array | null = null;
  n = 0;
}

/** The communication kernels' type and core cells are sometimes N/A; those values are kept as they are. */
export class KernelTableReader {
  private cache = new KindCache();
  /** With batches (useBatches): the entry each key id the scanner gave is bound to. */
  private readonly bound: (KindEntry | undefined)[] = [];
  private batcher: KernelRowBatcher | null = null;
  private readonly batch = new Batch();
  private readonly deviceI: number;
  private device = Number.NaN;
  private readonly caches = new Map<number, KindCache>();
  private sink: KernelSink;
  private log: RowLog;
  /** The ranks (by their log) whose sinks were told of this file (begin). */
  private readonly begun = new Set<RowLog>();
  private readonly width: number;
  private readonly nameI: number;
  private readonly typeI: number;
  private readonly coreI: number;
  private readonly durI: number;
  private readonly stepI: number;
  private readonly startI: number;
  private readonly streamI: number;
  /** The origin of this file's start ticks: the whole µs of the first start read (NaN: none read yet). */
  private originUs = Number.NaN;
  /** The sinks told of the origin (origin()): with several devices, each before its first start. */
  private readonly told = new Set<KernelSink>();
  private readonly shapesI: number;
  private readonly keyLo: number;
  private readonly keyHi: number;
  /** Cells the scanner must locate: up to the last one read here; the rest of a row is only counted. */
  private readonly locate: number;
  private readonly durName: string;
  private readonly stepName: string;
  /** The name and type cells, whose length is capped (MAX_NAME_BYTES). */
  private readonly capped: number[];

  constructor(
    readonly header: KernelTableHeader,
    private readonly file: string,
    target: RankTarget,
    /** What the file answers, as told to the sink (facts.shapes: Input Shapes are read into the key). */
    private readonly facts: SourceFacts,
    /** Split msprof rows by Device_id (torch_npu's kernel_details holds one device: its rank's). */
    private readonly split: DeviceSplit | null = null,
  ) {
    this.sink = target.sink;
    this.log = target.log;
    this.begun.add(target.log);
    const c = header.columns;
    this.deviceI = split !== null && header.format === 'op_summary' ? c.device : -1;
    this.width = header.header.length;
    this.nameI = c.name;
    this.typeI = c.type;
    this.coreI = c.core;
    this.durI = c.duration;
    this.stepI = c.step;
    // Start times and streams are read only for a sink that wants them (a decimal parse per row for a start).
    this.startI = target.sink.wantsStarts ? c.start : -1;
    if (this.startI >= 0) this.batch.starts = new Float64Array(0);
    this.streamI = target.sink.wantsStreams ? c.stream : -1;
    this.shapesI = facts.shapes ? c.shapes : -1;
    const keyCols = [c.name, c.type, c.core].filter((i) => i >= 0);
    this.capped = [c.name, c.type].filter((i) => i >= 0);
    this.keyLo = Math.min(...keyCols);
    this.keyHi = Math.max(...keyCols);
    this.locate = Math.max(this.keyHi, c.duration, c.step, this.startI, this.streamI, this.shapesI, this.deviceI) + 1;
    this.durName = header.header[c.duration]!;
    this.stepName = c.step >= 0 ? header.header[c.step]! : '';
  }

  /**
   * The cells the scanner needs to read this table's plain rows in batches (see KernelRowBatcher); null when
   * rows must go one by one: an msprof file of several devices.
   */
  batchSpec(): BatchSpec | null {
    if (this.deviceI >= 0) return null;
    return {
      width: this.width,
      duration: this.durI,
      step: this.stepI,
      keyLo: this.keyLo,
      keyHi: this.keyHi,
      shapes: this.shapesI,
      start: this.startI,
      stream: this.streamI,
      locate: this.locate,
    };
  }

  /** Plain rows come by the batch (addBatch) from now on; the others still come to row(). */
  useBatches(batcher: KernelRowBatcher): void {
    this.batcher = batcher;
    batcher.setOrigin(this.originUs);
  }

  /** A batch of plain rows: each is counted as row() would count it. */
  addBatch(rows: RowBatch): void {
    const n = rows.n;
    this.log.rowsRead += n;
    const batch = this.batch;
    batch.ids = rows.ids;
    batch.steps = rows.steps;
    batch.ticks = rows.ticks;
    batch.n = n;
    if (batch.starts !== null) {
      // The starts, ticks after the file's origin: the decoder's (its origin the first time read, which the
      // batch may have set: told before the batch that holds it).
      if (Number.isNaN(this.originUs) && !Number.isNaN(rows.originUs)) {
        this.originUs = rows.originUs;
        this.tellOrigin();
      }
      batch.starts = rows.starts;
    }
    if (this.streamI >= 0) batch.streams = rows.streams;
    this.sink.addBatch(batch);
  }

  /** The start cell b[s, e) in ticks after the file's origin, which the first start read sets (and tells). */
  private startTicks(b: Uint8Array, s: number, e: number): number {
    if (Number.isNaN(this.originUs)) {
      const us = startOriginUsBytes(b, s, e);
      if (Number.isNaN(us)) return Number.NaN;
      this.originUs = us;
      this.batcher?.setOrigin(us);
      this.tellOrigin();
    }
    return startTicksAfterBytes(b, s, e, this.originUs);
  }

  /** The current sink learns the origin, once, when there is one (before its first kernel with a start). */
  private tellOrigin(): void {
    if (Number.isNaN(this.originUs) || this.told.has(this.sink)) return;
    this.told.add(this.sink);
    this.sink.origin(this.originUs);
  }

  row(v: RowView): void {
    v.locate = this.locate;
    const whole = v.n === this.width && v.problem === 'none';
    // A row whose device cannot be told is read and skipped on no rank, not on the device of the row before it.
    const noDevice = this.deviceI >= 0 && whole ? this.toDevice(v) : null;
    const log = !whole ? this.damagedLog(v) : noDevice !== null ? (this.split!.noRank ?? this.log) : this.log;
    if (!readableRow(v, this.width, log, this.file)) return;
    if (noDevice !== null) {
      log.skip(this.file, v.line, this.repeatedHeader(v) ? REPEATED_HEADER : noDevice);
      return;
    }
    const b = v.buf;
    const ticks = parseTicks(b, v.starts[this.durI]!, v.ends[this.durI]!);
    if (!(ticks >= 0)) {
      const text = v.text(this.durI);
      if (this.repeatedHeader(v)) {
        log.skip(this.file, v.line, REPEATED_HEADER);
      } else if (ticks < 0) {
        log.skip(this.file, v.line, `${this.durName} is negative (${clip(text)}); row skipped`);
      } else {
        log.skip(this.file, v.line, `${this.durName} is "${clip(text)}", expected a number of µs; row skipped`);
      }
      return;
    }
    // Durations of 2^31 ticks and more come here from either engine (a batch holds ticks as i32).
    if (!(ticks < MAX_EXACT_TICKS)) {
      log.skip(
        this.file,
        v.line,
        `${this.durName} is ${clip(v.text(this.durI).trim())}, more than kprof sums exactly (${MAX_EXACT_TEXT}); row skipped`,
      );
      return;
    }
    let step: number | null = null;
    if (this.stepI >= 0) {
      step = parseIntCell(b, v.starts[this.stepI]!, v.ends[this.stepI]!);
      if (step !== null && !Number.isFinite(step)) {
        log.skip(this.file, v.line, `${this.stepName} is "${clip(v.text(this.stepI))}", expected an integer; row skipped`);
        return;
      }
      // A step is numbered from 0 (ProfilerStep#N): a negative Step Id is no step a profiler writes, and no --steps
      // range could select it (`-8` is "up to 8"). Negative ids come here from either engine.
      if (step !== null && step < 0) {
        log.skip(this.file, v.line, `${this.stepName} is ${clip(v.text(this.stepI).trim())}, expected a step number (0 or more); row skipped`);
        return;
      }
      // Step Ids of 10 digits and more come here from either engine.
      if (step !== null && !Number.isSafeInteger(step)) {
        log.skip(
          this.file,
          v.line,
          `${this.stepName} is ${clip(v.text(this.stepI).trim())}, past 2^53 (Step Ids that large are not exact); row skipped`,
        );
        return;
      }
    }
    // A name or type past MAX_NAME_BYTES is not read (nor decoded, nor kept): the row is skipped.
    for (const i of this.capped) {
      const bytes = v.ends[i]! - v.starts[i]!;
      if (bytes > MAX_NAME_BYTES) {
        log.skip(this.file, v.line, nameTooLong(this.header.header[i]!.trim(), bytes));
        return;
      }
    }
    // The kind is looked up by the raw bytes of its key cells; strings are decoded only for a new one.
    const s1 = v.starts[this.keyLo]!;
    const e1 = v.ends[this.keyHi]!;
    const s2 = this.shapesI >= 0 ? v.starts[this.shapesI]! : -1;
    const e2 = this.shapesI >= 0 ? v.ends[this.shapesI]! : -1;
    const cache = this.cache;
    const map = cache.map;
    const h = map.hash(b, s1, e1, s2, e2);
    let k = map.get(h, b, s1, e1, s2, e2);
    if (k === undefined) {
      if (map.size >= CACHE_LIMIT) {
        map.clear();
        cache.next = 0;
      }
      k = { kind: this.lookup(v), id: -1 };
      map.set(h, b, s1, e1, s2, e2, k);
      if (this.batcher === null) {
        k.id = cache.next++;
        this.sink.bind(k.id, k.kind);
      }
    }
    let id = k.id;
    if (this.batcher !== null) {
      // The scanner's batches know this key by its id from now on.
      id = this.batcher.keyId(s1, e1, s2, e2);
      if (this.bound[id] !== k) {
        this.bound[id] = k;
        this.sink.bind(id, k.kind);
      }
    }
    const start = this.startI >= 0 ? this.startTicks(b, v.starts[this.startI]!, v.ends[this.startI]!) : Number.NaN;
    const stream = this.streamI >= 0 ? parseStreamCell(b, v.starts[this.streamI]!, v.ends[this.streamI]!) : NO_STREAM;
    this.sink.addKernel(id, step, ticks, start, stream);
  }

  /** The row is the header again (its duration and name cells are the header's): files joined together. */
  private repeatedHeader(v: RowView): boolean {
    return v.text(this.durI) === this.durName && v.text(this.nameI) === this.header.header[this.nameI];
  }

  /**
   * Switch to the sink, log (and kind cache) of this row's Device_id; a row without one stays put. A Device_id that
   * is no device number (`N/A`, `1.5`, `-1`, past 2^53) is no device to put the row on: the message to skip it.
   */
  private toDevice(v: RowView): string | null {
    const d = parseIntCell(v.buf, v.starts[this.deviceI]!, v.ends[this.deviceI]!);
    if (d === null) return null;
    if (!Number.isSafeInteger(d) || d < 0) {
      return `${this.header.header[this.deviceI]!.trim()} is "${clip(v.text(this.deviceI).trim())}", expected a device number (0, 1, …); row skipped`;
    }
    this.switchTo(d);
    return null;
  }

  /**
   * The log to count a damaged row on (one skipped for a cell count not the header's, text after a closing quote,
   * a quote never closed, a record past the limit, another export's header). In an msprof file of several devices:
   * its own device's (the reader switches to it), when the scanner located its Device_id cell and that is a device
   * number; else no rank's (a row whose cells are not told apart, or whose Device_id is empty or no device number),
   * as for a well-formed row of no device; never the device of the row before it.
   */
  damagedLog(v: RowView): RowLog {
    if (this.deviceI < 0) return this.log;
    const cells = v.problem === 'none' || v.problem === 'text-after-quote';
    const d = cells && this.deviceI < Math.min(v.n, v.located) ? parseIntCell(v.buf, v.starts[this.deviceI]!, v.ends[this.deviceI]!) : null;
    if (d === null || !Number.isSafeInteger(d) || d < 0) return this.split!.noRank ?? this.log;
    this.switchTo(d);
    return this.log;
  }

  /** Switch to the sink, log (and kind cache) of device `d`. */
  private switchTo(d: number): void {
    if (d === this.device) return;
    this.device = d;
    const target = this.split!.targetFor(d);
    this.sink = target.sink;
    this.log = target.log;
    if (!this.begun.has(target.log)) {
      this.begun.add(target.log);
      target.sink.begin(this.facts);
    }
    if (this.startI >= 0) this.tellOrigin();
    let cache = this.caches.get(d);
    if (!cache) {
      cache = this.caches.size === 0 ? this.cache : new KindCache();
      this.caches.set(d, cache);
    }
    this.cache = cache;
  }

  private lookup(v: RowView): KernelKind {
    const raw = trimCell(v.key(this.nameI));
    const name = normaliseName(raw);
    const type = trimCell(v.key(this.typeI));
    const core = this.coreI >= 0 ? trimCell(v.key(this.coreI)) : null;
    const shapes = this.shapesI >= 0 ? cleanShapes(v.key(this.shapesI)) : null;
    return { name, rawName: raw, type, core, shapes };
  }
}

/**
 * Shapes cells hold a value wrapped in literal quotes (`"""1,4096;8"""` in the file is `"1,4096;8"` after CSV
 * unquoting): strip them. `N/A` stays as it is.
 */
export function cleanShapes(text: string): string {
  let t = trimCell(text);
  if (t.length >= 2 && t.startsWith('"') && t.endsWith('"')) t = t.slice(1, -1);
  return t;
}
