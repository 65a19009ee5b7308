// `<profile>` argument → Profile: resolve the paths, then read each rank's files into fine groups.

import { Accumulator, mergeGroups } from './aggregate.js';
import { inputError } from './errors.js';
import { readTable } from './formats/readTable.js';
import { resolveInput, type RankPlan, type ResolvedInput } from './formats/resolve.js';
import { readSnapshot } from './formats/snapshot.js';
import type { Profile, RankData, SourceFile } from './model.js';

export interface ReadOptions {
  /** Read Input Shapes into the group key (grouping by shapes). */
  withShapes: boolean;
  /** Ranks to read; null for all. */
  ranks: string[] | null;
  /** Progress: called with bytes read since the last call. */
  onBytes?: (n: number) => void;
}

/** Read every file of one rank plan. */
export async function readRank(plan: RankPlan, options: Pick<ReadOptions, 'withShapes' | 'onBytes'>): Promise<RankData[]> {
  if (plan.kind === 'snapshot') return readSnapshot(plan.files[0]!);
  const acc = new Accumulator({ name: true, type: true, core: true, shapes: options.withShapes, steps: true });
  const files: SourceFile[] = [];
  for (const f of plan.files) {
    const file = await readTable(f, acc, { withShapes: options.withShapes, onBytes: options.onBytes });
    if (files.length > 0 && (file.format === 'op_statistic') !== (files[0]!.format === 'op_statistic')) {
      throw inputError(
        `${f}: is ${file.format} but ${files[0]!.path} of the same rank is ${files[0]!.format}; ` +
          `one rank is read from one kind of export. Pass the files separately.`,
      );
    }
    files.push(file);
  }
  return [acc.toRankData(plan.rank, files)];
}

/** Which plans the rank selection keeps; an unknown rank is a usage error that lists the ranks found. */
export function selectPlans(resolved: ResolvedInput, ranks: string[] | null): RankPlan[] {
  if (ranks === null) return resolved.ranks;
  if (resolved.ranks.some((p) => p.kind === 'snapshot')) return resolved.ranks; // filtered after reading
  const have = new Set(resolved.ranks.map((p) => p.rank));
  const missing = ranks.filter((r) => !have.has(r));
  if (missing.length > 0) {
    throw inputError(
      `${resolved.input}: rank ${missing.join(', ')} not found; the input has rank${have.size === 1 ? '' : 's'} ` +
        `${[...have].join(', ')}. Use --rank with one of those, or --rank all.`,
    );
  }
  return resolved.ranks.filter((p) => ranks.includes(p.rank));
}

/** Read a `<profile>` argument. */
export async function readProfile(input: string, options: ReadOptions): Promise<Profile> {
  const resolved = resolveInput(input);
  const plans = selectPlans(resolved, options.ranks);
  const ranks: RankData[] = [];
  for (const plan of plans) ranks.push(...(await readRank(plan, options)));
  return finishProfile(input, resolved, ranks, options.ranks);
}

/** Merge ranks that share an id (several `PROF_*` folders of one device), filter snapshot ranks, check. */
export function finishProfile(input: string, resolved: ResolvedInput, read: RankData[], ranks: string[] | null): Profile {
  const byRank = new Map<string, RankData>();
  for (const r of read) {
    const prev = byRank.get(r.rank);
    if (!prev) {
      byRank.set(r.rank, r);
      continue;
    }
    mergeGroups(prev.groups, r.groups);
    prev.files.push(...r.files);
    prev.rowsRead += r.rowsRead;
    prev.rowsSkipped += r.rowsSkipped;
    prev.kernels += r.kernels;
    prev.rowsWithoutStep += r.rowsWithoutStep;
    prev.stepIds = [...new Set([...prev.stepIds, ...r.stepIds])].sort((a, b) => a - b);
    prev.warnings.push(...r.warnings);
    prev.warningCount += r.warningCount;
  }
  let out = [...byRank.values()];
  if (ranks !== null) {
    const missing = ranks.filter((r) => !byRank.has(r));
    if (missing.length > 0) {
      throw inputError(
        `${input}: rank ${missing.join(', ')} not found; the input has ranks ${[...byRank.keys()].join(', ')}. ` +
          `Use --rank with one of those, or --rank all.`,
      );
    }
    out = out.filter((r) => ranks.includes(r.rank));
  }
  out.sort((a, b) => compareRanks(a.rank, b.rank));
  const rows = out.reduce((n, r) => n + r.rowsRead, 0);
  if (rows === 0) {
    const files = out.flatMap((r) => r.files.map((f) => f.path));
    throw inputError(
      `${input}: no kernel rows: ${files.join(', ')} ${files.length === 1 ? 'has' : 'have'} a header but no data. ` +
        `Expected at least one kernel row; was the profile collected with NPU activities on?`,
    );
  }
  return { input, ranks: out, notes: resolved.notes };
}

/** Numeric ranks in numeric order, then others by name. */
export function compareRanks(a: string, b: string): number {
  const na = Number(a);
  const nb = Number(b);
  const ia = a !== '' && Number.isInteger(na);
  const ib = b !== '' && Number.isInteger(nb);
  if (ia && ib) return na - nb;
  if (ia) return -1;
  if (ib) return 1;
  return a < b ? -1 : a > b ? 1 : 0;
}
