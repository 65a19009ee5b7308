// The rows of a diff as columns (issue 24): a diff by name of a million distinct names has a million rows, and a
// DiffRow object of some 20 fields, its two Side objects and its boxed doubles cost ~310 bytes a row held. Here a
// row is its key, its two groups' positions in the summaries' lists, four doubles (the count and time of each side:
// every other figure of a row is made from them, as diff.ts made it), its status and the index of its time
// judgement in a list of the judgements alike held once: ~60 bytes in typed arrays. What few rows have (the
// per-rank and per-step checks' findings) is kept by row in Maps. `DiffRowView` is a row as the DiffRow the
// reporters read: one object a row (the row list's identity is what views of a diff filter and fold by), with
// only its table and index as fields. The row types are here too (diff.ts imports this module and exports them).

import { isTimeNoise, type TimeJudgement } from './timeTest.js';
import type { Group, GroupFields } from '../model/model.js';
import { listReader } from '../model/fineGroups.js';

export const DIFF_STATUSES = ['removed', 'added', 'fewer', 'more', 'same'] as const;
export type DiffStatus = (typeof DIFF_STATUSES)[number];

/** One side of a row: a count and a time, per step when normalised (then the count may be fractional). */
export interface Side {
  count: number;
  us: number;
}

/** Both sides of a row or of the totals, and how they differ. */
export interface DiffFigures {
  base: Side;
  pr: Side;
  deltaCount: number;
  /** null when the base count is zero. */
  deltaCountPct: number | null;
  deltaUs: number;
  /** null when the base time is zero. */
  deltaUsPct: number | null;
  /** The time change is shown as `~`: the steps do not support it, or it is within --time-tolerance (see timeTest.ts). */
  timeNoise: boolean;
  /** How the time change was judged: the test over per-step samples, or the tolerance alone. */
  timeTest: TimeJudgement;
}

export interface DiffRow extends DiffFigures, GroupFields {
  status: DiffStatus;
  /**
   * With several paired ranks: the status most ranks show (more than half of the ranks that have the group on
   * either side), or null when no status has a majority.
   */
  rankStatus: DiffStatus | null;
  /** How many paired ranks have the group on either side (0 with fewer than two paired ranks). */
  ranksCompared: number;
  /**
   * The change most compared ranks show, by its size (the factor PR ÷ base, or `added`): one of those ranks, and
   * how many show it. null when no change has a majority (or fewer than two paired ranks).
   */
  rankMajority: { change: RankDisagreement; ranks: number } | null;
  /**
   * Ranks whose own change differs from the one most ranks show, in status or in size (all compared ranks when
   * no change has a majority).
   */
  disagreeingRanks: RankDisagreement[];
  /** Per rank, the steps whose change differs from the one most of that rank's steps show (see checkSteps). */
  unevenSteps: UnevenSteps[];
}

export interface RankDisagreement {
  rank: string;
  status: DiffStatus;
  /** The rank's count on each side (per step of that rank when normalised). */
  base: number;
  pr: number;
  /** pr − base. */
  deltaCount: number;
  /** The change in percent of the base; null when the base is zero. */
  deltaCountPct: number | null;
}

/** A step of the PR on one rank, against the base. */
export interface StepChange {
  /** The PR's Step Id. */
  step: number;
  /**
   * The base step it is compared with (the same Step Id), or null when the base has no step of that Step Id and
   * ran the group alike in every step: then compared with that count.
   */
  baseStep: number | null;
  base: number;
  pr: number;
  deltaCount: number;
}

/** A group whose change on one rank was not the same in every step (a fusion that took effect in some only). */
export interface UnevenSteps {
  rank: string;
  stepsCompared: number;
  /**
   * The change the steps are held to, and in how many steps it was seen: the one most steps show, or without
   * a majority no change at all (when some steps did not change); null when neither.
   */
  reference: { deltaCount: number; steps: number } | null;
  /** Steps whose change differs from the reference (all steps without one), in step order. */
  steps: StepChange[];
}

/** The statuses by their code in DiffRowTable.status. */
const STATUS_OF: readonly DiffStatus[] = DIFF_STATUSES;
const CODE_OF = { removed: 0, added: 1, fewer: 2, more: 3, same: 4 } as const satisfies Record<DiffStatus, number>;
/** rankStatus null. */
const NO_STATUS = 255;

/** A row's judgement until it is judged (every row of a diff is). */
export const NOT_JUDGED: TimeJudgement = Object.freeze({ verdict: 'no-steps', withinTolerance: false, test: null, strata: 0 });

/** A row's ranks or steps before any disagrees (the checks give a row its own list). */
export const NO_DISAGREEMENT: RankDisagreement[] = Object.freeze([]) as unknown as RankDisagreement[];
export const NO_UNEVEN_STEPS: UnevenSteps[] = Object.freeze([]) as unknown as UnevenSteps[];

/**
 * Judgements alike, held once: a diff of a million groups that each run in one step has a million judgements of a
 * handful of kinds (and their tests). Nothing writes to a judgement once made. At most JUDGEMENTS_HELD kinds are
 * looked up; past them, judgements are kept as made.
 */
const JUDGEMENTS_HELD = 4096;

/** A number's text that tells every double apart (-0 too). */
function num(x: number): string {
  return Object.is(x, -0) ? '-0' : String(x);
}

/** Two judgements of the same figures (as judge's key tells them apart: every double, -0 too). */
function sameFigures(a: TimeJudgement, b: TimeJudgement): boolean {
  if (a.verdict !== b.verdict || a.withinTolerance !== b.withinTolerance || !Object.is(a.strata, b.strata)) return false;
  const x = a.test;
  const y = b.test;
  if (x === null || y === null) return x === y;
  return x.method === y.method && Object.is(x.u, y.u) && Object.is(x.p, y.p) && Object.is(x.n1, y.n1) && Object.is(x.n2, y.n2);
}

/** Two judgements of the same fields (TimeJudgement and UTest, whose fields the key names). */
function sameJudgement(a: TimeJudgement, b: TimeJudgement): boolean {
  return sameKeys(a, b) && (a.test === null ? b.test === null : b.test !== null && sameKeys(a.test, b.test));
}

/** Two objects of the same own enumerable keys. */
function sameKeys(a: object, b: object): boolean {
  const ka = Object.keys(a);
  return ka.length === Object.keys(b).length && ka.every((k) => Object.hasOwn(b, k));
}

export class DiffRowTable {
  readonly size: number;
  readonly keys: string[];
  /** Row i's group of the base at 2i, of the PR at 2i + 1: its position in its side's list (-1: none, -2: #own). */
  readonly #pos: Int32Array;
  /** Groups at no position of their list (a key set twice: KeyIndex keeps the last), by their place in #pos. */
  readonly #own = new Map<number, Group>();
  /** Per row: base count, base µs, PR count, PR µs (per step when normalised). */
  readonly figures: Float64Array;
  readonly status: Uint8Array;
  /** Per row, its judgement's index in `judgements`. */
  readonly judgement: Int32Array;
  readonly judgements: TimeJudgement[] = [NOT_JUDGED];
  readonly rankStatus: Uint8Array;
  #ranksCompared: Int32Array | null = null;
  readonly rankMajority = new Map<number, { change: RankDisagreement; ranks: number }>();
  readonly disagreeingRanks = new Map<number, RankDisagreement[]>();
  readonly unevenSteps = new Map<number, UnevenSteps[]>();
  readonly #held = new Map<string, number>();
  /** The judgement given last (0: none yet). */
  #last = 0;
  /** The group at a position of each side's list (made on read in a list of namedGroups: listReader). */
  readonly #at: readonly ((i: number) => Group)[];

  constructor(size: number, baseList: readonly Group[], prList: readonly Group[]) {
    this.#at = [listReader(baseList).group, listReader(prList).group];
    this.size = size;
    this.keys = new Array<string>(size).fill('');
    this.#pos = new Int32Array(2 * size).fill(-1);
    this.figures = new Float64Array(4 * size);
    this.status = new Uint8Array(size);
    this.judgement = new Int32Array(size);
    this.rankStatus = new Uint8Array(size).fill(NO_STATUS);
  }

  /** Row `i`'s group of the base (side 0), of the PR (1), or undefined; its fields (type, name, …) are read from them. */
  group(i: number, side: 0 | 1): Group | undefined {
    const at = this.#pos[2 * i + side]!;
    return at >= 0 ? this.#at[side]!(at) : at === -1 ? undefined : this.#own.get(2 * i + side);
  }

  /** Row `i`: its key, its groups (and each one's position in its list, -1 if not there), figures and status. */
  set(i: number, key: string, b: Group | undefined, bAt: number, p: Group | undefined, pAt: number, base: Side, pr: Side, status: DiffStatus): void {
    this.keys[i] = key;
    this.#pos[2 * i] = b === undefined ? -1 : bAt >= 0 ? bAt : -2;
    this.#pos[2 * i + 1] = p === undefined ? -1 : pAt >= 0 ? pAt : -2;
    if (b !== undefined && bAt < 0) this.#own.set(2 * i, b);
    if (p !== undefined && pAt < 0) this.#own.set(2 * i + 1, p);
    const f = this.figures;
    f[4 * i] = base.count;
    f[4 * i + 1] = base.us;
    f[4 * i + 2] = pr.count;
    f[4 * i + 3] = pr.us;
    this.status[i] = CODE_OF[status];
  }

  /** Row `i`'s time judgement, held once with those alike. */
  judge(i: number, j: TimeJudgement): void {
    // Rows in a row are mostly judged alike (a million groups of one step each): the last judgement first.
    const last = this.judgements[this.#last]!;
    if (this.#last > 0 && sameFigures(last, j) && sameJudgement(last, j)) {
      this.judgement[i] = this.#last;
      return;
    }
    const t = j.test;
    const key = `${j.verdict} ${j.withinTolerance} ${num(j.strata)}${t === null ? '' : ` ${t.method} ${num(t.u)} ${num(t.p)} ${num(t.n1)} ${num(t.n2)}`}`;
    const had = this.#held.get(key);
    if (had !== undefined && sameJudgement(this.judgements[had]!, j)) {
      this.judgement[i] = had;
      this.#last = had;
      return;
    }
    const at = this.judgements.length;
    this.judgements.push(j);
    if (this.#held.size < JUDGEMENTS_HELD) this.#held.set(key, at);
    this.judgement[i] = at;
    this.#last = at;
  }

  ranksCompared(i: number): number {
    return this.#ranksCompared === null ? 0 : this.#ranksCompared[i]!;
  }

  setRanksCompared(i: number, n: number): void {
    this.#ranksCompared ??= new Int32Array(this.size);
    this.#ranksCompared[i] = n;
  }

  /** The rows as DiffRows, in the table's order, or in `order` (row indices). */
  views(order?: ArrayLike<number>): DiffRow[] {
    const out = new Array<DiffRow>(this.size);
    for (let i = 0; i < this.size; i++) out[i] = new DiffRowView(this, order === undefined ? i : order[i]!);
    return out;
  }

  /**
   * The row indices in a diff's default order (diff.ts SORTS['delta-count'] on DiffRows): changed rows first, then
   * |Δ count|, |Δ time| (descending), ties by key; read from the columns (a million rows meet ~20 M times).
   */
  deltaCountOrder(): Int32Array {
    const f = this.figures;
    const st = this.status;
    const keys = this.keys;
    const order = new Int32Array(this.size);
    for (let i = 0; i < this.size; i++) order[i] = i;
    return order.sort(
      (a, b) =>
        (st[a] === CODE_OF.same ? 1 : 0) - (st[b] === CODE_OF.same ? 1 : 0) ||
        Math.abs(f[4 * b + 2]! - f[4 * b]!) - Math.abs(f[4 * a + 2]! - f[4 * a]!) ||
        Math.abs(f[4 * b + 3]! - f[4 * b + 1]!) - Math.abs(f[4 * a + 3]! - f[4 * a + 1]!) ||
        (keys[a]! < keys[b]! ? -1 : keys[a]! > keys[b]! ? 1 : 0),
    );
  }
}

function pct(delta: number, base: number): number | null {
  return base === 0 ? null : (100 * delta) / base;
}

/** Of a field of the row's groups: the PR group's when it has one, else the base group's (as {...b, ...p}). */
function field<K extends 'type' | 'name' | 'core' | 'shapes' | 'userGroup'>(t: DiffRowTable, i: number, k: K): string | undefined {
  const v = t.group(i, 1)?.[k];
  return v !== undefined ? v : t.group(i, 0)?.[k];
}

/** One row of a DiffRowTable as a DiffRow. Its figures are read from the columns on each read. */
export class DiffRowView implements DiffRow {
  readonly #t: DiffRowTable;
  readonly #i: number;

  constructor(t: DiffRowTable, i: number) {
    this.#t = t;
    this.#i = i;
  }
  get key(): string {
    return this.#t.keys[this.#i]!;
  }
  /** The row's group of a side (undefined: none). */
  group(side: 'base' | 'pr'): Group | undefined {
    return this.#t.group(this.#i, side === 'base' ? 0 : 1);
  }
  get type(): string | undefined {
    return field(this.#t, this.#i, 'type');
  }
  get name(): string | undefined {
    return field(this.#t, this.#i, 'name');
  }
  get core(): string | undefined {
    return field(this.#t, this.#i, 'core');
  }
  get shapes(): string | undefined {
    return field(this.#t, this.#i, 'shapes');
  }
  get userGroup(): string | undefined {
    return field(this.#t, this.#i, 'userGroup');
  }
  get status(): DiffStatus {
    return STATUS_OF[this.#t.status[this.#i]!]!;
  }
  get base(): Side {
    const f = this.#t.figures;
    return { count: f[4 * this.#i]!, us: f[4 * this.#i + 1]! };
  }
  get pr(): Side {
    const f = this.#t.figures;
    return { count: f[4 * this.#i + 2]!, us: f[4 * this.#i + 3]! };
  }
  get deltaCount(): number {
    const f = this.#t.figures;
    return f[4 * this.#i + 2]! - f[4 * this.#i]!;
  }
  get deltaCountPct(): number | null {
    const f = this.#t.figures;
    return pct(f[4 * this.#i + 2]! - f[4 * this.#i]!, f[4 * this.#i]!);
  }
  get deltaUs(): number {
    const f = this.#t.figures;
    return f[4 * this.#i + 3]! - f[4 * this.#i + 1]!;
  }
  get deltaUsPct(): number | null {
    const f = this.#t.figures;
    return pct(f[4 * this.#i + 3]! - f[4 * this.#i + 1]!, f[4 * this.#i + 1]!);
  }
  get timeTest(): TimeJudgement {
    return this.#t.judgements[this.#t.judgement[this.#i]!]!;
  }
  /** As diff.ts judges a row: isTimeNoise of its judgement (false until judged). */
  get timeNoise(): boolean {
    return isTimeNoise(this.timeTest);
  }
  get rankStatus(): DiffStatus | null {
    const s = this.#t.rankStatus[this.#i]!;
    return s === NO_STATUS ? null : STATUS_OF[s]!;
  }
  set rankStatus(s: DiffStatus | null) {
    this.#t.rankStatus[this.#i] = s === null ? NO_STATUS : CODE_OF[s];
  }
  get ranksCompared(): number {
    return this.#t.ranksCompared(this.#i);
  }
  set ranksCompared(n: number) {
    this.#t.setRanksCompared(this.#i, n);
  }
  get rankMajority(): { change: RankDisagreement; ranks: number } | null {
    return this.#t.rankMajority.get(this.#i) ?? null;
  }
  set rankMajority(m: { change: RankDisagreement; ranks: number } | null) {
    if (m === null) this.#t.rankMajority.delete(this.#i);
    else this.#t.rankMajority.set(this.#i, m);
  }
  get disagreeingRanks(): RankDisagreement[] {
    return this.#t.disagreeingRanks.get(this.#i) ?? NO_DISAGREEMENT;
  }
  set disagreeingRanks(l: RankDisagreement[]) {
    this.#t.disagreeingRanks.set(this.#i, l);
  }
  get unevenSteps(): UnevenSteps[] {
    return this.#t.unevenSteps.get(this.#i) ?? NO_UNEVEN_STEPS;
  }
  set unevenSteps(l: UnevenSteps[]) {
    this.#t.unevenSteps.set(this.#i, l);
  }
  get [Symbol.toStringTag](): string {
    return 'DiffRowView';
  }
  /** As JSON, the plain row it stands for. */
  toJSON(): DiffRow {
    const r: DiffRow = {
      key: this.key,
      status: this.status,
      base: this.base,
      pr: this.pr,
      deltaCount: this.deltaCount,
      deltaCountPct: this.deltaCountPct,
      deltaUs: this.deltaUs,
      deltaUsPct: this.deltaUsPct,
      timeNoise: this.timeNoise,
      timeTest: this.timeTest,
      rankStatus: this.rankStatus,
      ranksCompared: this.ranksCompared,
      rankMajority: this.rankMajority,
      disagreeingRanks: this.disagreeingRanks,
      unevenSteps: this.unevenSteps,
    };
    for (const k of ['type', 'name', 'core', 'shapes', 'userGroup'] as const) {
      const v = this[k];
      if (v !== undefined) r[k] = v;
    }
    return r;
  }
}
