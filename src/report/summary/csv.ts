// `kprof summary --format csv`. Pure: Summary (+ view) in, text out (in chunks: see csvChunks).

import { summaryPerStep } from '../../aggregate/group.js';
import { perStepCount, type Cell, type PerStep, type Summary } from '../../model/model.js';
import { exactUs, round4, ticksToUs } from '../../util/format.js';
import { csvChunks } from '../render.js';
import { groupFields } from './json.js';
import { shownRows, type SummaryView } from './shared.js';

/**
 * One row per group, in the --sort order; with --top the groups after the first N are folded into one
 * `(K more groups)` row; then a `(total)` row. The last column, `row`, says which is which (`group`, `others`,
 * `total`), so a kernel named like a label cannot pass for one.
 */
export function summaryCsv(s: Summary, view: SummaryView): string {
  return [...summaryCsvChunks(s, view)].join('');
}

/** The CSV in chunks, each row made as it is written (a summary by name may have a million rows). */
export function summaryCsvChunks(s: Summary, view: SummaryView): Generator<string> {
  const head = [
    'key',
    'type',
    'name',
    'core',
    'shapes',
    'userGroup',
    'count',
    'totalUs',
    'avgUs',
    'minUs',
    'maxUs',
    'sharePct',
    'countPerStep',
    'row',
  ];
  const v = shownRows(s, view);
  const row = (i: number): (string | number | null | undefined)[] => {
    if (i === v.count) return ['(total)', null, null, null, null, null, ...cellCsv(s, s.totals, summaryPerStep(s)?.total ?? null), 'total'];
    const r = v.at(i);
    if (r.group !== null) {
      const j = groupFields(s, r.group, r.perStep);
      return [
        j.key,
        j.type,
        j.name,
        j.core,
        j.shapes,
        j.userGroup,
        j.count,
        j.totalUs,
        j.avgUs,
        j.minUs,
        j.maxUs,
        j.sharePct,
        j.countPerStep,
        'group',
      ];
    }
    return [r.label, null, null, null, null, null, ...cellCsv(s, r.cell, r.perStep), 'others'];
  };
  return csvChunks(head, v.count + 1, row);
}

/** count, totalUs, avgUs, minUs, maxUs, sharePct, countPerStep of a folded or total row, as groupFields gives them. */
function cellCsv(s: Summary, c: Cell, perStep: PerStep | null): (number | null)[] {
  return [
    c.count,
    exactUs(c.ticks),
    c.count > 0 ? round4(ticksToUs(c.ticks) / c.count) : null,
    Number.isFinite(c.minTicks) ? exactUs(c.minTicks) : null,
    Number.isFinite(c.maxTicks) ? exactUs(c.maxTicks) : null,
    s.totals.ticks > 0 ? round4((100 * c.ticks) / s.totals.ticks) : null,
    perStep ? round4(perStepCount(perStep)) : null,
  ];
}
