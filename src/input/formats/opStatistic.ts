// Rows of op_statistic*.csv: already aggregated per OP Type + Core Type (FORMATS.md §4). Each row becomes one
// fine group with no name, shapes or steps.

import { MAX_EXACT_TEXT, MAX_EXACT_TICKS, type Accumulator } from '../../aggregate/accumulator.js';
import { parseIntCell, parseTicks } from '../csv/numbers.js';
import { problemMessage, type RowView } from '../csv/scan.js';
import type { StatisticHeader } from './detect.js';

export class OpStatisticReader {
  private readonly width: number;

  constructor(
    readonly header: StatisticHeader,
    private readonly file: string,
    private readonly acc: Accumulator,
  ) {
    this.width = header.header.length;
  }

  row(v: RowView): void {
    const acc = this.acc;
    const h = this.header;
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
    const count = parseIntCell(b, v.starts[h.count]!, v.ends[h.count]!);
    const total = parseTicks(b, v.starts[h.total]!, v.ends[h.total]!);
    if (count === null || !Number.isFinite(count) || count < 0) {
      if (v.text(h.count) === 'Count') {
        acc.skip(this.file, v.line, 'the header is repeated here (files joined together?); row skipped');
      } else {
        acc.skip(this.file, v.line, `Count is "${clip(v.text(h.count))}", expected a whole number; row skipped`);
      }
      return;
    }
    if (!(total >= 0)) {
      const text = v.text(h.total);
      acc.skip(
        this.file,
        v.line,
        total < 0 ? `Total Time(us) is negative (${clip(text)}); row skipped` : `Total Time(us) is "${clip(text)}", expected a number of µs; row skipped`,
      );
      return;
    }
    // What a summary JSON of these rows must hold to read back: whole counts and exact times that agree.
    const head = h.header;
    if (!Number.isSafeInteger(count)) {
      acc.skip(this.file, v.line, `Count is ${clip(v.text(h.count).trim())}, past 2^53 (not an exact count); row skipped`);
      return;
    }
    if (!(total < MAX_EXACT_TICKS)) {
      acc.skip(this.file, v.line, `${head[h.total]} is ${clip(v.text(h.total).trim())}, more than kprof sums exactly (${MAX_EXACT_TEXT}); row skipped`);
      return;
    }
    if (count === 0 && total > 0) {
      acc.skip(this.file, v.line, `Count is 0 but ${head[h.total]} is ${clip(v.text(h.total).trim())}; row skipped`);
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
        acc.skip(this.file, v.line, `${head[i]} is ${clip(v.text(i).trim())}, ${t < 0 ? 'negative' : `more than ${head[h.total]} (${clip(v.text(h.total).trim())})`}; row skipped`);
        return;
      }
    }
    if (min > max) {
      acc.skip(this.file, v.line, `${head[h.min]} (${clip(v.text(h.min).trim())}) is more than ${head[h.max]} (${clip(v.text(h.max).trim())}); row skipped`);
      return;
    }
    const g = acc.group(null, v.key(h.type).trim(), v.key(h.core).trim(), null);
    acc.addCell(g, {
      count,
      ticks: total,
      minTicks: Number.isFinite(min) ? min : Number.POSITIVE_INFINITY,
      maxTicks: Number.isFinite(max) ? max : Number.NEGATIVE_INFINITY,
    });
  }
}

/** A cell as quoted in a warning: one line, at most 40 characters. */
function clip(s: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this pattern finds
  const t = s.replace(/[\u0000-\u001f\u007f]/g, ' ');
  return t.length > 40 ? `${t.slice(0, 40)}…` : t;
}
