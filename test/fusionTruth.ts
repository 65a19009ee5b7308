// A generator of decode profiles whose truth is known, written apart from the rewrites engine and from
// test/decodeGen.ts (but for its seeded PRNG), so that what it asserts is the model's and not the code's: a
// vllm-ascend decode run of a DeepSeek-like model (dense first layers, then MoE layers, optionally one MTP layer),
// N profiled steps on one or more ranks, as torch_npu writes it (`<side>/<host>_<pid>_<ts>_ascend_pt/ASCEND_PROFILER_OUTPUT/kernel_details.csv`
// beside `profiler_info_<rank>.json`; communication kernels named with their per-call counter, on a stream of their
// own). The PR side applies known fusions at known sites (a fusion, a rank, a step and a layer), and the generator
// keeps a ledger of every site: which chain or fused kernel ran there and for how long, to the nanosecond. The truth
// of a case (chains per step, layers, ranks, the time saved) is computed from the two ledgers, never from a profile.

import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { prng } from './decodeGen.js';

/** A kernel type: its aclnn launch name, core and mean duration (ns). */
interface Kind {
  name: string;
  core: string;
  ns: number;
}

const k = (launch: string, type: string, core: string, us: number): Kind => ({
  name: `aclnn${launch}_${type}_${type}`,
  core,
  ns: Math.round(us * 1000),
});

/** Kernel types by `Type`, with realistic decode durations (batch 32, hidden 7168, TP 2). */
export const KINDS: Record<string, Kind> = {
  GatherV2: k('Embedding', 'GatherV2', 'AI_VECTOR_CORE', 6.1),
  RmsNorm: k('RmsNorm', 'RmsNorm', 'AI_VECTOR_CORE', 4.8),
  AddRmsNorm: k('AddRmsNorm', 'AddRmsNorm', 'AI_VECTOR_CORE', 6.4),
  DynamicQuant: k('DynamicQuant', 'DynamicQuant', 'AI_VECTOR_CORE', 4.1),
  QuantBatchMatmulV3: k('QuantMatmulV4', 'QuantBatchMatmulV3', 'AI_CORE', 21.5),
  BatchMatMulV3: k('BatchMatMul', 'BatchMatMulV3', 'AI_CORE', 9.0),
  InterleaveRope: k('InterleaveRope', 'InterleaveRope', 'AI_VECTOR_CORE', 3.3),
  KvRmsNormRopeCache: k('KvRmsNormRopeCache', 'KvRmsNormRopeCache', 'AI_VECTOR_CORE', 5.6),
  MlaPrologV3: k('MlaPrologV3', 'MlaPrologV3', 'MIX_AIC', 41.2),
  LightningIndexer: k('LightningIndexer', 'LightningIndexer', 'MIX_AIC', 21.3),
  SparseFlashAttention: k('SparseFlashAttention', 'SparseFlashAttention', 'MIX_AIC', 52.4),
  SwiGlu: k('SwiGlu', 'SwiGlu', 'AI_VECTOR_CORE', 4.2),
  SwiGluQuant: k('SwiGluQuant', 'SwiGluQuant', 'AI_VECTOR_CORE', 5.0),
  MatMulV3: k('Matmul', 'MatMulV3', 'AI_CORE', 7.5),
  MoeGatingTopK: k('MoeGatingTopK', 'MoeGatingTopK', 'AI_VECTOR_CORE', 5.8),
  MoeInitRoutingV3: k('MoeInitRoutingV3', 'MoeInitRoutingV3', 'AI_VECTOR_CORE', 9.6),
  GroupedMatmul: k('GroupedMatmulV4', 'GroupedMatmul', 'AI_CORE', 80.0),
  DequantSwigluQuant: k('DequantSwigluQuant', 'DequantSwigluQuant', 'AI_VECTOR_CORE', 6.5),
  GroupedMatmulSwigluQuant: k('GroupedMatmulSwigluQuant', 'GroupedMatmulSwigluQuant', 'AI_CORE', 83.0),
  MoeFinalizeRoutingV2: k('MoeFinalizeRoutingV2', 'MoeFinalizeRoutingV2', 'AI_VECTOR_CORE', 7.8),
  Add: k('Add', 'Add', 'AI_VECTOR_CORE', 2.9),
  ConcatD: k('Cat', 'ConcatD', 'AI_VECTOR_CORE', 3.5),
  Cast: k('Cast', 'Cast', 'AI_VECTOR_CORE', 12.4),
  ArgMaxV2: k('ArgMax', 'ArgMaxV2', 'AI_VECTOR_CORE', 9.2),
  TransData: k('TransData', 'TransData', 'AI_VECTOR_CORE', 3.1),
};

/** The fusions the PR can apply: the chain it replaces (types, in order) and the kernel that replaces it. */
export const FUSIONS = {
  /** The MLA attention prolog of every layer (the MTP layer's too), before the indexer. */
  prolog: {
    chain: [
      'DynamicQuant',
      'QuantBatchMatmulV3',
      'RmsNorm',
      'DynamicQuant',
      'QuantBatchMatmulV3',
      'BatchMatMulV3',
      'InterleaveRope',
      'KvRmsNormRopeCache',
    ],
    fused: 'MlaPrologV3',
  },
  /** The routed experts' up projection and activation of the MoE layers. */
  gmm: { chain: ['GroupedMatmul', 'DequantSwigluQuant'], fused: 'GroupedMatmulSwigluQuant' },
  /** The activation and quantisation of the dense layers' MLP. */
  swiglu: { chain: ['SwiGlu', 'DynamicQuant'], fused: 'SwiGluQuant' },
} as const;
export type FusionId = keyof typeof FUSIONS;

export type LayerKind = 'dense' | 'moe' | 'mtp';

/** One place a fusion can happen: a layer of a step of a rank. */
export interface Site {
  rank: number;
  step: number;
  layer: number;
  kind: LayerKind;
}

export interface RankSpec {
  rank: number;
  /** Decoder layers of this rank (the MTP layer not counted). */
  layers: number;
  /** How many of them are dense (the first ones). */
  dense: number;
  /** An MTP layer after the main model (a MoE layer with its own norms and projection). */
  mtp: boolean;
}

export interface SideSpec {
  ranks: RankSpec[];
  /** Step Ids profiled (the same on every rank unless `stepsOf` says otherwise). */
  steps: number[];
  stepsOf?: (rank: number) => number[];
  /** Whether the fusion ran at this site (the base: never). */
  fused?: (f: FusionId, site: Site) => boolean;
  /** The last profiled step of this rank stops after this many decoder layers (the profile ended mid-step). */
  cut?: { rank: number; step: number; layers: number };
  /** A sampler Cast is no longer run (one kernel fewer in every step, unrelated to any fusion). */
  dropSamplerCast?: boolean;
  /** One TransData more in these steps (rank:step), right before the lm head. */
  extraTransData?: string[];
  seed: number;
}

/** What the generator wrote at one site of a fusion: the chain or the fused kernel, and its summed duration. */
export interface LedgerEntry extends Site {
  fusion: FusionId;
  fused: boolean;
  ns: number;
}

export interface Row {
  step: number;
  stream: number;
  type: string;
  name: string;
  core: string;
  startNs: number;
  durNs: number;
}

export interface Generated {
  /** Rows of each rank in start order. */
  rows: Map<number, Row[]>;
  ledger: LedgerEntry[];
}

const COMPUTE = 2;
const COMM = 8;

/** Writes one side's kernels and ledger, rank by rank and step by step. */
export function generate(spec: SideSpec): Generated {
  const rand = prng(spec.seed);
  // Noise of about 3% (a sum of uniforms), durations to the nanosecond.
  const dur = (type: string): number => {
    let s = 0;
    for (let i = 0; i < 6; i++) s += rand();
    return Math.max(500, Math.round(KINDS[type]!.ns * (1 + 0.03 * (s - 3) * Math.SQRT2)));
  };
  const rows = new Map<number, Row[]>();
  const ledger: LedgerEntry[] = [];
  for (const r of spec.ranks) {
    const out: Row[] = [];
    let t = 1_000_000 + r.rank * 7_000;
    let call = 0;
    const steps = spec.stepsOf?.(r.rank) ?? spec.steps;
    for (const step of steps) {
      const emit = (type: string): number => {
        const d = dur(type);
        const kind = KINDS[type]!;
        out.push({ step, stream: COMPUTE, type, name: kind.name, core: kind.core, startNs: t, durNs: d });
        t += d + 600 + Math.floor(rand() * 900);
        return d;
      };
      const comm = (op: 'allReduce' | 'allGather' | 'alltoAllV', us: number): void => {
        call++;
        // The collective starts while the compute stream goes on; its name carries the call counter.
        out.push({
          step,
          stream: COMM,
          type: `hcom_${op}_`,
          name: `hcom_${op}__417_${call}_1`,
          core: 'COMMUNICATION',
          startNs: t - 300,
          durNs: Math.round(us * 1000 * (0.9 + 0.2 * rand())),
        });
      };
      const chainOrFused = (f: FusionId, site: Site): void => {
        const isFused = spec.fused?.(f, site) ?? false;
        const types: readonly string[] = isFused ? [FUSIONS[f].fused] : FUSIONS[f].chain;
        let ns = 0;
        for (const type of types) ns += emit(type);
        ledger.push({ ...site, fusion: f, fused: isFused, ns });
      };
      const layer = (site: Site): void => {
        chainOrFused('prolog', site);
        emit('LightningIndexer');
        emit('SparseFlashAttention');
        emit('BatchMatMulV3');
        emit('DynamicQuant');
        emit('QuantBatchMatmulV3');
        comm('allReduce', 31);
        emit('AddRmsNorm');
        if (site.kind === 'dense') {
          emit('DynamicQuant');
          emit('QuantBatchMatmulV3');
          chainOrFused('swiglu', site);
          emit('QuantBatchMatmulV3');
          comm('allReduce', 29);
        } else {
          emit('MatMulV3');
          emit('MoeGatingTopK');
          emit('DynamicQuant');
          emit('MoeInitRoutingV3');
          comm('alltoAllV', 48);
          chainOrFused('gmm', site);
          emit('GroupedMatmul');
          comm('alltoAllV', 46);
          emit('MoeFinalizeRoutingV2');
          // The shared expert.
          emit('DynamicQuant');
          emit('QuantBatchMatmulV3');
          emit('DequantSwigluQuant');
          emit('QuantBatchMatmulV3');
          emit('Add');
          comm('allReduce', 30);
        }
      };
      const cut = spec.cut && spec.cut.rank === r.rank && spec.cut.step === step ? spec.cut.layers : undefined;
      emit('GatherV2');
      for (let l = 0; l < r.layers; l++) {
        if (cut !== undefined && l === cut) break;
        emit(l === 0 ? 'RmsNorm' : 'AddRmsNorm');
        layer({ rank: r.rank, step, layer: l, kind: l < r.dense ? 'dense' : 'moe' });
      }
      if (cut === undefined) {
        emit('AddRmsNorm');
        if (spec.extraTransData?.includes(`${r.rank}:${step}`)) emit('TransData');
        emit('MatMulV3');
        comm('allGather', 52);
        if (!spec.dropSamplerCast) emit('Cast');
        emit('ArgMaxV2');
        if (r.mtp) {
          // The draft layer: embedding and hidden state normed, concatenated and projected, then a MoE layer.
          emit('GatherV2');
          emit('RmsNorm');
          emit('RmsNorm');
          emit('ConcatD');
          emit('MatMulV3');
          emit('RmsNorm');
          layer({ rank: r.rank, step, layer: r.layers, kind: 'mtp' });
          emit('AddRmsNorm');
          emit('MatMulV3');
          comm('allGather', 52);
          emit('ArgMaxV2');
        }
      }
      // The host launches the next step after a gap.
      t += 40_000 + Math.floor(rand() * 5_000);
    }
    out.sort((a, b) => a.startNs - b.startNs);
    rows.set(r.rank, out);
  }
  return { rows, ledger };
}

const HEADER =
  'Step Id,Device_id,Model ID,Task ID,Stream ID,Name,Type,OP State,Accelerator Core,Start Time(us),Duration(us),Wait Time(us),Block Num,Mix Block Num,HF32 Eligible,Input Shapes,Input Data Types,Input Formats,Output Shapes,Output Data Types,Output Formats,Context ID';

/** A time in ns as torch_npu writes µs: a large epoch, three decimals, a trailing TAB. */
const us = (ns: number): string => `${Math.floor(ns / 1000)}.${String(ns % 1000).padStart(3, '0')}`;
const EPOCH_US = 1773221712000000;
const startUs = (ns: number): string => `${EPOCH_US + Math.floor(ns / 1000)}.${String(ns % 1000).padStart(3, '0')}\t`;

/** The kernel_details.csv of one rank (CRLF, as torch_npu's csv.writer writes). */
export function kernelDetails(rows: Row[], rank: number): string {
  const lines = [HEADER];
  let task = 18000;
  for (const r of rows) {
    const comm = r.core === 'COMMUNICATION';
    lines.push(
      [
        r.step,
        rank,
        4294967295,
        comm ? 'N/A' : task++,
        r.stream,
        r.name,
        r.type,
        comm ? 'N/A' : 'dynamic',
        r.core,
        startUs(r.startNs),
        us(r.durNs),
        '0.500000',
        comm ? 0 : 48,
        comm ? 'N/A' : 0,
        comm ? 'N/A' : 'NO',
        comm ? 'N/A' : '"""32,7168"""',
        comm ? 'N/A' : 'DT_BF16',
        comm ? 'N/A' : 'ND',
        comm ? 'N/A' : '"""32,7168"""',
        comm ? 'N/A' : 'DT_BF16',
        comm ? 'N/A' : 'ND',
        'N/A',
      ].join(','),
    );
  }
  return `${lines.join('\r\n')}\r\n`;
}

/** Writes a side as torch_npu lays out a run of several ranks in one folder; returns the folder. */
export function writeSide(dir: string, g: Generated, pid: number): string {
  for (const [rank, rows] of g.rows) {
    const run = join(dir, `node-03_${pid + rank}_20260311093512${String(417 + rank).padStart(3, '0')}_ascend_pt`);
    mkdirSync(join(run, 'ASCEND_PROFILER_OUTPUT'), { recursive: true });
    writeFileSync(join(run, `profiler_info_${rank}.json`), `${JSON.stringify({ rank_id: String(rank) }, null, 4)}\n`);
    writeFileSync(join(run, 'ASCEND_PROFILER_OUTPUT', 'kernel_details.csv'), kernelDetails(rows, rank));
  }
  return dir;
}

/** The truth of one fusion between a base and a PR, from their ledgers (steps paired by rank and Step Id). */
export interface FusionTruth {
  /** Sites where the PR ran the fused kernel and the base the chain, in steps both sides have. */
  chains: number;
  /** Per step of the ranks where it happened: the fewest and the most such sites. */
  perStep: { min: number; max: number };
  ranks: string[];
  /** Layers (from 0 on each rank) where it happened at least once. */
  layers: number[];
  /** Sites where the PR still ran the chain (rank, layer), in steps both sides have. */
  notFused: { rank: string; layer: number; steps: number[] }[];
  /** PR minus base, over every site of the fusion in steps both sides have (ns). */
  savingNs: number;
  /** The same over the fused sites only: what the fusion itself saved (ns). */
  fusedSavingNs: number;
  /** Base's chain time at the fused sites, and the PR's fused time there (ns, for medians). */
  baseChainNs: number[];
  prFusedNs: number[];
}

export function truthOf(f: FusionId, base: Generated, pr: Generated): FusionTruth {
  const key = (e: Site): string => `${e.rank}:${e.step}:${e.layer}`;
  const b = new Map(base.ledger.filter((e) => e.fusion === f).map((e) => [key(e), e]));
  const perStep = new Map<string, number>();
  const ranks = new Set<number>();
  const layers = new Set<number>();
  const nf = new Map<string, { rank: string; layer: number; steps: number[] }>();
  const t: FusionTruth = {
    chains: 0,
    perStep: { min: 0, max: 0 },
    ranks: [],
    layers: [],
    notFused: [],
    savingNs: 0,
    fusedSavingNs: 0,
    baseChainNs: [],
    prFusedNs: [],
  };
  const pairedSteps = new Set<string>();
  for (const e of pr.ledger) if (e.fusion === f && b.has(key(e))) pairedSteps.add(`${e.rank}:${e.step}`);
  for (const e of pr.ledger) {
    if (e.fusion !== f) continue;
    const be = b.get(key(e));
    if (!be) continue;
    t.savingNs += e.ns - be.ns;
    if (e.fused && !be.fused) {
      t.chains++;
      t.fusedSavingNs += e.ns - be.ns;
      t.baseChainNs.push(be.ns);
      t.prFusedNs.push(e.ns);
      ranks.add(e.rank);
      layers.add(e.layer);
      perStep.set(`${e.rank}:${e.step}`, (perStep.get(`${e.rank}:${e.step}`) ?? 0) + 1);
    } else if (!e.fused) {
      const id = `${e.rank}:${e.layer}`;
      const s = nf.get(id) ?? { rank: String(e.rank), layer: e.layer, steps: [] };
      s.steps.push(e.step);
      nf.set(id, s);
    }
  }
  const counts = [...pairedSteps].filter((s) => ranks.has(Number(s.split(':')[0]))).map((s) => perStep.get(s) ?? 0);
  t.perStep = counts.length ? { min: Math.min(...counts), max: Math.max(...counts) } : { min: 0, max: 0 };
  t.ranks = [...ranks].sort((x, y) => x - y).map(String);
  t.layers = [...layers].sort((x, y) => x - y);
  t.notFused = [...nf.values()].sort((x, y) => Number(x.rank) - Number(y.rank) || x.layer - y.layer);
  return t;
}

export const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

/** Every kernel of a side by type, summed over ranks and steps (optionally only the steps `keep` says). */
export function countsByType(g: Generated, keep: (rank: number, step: number) => boolean = () => true): Map<string, number> {
  const m = new Map<string, number>();
  for (const [rank, rows] of g.rows)
    for (const r of rows) if (r.core !== 'COMMUNICATION' && keep(rank, r.step)) m.set(r.type, (m.get(r.type) ?? 0) + 1);
  return m;
}

/** A DeepSeek-like layout on `n` ranks of the same layers (tensor parallel). */
export const tp = (n: number, layers: number, dense: number, mtp: boolean): RankSpec[] =>
  [...Array(n).keys()].map((rank) => ({ rank, layers, dense, mtp }));

/** The Step Ids `from`, `from + 1`, … (`n` of them). */
export const stepIds = (n: number, from = 30): number[] => [...Array(n).keys()].map((i) => from + i);

/** The kernel count change by type (PR minus base, compute kernels) in the steps `keep` says. */
export function countChange(base: Generated, pr: Generated, keep?: (rank: number, step: number) => boolean): { removed: number; added: number } {
  const b = countsByType(base, keep);
  const p = countsByType(pr, keep);
  let removed = 0;
  let added = 0;
  for (const t of new Set([...b.keys(), ...p.keys()])) {
    const d = (p.get(t) ?? 0) - (b.get(t) ?? 0);
    if (d < 0) removed -= d;
    else added += d;
  }
  return { removed, added };
}
