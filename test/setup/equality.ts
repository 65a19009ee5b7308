// A fine group read from a FineGroupTable (src/model/fineGroups.ts) is a view of its row of columns, and its cells
// views too: their figures are getters, which toEqual does not read (it compares own properties, here the view's
// table and index). Compared as the plain data they stand for, a view equals the object a reader made before
// the table held groups as columns, and a table equals a Map of the same groups in the same order.

import type { Tester } from '@vitest/expect';
import { expect } from 'vitest';

const tag = (x: unknown): string => Object.prototype.toString.call(x);

function plainCell(c: { count: number; ticks: number; minTicks: number; maxTicks: number }) {
  return { count: c.count, ticks: c.ticks, minTicks: c.minTicks, maxTicks: c.maxTicks };
}

function plainGroup(g: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { name: g.name, type: g.type, core: g.core, shapes: g.shapes };
  for (const k of ['rawName', 'savedKey', 'savedUserGroup']) if (g[k] !== undefined) out[k] = g[k];
  out.total = plainCell(g.total as never);
  out.steps = new Map([...(g.steps as Map<number, never>)].map(([s, c]) => [s, plainCell(c)]));
  return out;
}

function plain(x: unknown): unknown {
  const t = tag(x);
  if (t === '[object FineGroupView]') return plainGroup(x as never);
  if (t === '[object CellView]') return plainCell(x as never);
  if (t === '[object FineGroupTable]') return new Map([...(x as Map<string, unknown>)].map(([k, g]) => [k, plain(g)]));
  return x;
}

const VIEWS = new Set(['[object FineGroupView]', '[object CellView]', '[object FineGroupTable]']);

const viewsAsData: Tester = function (a, b, testers) {
  if (!VIEWS.has(tag(a)) && !VIEWS.has(tag(b))) return undefined;
  const pa = plain(a);
  const pb = plain(b);
  // A fine group's other fields compare as plain data: a group made by hand (a test's) has every field plain.
  const ga =
    tag(a) === '[object FineGroupView]'
      ? pa
      : tag(b) === '[object FineGroupView]' && typeof a === 'object' && a !== null
        ? plainGroup(a as never)
        : pa;
  const gb =
    tag(b) === '[object FineGroupView]'
      ? pb
      : tag(a) === '[object FineGroupView]' && typeof b === 'object' && b !== null
        ? plainGroup(b as never)
        : pb;
  return this.equals(ga, gb, testers);
};

expect.addEqualityTesters([viewsAsData]);
