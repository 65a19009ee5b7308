// `kprof diff --format csv`. Pure: Diff (+ view) in, text out (in chunks, each row made as it is written: a diff by
// name may have a million rows).

import type { Diff, DiffView } from '../../analysis/diff.js';
import type { DiffRowJson, DiffTimeTestJson } from '../../model/schema.js';
import { plural } from '../../util/format.js';
import { CHUNK_CHARS } from '../json.js';
import { csvCell } from '../render.js';
import { diffJsonOnce } from './json.js';

const ranksCell = (r: DiffRowJson): string => r.disagreeingRanks.map((x) => `${x.rank}:${x.status}`).join(' ');
const stepsCell = (r: DiffRowJson): string => r.unevenSteps.map((u) => `${u.rank}:${u.steps.map((c) => c.step).join(',')}`).join(' ');

/** CSV: one line per shown row, then an `others` line when rows were left out, then the `total` line. */
export function diffCsv(d: Diff, view: DiffView): string {
  return [...diffCsvChunks(d, view)].join('');
}

/** The CSV in chunks, each row made as it is written (a diff by name may have a million rows). */
export function* diffCsvChunks(d: Diff, view: DiffView): Generator<string> {
  const j = diffJsonOnce(d, view);
  const head = [
    'key',
    'type',
    'name',
    'core',
    'shapes',
    'userGroup',
    'status',
    'baseCount',
    'prCount',
    'deltaCount',
    'deltaCountPct',
    'baseUs',
    'prUs',
    'deltaUs',
    'deltaUsPct',
    'timeWithinTolerance',
    'rankStatus',
    'disagreeingRanks',
    'unevenSteps',
    'timeNoise',
    'timeTestVerdict',
    'timeTestP',
    'timeTestU',
    'timeTestBaseN',
    'timeTestPrN',
  ];
  const test = (x: { timeNoise: boolean; timeTest: DiffTimeTestJson }) => [
    x.timeNoise,
    x.timeTest.verdict,
    x.timeTest.p,
    x.timeTest.u,
    x.timeTest.n.base,
    x.timeTest.n.pr,
  ];
  const line = (cells: (string | number | boolean | null | undefined)[]): string => `${cells.map(csvCell).join(',')}\n`;
  const rowCells = (r: DiffRowJson): (string | number | boolean | null | undefined)[] => [
    r.key,
    r.type,
    r.name,
    r.core,
    r.shapes,
    r.userGroup,
    r.status,
    r.base.count,
    r.pr.count,
    r.deltaCount,
    r.deltaCountPct,
    r.base.totalUs,
    r.pr.totalUs,
    r.deltaUs,
    r.deltaUsPct,
    r.timeWithinTolerance,
    r.rankStatus,
    ranksCell(r),
    stepsCell(r),
    ...test(r),
  ];
  let buf = line(head);
  // j.rows is read once, each row's JSON made as it is read (diffJsonOnce).
  for (const r of j.rows) {
    buf += line(rowCells(r));
    if (buf.length >= CHUNK_CHARS) {
      yield buf;
      buf = '';
    }
  }
  if (j.others) {
    const o = j.others;
    const changed = [...o.changedDifferently];
    // The folded rows whose change differs across ranks or steps keep their detail, by key: `A=0:fewer 1:more | B=…`.
    const detail = (f: (r: DiffRowJson) => string): string | null => {
      const parts = changed.map((r) => [r.key, f(r)] as const).filter(([, x]) => x !== '');
      return parts.length > 0 ? parts.map(([k, x]) => `${k}=${x}`).join(' | ') : null;
    };
    buf += line([
      `(${plural(o.groups, 'more group')})`,
      null,
      null,
      null,
      null,
      null,
      'others',
      o.base.count,
      o.pr.count,
      o.deltaCount,
      null,
      o.base.totalUs,
      o.pr.totalUs,
      o.deltaUs,
      null,
      null,
      null,
      detail(ranksCell),
      detail(stepsCell),
      ...test(o),
    ]);
  }
  const t = j.totals;
  buf += line([
    '(total)',
    null,
    null,
    null,
    null,
    null,
    'total',
    t.base.count,
    t.pr.count,
    t.deltaCount,
    t.deltaCountPct,
    t.base.totalUs,
    t.pr.totalUs,
    t.deltaUs,
    t.deltaUsPct,
    t.timeWithinTolerance,
    null,
    null,
    null,
    ...test(t),
  ]);
  yield buf;
}
