// Rows of op_statistic*.csv: already aggregated per OP Type + Core Type (FORMATS.md §4). Each row becomes one
// cell of kernels with no name, shapes, steps or order (KernelSink.addAggregated).

import { MAX_EXACT_TEXT, MAX_EXACT_TICKS, pastMean } from '../../../model/model.js';
import { parseIntCell, parseTicks, trimCell } from '../../csv/numbers.js';
import { REPEATED_HEADER, readableRow } from '../../csv/rowCheck.js';
import type { RowView } from '../../csv/scan.js';
import type { KernelSink, RankTarget, RowLog } from '../../sink.js';
import type { StatisticHeader } from './detect.js';
import { excerpt as clip } from '../../../util/inputText.js';

export class OpStatisticReader {
  private readonly width: number;
  private readonly sink: KernelSink;
  private readonly log: RowLog;

  constructor(
    readonly header: StatisticHeader,
    private readonly file: string,
    target: RankTarget,
  ) {
    this.width = header.header.length;
    this.sink = target.sink;
    this.log = target.log;
  }

  /** The log to count a damaged row on (KernelTableReader.damagedLog): the file's one. */
  damagedLog(_v: RowView): RowLog {
    return this.log;
  }

  row(v: RowView): void {
    const log = this.log;
    const h = this.header;
    if (!readableRow(v, this.width, log, this.file)) return;
    const b = v.buf;
    const count = parseIntCell(b, v.starts[h.count]!, v.ends[h.count]!);
    const total = parseTicks(b, v.starts[h.total]!, v.ends[h.total]!);
    if (count === null || !Number.isFinite(count) || count < 0) {
      if (v.text(h.count) === 'Count') {
        log.skip(this.file, v.line, REPEATED_HEADER);
      } else {
        log.skip(this.file, v.line, `Count is "${clip(v.text(h.count))}", expected a whole number; row skipped`);
      }
      return;
    }
    if (!(total >= 0)) {
      const text = v.text(h.total);
      log.skip(
        this.file,
        v.line,
        total < 0
          ? `Total Time(us) is negative (${clip(text)}); row skipped`
          : `Total Time(us) is "${clip(text)}", expected a number of µs; row skipped`,
      );
      return;
    }
    // What a summary JSON of these rows must hold to read back: whole counts and exact times that agree.
    const head = h.header;
    if (!Number.isSafeInteger(count)) {
      log.skip(this.file, v.line, `Count is ${clip(v.text(h.count).trim())}, past 2^53 (not an exact count); row skipped`);
      return;
    }
    if (!(total < MAX_EXACT_TICKS)) {
      log.skip(
        this.file,
        v.line,
        `${head[h.total]} is ${clip(v.text(h.total).trim())}, more than kprof sums exactly (${MAX_EXACT_TEXT}); row skipped`,
      );
      return;
    }
    if (count === 0 && total > 0) {
      log.skip(this.file, v.line, `Count is 0 but ${head[h.total]} is ${clip(v.text(h.total).trim())}; row skipped`);
      return;
    }
    // An unreadable Min or Max (N/A, empty) is unknown; a negative or huge one is damage.
    const min = h.min >= 0 ? parseTicks(b, v.starts[h.min]!, v.ends[h.min]!) : Number.NaN;
    const max = h.max >= 0 ? parseTicks(b, v.starts[h.max]!, v.ends[h.max]!) : Number.NaN;
    for (const [i, t] of [
      [h.min, min],
      [h.max, max],
    ] as const) {
      if (t < 0 || t > total) {
        log.skip(
          this.file,
          v.line,
          `${head[i]} is ${clip(v.text(i).trim())}, ${t < 0 ? 'negative' : `more than ${head[h.total]} (${clip(v.text(h.total).trim())})`}; row skipped`,
        );
        return;
      }
    }
    if (min > max) {
      log.skip(
        this.file,
        v.line,
        `${head[h.min]} (${clip(v.text(h.min).trim())}) is more than ${head[h.max]} (${clip(v.text(h.max).trim())}); row skipped`,
      );
      return;
    }
    // The mean lies between them, within the row's rounding: a Min above Total ÷ Count, or a Max below it (a 0 written
    // for a time not measured), no kernels have. The row's count and time are read; its Min and Max are unknown, as
    // N/A ones are (a summary JSON of such figures would not read back).
    const past = pastMean(count, total, min, max);
    const off = past === 'min' ? h.min : past === 'max' ? h.max : -1;
    const known = off < 0;
    if (!known) {
      log.warn(
        this.file,
        v.line,
        `${head[off]} (${clip(v.text(off).trim())}) is ${off === h.min ? 'more' : 'less'} than the mean, ${head[h.total]} ÷ Count (${clip(v.text(h.total).trim())} ÷ ${count}); its Min and Max are taken as unknown (its count and time are read)`,
      );
    }
    this.sink.addAggregated(
      { name: null, rawName: null, type: trimCell(v.key(h.type)), core: trimCell(v.key(h.core)), shapes: null },
      {
        count,
        ticks: total,
        minTicks: known && Number.isFinite(min) ? min : Number.POSITIVE_INFINITY,
        maxTicks: known && Number.isFinite(max) ? max : Number.NEGATIVE_INFINITY,
      },
    );
  }
}
