// The audit of one profile against the fusion catalogue: per entry, where its fused kernel ran and where its unfused
// chain ran instead, per rank, step and layer, with the measured time of each.
//
// It reads what the sequence recorder (analysis/rewrites/recorderSink.ts) kept of each rank: per (rank, stream)
// lane and step, the step's shape (its ordered kernel types, communication kept out) and, per shape, the sum of each
// position's durations over every step of that shape. So a shape is matched once however many steps have it, and a
// time is the exact sum of the rows' durations (never a mean times a count).
//
// Matching in one step's kernels (one stream): a chain starts at a kernel of its first element's type; each next
// element is looked for among the next `gap + 1` kernels not yet taken by a chain of this entry (an optional element
// not found there is passed over); the main chain and each variant are tried and the one that takes the most
// elements wins. A kernel is in one chain at most. Kernels of other streams and communication kernels are not in the
// lane, so they never break a chain.
//
// Layers: for an entry that runs once per layer (`per_layer`), the n-th site in a step (a fused kernel or the start of
// a chain, in order) is layer n.

import type { RecordedRank } from '../rewrites/recorderSink.js';
import type { Sequences } from '../rewrites/sequence.js';
import { gapOf, type CatalogueEntry, type ChainElement } from './catalogue.js';

/** Where a fused kernel or an unfused chain ran: a rank, a layer (per-layer entries) and the steps, with totals. */
export interface AuditSite {
  rank: string;
  layer: number | null;
  /** The chain that ran (0: the main chain, 1…: the variants); null for the fused kernel. */
  chain: number | null;
  /** Step Ids, ascending, each once. */
  steps: number[];
  /** Kernels (fused) or chains (unfused) counted at this site over those steps. */
  count: number;
  /** Their summed duration, in ticks. */
  ticks: number;
  /** The kernel types of the chain as it ran (the first step's), for an unfused site. */
  types: string[] | null;
}

export type AuditStatus = 'fused' | 'fallback' | 'unfused' | 'absent';

export interface EntryAudit {
  entry: CatalogueEntry;
  fusedCount: number;
  fusedTicks: number;
  unfusedCount: number;
  unfusedTicks: number;
  /** fused: only the fused kernel ran; fallback: both; unfused: only the chain; absent: neither. */
  status: AuditStatus;
  fusedSites: AuditSite[];
  unfusedSites: AuditSite[];
}

export interface ProfileAudit {
  input: string;
  ranks: string[];
  /** Step Ids seen, ascending. */
  steps: number[];
  /** Compute kernels looked at (in a step). */
  kernels: number;
  entries: EntryAudit[];
}

/** The entry's chains with each element's token ids in one recorded part; null for a chain that cannot match there. */
function compile(chains: ChainElement[][], ids: Map<string, number>): (Set<number>[] | null)[] {
  return chains.map((chain) => {
    const sets = chain.map((el) => new Set(el.types.map((t) => ids.get(t)).filter((x): x is number => x !== undefined)));
    for (let i = 0; i < chain.length; i++) if (!chain[i]!.optional && sets[i]!.size === 0) return null;
    return sets;
  });
}

/** One match of a chain at `start`, or null: the positions taken. */
function matchAt(tokens: Int32Array, used: Uint8Array, start: number, chain: ChainElement[], sets: Set<number>[], gap: number): number[] | null {
  if (used[start] === 1 || !sets[0]!.has(tokens[start]!)) return null;
  const taken = [start];
  let pos = start;
  for (let e = 1; e < chain.length; e++) {
    const set = sets[e]!;
    let found = -1;
    let seen = 0;
    for (let j = pos + 1; j < tokens.length && seen <= gap; j++) {
      if (used[j] === 1) continue;
      if (set.has(tokens[j]!)) {
        found = j;
        break;
      }
      seen++;
    }
    if (found >= 0) {
      taken.push(found);
      pos = found;
    } else if (!chain[e]!.optional) return null;
  }
  return taken;
}

/** The sites of one entry in one step shape: fused positions and chain matches, in order of position. */
export function matchShape(
  tokens: Int32Array,
  fusedIds: Set<number>,
  chains: ChainElement[][],
  compiled: (Set<number>[] | null)[],
  gaps: number[],
): { at: number; fused: boolean; chain: number; positions: number[] }[] {
  const used = new Uint8Array(tokens.length);
  const sites: { at: number; fused: boolean; chain: number; positions: number[] }[] = [];
  const anyChain = compiled.some((c) => c !== null);
  for (let i = 0; i < tokens.length; i++) {
    if (fusedIds.has(tokens[i]!)) {
      sites.push({ at: i, fused: true, chain: -1, positions: [i] });
      continue;
    }
    if (!anyChain || used[i] === 1) continue;
    let best: number[] | null = null;
    let bestChain = -1;
    for (let c = 0; c < chains.length; c++) {
      const sets = compiled[c];
      if (sets === null || sets === undefined) continue;
      const m = matchAt(tokens, used, i, chains[c]!, sets, gaps[c]!);
      if (m !== null && (best === null || m.length > best.length)) {
        best = m;
        bestChain = c;
      }
    }
    if (best !== null) {
      for (const p of best) used[p] = 1;
      sites.push({ at: i, fused: false, chain: bestChain, positions: best });
    }
  }
  return sites;
}

interface SiteAcc {
  rank: string;
  layer: number | null;
  chain: number | null;
  steps: Set<number>;
  count: number;
  ticks: number;
  types: string[] | null;
}

function addSite(
  map: Map<string, SiteAcc>,
  rank: string,
  layer: number | null,
  chain: number | null,
  steps: number[],
  perStep: number,
  ticks: number,
  types: string[] | null,
): void {
  const key = `${rank}\u0000${layer}\u0000${chain}`;
  let s = map.get(key);
  if (s === undefined) {
    s = { rank, layer, chain, steps: new Set(), count: 0, ticks: 0, types };
    map.set(key, s);
  }
  for (const st of steps) s.steps.add(st);
  s.count += perStep * steps.length;
  s.ticks += ticks;
}

function sites(map: Map<string, SiteAcc>): AuditSite[] {
  const out = [...map.values()].map((s) => ({
    rank: s.rank,
    layer: s.layer,
    chain: s.chain,
    steps: [...s.steps].sort((a, b) => a - b),
    count: s.count,
    ticks: s.ticks,
    types: s.types,
  }));
  return out.sort((a, b) => cmpRank(a.rank, b.rank) || (a.layer ?? -1) - (b.layer ?? -1) || (a.chain ?? -1) - (b.chain ?? -1));
}

/** Ranks in numeric order where they are numbers, else by text. */
export function cmpRank(a: string, b: string): number {
  const na = Number(a);
  const nb = Number(b);
  if (a !== '' && b !== '' && Number.isFinite(na) && Number.isFinite(nb)) return na - nb;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The audit of one profile's recorded ranks (`parts`: each rank's recorded parts, in rank order). */
export function auditProfile(input: string, parts: { rank: string; seq: Sequences }[], entries: CatalogueEntry[]): ProfileAudit {
  const ranks = [...new Set(parts.map((p) => p.rank))];
  const steps = new Set<number>();
  let kernels = 0;
  const acc = entries.map(() => ({ fused: new Map<string, SiteAcc>(), unfused: new Map<string, SiteAcc>(), fc: 0, ft: 0, uc: 0, ut: 0 }));
  for (const { rank, seq } of parts) {
    kernels += seq.stats.kernels;
    const ids = new Map<string, number>();
    seq.tokens.forEach((t, i) => {
      ids.set(t, i);
    });
    // Per shape, the Step Ids of the steps that had it (every stream of the part).
    const stepsOf = new Map<number, number[]>();
    for (const st of seq.steps) {
      steps.add(st.step);
      const l = stepsOf.get(st.shape);
      if (l === undefined) stepsOf.set(st.shape, [st.step]);
      else l.push(st.step);
    }
    entries.forEach((entry, k) => {
      const fusedIds = new Set(entry.fused.map((t) => ids.get(t)).filter((x): x is number => x !== undefined));
      const compiled = compile(entry.chains, ids);
      if (fusedIds.size === 0 && compiled.every((c) => c === null)) return;
      const gaps = entry.chains.map((c) => gapOf(entry, c));
      const a = acc[k]!;
      for (const shape of seq.shapes) {
        const stepIds = stepsOf.get(shape.id) ?? [];
        if (stepIds.length === 0) continue;
        const found = matchShape(shape.tokens, fusedIds, entry.chains, compiled, gaps);
        found.forEach((site, n) => {
          let ticks = 0;
          for (const p of site.positions) ticks += shape.sumTicks[p]!;
          const layer = entry.perLayer ? n : null;
          if (site.fused) {
            a.fc += stepIds.length;
            a.ft += ticks;
            addSite(a.fused, rank, layer, null, stepIds, 1, ticks, null);
          } else {
            a.uc += stepIds.length;
            a.ut += ticks;
            const types = site.positions.map((p) => seq.tokens[shape.tokens[p]!]!);
            addSite(a.unfused, rank, layer, site.chain, stepIds, 1, ticks, types);
          }
        });
      }
    });
  }
  return {
    input,
    ranks,
    steps: [...steps].sort((x, y) => x - y),
    kernels,
    entries: entries.map((entry, k) => {
      const a = acc[k]!;
      const status: AuditStatus = a.fc > 0 ? (a.uc > 0 ? 'fallback' : 'fused') : a.uc > 0 ? 'unfused' : 'absent';
      return {
        entry,
        fusedCount: a.fc,
        fusedTicks: a.ft,
        unfusedCount: a.uc,
        unfusedTicks: a.ut,
        status,
        fusedSites: sites(a.fused),
        unfusedSites: sites(a.unfused),
      };
    }),
  };
}

/** Why a profile's recorded ranks cannot be audited, or null. */
export function unauditable(ranks: { rank: string; beside?: unknown; files: { path: string }[] }[]): string | null {
  for (const r of ranks) {
    if (r.beside === undefined) return `${r.files[0]?.path ?? r.rank}: a summary JSON holds totals per group, not the kernels in the order they ran`;
    for (const b of r.beside as RecordedRank[]) {
      if (b.unordered !== null) return `${b.unordered}: totals per type (op_statistic), not the kernels in the order they ran`;
      if (b.withoutSteps !== null) return `${b.withoutSteps}: no Step Id column, so kernels cannot be put in steps`;
    }
  }
  return null;
}

/** Step Ids as ranges: 1-4,7. */
export function stepRanges(steps: number[]): string {
  const out: string[] = [];
  let i = 0;
  while (i < steps.length) {
    let j = i;
    while (j + 1 < steps.length && steps[j + 1] === steps[j]! + 1) j++;
    out.push(j > i ? `${steps[i]}-${steps[j]}` : `${steps[i]}`);
    i = j + 1;
  }
  return out.join(',');
}
