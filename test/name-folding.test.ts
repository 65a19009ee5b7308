// The folding of communication counters (input/formats/names.ts) on every communication name of the real exports:
// a name folds to its collective (its Type and `_*`), two kernels of different types never fold into one name, and
// every name that is not a communication kernel's stays as the file wrote it.

import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { normaliseName } from '../src/input/formats/names.js';
import { REAL, realData, walk } from './helpers.js';

const HAS_REAL = realData(import.meta.url);

const KERNEL_TABLE = /(kernel_details\.csv|op_summary_.*\.csv|resource\/test\.csv)$/;

describe.skipIf(!HAS_REAL)('communication names of the real exports', () => {
  const files = HAS_REAL ? walk(REAL).filter((f) => KERNEL_TABLE.test(f)) : [];

  it('fold to their collective, never two types into one name', () => {
    const typesOf = new Map<string, Set<string>>();
    let comm = 0;
    for (const f of files) {
      const rows: string[][] = parse(readFileSync(f), { bom: true, relax_column_count: true, skip_empty_lines: true });
      const head = rows[0]!.map((h) => h.trim());
      const nameI = head.indexOf('Name') >= 0 ? head.indexOf('Name') : head.indexOf('Op Name');
      const typeI = head.indexOf('Type') >= 0 ? head.indexOf('Type') : head.indexOf('OP Type');
      if (nameI < 0 || typeI < 0) continue;
      for (const r of rows.slice(1)) {
        const raw = r[nameI]?.trim() ?? '';
        const type = r[typeI]?.trim() ?? '';
        const folded = normaliseName(raw);
        if (!raw.startsWith('hcom_')) {
          expect(folded, relative(REAL, f)).toBe(raw);
          continue;
        }
        comm++;
        // Every communication name of the exports is its collective, `_` and counters: it folds to the
        // collective, which is its Type where the export has types (Level0 writes N/A).
        const collective = /^hcom_[A-Za-z0-9]+_/.exec(raw)![0];
        expect(folded, `${relative(REAL, f)}: ${raw}`).toBe(`${collective}_*`);
        if (type === 'N/A') continue;
        expect(type, `${relative(REAL, f)}: ${raw}`).toBe(collective);
        let t = typesOf.get(folded);
        if (!t) typesOf.set(folded, (t = new Set()));
        t.add(type);
      }
    }
    expect(comm).toBeGreaterThan(50);
    for (const [name, types] of typesOf) expect([...types], name).toHaveLength(1);
    expect([...typesOf.keys()].sort()).toEqual(expect.arrayContaining(['hcom_allGather__*', 'hcom_allReduce__*', 'hcom_broadcast__*']));
  });
});
