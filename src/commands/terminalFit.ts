// Fitting terminal output to the terminal's width: only when stdout is a terminal (pipes, files and CI get the
// whole table, byte for byte as ever), and with one line on stderr saying what was cut and how to see it all.

import type { Fit } from '../report/render.js';
import { CELL_WIDTH } from '../util/inputText.js';
import type { Io } from '../util/io.js';

/**
 * The width to fit a report to: stdout's columns when it is a terminal (COLUMNS when the terminal does not say),
 * none when stdout is not a terminal, the report goes to a file (-o), or --wide asks for everything.
 */
export function terminalFit(io: Io, out: string | undefined, wide: boolean | undefined): Fit | undefined {
  if (!io.stdoutIsTTY || out !== undefined || wide === true) return undefined;
  const env = Number(io.env.COLUMNS);
  const width = io.stdoutColumns ?? (Number.isInteger(env) && env > 0 ? env : undefined);
  return width === undefined ? undefined : { width, cut: [] };
}

/**
 * The line that says what fitting the terminal cut, and how to see everything (empty when nothing was cut).
 * `gpuNames`: the input's names are CUDA/ROCm kernel names (a trace, Nsight) read whole, whose template
 * arguments make them long and alike: the line suggests --short-names when it shortened names, or when one of
 * `names` (the groups the table shows) is longer than a table cell, on a terminal or not (a table format only).
 */
export function fitHint(fit: Fit | undefined, gpuNames = false, names: readonly string[] = []): string {
  // Names over a cell's width are cut in every table, terminal or not: long template names look alike there.
  const long = gpuNames && names.some((n) => n.length > CELL_WIDTH);
  const cutLong = long
    ? `kprof: note: kernel names over ${CELL_WIDTH} characters are cut in the table (--format json keeps them whole); --short-names drops their template arguments.\n`
    : '';
  if (!fit || fit.cut.length === 0) return cutLong;
  const short =
    gpuNames && !long && fit.cut.includes('names shortened') ? 'kprof: note: --short-names drops the template arguments of kernel names.\n' : '';
  return `kprof: note: fitted to ${fit.width} columns (${[...new Set(fit.cut)].join('; ')}); --wide shows everything.\n${short}${cutLong}`;
}
