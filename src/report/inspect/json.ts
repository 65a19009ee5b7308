// `kprof inspect --format json`. Pure: Profile (+ witness) in, chunks out.

import { formatOf } from '../../input/formats/registry.js';
import type { Witnessed } from '../../analysis/witness.js';
import type { Profile, RankData } from '../../model/model.js';
import { jsonSafe } from '../../util/inputText.js';
import { relPath } from '../../util/paths.js';
import { JsonList, jsonChunks, mapped } from '../json.js';
import { witnessJson } from '../witness.js';

const NO_WITNESS: Witnessed = { results: [], withoutStatistic: [] };

/**
 * Fields the files hold (not only those this read kept: inspect does not read shapes into groups). A summary JSON
 * holds those of its grouping only (`--by type`: types), though its groups are read with every field.
 */
export function fieldsHeld(r: RankData): RankData['fields'] {
  if (r.snapshot) {
    const by = r.snapshot.groupBy.split('+');
    return { name: by.includes('name'), type: by.includes('type'), core: by.includes('core'), shapes: by.includes('shapes'), steps: r.fields.steps };
  }
  const held = (f: RankData['files'][number]): boolean => {
    const a = formatOf(f.format).answers.shapes;
    return a === 'yes' || (a === 'column' && f.columns.includes('Input Shapes'));
  };
  const shapes = r.fields.shapes || (r.files.length > 0 && r.files.every(held));
  return { ...r.fields, shapes };
}

/** A rank's own warnings (of rows of its own), and how many: those of rows on no rank are said apart (noRankOf). */
export function ownWarnings(r: RankData): { warnings: RankData['warnings']; count: number } {
  return { warnings: r.warnings.filter((w) => w.noRank !== true), count: r.warningCount - (r.warningsOnNoRank ?? 0) };
}

/**
 * The rows on no rank (a file of several devices whose row's device cannot be told): each such file (once, though it
 * is in the files of each of its ranks) with how many, and their warnings (kept with a rank's); null when none.
 */
export function noRankOf(
  p: Profile,
): { files: { path: string; rows: number; snapshot: boolean }[]; warnings: RankData['warnings']; count: number } | null {
  const files = new Map<string, { path: string; rows: number; snapshot: boolean }>();
  for (const r of p.ranks)
    for (const f of r.files) if ((f.rowsOnNoRank ?? 0) > 0) files.set(f.path, { path: f.path, rows: f.rowsOnNoRank!, snapshot: r.snapshot !== null });
  const count = p.ranks.reduce((n, r) => n + (r.warningsOnNoRank ?? 0), 0);
  if (files.size === 0 && count === 0) return null;
  const warnings = p.ranks.flatMap((r) => r.warnings.filter((w) => w.noRank === true));
  return { files: [...files.values()], warnings, count };
}

const warningJson = (w: RankData['warnings'][number]) => ({ file: relPath(w.file), line: w.line, message: w.message });

/** The JSON report, in chunks (see report/json.ts). */
export function inspectJson(p: Profile, witness: Witnessed = NO_WITNESS): Iterable<string> {
  const obj = {
    schemaVersion: 1,
    kind: 'inspect',
    input: relPath(p.input),
    ranks: new JsonList(
      mapped(p.ranks, (r) => ({
        rank: r.rank,
        rankSource: r.rankSource ?? null,
        files: r.files.map((f) => ({
          path: relPath(f.path),
          format: f.format,
          traits: f.traits,
          columns: f.columns,
          missing: f.missing,
          ...(f.notes !== undefined ? { notes: f.notes } : {}),
          bytes: f.bytes,
          rowsRead: f.rowsRead,
          rowsSkipped: f.rowsSkipped,
          ...(f.rowsOnNoRank !== undefined ? { rowsOnNoRank: f.rowsOnNoRank } : {}),
        })),
        rowsRead: r.rowsRead,
        rowsSkipped: r.rowsSkipped,
        kernels: r.kernels,
        distinctKernels: r.groups.size,
        fields: fieldsHeld(r),
        steps: r.fields.steps ? r.stepIds : null,
        rowsWithoutStep: r.rowsWithoutStep,
        spanUs: r.spanTicks !== null ? Math.round(r.spanTicks / 10) / 1000 : null,
        ...(r.spanTicks !== null && r.spanWithoutStart !== undefined ? { kernelsOutsideSpan: r.spanWithoutStart } : {}),
        warnings: ownWarnings(r).warnings.map(warningJson),
        warningCount: ownWarnings(r).count,
      })),
    ),
    ...noRankJson(p),
    witness: witness.results.map(witnessJson),
    notes: p.notes,
  };
  return mapped(jsonChunks(obj), jsonSafe);
}

/** `noRank`, only when some rows are on no rank: their files and rows skipped, and their warnings. */
function noRankJson(p: Profile): { noRank?: object } {
  const n = noRankOf(p);
  if (n === null) return {};
  return {
    noRank: {
      files: n.files.map((f) => ({ path: relPath(f.path), rowsSkipped: f.rows })),
      warnings: n.warnings.map(warningJson),
      warningCount: n.count,
    },
  };
}
