// Rows of a kernel table (torch_npu / MindSpore kernel_details.csv, msprof op_summary_*.csv) → fine groups.
// This is the hot loop: per row it parses the duration and step from bytes and looks the group up by the raw
// bytes of its key cells, decoding strings only the first time a combination is seen.

import { MAX_EXACT_TEXT, MAX_EXACT_TICKS, type Accumulator, type GroupCursor } from '../../aggregate/accumulator.js';
import { parseFloatCell, parseIntCell, parseTicks } from '../csv/numbers.js';
import { BytesMap } from '../csv/bytesMap.js';
import { NO_STEP, problemMessage, type KernelBatch, type RowBatcher, type RowView } from '../csv/scan.js';
import type { FineGroup } from '../../model/model.js';
import type { KernelTableHeader } from './detect.js';
import { normaliseName } from './names.js';

/** Bound on the raw-key cache; past it the cache is cleared (it is only a cache). */
const CACHE_LIMIT = 200_000;

/**
 * Where the rows of each device go. msprof writes one op_summary for every device of a collection, told apart
 * by its Device_id column (FORMATS.md §1.4): each device is then a rank of its own.
 */
export interface DeviceSplit {
  /** The accumulator for a Device_id. */
  accumulatorFor(device: number): Accumulator;
}

/** The communication kernels' type and core cells are sometimes N/A; those values are kept as they are. */
export class KernelTableReader {
  private cache = new BytesMap<GroupCursor>();
  /** With batches (useBatches): the group cursor of each key id the scanner gave. */
  private readonly cursors: GroupCursor[] = [];
  private batcher: RowBatcher | null = null;
  private readonly deviceI: number;
  private device = Number.NaN;
  private readonly caches = new Map<number, BytesMap<GroupCursor>>();
  private readonly width: number;
  private readonly nameI: number;
  private readonly typeI: number;
  private readonly coreI: number;
  private readonly durI: number;
  private readonly stepI: number;
  private readonly startI: number;
  private readonly shapesI: number;
  private readonly keyLo: number;
  private readonly keyHi: number;
  /** Cells the scanner must locate: up to the last one read here; the rest of a row is only counted. */
  private readonly locate: number;
  private readonly durName: string;
  private readonly stepName: string;

  constructor(
    readonly header: KernelTableHeader,
    private readonly file: string,
    private acc: Accumulator,
    /** Read Input Shapes into the group key (only when grouping by shapes: it multiplies the groups). */
    withShapes: boolean,
    /** Parse start times for the time span (only inspect shows it; it costs a float parse per row). */
    withSpan = false,
    /** Split msprof rows by Device_id (torch_npu's kernel_details holds one device: its rank's). */
    private readonly split: DeviceSplit | null = null,
  ) {
    const c = header.columns;
    this.deviceI = split !== null && header.format === 'op_summary' ? c.device : -1;
    this.width = header.header.length;
    this.nameI = c.name;
    this.typeI = c.type;
    this.coreI = c.core;
    this.durI = c.duration;
    this.stepI = c.step;
    this.startI = withSpan ? c.start : -1;
    this.shapesI = withShapes ? c.shapes : -1;
    const keyCols = [c.name, c.type, c.core].filter((i) => i >= 0);
    this.keyLo = Math.min(...keyCols);
    this.keyHi = Math.max(...keyCols);
    this.locate = Math.max(this.keyHi, c.duration, c.step, this.startI, this.shapesI, this.deviceI) + 1;
    this.durName = header.header[c.duration]!;
    this.stepName = c.step >= 0 ? header.header[c.step]! : '';
  }

  /**
   * The cells the scanner needs to read this table's plain rows in batches (see CsvScanner.batch); null when
   * rows must go one by one: an msprof file of several devices, or start times to parse.
   */
  batchSpec(): KernelBatch | null {
    if (this.deviceI >= 0 || this.startI >= 0) return null;
    return {
      width: this.width,
      duration: this.durI,
      step: this.stepI,
      keyLo: this.keyLo,
      keyHi: this.keyHi,
      shapes: this.shapesI,
      locate: this.locate,
    };
  }

  /** Plain rows come by the batch (addBatch) from now on; the others still come to row(). */
  useBatches(batcher: RowBatcher): void {
    this.batcher = batcher;
  }

  /** A batch of plain rows: each is counted as row() would count it. */
  addBatch(ids: Int32Array, steps: Int32Array, ticks: Int32Array, n: number): void {
    const acc = this.acc;
    const cursors = this.cursors;
    acc.rowsRead += n;
    for (let i = 0; i < n; i++) {
      const step = steps[i]!;
      acc.addVia(cursors[ids[i]!]!, step === NO_STEP ? null : step, ticks[i]!);
    }
  }

  row(v: RowView): void {
    v.locate = this.locate;
    if (this.deviceI >= 0 && v.n === this.width && v.problem === 'none') this.toDevice(v);
    const acc = this.acc;
    acc.rowsRead++;
    if (v.problem !== 'none') {
      acc.skip(this.file, v.line, problemMessage(v.problem));
      return;
    }
    if (v.n !== this.width) {
      acc.skip(this.file, v.line, `row has ${v.n} cells, the header has ${this.width}; row skipped`);
      return;
    }
    const b = v.buf;
    const ticks = parseTicks(b, v.starts[this.durI]!, v.ends[this.durI]!);
    if (!(ticks >= 0)) {
      const text = v.text(this.durI);
      if (text === this.durName && v.text(this.nameI) === this.header.header[this.nameI]) {
        acc.skip(this.file, v.line, 'the header is repeated here (files joined together?); row skipped');
      } else if (ticks < 0) {
        acc.skip(this.file, v.line, `${this.durName} is negative (${clip(text)}); row skipped`);
      } else {
        acc.skip(this.file, v.line, `${this.durName} is "${clip(text)}", expected a number of µs; row skipped`);
      }
      return;
    }
    // Durations of 2^31 ticks and more come here from either engine (a batch holds ticks as i32).
    if (!(ticks < MAX_EXACT_TICKS)) {
      acc.skip(this.file, v.line, `${this.durName} is ${clip(v.text(this.durI).trim())}, more than kprof sums exactly (${MAX_EXACT_TEXT}); row skipped`);
      return;
    }
    let step: number | null = null;
    if (this.stepI >= 0) {
      step = parseIntCell(b, v.starts[this.stepI]!, v.ends[this.stepI]!);
      if (step !== null && !Number.isFinite(step)) {
        acc.skip(this.file, v.line, `${this.stepName} is "${clip(v.text(this.stepI))}", expected an integer; row skipped`);
        return;
      }
      // Step Ids of 10 digits and more come here from either engine.
      if (step !== null && !Number.isSafeInteger(step)) {
        acc.skip(this.file, v.line, `${this.stepName} is ${clip(v.text(this.stepI).trim())}, past 2^53 (Step Ids that large are not exact); row skipped`);
        return;
      }
    }
    // The group is looked up by the raw bytes of its key cells; strings are decoded only for a new one.
    const s1 = v.starts[this.keyLo]!;
    const e1 = v.ends[this.keyHi]!;
    const s2 = this.shapesI >= 0 ? v.starts[this.shapesI]! : -1;
    const e2 = this.shapesI >= 0 ? v.ends[this.shapesI]! : -1;
    const cache = this.cache;
    const h = cache.hash(b, s1, e1, s2, e2);
    let k = cache.get(h, b, s1, e1, s2, e2);
    if (k === undefined) {
      k = { group: this.lookup(v), step: Number.NaN, cell: null };
      if (cache.size >= CACHE_LIMIT) cache.clear();
      cache.set(h, b, s1, e1, s2, e2, k);
    }
    // The scanner's batches know this key from now on.
    if (this.batcher !== null) this.cursors[this.batcher.keyId(s1, e1, s2, e2)] = k;
    acc.addVia(k, step, ticks);
    if (this.startI >= 0) {
      const start = parseFloatCell(b, v.starts[this.startI]!, v.ends[this.startI]!);
      if (start > 0) acc.span(start, ticks / 10_000);
    }
  }

  /** Switch to the accumulator (and group cache) of this row's Device_id; a row without one stays put. */
  private toDevice(v: RowView): void {
    const d = parseIntCell(v.buf, v.starts[this.deviceI]!, v.ends[this.deviceI]!);
    if (d === null || !Number.isFinite(d) || d === this.device) return;
    this.device = d;
    this.acc = this.split!.accumulatorFor(d);
    let cache = this.caches.get(d);
    if (!cache) {
      cache = this.caches.size === 0 ? this.cache : new BytesMap<GroupCursor>();
      this.caches.set(d, cache);
    }
    this.cache = cache;
  }

  private lookup(v: RowView): FineGroup {
    const raw = v.key(this.nameI).trim();
    const name = normaliseName(raw);
    const type = v.key(this.typeI).trim();
    const core = this.coreI >= 0 ? v.key(this.coreI).trim() : null;
    const shapes = this.shapesI >= 0 ? cleanShapes(v.key(this.shapesI)) : null;
    return this.acc.group(name, type, core, shapes, raw);
  }
}

/**
 * Shapes cells hold a value wrapped in literal quotes (`"""1,4096;8"""` in the file is `"1,4096;8"` after CSV
 * unquoting): strip them. `N/A` stays as it is.
 */
export function cleanShapes(text: string): string {
  let t = text.trim();
  if (t.length >= 2 && t.startsWith('"') && t.endsWith('"')) t = t.slice(1, -1);
  return t;
}

function clip(s: string): string {
  // Control characters (line breaks, terminal escapes) from a damaged file must not reach the terminal.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this pattern finds
  const t = s.replace(/[\u0000-\u001f\u007f]/g, ' ');
  return t.length > 40 ? `${t.slice(0, 40)}…` : t;
}
