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
        warnings: r.warnings.map((w) => ({ file: relPath(w.file), line: w.line, message: w.message })),
        warningCount: r.warningCount,
      })),
    ),
    witness: witness.results.map(witnessJson),
    notes: p.notes,
  };
  return mapped(jsonChunks(obj), jsonSafe);
}
