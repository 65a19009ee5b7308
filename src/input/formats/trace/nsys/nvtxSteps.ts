// ProfilerStep#N ranges of an Nsight Systems NVTX report CSV of the same run as a cuda_gpu_trace (FORMATS.md §14):
// the steps of a trace that has no step column of its own (nsysCsv.ts).

import { inputError } from '../../../../util/errors.js';
import { profilerStep, StepWindows } from '../steps.js';
import { CsvRecords } from './csvRecords.js';
import { decimalTicks, find, headerCell, MAX_PREAMBLE_LINES, TIME_UNITS } from './nsysCsv.js';

/**
 * ProfilerStep#N ranges of an NVTX report CSV of the same run: `nvtx_gpu_proj_trace` (ranges projected onto the
 * GPU: `Projected Start`, `Projected Duration`; preferred, as kernels are placed by their GPU start) or
 * `nvtx_pushpop_trace` (`Start`, `End` or `Duration`: the host's ranges). Other ranges are ignored.
 */
export class NvtxStepsReader {
  private readonly csv: CsvRecords;
  private cols: { name: number; start: number; end: number; dur: number; shift: number; projected: boolean } | null = null;
  readonly windows = new StepWindows();
  private lines = 0;
  /** Ranges named ProfilerStep#N whose start or duration is no time (not used), and the first one's line. */
  private unreadable = 0;
  private firstUnreadable = 0;

  constructor(private readonly file: string) {
    this.csv = new CsvRecords(
      (cells, line) => this.record(cells, line),
      (line) => {
        throw inputError(`${this.file}:${line}: a CSV record longer than 16 MiB characters; is the file an nsys NVTX report?`);
      },
    );
  }

  push(chunk: Buffer): void {
    this.csv.push(chunk);
  }

  finish(): { windows: StepWindows; source: string; unreadable: number; firstUnreadable: number } {
    this.csv.finish();
    if (this.cols === null) {
      throw inputError(
        `${this.file}: no NVTX range header (Name and Start, or Projected Start) in the first ${MAX_PREAMBLE_LINES} lines; expected \`nsys stats --report nvtx_gpu_proj_trace --format csv\`.`,
      );
    }
    return {
      windows: this.windows,
      source: this.cols.projected ? 'NVTX ranges ProfilerStep#N projected onto the GPU' : 'NVTX ranges ProfilerStep#N of the host',
      unreadable: this.unreadable,
      firstUnreadable: this.firstUnreadable,
    };
  }

  private record(cells: string[], line: number): void {
    if (this.cols === null) {
      const h = cells.map(headerCell);
      const name = find(h, 'name');
      const pStart = find(h, 'projected start');
      const start = pStart >= 0 ? pStart : find(h, 'start');
      if (name < 0 || start < 0) {
        if (++this.lines > MAX_PREAMBLE_LINES) {
          throw inputError(
            `${this.file}: no NVTX range header (Name and Start, or Projected Start) in the first ${MAX_PREAMBLE_LINES} lines (line ${line} is not one); expected \`nsys stats --report nvtx_gpu_proj_trace --format csv\`.`,
          );
        }
        return;
      }
      const end = pStart >= 0 ? -1 : find(h, 'end');
      const dur = pStart >= 0 ? find(h, 'projected duration') : find(h, 'duration');
      const shift = TIME_UNITS[h[start]!.unit ?? 'ns'] ?? 1;
      this.cols = { name, start, end, dur, shift, projected: pStart >= 0 };
      return;
    }
    const c = this.cols;
    const id = profilerStep((cells[c.name] ?? '').trim());
    if (id === null) return;
    const s = decimalTicks(cells[c.start] ?? '', c.shift);
    const e = c.end >= 0 ? decimalTicks(cells[c.end] ?? '', c.shift) : s + decimalTicks(cells[c.dur] ?? '', c.shift);
    if (s >= 0 && e >= s) this.windows.add(id, s / 10_000, (e - s) / 10_000);
    else if (this.unreadable++ === 0) this.firstUnreadable = line;
  }
}
