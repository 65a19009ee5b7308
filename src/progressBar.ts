// Builds the progress reporter for a run (see progress.ts).

import type { Io } from './io.js';
import { noProgress, type Progress } from './progress.js';

export function makeProgress(io: Io, quiet: boolean): Progress {
  if (quiet || !io.stderrIsTTY) return noProgress;
  return noProgress;
}
