// `kprof inspect --format text`: what was found and how it will be read. Pure: Profile (+ witness) in, string out.

import { witnessText } from '../../input/formats/registry.js';
import type { Witnessed } from '../../analysis/witness.js';
import { TICKS_PER_US, type Profile, type RankData, type RowWarning } from '../../model/model.js';
import { fmtCount, fmtUs, plural, ranksCounted, ranksNamed } from '../../util/format.js';
import { clipped, oneLine, escaped as shown } from '../../util/inputText.js';
import { relPath } from '../../util/paths.js';
import { witnessLines } from '../witness.js';
import { fieldsHeld, noRankOf, ownWarnings } from './json.js';

const NO_WITNESS: Witnessed = { results: [], withoutStatistic: [] };

function stepText(r: RankData): string {
  if (!r.fields.steps) {
    // A format whose steps are not a column says what it lacks in `missing`: a db export `STEP_TIME (no steps)`,
    // a trace `steps (no ProfilerStep#N)`, an aggregated Nsight report `steps (aggregated per name)`.
    const missing = r.files.flatMap((f) => f.missing);
    const lacks = missing.find((m) => m.endsWith(' (no steps)'));
    if (lacks !== undefined) return `none (no ${lacks.slice(0, -' (no steps)'.length)})`;
    const why = missing.find((m) => m.startsWith('steps (') && m.endsWith(')'));
    return why !== undefined ? `none (${why.slice('steps ('.length, -1)})` : 'none (no Step Id column)';
  }
  if (r.stepIds.length === 0) return r.rowsRead === 0 ? 'none (no kernel rows)' : 'column present, every cell empty';
  const ids = r.stepIds;
  const contiguous = ids[ids.length - 1]! - ids[0]! + 1 === ids.length;
  const range =
    ids.length === 1
      ? `${ids[0]}`
      : contiguous
        ? `${ids[0]}-${ids[ids.length - 1]}`
        : ids.length <= 12
          ? ids.join(', ')
          : `${ids[0]}…${ids[ids.length - 1]} (with gaps)`;
  const empty = r.rowsWithoutStep > 0 ? `; ${plural(r.rowsWithoutStep, 'row')} with an empty Step Id` : '';
  return `${ids.length} (${range})${empty}`;
}

/** Witness lines in a rank's block: `witness  ` then the verdict, disagreements below it. */
function witnessBlock(lines: string[]): string[] {
  return lines.map((l, i) => (i === 0 ? `  witness  ${l}` : `           ${l}`));
}

/** Text from input (paths, rank ids, column names, notes) goes through clipped() or shown(); warnings, which quote it escaped already, through oneLine(). */
export function inspectText(p: Profile, witness: Witnessed = NO_WITNESS): string {
  const out: string[] = [];
  const kernels = (n: number): string => plural(n, 'kernel');
  const total = p.ranks.reduce((n, r) => n + r.kernels, 0);
  out.push(
    `${shown(relPath(p.input))}: ${ranksCounted(
      p.ranks.map((r) => r.rank),
      clipped,
    )}, ${kernels(total)}`,
  );
  for (const r of p.ranks) {
    out.push('');
    out.push(ranksNamed([r.rank], clipped));
    if (r.rankSource !== undefined)
      out.push(
        `  rank id  ${r.rankSource === 'not found' ? 'not found (no profiler_info_*.json, no rank in the folder name)' : r.rankSource.startsWith('not found') ? shown(r.rankSource) : `from ${shown(r.rankSource)}`}`,
      );
    for (const f of r.files) {
      out.push(`  file     ${shown(relPath(f.path))} (${plural(f.bytes, 'byte')})`);
      out.push(`  format   ${f.format}: ${f.traits.map(shown).join(', ')}`);
      if (f.columns.length > 0)
        out.push(
          `  columns  ${fmtCount(f.columns.length)}: ${f.columns
            .slice(0, 14)
            .map((c) => clipped(c))
            .join(', ')}${f.columns.length > 14 ? ', …' : ''}`,
        );
      if (f.missing.length > 0) out.push(`  missing  ${f.missing.map(shown).join(', ')}`);
      for (const n of f.notes ?? []) out.push(`  found    ${shown(n)}`);
      const none = f.rowsOnNoRank ?? 0;
      const onNoRank = none > 0 ? ` (${fmtCount(none)} of them on no rank: their device cannot be told)` : '';
      // A summary JSON's entries are groups; the rows are those the summary that wrote it read.
      if (r.snapshot)
        out.push(
          `  rows     ${fmtCount(r.rowsRead)} read, ${fmtCount(r.rowsSkipped)} skipped when it was made (${plural(f.rowsRead, 'group')} here)`,
        );
      else out.push(`  rows     ${fmtCount(f.rowsRead)} read, ${fmtCount(f.rowsSkipped)} skipped${onNoRank}`);
    }
    if (sharedFile(r)) out.push(`  device   ${fmtCount(r.rowsRead)} of those rows are this rank's, ${fmtCount(r.rowsSkipped)} of them skipped`);
    out.push(`  kernels  ${fmtCount(r.kernels)} in ${distinct(r)}`);
    out.push(`  steps    ${stepText(r)}`);
    if (r.spanTicks !== null) {
      // Kernels whose start is in no span: the span is of the others only, and says so.
      const without = r.spanWithoutStart ?? 0;
      const of =
        without > 0
          ? `; ${plural(without, 'kernel')} of ${fmtCount(r.kernels)} ${without === 1 ? 'has' : 'have'} no start time kprof reads (empty, 0, negative, in exponent form, or too far from the first), and ${without === 1 ? 'is' : 'are'} not in it`
          : '';
      out.push(`  span     ${fmtUs(r.spanTicks / TICKS_PER_US)} from the first kernel start to the last kernel end${of}`);
    }
    const na = [...r.groups.values()].filter((g) => g.type === 'N/A').reduce((n, g) => n + g.total.count, 0);
    if (na > 0)
      out.push(`  note     Type is N/A for ${fmtCount(na)} of ${kernels(r.kernels)} (a Level0 / task-time l0 export): group by name for detail`);
    const own = witness.results.filter((w) => w.ranks.length === 1 && w.ranks[0] === r.rank);
    for (const w of own) out.push(...witnessBlock(witnessLines(w, '')));
    if (witness.withoutStatistic.includes(r.rank)) out.push(`  witness  none: no ${witnessText().totals} beside the kernel table`);
    const said = ownWarnings(r);
    if (said.count > 0) out.push(warningsLine(said.count, said.warnings[0]));
  }
  // Rows whose device cannot be told are the file's, on no rank: said once, apart from every rank's.
  const noRank = noRankOf(p);
  if (noRank !== null) {
    out.push('', 'no rank');
    for (const f of noRank.files) {
      const of = f.snapshot ? `skipped when ${shown(relPath(f.path))} was made` : `of ${shown(relPath(f.path))} skipped`;
      out.push(
        `  rows     ${fmtCount(f.rows)} ${of}: ${f.rows === 1 ? 'its device' : 'their devices'} ${f.snapshot ? 'could not' : 'cannot'} be told`,
      );
    }
    if (noRank.count > 0) out.push(warningsLine(noRank.count, noRank.warnings[0]));
  }
  for (const w of witness.results.filter((x) => x.ranks.length > 1)) {
    out.push('');
    out.push(...witnessLines(w, '').map((l, i) => (i === 0 ? `witness: ${l}` : `  ${l}`)));
  }
  for (const n of p.notes) out.push(`note: ${shown(n)}`);
  return `${out.join('\n')}\n`;
}

/**
 * `warnings N (first: file:line: message)`; the first left out when it was not kept (past the warnings kept). Line 0
 * is a file of no lines (a JSON trace, whose message says the byte; an SQLite export): `file: message`.
 */
function warningsLine(count: number, first: RowWarning | undefined): string {
  const line = first !== undefined && first.line > 0 ? `:${first.line}` : '';
  const at = first === undefined ? '' : ` (first: ${shown(relPath(first.file))}${line}: ${oneLine(first.message)})`;
  return `  warnings ${fmtCount(count)}${at}`;
}

/**
 * The fine groups of a rank, named by the fields the input has: `6 distinct (name, type, core) combinations` for a
 * kernel table, `82 distinct names` for a trace (no op type, no core), `5 distinct (type, core) combinations` for
 * op_statistic (no names), `5 distinct types` for a summary JSON grouped by type (`groups` with user groups).
 */
function distinct(r: RankData): string {
  if (r.snapshot?.selection.includes('group ')) return plural(r.groups.size, 'group');
  const f = fieldsHeld(r);
  const by = [
    ...(f.name ? ['name'] : []),
    ...(f.type ? ['type'] : []),
    ...(f.core ? ['core'] : []),
    ...(r.snapshot && f.shapes ? ['input shapes'] : []),
  ];
  if (by.length === 0) return plural(r.groups.size, 'group');
  if (by.length === 1) return plural(r.groups.size, `distinct ${by[0]}`);
  return plural(r.groups.size, `distinct (${by.join(', ')}) combination`);
}

/** A rank read from a file that holds the rows of several devices (an msprof op_summary split by Device_id). */
function sharedFile(r: RankData): boolean {
  return r.files.length > 0 && !r.snapshot && r.files.reduce((n, f) => n + f.rowsRead, 0) !== r.rowsRead;
}
