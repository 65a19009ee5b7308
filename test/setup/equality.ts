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

/** A summary's group as plain data: a RowGroup (a group of one fine group of a table) reads its fields. */
function plainSummaryGroup(g: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { key: g.key };
  for (const k of ['type', 'name', 'core', 'shapes', 'userGroup']) if (g[k] !== undefined) out[k] = g[k];
  out.total = plainCell(g.total as never);
  out.steps = new Map([...(g.steps as Map<number, never>)].map(([s, c]) => [s, plainCell(c)]));
  return out;
}

function plain(x: unknown): unknown {
  const t = tag(x);
  if (t === '[object FineGroupView]') return plainGroup(x as never);
  if (t === '[object RowGroup]') return plainSummaryGroup(x as never);
  if (t === '[object CellView]') return plainCell(x as never);
  if (t === '[object FineGroupTable]') return new Map([...(x as Map<string, unknown>)].map(([k, g]) => [k, plain(g)]));
  return x;
}

const VIEWS = new Set(['[object FineGroupView]', '[object RowGroup]', '[object CellView]', '[object FineGroupTable]']);

/** `x` as plain data, compared with a view of tag `other`: a plain group then gets the same form as the view. */
function asData(x: unknown, other: string): unknown {
  if (VIEWS.has(tag(x))) return plain(x);
  if (typeof x !== 'object' || x === null) return x;
  if (other === '[object FineGroupView]') return plainGroup(x as never);
  if (other === '[object RowGroup]') return plainSummaryGroup(x as never);
  if (other === '[object CellView]') return plainCell(x as never);
  return x;
}

const viewsAsData: Tester = function (a, b, testers) {
  if (!VIEWS.has(tag(a)) && !VIEWS.has(tag(b))) return undefined;
  return this.equals(asData(a, tag(b)), asData(b, tag(a)), testers);
};

expect.addEqualityTesters([viewsAsData]);
