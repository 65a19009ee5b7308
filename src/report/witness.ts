// The witness verdicts (see witness.ts) as text lines and as JSON. Pure.

import { basename } from 'node:path';
import { oneLine, shown } from '../util/inputText.js';
import { relPath } from '../util/paths.js';
import type { Tally, WitnessGroup, WitnessResult } from '../analysis/witness.js';
import { witnessText } from '../input/formats/registry.js';
import { exactUs, fmtCount, fmtUs, plural, ranksNamed, ticksToUs } from '../util/format.js';

function tallyText(t: Tally | null): string {
  return t === null ? 'none' : `${fmtCount(t.count)} (${fmtUs(ticksToUs(t.ticks))})`;
}

function filesText(files: string[]): string {
  return files.length === 1 ? shown(basename(files[0]!)) : `${shown(basename(files[0]!))} and ${files.length - 1} more`;
}

/** The shown disagreements (the first few: a broken export can disagree on every group). */
export const WITNESS_SHOWN = 10;

/**
 * A result as text lines: the verdict, then one line per disagreeing group. `indent` starts each line (inspect
 * puts them in a rank's block).
 */
export function witnessLines(w: WitnessResult, indent: string): string[] {
  const stat = filesText(w.statisticFiles);
  const who = w.ranks.length > 1 ? ` (${ranksNamed(w.ranks, shown)} together)` : '';
  if (w.agrees === null) return [`${indent}${stat}${who} could not be read to witness the kernel table: ${oneLine(w.error ?? '')}`];
  const comm =
    w.notCounted.kernels > 0
      ? `; ${fmtCount(w.notCounted.kernels)} communication kernels in ${plural(w.notCounted.groups, 'group')} not witnessed (${witnessText().totals} does not count them)`
      : '';
  const partial =
    w.statisticRowsSkipped > 0
      ? `${indent}  ${plural(w.statisticRowsSkipped, 'row')} of ${stat} could not be read (first: ${oneLine(w.statisticWarning ?? '')}): it witnesses only the rest`
      : null;
  if (w.disagreements.length === 0) {
    return [
      `${indent}${stat}${who} agrees with the kernel table${partial ? ' on the rows it could read' : ''}: ${fmtCount(w.groups)} (type, core) groups, ${fmtCount(w.kernels)} kernels, counts exact, times within rounding${comm}`,
      ...(partial ? [partial] : []),
    ];
  }
  const skipped = w.rowsSkipped > 0 ? ` (${fmtCount(w.rowsSkipped)} rows of the kernel table could not be read)` : '';
  const out = [
    `${indent}${stat}${who} disagrees with the kernel table on ${fmtCount(w.disagreements.length)} of ${fmtCount(w.groups)} (type, core) groups${skipped}${comm}:`,
  ];
  if (partial) out.push(partial);
  for (const d of w.disagreements.slice(0, WITNESS_SHOWN)) {
    out.push(`${indent}  ${shown(d.key)}: kernel table ${tallyText(d.table)}, ${witnessText().totals} ${tallyText(d.statistic)}: ${problemText(d)}`);
  }
  if (w.disagreements.length > WITNESS_SHOWN)
    out.push(`${indent}  … and ${fmtCount(w.disagreements.length - WITNESS_SHOWN)} more (--format json lists all)`);
  return out;
}

function problemText(d: WitnessGroup): string {
  switch (d.problem) {
    case 'count':
      return 'counts differ';
    case 'time':
      return `times differ by ${fmtUs(Math.abs(ticksToUs(d.table!.ticks - d.statistic!.ticks)))}, more than rounding`;
    case 'only in the kernel table':
      return `not in ${witnessText().totals}`;
    case 'only in the totals':
      return 'not in the kernel table';
  }
}

/** A result as JSON (times in exact µs). */
export function witnessJson(w: WitnessResult): object {
  const tally = (t: Tally | null) => (t === null ? null : { count: t.count, totalUs: exactUs(t.ticks) });
  return {
    ranks: w.ranks,
    tableFiles: w.tableFiles.map(relPath),
    statisticFiles: w.statisticFiles.map(relPath),
    agrees: w.agrees,
    ...(w.error !== undefined ? { error: w.error } : {}),
    groups: w.groups,
    kernels: w.kernels,
    notCounted: w.notCounted,
    rowsSkipped: w.rowsSkipped,
    statisticRowsSkipped: w.statisticRowsSkipped,
    disagreements: w.disagreements.map((d) => ({
      key: d.key,
      type: d.type,
      core: d.core,
      problem: d.problem === 'only in the totals' ? `only in ${w.statisticFormat}` : d.problem,
      table: tally(d.table),
      statistic: tally(d.statistic),
    })),
  };
}
