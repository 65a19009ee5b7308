// Two inputs that cannot be compared alike: the differences a diff would show come from the exports, not from
// the change. Each case is warned about specifically, with what to do instead.
//
// - op_statistic against a kernel table: op_statistic counts no communication kernels, so those of the kernel
//   table show as added (or removed).
// - a Level0 export (Type `N/A` for most kernels) against one with types, grouped by type: the N/A kernels form
//   one row against the other side's types.

import { keepGroup } from '../aggregate/group.js';
import { GROUP_BY_FIELDS, type FineGroup, type GroupBy, type Profile, type Selection } from '../model/model.js';
import { fmtCount } from '../util/format.js';
import { excerpt } from '../util/inputText.js';
import { formatOf } from '../input/formats/registry.js';

/** A communication kernel: run on the HCCL / COMMUNICATION core, or of an `hcom_` type. */
export function isCommunication(g: FineGroup): boolean {
  return g.core === 'HCCL' || g.core === 'COMMUNICATION' || (g.type?.startsWith('hcom_') ?? false);
}

function isStatistic(p: Profile): boolean {
  return p.ranks.length > 0 && p.ranks.every((r) => !r.snapshot && r.files.every((f) => formatOf(f.format).holds === 'totals'));
}

function isKernelTable(p: Profile): boolean {
  return p.ranks.length > 0 && p.ranks.every((r) => !r.snapshot && r.files.every((f) => formatOf(f.format).holds === 'kernels'));
}

/** Kernels that pass the filters, in all and with Type N/A, and the communication ones with their types. */
function tally(p: Profile, sel: Selection): { kernels: number; na: number; comm: number; commTypes: Set<string> } {
  const t = { kernels: 0, na: 0, comm: 0, commTypes: new Set<string>() };
  for (const r of p.ranks) {
    for (const g of r.groups.values()) {
      if (!r.snapshot && !keepGroup(g, sel)) continue;
      t.kernels += g.total.count;
      if (g.type === 'N/A') t.na += g.total.count;
      if (isCommunication(g)) {
        t.comm += g.total.count;
        if (g.type !== null) t.commTypes.add(g.type);
      }
    }
  }
  return t;
}

function typesText(types: Set<string>): string {
  const all = [...types].sort().map((t) => excerpt(t));
  return all.length > 4 ? `${all.slice(0, 4).join(', ')}, …` : all.join(', ');
}

/**
 * Warnings (messages without the `kprof: warning:` prefix) for a base and a PR that cannot be compared alike
 * under this grouping and selection. Empty when they can.
 */
export function incomparableMessages(base: Profile, pr: Profile, by: GroupBy, sel: Selection): string[] {
  const out: string[] = [];
  const sides = [
    { label: 'base', p: base },
    { label: 'PR', p: pr },
  ];
  const tallies = sides.map((s) => tally(s.p, sel));
  for (const [i, j] of [
    [0, 1],
    [1, 0],
  ] as const) {
    const stat = sides[i]!;
    const table = sides[j]!;
    // Some msprof versions do count them (as COMMUNICATION rows): then there is nothing to warn about.
    if (!isStatistic(stat.p) || !isKernelTable(table.p) || tallies[j]!.comm === 0 || tallies[i]!.comm > 0) continue;
    const t = tallies[j]!;
    // Named as the registry names the totals format of its files (op_statistic).
    const statName = formatOf(stat.p.ranks[0]!.files[0]!.format).naming.brief;
    const tableName = formatOf(table.p.ranks[0]!.files[0]!.format).naming.brief;
    out.push(
      `the ${stat.label} is ${statName}, which counts no communication kernels, and the ${table.label} is a kernel table with ` +
        `${fmtCount(t.comm)} of them (${typesText(t.commTypes)}): they show as ${j === 1 ? 'added' : 'removed'}, though the change did not make them. ` +
        `Compare ${tableName} with ${tableName}, or leave them out on both sides with --exclude '^hcom_'.`,
    );
  }
  if ((GROUP_BY_FIELDS[by] as readonly string[]).includes('type')) {
    for (const [i, j] of [
      [0, 1],
      [1, 0],
    ] as const) {
      const t = tallies[i]!;
      if (t.na === 0 || tallies[j]!.na > 0 || tallies[j]!.kernels === 0) continue;
      out.push(
        `the ${sides[i]!.label} is a Level0 export (Type is N/A for ${fmtCount(t.na)} of ${fmtCount(t.kernels)} kernels) and the ${sides[j]!.label} ` +
          `has types: grouped by ${by}, those kernels form one N/A row against the ${sides[j]!.label}'s types. Compare them with --by name.`,
      );
    }
  }
  return out;
}
