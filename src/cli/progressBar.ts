// Builds the progress reporter for a run (see progress.ts): one bar on stderr for all the inputs being read (a
// 64-rank diff reads 128 files; a bar each scrolled off the screen and could not be erased), with bytes read of
// the total, the rate and the time left, as much of that as the terminal's width holds. Nothing at all when stderr
// is not a TTY or with --quiet, and no bar while the inputs add up to less than MIN_BYTES (it would only flash).
// The bar is erased when reading ends, and by the command's end in any case (done(), also on an error), so what
// stays on stderr is the warnings alone.

import { createRequire } from 'node:module';
import type { SingleBar } from 'cli-progress';
import type { Io } from '../util/io.js';
import { noProgress, type ByteCounter, type Progress } from '../model/progress.js';
import { escaped } from '../report/render.js';

/** Inputs that add up to less than this get no bar. */
export const MIN_BYTES = 8 << 20;

const MB = 1e6;

/** The bar's parts, widest first: the first that fits the terminal's width is drawn. */
const LAYOUTS: { width: number; format: string; label: boolean }[] = [
  { width: 100, format: '{label} {bar} {percentage}% | {read}/{size} MB | {rate} MB/s | ETA {eta_formatted}', label: true },
  { width: 72, format: '{bar} {percentage}% | {read}/{size} MB | {rate} MB/s | ETA {eta_formatted}', label: false },
  { width: 44, format: '{bar} {percentage}% | ETA {eta_formatted}', label: false },
  { width: 0, format: '{percentage}%', label: false },
];

/** The layout for a terminal of `columns` (the bar itself is 24 wide; a line never reaches the last column). */
export function layoutFor(columns: number): { format: string; label: boolean } {
  return LAYOUTS.find((l) => columns > l.width) ?? LAYOUTS[LAYOUTS.length - 1]!;
}

export function makeProgress(io: Io, quiet: boolean): Progress {
  if (quiet || !io.stderrIsTTY) return noProgress;
  return new BarProgress(io);
}

interface Track {
  label: string;
  read: number;
  totalBytes: number;
  ended: boolean;
}

class BarProgress implements Progress {
  private bar: SingleBar | null = null;
  private finished = false;
  private readonly tracks: Track[] = [];
  private started = Date.now();

  constructor(private readonly io: Io) {}

  tracker(label: string): ByteCounter {
    const t: Track = { label: escaped(label), read: 0, totalBytes: 0, ended: false };
    this.tracks.push(t);
    const counter: ByteCounter = (n: number) => {
      t.read += n;
      this.update();
    };
    counter.total = (bytes: number) => {
      t.totalBytes = bytes;
      this.update();
    };
    counter.end = () => {
      t.ended = true;
      if (this.tracks.every((x) => x.ended)) this.done();
    };
    return counter;
  }

  /** Erase the bar; nothing is drawn after this. */
  done(): void {
    this.finished = true;
    const bar = this.bar;
    this.bar = null;
    bar?.stop();
  }

  private update(): void {
    if (this.finished) return;
    let read = 0;
    let total = 0;
    for (const t of this.tracks) {
      total += t.totalBytes;
      read += Math.min(t.read, t.totalBytes);
    }
    if (this.bar === null) {
      if (total < MIN_BYTES) return;
      this.started = Date.now();
      this.bar = this.create(total);
    }
    this.bar.setTotal(total);
    this.bar.update(read, this.payload(read, total));
  }

  private payload(read: number, total: number): Record<string, string> {
    const seconds = (Date.now() - this.started) / 1000;
    const rate = seconds > 0 ? read / MB / seconds : 0;
    const label = this.tracks.length === 1 ? this.tracks[0]!.label : `${this.tracks.length} inputs`;
    return {
      label: shorten(label, 32).padEnd(32),
      read: (read / MB).toFixed(0),
      size: (total / MB).toFixed(0),
      rate: rate.toFixed(0),
    };
  }

  private create(total: number): SingleBar {
    const io = this.io;
    const columns = io.stderrColumns ?? (Number(io.env.COLUMNS) > 0 ? Number(io.env.COLUMNS) : 80);
    // cli-progress writes to a stream; this one forwards to the injected stderr.
    const stream = {
      isTTY: true,
      columns,
      write(s: string): boolean {
        io.stderr(s);
        return true;
      },
    };
    // Loaded only when a bar is drawn: most runs never need it.
    const cliProgress = createRequire(import.meta.url)('cli-progress') as typeof import('cli-progress');
    const bar = new cliProgress.SingleBar({
      stream: stream as unknown as NodeJS.WritableStream,
      format: layoutFor(columns).format,
      barsize: 24,
      clearOnComplete: true,
      hideCursor: false,
      stopOnComplete: false,
      fps: 10,
      etaBuffer: 20,
      autopadding: true,
      noTTYOutput: false,
      formatTime: etaText,
    });
    bar.start(total, 0, this.payload(0, total));
    return bar;
  }
}

/**
 * The ETA as cli-progress's own format writes it (`12s`, ` 3m05s`, ` 1h20m`), but for an ETA not known yet: before
 * a byte is read cli-progress has 'INF' or 'NULL', which its format cuts to two characters ("ETA NFs").
 */
function etaText(t: number | string, _options: unknown, roundTo: number): string {
  if (typeof t !== 'number' || !Number.isFinite(t) || t < 0) return '  ?';
  const pad = (v: number): string => ` ${v}`.slice(-2);
  const round = (v: number): number => roundTo * Math.round(v / roundTo);
  if (t > 3600) return `${pad(Math.floor(t / 3600))}h${pad(round((t % 3600) / 60))}m`;
  if (t > 60) return `${pad(Math.floor(t / 60))}m${pad(round(t % 60))}s`;
  if (t > 10) return `${pad(round(t))}s`;
  return `${pad(t)}s`;
}

/** Keep the end of a long path: that is where the rank and file names are. */
function shorten(label: string, width: number): string {
  return label.length <= width ? label : `…${label.slice(label.length - width + 1)}`;
}
