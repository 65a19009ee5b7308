// The profiler's own statistic as a witness. A profile folder that holds a kernel table (kernel_details.csv or an
// msprof op_summary) often holds the same run's op_statistic beside it: the profiler's own per (OP Type, Core
// Type) totals of the same kernels. Grouping the kernel table by type + core must give them back: counts exactly,
// total times within the rounding of op_statistic (FORMATS.md §4, §8). When it does, the export is complete and
// kprof read all of it; when it does not, the groups that disagree say where.
//
// op_statistic counts no communication kernels (HCCL / COMMUNICATION): those of the kernel table are reported as
// not witnessed, not as a disagreement.

import { dirname } from 'node:path';
import { isCommunication } from './comparable.js';
import { isKprofError } from '../util/errors.js';
import { TICKS_PER_US, type Profile, type RankData } from '../model/model.js';
import { readRank } from '../input/readRank.js';
import { witnessBeside } from '../input/formats/resolve.js';
import { noteInput } from '../util/io.js';

/**
 * How far a total time may be from op_statistic's and still agree, in ticks: half a unit of its last digit (it
 * writes at least 2 decimals of a µs) plus half a nanosecond per kernel (torch_npu of early 2025 rounds each
 * kernel_details duration to the ns, while op_statistic sums the unrounded values).
 */
export function timeTolerance(count: number): number {
  return TICKS_PER_US / 200 + 5 * count;
}

export interface Tally {
  count: number;
  ticks: number;
}

/**
 * What is wrong with a group: in JSON, `only in the totals` is written `only in <the totals' format id>` (only in
 * op_statistic), as the registry names it (witnessJson).
 */
export type WitnessProblem = 'count' | 'time' | 'only in the kernel table' | 'only in the totals';

export interface WitnessGroup {
  key: string;
  type: string;
  core: string;
  table: Tally | null;
  statistic: Tally | null;
  problem: WitnessProblem;
}

export interface WitnessResult {
  /** The ranks compared (several when op_statistic could not be told apart per rank: their sum). */
  ranks: string[];
  tableFiles: string[];
  statisticFiles: string[];
  /** The format id of the statistic files (the registry's `witness` of the table's format). */
  statisticFormat: string;
  /** null when op_statistic could not be read (then `error` says why). */
  agrees: boolean | null;
  error?: string;
  /** (type, core) groups compared, and the kernels in them (of the kernel table). */
  groups: number;
  kernels: number;
  /** Communication kernels of the kernel table that op_statistic does not count. */
  notCounted: { kernels: number; groups: number };
  /** Rows of the kernel table that could not be read (a reason for a disagreement). */
  rowsSkipped: number;
  /** Rows of op_statistic that could not be read, and the first one's warning: it then witnesses only the rest. */
  statisticRowsSkipped: number;
  statisticWarning?: string;
  disagreements: WitnessGroup[];
}

function key(type: string | null, core: string | null): string {
  return `${type ?? ''} @ ${core ?? ''}`;
}

/** Per (type, core): count and ticks, and whether they are communication kernels. */
function byTypeCore(ranks: RankData[]): Map<string, Tally & { type: string; core: string; comm: boolean }> {
  const out = new Map<string, Tally & { type: string; core: string; comm: boolean }>();
  for (const r of ranks) {
    for (const g of r.groups.values()) {
      const k = key(g.type, g.core);
      let t = out.get(k);
      if (!t) {
        t = { count: 0, ticks: 0, type: g.type ?? '', core: g.core ?? '', comm: isCommunication(g) };
        out.set(k, t);
      }
      t.count += g.total.count;
      t.ticks += g.total.ticks;
    }
  }
  return out;
}

/** Compare kernel-table ranks with op_statistic ranks of the same run. */
export function compareWithStatistic(
  table: RankData[],
  statistic: RankData[],
): Omit<WitnessResult, 'ranks' | 'tableFiles' | 'statisticFiles' | 'statisticFormat'> {
  const statisticRowsSkipped = statistic.reduce((n, r) => n + r.rowsSkipped, 0);
  const firstWarning = statistic.flatMap((r) => r.warnings)[0];
  const ours = byTypeCore(table);
  const theirs = byTypeCore(statistic);
  const disagreements: WitnessGroup[] = [];
  const notCounted = { kernels: 0, groups: 0 };
  let groups = 0;
  let kernels = 0;
  for (const [k, t] of ours) {
    const s = theirs.get(k);
    if (!s) {
      if (t.comm) {
        notCounted.kernels += t.count;
        notCounted.groups++;
        continue;
      }
      groups++;
      kernels += t.count;
      disagreements.push({
        key: k,
        type: t.type,
        core: t.core,
        table: { count: t.count, ticks: t.ticks },
        statistic: null,
        problem: 'only in the kernel table',
      });
      continue;
    }
    groups++;
    kernels += t.count;
    const problem: WitnessProblem | null = t.count !== s.count ? 'count' : Math.abs(t.ticks - s.ticks) > timeTolerance(t.count) ? 'time' : null;
    if (problem !== null)
      disagreements.push({
        key: k,
        type: t.type,
        core: t.core,
        table: { count: t.count, ticks: t.ticks },
        statistic: { count: s.count, ticks: s.ticks },
        problem,
      });
  }
  for (const [k, s] of theirs) {
    if (ours.has(k)) continue;
    groups++;
    disagreements.push({
      key: k,
      type: s.type,
      core: s.core,
      table: null,
      statistic: { count: s.count, ticks: s.ticks },
      problem: 'only in the totals',
    });
  }
  disagreements.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return {
    agrees: disagreements.length === 0 && statisticRowsSkipped === 0,
    ...(firstWarning !== undefined ? { statisticWarning: `line ${firstWarning.line}: ${firstWarning.message}` } : {}),
    statisticRowsSkipped,
    groups,
    kernels,
    notCounted,
    rowsSkipped: table.reduce((n, r) => n + r.rowsSkipped, 0),
    disagreements,
  };
}

/** All ranks of a kernel table that holds several devices (msprof op_summary): read again if --rank left some out. */
async function allDevices(ranks: RankData[], files: string[]): Promise<RankData[]> {
  const trait = ranks[0]!.files[0]!.traits.map((t) => /^rows of (\d+) devices/.exec(t)).find((m) => m !== null);
  if (!trait || ranks.length >= Number(trait[1])) return ranks;
  return readRank(
    { rank: ranks[0]!.rank, format: ranks[0]!.files[0]!.format, files, rankSource: '', root: dirname(files[0]!) },
    { withShapes: false },
  );
}

/** The verdicts for a profile, and the ranks whose kernel table has no op_statistic beside it. */
export interface Witnessed {
  results: WitnessResult[];
  withoutStatistic: string[];
}

/**
 * For every kernel table of the profile with an op_statistic beside it, compare the two. Ranks read from one
 * file (an op_summary with several devices) are summed, as op_statistic sums them. Ranks with no op_statistic
 * beside them are left out (`withoutStatistic` lists them).
 */

export async function witnessProfile(p: Profile): Promise<Witnessed> {
  const byDir = new Map<string, RankData[]>();
  const withoutStatistic: string[] = [];
  for (const r of p.ranks) {
    // The files whose format declares totals beside them to cross-check against (registry: witness).
    const tables = r.files.filter((f) => witnessBeside(f.path, f.format) !== null);
    if (r.snapshot || tables.length === 0 || tables.length !== r.files.length) continue;
    const dirs = [...new Set(tables.map((f) => dirname(f.path)))];
    // A rank merged from several folders (PROF_* of one device) cannot be split back per folder: not witnessed.
    if (dirs.length !== 1) continue;
    if (witnessBeside(tables[0]!.path, tables[0]!.format)!.files.length === 0) {
      withoutStatistic.push(r.rank);
      continue;
    }
    const list = byDir.get(dirs[0]!) ?? [];
    list.push(r);
    byDir.set(dirs[0]!, list);
  }
  const results: WitnessResult[] = [];
  for (const ranks of byDir.values()) {
    const tableFiles = [...new Set(ranks.flatMap((r) => r.files.map((f) => f.path)))];
    const beside = witnessBeside(tableFiles[0]!, ranks[0]!.files[0]!.format)!;
    const statisticFiles = beside.files;
    // Read by this run, so --out never replaces one (summary --witness -o op_statistic.csv).
    for (const f of statisticFiles) noteInput(f);
    let stat: RankData[];
    try {
      stat = await readRank(
        { rank: ranks[0]!.rank, format: beside.format, files: statisticFiles, rankSource: '', root: dirname(tableFiles[0]!) },
        { withShapes: false },
      );
    } catch (e) {
      if (!isKprofError(e)) throw e;
      results.push({
        ranks: ranks.map((r) => r.rank),
        tableFiles,
        statisticFiles,
        statisticFormat: beside.format,
        agrees: null,
        error: e.message,
        groups: 0,
        kernels: 0,
        notCounted: { kernels: 0, groups: 0 },
        rowsSkipped: 0,
        statisticRowsSkipped: 0,
        disagreements: [],
      });
      continue;
    }
    const statIds = new Map(stat.map((s) => [s.rank, s]));
    const paired = stat.length > 1 && ranks.every((r) => statIds.has(r.rank));
    // op_statistic sums the devices of its file: so must the kernel table, all of them, also those --rank left out.
    const table = paired ? ranks : await allDevices(ranks, tableFiles);
    const pairs: [RankData[], RankData[]][] = paired ? ranks.map((r) => [[r], [statIds.get(r.rank)!]]) : [[table, stat]];
    for (const [t, s] of pairs) {
      results.push({ ranks: t.map((r) => r.rank), tableFiles, statisticFiles, statisticFormat: beside.format, ...compareWithStatistic(t, s) });
    }
  }
  return { results, withoutStatistic };
}
