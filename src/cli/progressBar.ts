// Builds the progress reporter for a run (see progress.ts): one bar per large input on stderr, with bytes read
// of the total, the rate and the time left. Nothing at all when stderr is not a TTY or with --quiet, and no bar
// for an input smaller than MIN_BYTES (it would only flash). The bars are erased when reading ends, so what
// stays on stderr is the warnings alone.

import { createRequire } from 'node:module';
import type { MultiBar, SingleBar } from 'cli-progress';
import type { Io } from '../util/io.js';
import { noProgress, type ByteCounter, type Progress } from '../model/progress.js';
import { shown } from '../report/render.js';

/** Inputs smaller than this get no bar. */
export const MIN_BYTES = 8 << 20;

const MB = 1e6;

export function makeProgress(io: Io, quiet: boolean): Progress {
  if (quiet || !io.stderrIsTTY) return noProgress;
  return new BarProgress(io);
}

interface Track {
  bar: SingleBar | null;
  label: string;
  read: number;
  totalBytes: number;
  started: number;
  ended: boolean;
}

class BarProgress implements Progress {
  private multi: MultiBar | null = null;
  private readonly tracks: Track[] = [];

  constructor(private readonly io: Io) {}

  tracker(label: string): ByteCounter {
    const t: Track = { bar: null, label: shorten(shown(label), 32), read: 0, totalBytes: 0, started: Date.now(), ended: false };
    this.tracks.push(t);
    const counter: ByteCounter = (n: number) => {
      t.read += n;
      t.bar?.update(Math.min(t.read, t.totalBytes), this.payload(t));
    };
    counter.total = (bytes: number) => {
      t.totalBytes = bytes;
      t.started = Date.now();
      if (bytes >= MIN_BYTES) t.bar = this.bars().create(bytes, 0, this.payload(t));
    };
    counter.end = () => {
      t.ended = true;
      if (this.tracks.every((x) => x.ended)) this.done();
    };
    return counter;
  }

  done(): void {
    const multi = this.multi;
    this.multi = null;
    for (const t of this.tracks) t.bar = null;
    multi?.stop();
  }

  private payload(t: Track): Record<string, string> {
    const seconds = (Date.now() - t.started) / 1000;
    const rate = seconds > 0 ? t.read / MB / seconds : 0;
    return {
      label: t.label.padEnd(32),
      read: (t.read / MB).toFixed(0),
      size: (t.totalBytes / MB).toFixed(0),
      rate: rate.toFixed(0),
    };
  }

  private bars(): MultiBar {
    if (!this.multi) {
      const io = this.io;
      // cli-progress writes to a stream; this one forwards to the injected stderr.
      const stream = {
        isTTY: true,
        columns: Number(io.env.COLUMNS) > 0 ? Number(io.env.COLUMNS) : 100,
        write(s: string): boolean {
          io.stderr(s);
          return true;
        },
      };
      // Loaded only when a bar is drawn: most runs never need it.
      const cliProgress = createRequire(import.meta.url)('cli-progress') as typeof import('cli-progress');
      this.multi = new cliProgress.MultiBar({
        stream: stream as unknown as NodeJS.WritableStream,
        format: '{label} {bar} {percentage}% | {read}/{size} MB | {rate} MB/s | ETA {eta_formatted}',
        barsize: 24,
        clearOnComplete: true,
        hideCursor: false,
        stopOnComplete: false,
        fps: 10,
        etaBuffer: 20,
        autopadding: true,
      });
    }
    return this.multi;
  }
}

/** Keep the end of a long path: that is where the rank and file names are. */
function shorten(label: string, width: number): string {
  return label.length <= width ? label : `…${label.slice(label.length - width + 1)}`;
}
