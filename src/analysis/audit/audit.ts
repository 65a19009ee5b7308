// Over 400 lines: the audit is one pass over the recorded lanes (sites, phases, layers, MTP and citations share its
// state); its parts that stand alone are in structure.ts and catalogue.ts.
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
// Phases and layers: structure.ts. A site of an entry that runs once per layer (`per_layer`) is in the decoder layer
// its marker occurrences tell (the one before it, after it or nearest to it, as its entry's sites at the ends of the
// steps say), or in the MTP layer; without a marker (a step of one layer), the n-th site in a step is layer n.

import type { RecordedRank } from '../rewrites/recorderSink.js';
import type { Sequences } from '../rewrites/sequence.js';
import { layerPhase, type LayerPhase, type MarkerSite } from '../rewrites/layers.js';
import { gapOf, type CatalogueEntry, type ChainElement } from './catalogue.js';
import { laneMarker, mtpLayers, PHASES, phaseOfShape, shapeLayers, siteLayer, type Phase } from './structure.js';
import { totalsText } from '../../input/formats/registry.js';
import { fmtCount } from '../../util/format.js';

/** Where the first kernel of a site is in its input: its step, stream and index among the step's compute kernels there. */
export interface SiteAt {
  step: number;
  stream: string;
  index: number;
  /** The file and line of that kernel's row, when the input is a CSV kernel table (set by citeRows); else null. */
  file: string | null;
  line: number | null;
}

/** Where a fused kernel or an unfused chain ran: a rank, a phase, a layer (per-layer entries) and the steps, with totals. */
export interface AuditSite {
  rank: string;
  /** prefill, decode or step (no phase told) of the step; mtp for a site in the MTP layer. */
  phase: Phase;
  /** The decoder layer (from 0; the MTP layer is layer 0 of phase mtp); null for an entry not per layer or no marker. */
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
  /** Where it first ran (the lowest step). */
  at: SiteAt;
  /**
   * Where it ran in each step shape it ran in: the shape's first step, and its steps (a rule limited to some steps
   * cites the first of them, which may be of another shape than `at`).
   */
  shapes: { at: SiteAt; types: string[] | null; steps: number[] }[];
}

export type AuditStatus = 'fused' | 'fallback' | 'unfused' | 'absent';

/** One phase's figures of an entry. */
export interface PhaseFigures {
  phase: Phase;
  fusedCount: number;
  fusedTicks: number;
  unfusedCount: number;
  unfusedTicks: number;
}

export interface EntryAudit {
  entry: CatalogueEntry;
  fusedCount: number;
  fusedTicks: number;
  unfusedCount: number;
  unfusedTicks: number;
  /** fused: only the fused kernel ran; fallback: both; unfused: only the chain; absent: neither. */
  status: AuditStatus;
  /** Per phase (in PHASES order), those where the entry ran fused or not. */
  phases: PhaseFigures[];
  fusedSites: AuditSite[];
  unfusedSites: AuditSite[];
  /** Per phase, per Step Id: the fused kernels and unfused chains of the entry in that step (every rank added). */
  byStep: Map<Phase, Map<number, { fused: number; unfused: number }>>;
}

export interface ProfileAudit {
  input: string;
  ranks: string[];
  /** Step Ids seen, ascending. */
  steps: number[];
  /** Step Ids per phase of step (prefill, decode, step), ascending; mtp: the steps with an MTP layer. */
  phaseSteps: { phase: Phase; steps: number[] }[];
  /** How phases were told: `stage` (step_trace_time.csv), `kernels` (attention kernel types), or `none`. */
  phaseSource: 'stage' | 'kernels' | 'none';
  /** The layer marker kernel type of each rank (first lane), or null when no marker was found. */
  markers: { rank: string; marker: string | null }[];
  /** Compute kernels looked at (in a step). */
  kernels: number;
  /** Rows of the profile that could not be read (skipped, and warned of): a kernel there is in no site. */
  skippedRows: number;
  /** Compute kernels read but not audited: with an empty Step Id (in no step), or past the recorder's lane limit. */
  notAudited: { withoutStep: number; pastLaneLimit: number };
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
  phase: Phase;
  layer: number | null;
  chain: number | null;
  steps: Set<number>;
  count: number;
  ticks: number;
  types: string[] | null;
  shapes: { at: SiteAt; types: string[] | null; steps: number[] }[];
  at: SiteAt;
}

function addSite(
  map: Map<string, SiteAcc>,
  key: { rank: string; phase: Phase; layer: number | null; chain: number | null },
  steps: number[],
  ticks: number,
  types: string[] | null,
  at: SiteAt,
): void {
  const k = `${key.rank}\u0000${key.phase}\u0000${key.layer}\u0000${key.chain}`;
  let s = map.get(k);
  if (s === undefined) {
    s = { ...key, steps: new Set(), count: 0, ticks: 0, types, at, shapes: [] };
    map.set(k, s);
  } else if (at.step < s.at.step) {
    s.at = at;
    s.types = types;
  }
  s.shapes.push({ at, types, steps });
  for (const st of steps) s.steps.add(st);
  s.count += steps.length;
  s.ticks += ticks;
}

function sites(map: Map<string, SiteAcc>): AuditSite[] {
  const out = [...map.values()].map((s) => ({
    rank: s.rank,
    phase: s.phase,
    layer: s.layer,
    chain: s.chain,
    steps: [...s.steps].sort((a, b) => a - b),
    count: s.count,
    ticks: s.ticks,
    types: s.types,
    at: s.at,
    shapes: s.shapes,
  }));
  return out.sort(
    (a, b) =>
      cmpRank(a.rank, b.rank) ||
      PHASES.indexOf(a.phase) - PHASES.indexOf(b.phase) ||
      (a.layer ?? -1) - (b.layer ?? -1) ||
      (a.chain ?? -1) - (b.chain ?? -1),
  );
}

/** Ranks in numeric order where they are numbers, else by text. */
export function cmpRank(a: string, b: string): number {
  const na = Number(a);
  const nb = Number(b);
  if (a !== '' && b !== '' && Number.isFinite(na) && Number.isFinite(nb)) return na - nb;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** One recorded part of a rank, with the phase words of its step_trace_time.csv (empty without). */
export interface AuditPart {
  rank: string;
  seq: Sequences;
  stage?: Map<number, 'prefill' | 'decode'>;
}

type Found = ReturnType<typeof matchShape>;

/** The audit of one profile's recorded ranks (`parts`: each rank's recorded parts, in rank order). */
export function auditProfile(input: string, parts: AuditPart[], entries: CatalogueEntry[]): ProfileAudit {
  const ranks = [...new Set(parts.map((p) => p.rank))];
  const steps = new Set<number>();
  const phaseSteps = new Map<Phase, Set<number>>();
  const markers: { rank: string; marker: string | null }[] = [];
  let kernels = 0;
  let byStage = false;
  let byKernels = false;
  const acc = entries.map(() => ({
    fused: new Map<string, SiteAcc>(),
    unfused: new Map<string, SiteAcc>(),
    phases: new Map<Phase, PhaseFigures>(),
    byStep: new Map<Phase, Map<number, { fused: number; unfused: number }>>(),
  }));
  const countStep = (k: number, phase: Phase, steps: number[], fused: boolean): void => {
    const m = acc[k]!.byStep;
    let p = m.get(phase);
    if (p === undefined) {
      p = new Map();
      m.set(phase, p);
    }
    for (const st of steps) {
      let c = p.get(st);
      if (c === undefined) {
        c = { fused: 0, unfused: 0 };
        p.set(st, c);
      }
      if (fused) c.fused++;
      else c.unfused++;
    }
  };
  const figures = (k: number, phase: Phase): PhaseFigures => {
    const m = acc[k]!.phases;
    let f = m.get(phase);
    if (f === undefined) {
      f = { phase, fusedCount: 0, fusedTicks: 0, unfusedCount: 0, unfusedTicks: 0 };
      m.set(phase, f);
    }
    return f;
  };
  const notePhase = (phase: Phase, step: number): void => {
    let s = phaseSteps.get(phase);
    if (s === undefined) {
      s = new Set();
      phaseSteps.set(phase, s);
    }
    s.add(step);
  };
  for (const { rank, seq, stage } of parts) {
    kernels += seq.stats.kernels;
    const ids = new Map<string, number>();
    seq.tokens.forEach((t, i) => {
      ids.set(t, i);
    });
    // Every entry's sites in every shape, matched once.
    const compiledAll = entries.map((entry) => {
      const fusedIds = new Set(entry.fused.map((t) => ids.get(t)).filter((x): x is number => x !== undefined));
      const compiled = compile(entry.chains, ids);
      const live = fusedIds.size > 0 || compiled.some((c) => c !== null);
      return { fusedIds, compiled, live, gaps: entry.chains.map((c) => gapOf(entry, c)) };
    });
    const found: Found[][] = seq.shapes.map((shape) =>
      entries.map((entry, k) => {
        const c = compiledAll[k]!;
        return c.live ? matchShape(shape.tokens, c.fusedIds, entry.chains, c.compiled, c.gaps) : [];
      }),
    );
    const taken = seq.shapes.map((shape, i) => {
      const t = new Uint8Array(shape.tokens.length);
      for (const f of found[i]!) for (const site of f) for (const p of site.positions) t[p] = 1;
      return t;
    });
    // Each shape's layer marker, chosen among its own kernels by the rewrites engine's rule (structure.ts).
    const markerOf = seq.shapes.map((shape, i) => {
      const entrySites: MarkerSite[][] = [];
      const touched = new Set<number>();
      entries.forEach((entry, k) => {
        const f = found[i]![k]!;
        if (!entry.perLayer || f.length === 0) return;
        entrySites.push(f.map((site) => ({ side: 0 as const, start: Math.min(...site.positions), end: Math.max(...site.positions) + 1 })));
      });
      for (let j = 0; j < shape.tokens.length; j++) if (taken[i]![j] === 1) touched.add(shape.tokens[j]!);
      return laneMarker(shape.tokens, entrySites, touched, seq.tokens);
    });
    const used = new Set<number>();
    for (const st of seq.steps) {
      const m = markerOf[st.shape];
      if (m !== null && m !== undefined) used.add(m);
    }
    const names = used.size === 0 ? [null] : [...used].map((m) => seq.tokens[m]!).sort();
    for (const marker of names) if (!markers.some((m) => m.rank === rank && m.marker === marker)) markers.push({ rank, marker });
    const layersOf = mtpLayers(
      seq.shapes.map((shape, i) => shapeLayers(shape.tokens, markerOf[i]!, taken[i]!)),
      seq.shapes.map((_, i) => found[i]!.some((f, k) => entries[k]!.perLayer && f.length > 0)),
    );
    // A shape's phase: the Stage word all its steps have; else its own attention kernels; else (a stream without
    // attention) the phase its steps have on the other streams, when they agree. A shape's steps are all of one phase,
    // so each time is the exact sum over its steps.
    const ownPhase = seq.shapes.map((shape) => phaseOfShape(shape.tokens, seq.tokens));
    const stepPhase = new Map<number, Phase>();
    for (const st of seq.steps) {
      const p = ownPhase[st.shape]!;
      if (p === 'step') continue;
      const before = stepPhase.get(st.step);
      stepPhase.set(st.step, before === undefined || before === p ? p : 'decode');
    }
    const phaseOf = seq.shapes.map((_, i) => ownPhase[i]!);
    const borrowed = new Map<number, Phase | null>();
    for (const st of seq.steps) {
      if (ownPhase[st.shape] !== 'step') continue;
      const p = stepPhase.get(st.step) ?? 'step';
      const before = borrowed.get(st.shape);
      borrowed.set(st.shape, before === undefined || before === p ? p : null);
    }
    for (const [shape, p] of borrowed) phaseOf[shape] = p ?? 'step';
    // A shape's Stage word: the one all its steps have (a shape whose steps have different words, or some none, is
    // phased as above).
    const words = new Map<number, 'prefill' | 'decode' | null>();
    for (const st of seq.steps) {
      const w = stage?.get(st.step) ?? null;
      const before = words.get(st.shape);
      words.set(st.shape, before === undefined || before === w ? w : null);
    }
    // Per shape: the steps that had it, and the lowest step's stream.
    const groups = new Map<number, { shape: number; phase: Phase; steps: number[]; first: number; stream: number }>();
    for (const st of seq.steps) {
      steps.add(st.step);
      const word = words.get(st.shape) ?? null;
      const phase: Phase = word ?? phaseOf[st.shape]!;
      if (word !== null) byStage = true;
      else if (phase !== 'step') byKernels = true;
      notePhase(phase, st.step);
      const g = groups.get(st.shape);
      if (g === undefined) groups.set(st.shape, { shape: st.shape, phase, steps: [st.step], first: st.step, stream: st.stream });
      else {
        g.steps.push(st.step);
        if (st.step < g.first) {
          g.first = st.step;
          g.stream = st.stream;
        }
      }
    }
    // Where each entry's sites sit in their layers (after the marker, before it, or unknown: the nearest), as its
    // sites at the ends of the steps tell, fused and unfused, in every shape of the lane that has the same marker
    // (sites past the last LightningIndexer of one shape say nothing of where they sit beside another's SwiGlu).
    const phaseOfEntry = entries.map((_, k) => {
      const byMarker = new Map<number | null, LayerPhase>();
      for (const m of new Set(markerOf))
        byMarker.set(
          m,
          layerPhase(
            seq.shapes.flatMap((_, i) =>
              markerOf[i] !== m
                ? []
                : found[i]![k]!.map((site) => ({
                    markers: layersOf[i]!.positions,
                    start: Math.min(...site.positions),
                    end: Math.max(...site.positions) + 1,
                  })),
            ),
          ),
        );
      return byMarker;
    });
    for (const g of groups.values()) {
      const shape = seq.shapes[g.shape]!;
      const layers = layersOf[g.shape]!;
      if (layers.mtp) for (const st of g.steps) notePhase('mtp', st);
      entries.forEach((entry, k) => {
        const a = acc[k]!;
        found[g.shape]![k]!.forEach((site, n) => {
          let ticks = 0;
          for (const p of site.positions) ticks += shape.sumTicks[p]!;
          const share = ticks;
          const start = Math.min(...site.positions);
          const end = Math.max(...site.positions) + 1;
          const where = siteLayer(layers, start, end, phaseOfEntry[k]!.get(markerOf[g.shape]!)!);
          const phase: Phase = where.mtp ? 'mtp' : g.phase;
          const layer = entry.perLayer ? (layers.positions.length > 0 ? where.layer : n) : null;
          const at: SiteAt = { step: g.first, stream: seq.streams[g.stream] ?? '-', index: start, file: null, line: null };
          const f = figures(k, phase);
          countStep(k, phase, g.steps, site.fused);
          if (site.fused) {
            f.fusedCount += g.steps.length;
            f.fusedTicks += share;
            addSite(a.fused, { rank, phase, layer, chain: null }, g.steps, share, null, at);
          } else {
            f.unfusedCount += g.steps.length;
            f.unfusedTicks += share;
            const types = site.positions.map((p) => seq.tokens[shape.tokens[p]!]!);
            addSite(a.unfused, { rank, phase, layer, chain: site.chain }, g.steps, share, types, at);
          }
        });
      });
    }
  }
  return {
    input,
    ranks,
    steps: [...steps].sort((x, y) => x - y),
    phaseSteps: PHASES.filter((p) => phaseSteps.has(p)).map((p) => ({ phase: p, steps: [...phaseSteps.get(p)!].sort((x, y) => x - y) })),
    phaseSource: byStage ? 'stage' : byKernels ? 'kernels' : 'none',
    markers,
    kernels,
    skippedRows: 0,
    notAudited: {
      withoutStep: parts.reduce((n, p) => n + p.seq.stats.withoutStep, 0),
      pastLaneLimit: parts.reduce((n, p) => n + p.seq.stats.pastLaneLimit, 0),
    },
    entries: entries.map((entry, k) => {
      const a = acc[k]!;
      const fc = [...a.phases.values()].reduce((n, f) => n + f.fusedCount, 0);
      const ft = [...a.phases.values()].reduce((n, f) => n + f.fusedTicks, 0);
      const uc = [...a.phases.values()].reduce((n, f) => n + f.unfusedCount, 0);
      const ut = [...a.phases.values()].reduce((n, f) => n + f.unfusedTicks, 0);
      const status: AuditStatus = fc > 0 ? (uc > 0 ? 'fallback' : 'fused') : uc > 0 ? 'unfused' : 'absent';
      return {
        entry,
        fusedCount: fc,
        fusedTicks: ft,
        unfusedCount: uc,
        unfusedTicks: ut,
        status,
        phases: PHASES.filter((p) => a.phases.has(p)).map((p) => a.phases.get(p)!),
        fusedSites: sites(a.fused),
        unfusedSites: sites(a.unfused),
        byStep: a.byStep,
      };
    }),
  };
}

/** Why a profile's recorded ranks cannot be audited, or null. */
export function unauditable(ranks: { rank: string; beside?: unknown; files: { path: string }[] }[]): string | null {
  for (const r of ranks) {
    if (r.beside === undefined) return `${r.files[0]?.path ?? r.rank}: a summary JSON holds totals per group, not the kernels in the order they ran`;
    for (const b of r.beside as RecordedRank[]) {
      if (b.unordered !== null) return `${b.unordered}: ${totalsText(b.unordered)}, not the kernels in the order they ran`;
      if (b.withoutSteps !== null) return `${b.withoutSteps}: no Step Id column, so kernels cannot be put in steps`;
    }
  }
  return null;
}

/**
 * Step Ids as ranges: 1-4,7. Of more than 8 ranges, the first 6, `…`, the last and how many steps (`1,3,5,7,9,11,…,1999
 * (1,000 steps)`): a site of every other step of a long run, or the prefill steps of a serving run, were a line of
 * thousands of ranges. JSON lists them all.
 */
export function stepRanges(steps: number[]): string {
  const out: string[] = [];
  let i = 0;
  while (i < steps.length) {
    let j = i;
    while (j + 1 < steps.length && steps[j + 1] === steps[j]! + 1) j++;
    out.push(j > i ? `${steps[i]}-${steps[j]}` : `${steps[i]}`);
    i = j + 1;
  }
  return out.length > 8 ? `${out.slice(0, 6).join(',')},…,${out[out.length - 1]} (${fmtCount(steps.length)} steps)` : out.join(',');
}
