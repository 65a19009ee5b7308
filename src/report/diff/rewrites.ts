// What the text formats of `kprof diff` (the terminal table, Markdown) say in the Fusion rewrites section: the
// heading, each rewrite (its chains, how often, where, the time of one chain on each side and the saving, where
// it did not happen), the lanes that could not be compared, the notes and the conservation line. Pure. Text from
// input (kernel names, ranks, file paths) goes through `code`: clipped() for the terminal, a code span in Markdown.
//
// Over 400 lines: the section's sentences, which the terminal, Markdown, HTML and JSON reporters share so that each
// says the same; split by format they would repeat the wording.

import type { RewritesSection } from '../../analysis/rewrites/section.js';
import type { Lane, NotFused, Rewrite, RewriteNote, Rewrites } from '../../analysis/rewrites/rewrites.js';
import type { Unavailable } from '../../analysis/rewrites/recorderSink.js';
import { compareRanks, groupLabel, keyLabel, TICKS_PER_US } from '../../model/model.js';
import type { Diff } from '../../analysis/diff.js';
import { REWRITES_VERSION, type DiffRewritesJson, type RewriteChainTimeJson } from '../../model/schema.js';
import { exactUs, fmtCount, fmtSignedUs, fmtUs, listed, plural, rankIdsText, ranksNamed, round4 } from '../../util/format.js';
import { relPath } from '../../util/paths.js';
import { entry } from '../../util/maps.js';
import { WHOLE } from '../../util/inputText.js';
import { idsText } from './shared.js';
import { noStepsText, orderedWithStepsText, totalsText } from '../../input/formats/registry.js';

type Code = (s: string, max?: number) => string;

export const REWRITES_TITLE = 'Fusion rewrites';

const us = (ticks: number): number => ticks / TICKS_PER_US;

/**
 * Ranks as every text format lists them (rankIdsText: `0–3` with an en dash, `0, 1`, each shown by `code`), in
 * numeric order when they are all whole numbers. (Steps and layers are ranges with a hyphen, `0-3`, as --steps
 * writes them.)
 */
export function ranksText(ranks: string[], code: Code): string {
  const ints = ranks.every((r) => /^(0|[1-9]\d{0,8})$/.test(r));
  return rankIdsText(ints ? [...ranks].sort((a, b) => Number(a) - Number(b)) : ranks, code);
}

/**
 * The diff's Fusion rewrites section with its kernel tokens (group keys under the diff's grouping) labelled as the
 * count table labels their rows, for the reports people read (the JSON report keeps the keys): `RmsNorm @ (empty)`
 * for a kernel of no core by type+core, not `RmsNorm @ `. A token without a row of its own (its kernels left out by
 * --exclude, or gathered in a --groups group) keeps its key; the empty key is `(empty)`. Only the section's tokens
 * are labelled (a diff by name has a million rows and a section of a few). The `--layer-marker` of a note is as the
 * user wrote it.
 */
export function labelled(d: Pick<Diff, 'groupBy' | 'rows'>, s: RewritesSection): RewritesSection {
  if (s.status !== 'ok') return s;
  const r = s.result;
  const labels = new Map<string, string>();
  const want = (t: string): void => {
    labels.set(t, keyLabel(t));
  };
  if (r.marker !== null) want(r.marker.token);
  for (const w of r.rewrites) for (const t of [...w.removed, ...w.added, ...w.notFused.flatMap((n) => n.tokens)]) want(t);
  for (const x of r.conservation.rest) want(x.token);
  for (const row of d.rows) if (labels.has(row.key)) labels.set(row.key, groupLabel(d.groupBy, row));
  const labelOf = (t: string): string => labels.get(t)!;
  const each = (tokens: string[]): string[] => tokens.map(labelOf);
  const result: Rewrites = {
    ...r,
    marker: r.marker === null ? null : { ...r.marker, token: labelOf(r.marker.token) },
    rewrites: r.rewrites.map((w) => ({
      ...w,
      removed: each(w.removed),
      added: each(w.added),
      notFused: w.notFused.map((n) => ({ ...n, tokens: each(n.tokens) })),
    })),
    conservation: { ...r.conservation, rest: r.conservation.rest.map((x) => ({ ...x, token: labelOf(x.token) })) },
  };
  return { ...s, result };
}

/** A chain with runs of one token written once: `RmsNorm ×2 · DynamicQuant`; nothing: `nothing`. */
export function chainText(tokens: string[], code: Code): string {
  if (tokens.length === 0) return 'nothing';
  const parts: string[] = [];
  for (let i = 0; i < tokens.length; ) {
    let j = i;
    while (j + 1 < tokens.length && tokens[j + 1] === tokens[i]) j++;
    parts.push(j > i ? `${code(tokens[i]!)} ×${j - i + 1}` : code(tokens[i]!));
    i = j + 1;
  }
  return parts.join(' · ');
}

/** `96 → 72 kernels`; `1 → 1 kernel` when both sides have one. */
function kernelsTo(base: number, pr: number): string {
  return `${fmtCount(base)} → ${fmtCount(pr)} kernel${base === 1 && pr === 1 ? '' : 's'}`;
}

/** Why a side cannot be compared, said of one file and of two. */
const UNAVAILABLE: Record<Unavailable, [string, string]> = {
  'summary-json': [
    'is a summary JSON: it holds totals per group, not the kernels in the order they ran',
    'are summary JSONs: they hold totals per group, not the kernels in the order they ran',
  ],
  // What the totals are per is the file's format's (totalsText): this is said only where no file is known.
  totals: [
    'holds totals per kernel group, not the kernels in the order they ran',
    'hold totals per kernel group, not the kernels in the order they ran',
  ],
  // What a file without steps lacks is its format's (noStepsText): this is said only where no file is known.
  'no-step-column': ['has no steps, so its steps cannot be told apart', 'have no steps, so their steps cannot be told apart'],
  'no-step-ids': ['has no compute kernel with a Step Id', 'have no compute kernel with a Step Id'],
  'no-compute-kernels': ['has no compute kernel', 'have no compute kernel'],
  'no-types': ['has no kernel types (Type is N/A in every row: a Level0 export)', 'have no kernel types (Type is N/A in every row: Level0 exports)'],
};

/** Why the section is empty: what each side that cannot be compared is (both at once when they are alike). */
export function unavailableText(s: Extract<RewritesSection, { status: 'unavailable' }>, code: Code): string {
  const file = (x: (typeof s.sides)[number]): string => `the ${x.side === 'pr' ? 'PR' : 'base'}'s ${code(relPath(x.file), WHOLE)}`;
  // Why, in one file's words (0) or two's (1): totals say what they are per, from the file's format (registry).
  const why = (x: (typeof s.sides)[number], n: 0 | 1): string =>
    x.why === 'totals'
      ? `${n === 0 ? 'holds' : 'hold'} ${totalsText(x.file)}, not the kernels in the order they ran`
      : x.why === 'no-step-column'
        ? `${noStepsText(x.file)[n]}, so ${n === 0 ? 'its' : 'their'} steps cannot be told apart`
        : UNAVAILABLE[x.why][n];
  const [a, b] = s.sides;
  const parts =
    a !== undefined && b !== undefined && a.why === b.why && why(a, 1) === why(b, 1)
      ? [`${file(a)} and ${file(b)} ${why(a, 1)}`]
      : s.sides.map((x) => `${file(x)} ${why(x, 0)}`);
  const byName = s.sides.some((x) => x.why === 'no-types') ? ' By type they also need the types: compare with --by name.' : '';
  return `unavailable: ${parts.join('; ')}. Rewrites need the kernels in the order they ran, with a Step Id (${orderedWithStepsText()}), on both sides.${byName}`;
}

/** The heading: `Fusion rewrites (compute streams, by type; ranks 0–3; on each, the most frequent step: 96 → 72 kernels (4 of 4 steps on each side))`. */
export function headingText(r: Rewrites, by: string, code: Code): string {
  const aligned = r.lanes.filter((l) => l.base !== null && l.pr !== null);
  const ranks = [...new Set(r.lanes.map((l) => l.rank))];
  const lanes = new Set(r.lanes.map((l) => `${l.rank}\u0000${l.stream}`)).size;
  const streams = [...new Set(r.lanes.map((l) => l.stream))];
  const perRank =
    lanes === ranks.length
      ? ''
      : ranks.length === 1
        ? `, streams ${listed(
            streams.map((x) => code(x)),
            8,
          )}`
        : ` (${fmtCount(lanes)} streams in all)`;
  const head = `${REWRITES_TITLE} (compute streams, by ${by}; rank${ranks.length === 1 ? '' : 's'} ${ranksText(ranks, code)}${perRank}`;
  const first = aligned[0];
  const same =
    first !== undefined &&
    aligned.every(
      (l) =>
        l.base!.kernels === first.base!.kernels &&
        l.pr!.kernels === first.pr!.kernels &&
        l.base!.repSteps === first.base!.repSteps &&
        l.base!.steps === first.base!.steps &&
        l.pr!.repSteps === first.pr!.repSteps &&
        l.pr!.steps === first.pr!.steps,
    );
  if (first === undefined) return `${head})`;
  if (!same) return `${head}; the step shape of each below)`;
  const b = first.base!;
  const p = first.pr!;
  const cover =
    b.repSteps === p.repSteps && b.steps === p.steps
      ? `${fmtCount(b.repSteps)} of ${fmtCount(b.steps)} steps on each side`
      : `${fmtCount(b.repSteps)} of ${fmtCount(b.steps)} base steps and ${fmtCount(p.repSteps)} of ${fmtCount(p.steps)} PR steps`;
  const where = aligned.length > 1 ? 'on each, the' : 'the';
  return `${head}; ${where} most frequent step: ${kernelsTo(b.kernels, p.kernels)}, in ${cover})`;
}

/** A stream id; the stream of a file that names none (`-`): `(no id)`. */
function streamId(stream: string, code: Code): string {
  return stream === '-' ? '(no id)' : code(stream);
}

function laneName(l: Lane, code: Code): string {
  return l.stream === '-' ? ranksNamed([l.rank], code) : `${ranksNamed([l.rank], code)} stream ${code(l.stream)}`;
}

/** Lanes worth a line: not aligned, or (when the heading could not give one shape) each lane's shape. */
export function laneLines(r: Rewrites, heading: string, code: Code): string[] {
  const each = heading.endsWith('the step shape of each below)');
  const out: string[] = [];
  const alike = new Map<string, { at: number; ranks: string[]; stream: string; text: string }>();
  for (const l of r.lanes) {
    const name = laneName(l, code);
    if (l.base === null || l.pr === null) {
      const s = (l.base ?? l.pr)!;
      const placed = r.rewrites.flatMap((w, i) =>
        w.moved !== null && w.moved.side === (l.base === null ? 'pr' : 'base') && w.moved.streams.includes(l.stream) && w.ranks.includes(l.rank)
          ? [`#${i + 1}`]
          : [],
      );
      const into = placed.length === 0 ? '' : ` (but its kernels in the place of rewrite ${listed(placed, 6)}, by start time)`;
      out.push(`${name}: on the ${l.base === null ? 'PR' : 'base'} only (${plural(s.steps, 'step')}), not compared${into}`);
    } else if (l.status === 'too-different' && l.edits !== null) {
      // Aligned, but sharing under a tenth of the longer step: two different programs, not a run of fusions.
      const shared = (l.base.kernels + l.pr.kernels - l.edits) / 2;
      out.push(
        `${name}: steps too different to compare (${kernelsTo(l.base.kernels, l.pr.kernels)}; they share ${plural(shared, 'kernel')}, under a tenth of the longer step: different programs, not fusions)`,
      );
    } else if (l.status === 'too-different') {
      out.push(
        `${name}: steps too different to align (${kernelsTo(l.base.kernels, l.pr.kernels)}, at least ${fmtCount(l.lowerBound)} edits; at most ${fmtCount(l.maxEdits)} are aligned)`,
      );
    } else if (each) {
      // Lanes alike (the same stream, shapes, steps and edits) share one line: not one line per rank.
      const text = `step shape ${kernelsTo(l.base.kernels, l.pr.kernels)}, the most frequent in ${fmtCount(l.base.repSteps)} of ${fmtCount(l.base.steps)} base and ${fmtCount(l.pr.repSteps)} of ${fmtCount(l.pr.steps)} PR steps; ${plural(l.edits ?? 0, 'edit')}`;
      const key = JSON.stringify([l.stream, text]);
      const g = alike.get(key);
      if (g === undefined) {
        alike.set(key, { at: out.length, ranks: [l.rank], stream: l.stream, text });
        out.push('');
      } else g.ranks.push(l.rank);
    }
  }
  for (const g of alike.values()) {
    const who = g.ranks.length === 1 ? ranksNamed(g.ranks, code) : `ranks ${ranksText(g.ranks, code)}`;
    out[g.at] = `${g.stream === '-' ? who : `${who} stream ${code(g.stream)}`}: ${g.text}`;
  }
  return out;
}

/**
 * `2 per step` or `1-2 per step`; with the steps of ranks where the PR ran the chain more often (Rewrite.undone), which
 * ranks' steps: `0-8 per step over ranks 0, 1 (rank 1 undid 10 chains: the PR ran the chain more often there)`.
 */
export function perStepText(r: Rewrite, code: Code): string {
  const { min, max } = r.perStep;
  const range = min === max ? `${fmtCount(min)} per step` : `${fmtCount(min)}-${fmtCount(max)} per step`;
  const u = r.undone;
  if (u.ranks.length === 0) return range;
  const over = [...r.ranks, ...u.ranks].sort(compareRanks);
  const who = u.ranks.length === 1 ? ranksNamed(u.ranks, code) : `ranks ${ranksText(u.ranks, code)}`;
  return (
    `${range} over ${over.length === 1 ? ranksNamed(over, code) : `ranks ${ranksText(over, code)}`} ` +
    `(${who} undid ${plural(u.chains, 'chain')}: the PR ran the chain more often there)`
  );
}

/** `layers 0-1 of 0-2`; null without a marker. */
export function layersText(r: Rewrite): string | null {
  if (r.layers === null || r.layerCount === null) return null;
  const all = r.layerCount > 0 ? idsText(Array.from({ length: r.layerCount }, (_, i) => i)) : 'none';
  if (r.layers.length === 0) return r.layerCount > 0 ? `no layer of ${all}` : 'no layer (the marker does not run there)';
  return `layer${r.layers.length === 1 ? '' : 's'} ${idsText(r.layers)} of ${all}`;
}

/** The title of a rewrite: `13 → 1 · 2 per step · layers 0-1 of 0-2 · ranks 0-1`. */
export function rewriteTitle(r: Rewrite, code: Code): string {
  const parts = [`${fmtCount(r.removed.length)} → ${fmtCount(r.added.length)}`, perStepText(r, code)];
  const layers = layersText(r);
  if (layers !== null) parts.push(layers);
  parts.push(`rank${r.ranks.length === 1 ? '' : 's'} ${ranksText(r.ranks, code)}`);
  return parts.join(' · ');
}

/** One chain's time on a side: `72.81 µs per chain, span 91.53 µs` (medians over its occurrences). */
export function chainTimeText(t: Rewrite['base'], withSpan: boolean): string {
  if (t === null) return '';
  const span = withSpan && t.medianSpanTicks !== t.medianTicks ? `, span ${fmtUs(us(t.medianSpanTicks))}` : '';
  return `${fmtUs(us(t.medianTicks))} per chain${span}`;
}

const NOT_SIGNIFICANT: Record<string, string> = {
  noise: 'noise',
  small: 'under the time tolerance',
  'too-few': 'too few steps to tell',
  'no-samples': 'no timed step',
};

/** The saving of one chain: `-39.01 µs`, or `~ (noise, p = 0.310)`. */
export function perChainSavingText(r: Rewrite): string {
  const s = r.saving;
  if (s.reason === 'unplaced') return `~ (not known: a stream of the ${r.removed.length === 0 ? 'base' : 'PR'} only may run it)`;
  if (s.significant) return fmtSignedUs(us(s.delta));
  const p = s.test === null ? '' : `, p = ${s.test.p < 0.001 ? s.test.p.toExponential(1) : s.test.p.toFixed(3)}`;
  return `~ (${NOT_SIGNIFICANT[s.reason] ?? s.reason}${p})`;
}

/** `stream 5 of the PR` / `streams 5, 7 of the base`: the streams of one side only that a change may have moved to. */
function unplacedText(r: Rewrite, code: Code): string {
  const side = r.removed.length === 0 ? 'base' : 'PR';
  return `stream${r.unplaced.length === 1 ? '' : 's'} ${listed(
    r.unplaced.map((x) => code(x)),
    6,
  )} of the ${side}`;
}

/** ` (stream 5)` after the side of a rewrite that ran on streams of that side only; else empty. */
function streamsOf(r: Rewrite, side: 'base' | 'pr', code: Code): string {
  if (r.moved === null || r.moved.side !== side) return '';
  return ` (stream${r.moved.streams.length === 1 ? '' : 's'} ${listed(
    r.moved.streams.map((x) => code(x)),
    3,
  )})`;
}

/**
 * A rewrite whose one side ran on streams of that side only, in words: placed there by start time, or not placed
 * (what ran in the chain's place cannot be told); null for a rewrite on its lane alone.
 */
export function acrossText(r: Rewrite, code: Code): string | null {
  if (r.moved !== null) {
    const st = r.moved.streams;
    const who = r.moved.side === 'pr' ? 'PR' : 'base';
    return (
      `the ${who}'s part ran on stream${st.length === 1 ? '' : 's'} ${listed(
        st.map((x) => code(x)),
        6,
      )}, which only the ${who} runs: it is the kernels there that started in the chain's place (after the kernel before it ` +
      'and before the kernel after it), alike in every step checked'
    );
  }
  if (r.unplaced.length > 0) {
    return (
      `nothing is in the chain's place on its stream, but the ${r.removed.length === 0 ? 'base' : 'PR'} also runs ${unplacedText(r, code).replace(/ of the (base|PR)$/, '')}, ` +
      "which the other side does not: what ran in the chain's place there cannot be told from the start times, so no saving is given"
    );
  }
  return null;
}

/** The saving in all, measured: `-624.16 µs` (the change of the time of the rewrite's kernels, Rewrite.totalSavingTicks). */
export function totalSavingText(r: Rewrite): string {
  return r.saving.reason === 'unplaced' ? '~' : fmtSignedUs(us(r.totalSavingTicks));
}

/** The saving: `-624.16 µs measured over 16 chains (per chain -39.01 µs, the median)`, or with `~` and why per chain. */
export function savingText(r: Rewrite): string {
  const total = totalSavingText(r);
  if (r.saving.reason === 'unplaced') return `${perChainSavingText(r)} per chain × ${plural(r.chains, 'chain')}`;
  if (r.chains === 0)
    return `none: 0 chains (${noChainsWhy(r)})${r.totalSavingTicks === 0 ? '' : `; the time of its chains' kernels changed by ${total}`}`;
  return `${total} measured over ${plural(r.chains, 'chain')} (per chain ${perChainSavingText(r)}${r.saving.significant ? ', the median' : ''})`;
}

/** Step Ids as a sentence names them: `step 8`, `steps 3-5, 8`. */
function stepsText(steps: number[]): string {
  return `step${steps.length === 1 ? '' : 's'} ${idsText(steps)}`;
}

/**
 * The kernels of the chain the PR still runs beside the added chain: `1 kernel of the chain still runs beside
 * MlaPrologV3 in 16 steps (ScatterNdUpdate ×16; its time is in the saving)`; null when there is none.
 */
export function keptText(r: Rewrite, code: Code): string | null {
  const k = r.kept;
  if (k.kernels === 0) return null;
  const which = k.tokens.map((t) => `${code(t.token)} ×${fmtCount(t.kernels)}`).join(', ');
  const beside = r.added.length <= 2 ? chainText(r.added, code) : 'the added chain';
  return `${plural(k.kernels, 'kernel')} of the chain still ${k.kernels === 1 ? 'runs' : 'run'} beside ${beside} in ${plural(k.steps, 'step')} (${which}; ${k.kernels === 1 ? 'its' : 'their'} time is in the saving)`;
}

/**
 * Why the steps show a rewrite that replaced no chain over the profile: `the chain runs 16 times in the base, 16 in
 * the PR` (a change of the representative steps that other steps undo, or kernels moved between streams).
 */
function noChainsWhy(r: Rewrite): string {
  const times = (n: number): string => (n === 1 ? 'once' : `${fmtCount(n)} times`);
  if (r.removed.length > 0 && r.removedChains.base <= r.removedChains.pr) {
    return `the chain runs ${times(r.removedChains.base)} in the base, ${fmtCount(r.removedChains.pr)} in the PR`;
  }
  if (r.added.length > 0 && r.addedChains.pr <= r.addedChains.base) {
    return `the added chain runs ${times(r.addedChains.base)} in the base, ${fmtCount(r.addedChains.pr)} in the PR`;
  }
  return 'its kernels are in the chains of a larger rewrite';
}

/**
 * The not-fused sites of a rewrite in words: the sites of one layer (or kernel position) gathered over ranks and
 * steps, then the layers alike (the same ranks, steps and edits) in one line: `layers 14-27 in every step of
 * ranks 0-1: the chain itself (2 sites in each)`.
 */
export function notFusedLines(r: Rewrite, lanes: Lane[], code: Code, max = 8): string[] {
  const groups = new Map<string, { site: NotFused; sites: number; byRank: Map<string, { stream: string; steps: number[] }[]>; seen: Set<string> }>();
  // Sites of one (rank, stream, shape) share their steps' array: its text made once an array.
  const texts = new Map<number[], string>();
  for (const s of r.notFused) {
    const key = JSON.stringify([s.layer ?? -1 - s.position, s.edits]);
    let g = groups.get(key);
    if (g === undefined) {
      g = { site: s, sites: 0, byRank: new Map(), seen: new Set() };
      groups.set(key, g);
    }
    g.sites++;
    const list = g.byRank.get(s.rank) ?? [];
    const steps = entry(texts, s.steps, () => s.steps.join());
    const seen = `${s.rank}\u0000${s.stream}\u0000${steps}`;
    if (!g.seen.has(seen)) {
      g.seen.add(seen);
      list.push({ stream: s.stream, steps: s.steps });
    }
    g.byRank.set(s.rank, list);
  }
  const stepsOf = (rank: string, stream: string): number => lanes.find((l) => l.rank === rank && l.stream === stream)?.pr?.steps ?? -1;
  // Each group's ranks and steps in words, then the groups alike gathered.
  const alike = new Map<
    string,
    { when: string; edits: string; layers: number[]; positions: number[]; last: boolean; sites: number; places: number }
  >();
  for (const { site, sites, byRank } of groups.values()) {
    const ranks = [...byRank.keys()];
    // A rank's sites of one layer may come from several step shapes (a rank that fused in some steps only): their
    // steps joined per stream.
    const joinedOf = new Map<string, { stream: string; steps: number[] }[]>();
    const joined = (rank: string): { stream: string; steps: number[] }[] =>
      entry(joinedOf, rank, () => {
        const per = new Map<string, Set<number>>();
        for (const x of byRank.get(rank)!) {
          const set = per.get(x.stream) ?? new Set<number>();
          for (const st of x.steps) set.add(st);
          per.set(x.stream, set);
        }
        return [...per].map(([stream, set]) => ({ stream, steps: [...set].sort((a, b) => a - b) }));
      });
    const everyStep = ranks.every((rank) => joined(rank).every((x) => x.steps.length === stepsOf(rank, x.stream)));
    const first = joined(ranks[0]!)[0]!.steps.join();
    const sameSteps = ranks.every((rank) => joined(rank).every((x) => x.steps.join() === first));
    const of = `rank${ranks.length === 1 ? '' : 's'} ${ranksText(ranks, code)}`;
    let when: string;
    if (everyStep) when = `in every step of ${of}`;
    else if (sameSteps) when = `in ${stepsText(joined(ranks[0]!)[0]!.steps)} of ${of}`;
    else
      when = ranks
        .slice(0, 4)
        .map((rank) => `${ranksNamed([rank], code)} ${stepsText([...new Set(byRank.get(rank)!.flatMap((x) => x.steps))].sort((a, b) => a - b))}`)
        .join('; ')
        .concat(ranks.length > 4 ? `; and ${plural(ranks.length - 4, 'more rank')}` : '');
    const edits = r.copy
      ? 'two copies still run next to each other'
      : site.edits === 0
        ? 'the chain itself'
        : `${plural(site.edits, 'edit')} from the chain`;
    const key = JSON.stringify([when, edits, site.layer === null]);
    let a = alike.get(key);
    if (a === undefined) {
      a = { when, edits, layers: [], positions: [], last: false, sites: 0, places: 0 };
      alike.set(key, a);
    }
    if (site.layer !== null) {
      a.layers.push(site.layer);
      if (site.layer === site.layers - 1) a.last = true;
    } else a.positions.push(site.position);
    a.sites += sites;
    a.places += [...byRank.values()].reduce((n, l) => n + l.length, 0);
  }
  const out: string[] = [];
  for (const a of alike.values()) {
    let where: string;
    if (a.layers.length === 1) where = `layer ${a.layers[0]}${a.last ? ' (the last)' : ''}`;
    else if (a.layers.length > 1) where = `layers ${idsText([...a.layers].sort((x, y) => x - y))}`;
    else
      where = `at kernel${a.positions.length === 1 ? '' : 's'} ${listed(
        a.positions.map((p) => fmtCount(p)),
        6,
      )}`;
    // Sites per layer of one rank (and stream).
    const each = a.sites / a.places;
    const per = a.layers.length > 0 && each > 1 && Number.isInteger(each) ? ` (${fmtCount(each)} sites in each)` : '';
    out.push(`${where} ${a.when}: ${a.edits}${per}`);
  }
  if (out.length > max) return [...out.slice(0, max), `and ${plural(out.length - max, 'more site')} (all of them in --format json)`];
  return out;
}

/** The conservation line. */
export function conservationText(r: Rewrites): string {
  const c = r.conservation;
  const head = `Accounted for: ${fmtCount(c.removedAccounted)} of ${fmtCount(c.removed)} removed and ${fmtCount(c.addedAccounted)} of ${fmtCount(c.added)} added kernels are in rewrites`;
  // The steps one side profiled and the other did not (see the note): their kernels are a change of their own.
  const apart: string[] = [];
  if (c.removedUnpaired > 0) apart.push(`${fmtCount(c.removedUnpaired)} removed ran in steps only the base profiled`);
  if (c.addedUnpaired > 0) apart.push(`${fmtCount(c.addedUnpaired)} added ran in steps only the PR profiled`);
  const line = apart.length === 0 ? head : `${head}; ${apart.join(', and ')}`;
  // A count change the rewrites explain more (or less) of than happened is listed below: said here, so that
  // "all accounted for" is never followed by a line that is not.
  const rest = c.rest.length;
  return rest === 0 ? `${line}.` : `${line}; the count change of ${plural(rest, 'kernel group')} below is not the rewrites' exactly.`;
}

/**
 * The time line: the change of the kernel groups the rewrites name, split into the rewrites' measured savings (the
 * sum of the figures above), the same groups outside the rewrites' chains, and the steps of one side only.
 */
export function timeText(r: Rewrites): string | null {
  const t = r.conservation.time;
  if (r.rewrites.length === 0) return null;
  const split = t.ranksSplit ? '; a step shape of ranks that replaced different chains split between them by its mean' : '';
  const parts = [
    `${fmtSignedUs(us(t.rewrites))} in these rewrites (the sum of their savings${split})`,
    `${fmtSignedUs(us(t.outside))} outside their chains`,
  ];
  if (t.unpaired !== 0)
    parts.push(`${fmtSignedUs(us(t.unpaired))} in steps of one side only${t.exact ? '' : ' (a step shape of both kinds split by its mean)'}`);
  return `Time: the kernel groups named above changed by ${fmtSignedUs(us(t.named))} in all: ${listedAnd(parts)}.`;
}

function listedAnd(parts: string[]): string {
  return parts.length <= 1 ? (parts[0] ?? '') : `${parts.slice(0, -1).join(', ')} and ${parts[parts.length - 1]}`;
}

/** What the rewrites do not account for, by token: `Foo: 12 → 9 (-3; the rewrites explain -2)`. */
export function restLines(r: Rewrites, code: Code, max = 12): string[] {
  const rest = r.conservation.rest;
  const line = (x: (typeof rest)[number]): string => {
    const sign = (n: number): string => (n > 0 ? `+${fmtCount(n)}` : fmtCount(n));
    // With steps of one side only: the change of the steps both profiled, and theirs.
    const change =
      x.unpaired === 0
        ? sign(x.observed)
        : `${sign(x.observed)}: ${sign(x.observed - x.unpaired)} in the steps both sides profiled, ${sign(x.unpaired)} in steps of one side only`;
    return `${code(x.token)}: ${fmtCount(x.base)} → ${fmtCount(x.pr)} (${change}; the rewrites explain ${sign(x.explained)})`;
  };
  const out = rest.slice(0, max).map(line);
  if (rest.length > max) out.push(`and ${plural(rest.length - max, 'more kernel group')} (all of them in --format json)`);
  return out;
}

/**
 * The notes said under the heading, before the rewrites (what the rewrites are read from), and those said after the
 * conservation line.
 */
export function notesFirst(r: Rewrites): RewriteNote[] {
  return r.notes.filter((n) => n.kind === 'low-coverage' || n.kind === 'other-classes' || n.kind === 'some-steps');
}
export function notesLast(r: Rewrites): RewriteNote[] {
  return r.notes.filter((n) => n.kind !== 'low-coverage' && n.kind !== 'other-classes' && n.kind !== 'some-steps' && n.kind !== 'unaligned');
}

/** Whether the steps did not align (unrelated runs): no rewrite, and no count said of them. */
export function unaligned(r: Rewrites): boolean {
  return r.notes.some((n) => n.kind === 'unaligned');
}

/** What is said in place of the rewrites when there is none. */
export function noneText(r: Rewrites, code: Code): string {
  const u = r.notes.find((n) => n.kind === 'unaligned');
  if (u !== undefined) return noteText(u, code);
  if (!r.lanes.some((l) => l.status === 'aligned')) return 'None: no rank and stream could be compared.';
  if (r.notes.some((n) => n.kind === 'no-chains')) return 'None that the steps bear out (see the note below).';
  if (r.notes.some((n) => n.kind === 'other-classes-apart'))
    return 'None: the most frequent step of each side is the same kernel sequence; the other kinds of step of the note below are not read for rewrites.';
  return 'None: the most frequent step of each side is the same kernel sequence.';
}

export function noteText(n: RewriteNote, code: Code): string {
  const side = (s: 'base' | 'pr'): string => (s === 'pr' ? 'the PR' : 'the base');
  switch (n.kind) {
    case 'split-steps':
      return `${side(n.side)}: ${plural(n.steps, 'step')} came in more than one run of rows; each run is a step of its own here`;
    case 'past-lane-limit':
      return `${side(n.side)}: ${plural(n.kernels, 'compute kernel')} on ranks and streams past the first ${fmtCount(n.lanes)} ${n.kernels === 1 ? 'is' : 'are'} in no step`;
    case 'bad-starts':
      return (
        `${side(n.side)}: ${plural(n.kernels, 'compute kernel')} in a step had no start time kprof could read (an empty cell, or one not read exactly); ` +
        `each is placed where the kernel before it in its stream ended, for the chains' wall spans and the kernels matched by start time`
      );
    case 'without-step':
      return `${side(n.side)}: ${plural(n.kernels, 'compute kernel')} without a Step Id ${n.kernels === 1 ? 'is' : 'are'} in no step`;
    case 'streams-paired':
      return `${ranksNamed([n.rank], code)}: stream ${streamId(n.base, code)} of the base is compared with stream ${streamId(n.pr, code)} of the PR (no stream of the same id on the other side)`;
    case 'marker-absent':
      return `the layer marker ${code(n.marker)} runs on neither side${n.near !== null ? ` (did you mean ${code(n.near)}?)` : ''}; layers are not shown`;
    case 'unverified':
      return `${plural(n.rewrites, 'smaller rewrite')} not verified (only the ${fmtCount(n.verified)} largest are)`;
    case 'unpaired-steps': {
      const other = n.side === 'pr' ? 'the base' : 'the PR';
      const one = n.steps === 1;
      return (
        `${side(n.side)} profiled ${plural(n.steps, 'step')} that ${other} did not (step${n.stepIds.length === 1 ? '' : 's'} ${idsText(n.stepIds)} ` +
        `of rank${n.ranks.length === 1 ? '' : 's'} ${ranksText(n.ranks, code)}; ${plural(n.kernels, 'compute kernel')}): ${one ? 'it is' : 'they are'} ` +
        `compared with nothing, so no chain in ${one ? 'it' : 'them'} counts as replaced, and ${one ? 'its' : 'their'} kernels are counted apart in the line above`
      );
    }
    case 'cut-steps': {
      const one = n.steps === 1;
      return (
        `${side(n.side)} profiled ${plural(n.steps, 'step')} in part (step${n.stepIds.length === 1 ? '' : 's'} ${idsText(n.stepIds)} of ` +
        `rank${n.ranks.length === 1 ? '' : 's'} ${ranksText(n.ranks, code)}; ${plural(n.kernels, 'compute kernel')}: the profile starts or ends in the middle of ` +
        `${one ? 'it' : 'them'}, whose kernels are the first or the last of another step's): ${one ? 'it is' : 'they are'} compared with nothing, nor ` +
        `${one ? 'is' : 'are'} ${n.side === 'pr' ? "the base's" : "the PR's"} step${one ? '' : 's'} of the same rank and place, so no chain in them counts as ` +
        'replaced, and their kernels are counted apart in the line above'
      );
    }
    case 'no-common-steps': {
      // The steps past the other side's last are compared with nothing (see pairSteps): the last ones of the longer.
      const longer = n.base.length > n.pr.length ? n.base : n.pr;
      const past = longer.slice(Math.min(n.base.length, n.pr.length));
      const one = past.length === 1;
      return (
        `${ranksNamed([n.rank], code)}: the base's step${n.base.length === 1 ? '' : 's'} ${idsText(n.base)} and the PR's ${idsText(n.pr)} have no Step Id in common and differ in number ` +
        `(${fmtCount(n.base.length)} against ${fmtCount(n.pr.length)}), so they are compared in order, the first with the first, and ` +
        `${longer === n.base ? "the base's" : "the PR's"} last ${one ? 'step' : `${fmtCount(past.length)} steps`} (${idsText(past)}) ${one ? 'is' : 'are'} ` +
        `compared with nothing: no chain in ${one ? 'it' : 'them'} counts as replaced, and ${one ? 'its' : 'their'} kernels are counted apart in the line above`
      );
    }
    case 'no-chains':
      return (
        `${plural(n.changes, 'difference')} of the most frequent steps ${n.changes === 1 ? 'is' : 'are'} not listed: over every step the PR runs ` +
        `${n.changes === 1 ? 'its chain' : 'their chains'} as often as the base (other steps undo ${n.changes === 1 ? 'it' : 'them'}, ${n.changes === 1 ? 'it lies' : 'they lie'} inside a longer rewrite's chains, or the same kernels ran in ${n.changes === 1 ? 'its' : 'their'} place)`
      );
    case 'unaligned':
      return (
        `The steps do not align: the most frequent steps of the two sides differ in ${fmtCount(n.changes)} places; ${n.of === n.changes ? 'of them' : `of the ${fmtCount(n.of)} largest`}, ` +
        `${fmtCount(n.undone)} are undone over the steps (the PR runs their chains as often as the base), and ${fmtCount(n.once)} happen once in a step (a place can be both). ` +
        'These look like different runs, not a change of one run, so no rewrite is listed; the count table above is exact'
      );
    case 'other-classes': {
      const steps =
        n.steps.base === n.steps.pr
          ? `${plural(n.steps.base, 'step')} on each side`
          : `${plural(n.steps.base, 'base step')} and ${plural(n.steps.pr, 'PR step')}`;
      return (
        `${n.rewrites === 1 ? 'one rewrite below was' : `${fmtCount(n.rewrites)} rewrites below were`} found only in another kind of step than the most frequent ` +
        `(prefill steps beside decode steps, say), in the most frequent step of that kind (the steps of that kernel sequence: ${steps} in all, over ranks and kinds): each other kind of step is aligned so with its like on the other side`
      );
    }
    case 'some-steps':
      return (
        `${n.rewrites === 1 ? 'one rewrite below was' : `${fmtCount(n.rewrites)} rewrites below were`} found only in some of the PR's steps (${n.rewrites === 1 ? '' : 'each in at most '}${fmtCount(n.steps)} of ${fmtCount(n.of)}, over ranks), ` +
        "steps that ran kernels no base step runs where the base ran its most frequent step at the same Step Ids: such steps are aligned with the base's most frequent step, and only fusions are kept (a chain replaced by fewer kernels of kinds the base never runs)"
      );
    case 'other-classes-apart': {
      const parts: string[] = [];
      if (n.oneOff > 0)
        parts.push(
          `${plural(n.oneOff, 'other kind')} of step differ${n.oneOff === 1 ? 's' : ''} from ${n.oneOff === 1 ? 'its' : 'their'} like on the other side in one-off places (${plural(n.differences, 'difference')} of ${n.oneOff === 1 ? 'its' : 'their'} own, most once in a step, ` +
            'as warm-up steps differ, not as a fusion repeats over layers): not listed as rewrites',
        );
      if (n.unaligned > 0)
        parts.push(
          `${plural(n.unaligned, 'other kind')} of step ${n.unaligned === 1 ? 'is' : 'are'} too different from ${n.unaligned === 1 ? 'its' : 'their'} like on the other side to align: not compared`,
        );
      return `${parts.join('; ')}. What ${n.oneOff + n.unaligned === 1 ? 'it' : 'they'} changed is among the kernels not accounted for, but where a rewrite listed explains it`;
    }
    case 'low-coverage': {
      const lane = `${ranksNamed([n.rank], code)}${n.stream === '-' ? '' : ` stream ${code(n.stream)}`}`;
      const more = n.lanes > 1 ? `; below half on ${plural(n.lanes - 1, 'more stream')} too` : '';
      return (
        `the most frequent step of ${n.side === 'both' ? 'each side' : side(n.side)} stands for only ${fmtCount(n.repSteps)} of its ${fmtCount(n.steps)} steps on ${lane} ` +
        `(${fmtCount(n.shapes)} different kernel sequences${more}): the rewrites are read from that step (and from the most frequent step of ` +
        'each other kind of step that pairs with one of the other side), and a change of the other steps of its kind shows only in the line of what is accounted for (chains are counted in every step both sides profiled)'
      );
    }
  }
}

/**
 * What of the selection the section follows, when given: `In steps 14-20 only (--steps).`, and the options it does
 * not follow; null when neither.
 */
export function scopeText(s: Extract<RewritesSection, { status: 'ok' }>): string | null {
  const parts: string[] = [];
  if (s.scope.steps !== null) parts.push(`In steps ${s.scope.steps} only (--steps), as the table above.`);
  const n = s.scope.notApplied;
  if (n.length > 0)
    parts.push(
      `${n.length === 1 ? n[0] : `${n.slice(0, -1).join(', ')} and ${n[n.length - 1]}`} ${n.length === 1 ? 'does' : 'do'} not apply to this section: it compares every compute kernel of the steps and ranks read.`,
    );
  return parts.length === 0 ? null : parts.join(' ');
}

/** Two lone ranks compared: `Rank 0 of the base is compared with rank 1 of the PR (one rank on each side)`. */
export function pairedText(p: { base: string; pr: string }, code: Code): string {
  return `R${ranksNamed([p.base], code).slice(1)} of the base is compared with ${ranksNamed([p.pr], code)} of the PR (one rank on each side; shown as ${ranksNamed([p.base], code)})`;
}

/** The marker: `layer marker LightningIndexer (found automatically)`; null without one. */
export function markerText(r: Rewrites, code: Code): string | null {
  if (r.marker === null) return null;
  if (!r.marker.auto) return `layer marker ${code(r.marker.token)} (--layer-marker)`;
  // Why this one (chooseMarker): it runs as often on both sides, apart from the rewrites' kernels, and puts each
  // chain of the largest rewrite in a layer of its own; of those, one that splits the step into equal layers.
  const why = r.marker.equal
    ? 'it splits the step into equal layers, each chain of the largest rewrite in a layer of its own'
    : "no kernel splits the step into equal layers; it runs as often on both sides and puts each of the largest rewrite's chains in a layer of its own";
  return `layer marker ${code(r.marker.token)} (found automatically: ${why}; --layer-marker names another)`;
}

/** Parts joined by ` · ` into lines of at most `width` characters (a part longer than that is a line of its own). */
function wrapped(text: string, width: number): string[] {
  const parts = text.split(' · ');
  const out: string[] = [];
  let line = '';
  for (const p of parts) {
    const next = line === '' ? p : `${line} · ${p}`;
    if (line !== '' && next.length > width) {
      out.push(`${line} ·`);
      line = p;
    } else line = next;
  }
  out.push(line);
  return out;
}

/** The section in the terminal report: lines, without a trailing empty one. */
export function rewritesTextLines(s: RewritesSection, code: Code, width?: number): string[] {
  if (s.status === 'unavailable') return [`${REWRITES_TITLE}: ${unavailableText(s, code)}`];
  const r = s.result;
  const heading = headingText(r, s.by, code);
  const out: string[] = [heading];
  if (s.ranksPaired !== null) out.push(`${pairedText(s.ranksPaired, code)}.`);
  const scope = scopeText(s);
  if (scope !== null) out.push(scope);
  const marker = markerText(r, code);
  for (const n of notesFirst(r)) out.push(`Note: ${noteText(n, code)}.`);
  if (marker !== null && r.rewrites.length > 0) out.push(`${marker[0]!.toUpperCase()}${marker.slice(1)}.`);
  for (const l of laneLines(r, heading, code)) out.push(`  ${l}`);
  out.push('');
  if (r.rewrites.length === 0) out.push(`${noneText(r, code)}${unaligned(r) ? '.' : ''}`, '');
  const pad = '           ';
  r.rewrites.forEach((w, i) => {
    out.push(`#${i + 1}  ${rewriteTitle(w, code)}`);
    const side = (label: string, tokens: string[], time: string): void => {
      // Chains wrap at their ` · ` within 96 characters, or within the terminal's width when it is narrower (so
      // that the terminal's own wrap of the prose never starts a line with `·`; 2 more for the trailing ` ·`).
      const lines = wrapped(chainText(tokens, code), width === undefined ? 96 : Math.max(30, Math.min(96, width - 3 - pad.length)));
      out.push(`    ${label.padEnd(6)} ${lines[0]}`);
      for (const l of lines.slice(1)) out.push(`${pad}${l}`);
      if (time !== '') out.push(`${pad}${time}`);
    };
    side('base', w.removed, chainTimeText(w.base, true));
    side('PR', w.added, chainTimeText(w.pr, true));
    out.push(`    saved  ${savingText(w)}`);
    const kept = keptText(w, code);
    if (kept !== null) out.push(`    kept   ${kept[0]!.toUpperCase()}${kept.slice(1)}.`);
    const across = acrossText(w, code);
    if (across !== null) out.push(`    note   ${across[0]!.toUpperCase()}${across.slice(1)}.`);
    const nf = notFusedLines(w, r.lanes, code);
    if (nf.length === 1) out.push(`    not fused: ${nf[0]}`);
    else if (nf.length > 1) {
      out.push('    not fused:');
      for (const l of nf) out.push(`      ${l}`);
    }
    out.push('');
  });
  if (unaligned(r)) return [...out.slice(0, -1), ...notesLast(r).map((n) => `Note: ${noteText(n, code)}.`)];
  out.push(conservationText(r));
  const time = timeText(r);
  if (time !== null) out.push(time);
  const rest = restLines(r, code);
  if (rest.length > 0) {
    out.push('Not accounted for:');
    for (const l of rest) out.push(`  ${l}`);
  }
  for (const n of notesLast(r)) out.push(`Note: ${noteText(n, code)}.`);
  return out;
}

/** The most characters of the section in a Markdown diff (the rest of the report keeps GitHub's comment limit). */
export const MARKDOWN_REWRITES_LIMIT = 16_000;

/**
 * The section in the Markdown diff, under `limit` characters: a compact table (one row per rewrite), the sites
 * not fused, the full chains in a folded `<details>`, the conservation line. Rows and chains that do not fit are
 * counted (all of them are in --format json).
 */
export function rewritesMarkdown(s: RewritesSection, code: Code, limit = MARKDOWN_REWRITES_LIMIT): string[] {
  if (s.status === 'unavailable') return [`**${REWRITES_TITLE}:** ${unavailableText(s, code)}`];
  const r = s.result;
  const heading = headingText(r, s.by, code);
  const out: string[] = [`**${REWRITES_TITLE}**${heading.slice(REWRITES_TITLE.length)}`, ''];
  if (s.ranksPaired !== null) out.push(`${pairedText(s.ranksPaired, code)}.`, '');
  const scope = scopeText(s);
  if (scope !== null) out.push(scope, '');
  for (const n of notesFirst(r)) out.push(`**Note:** ${noteText(n, code)}.`, '');
  const marker = markerText(r, code);
  const lanes = laneLines(r, heading, code);
  if (lanes.length > 0) {
    for (const l of lanes) out.push(`- ${l}`);
    out.push('');
  }
  const time = timeText(r);
  const tail: string[] = unaligned(r) ? [] : [conservationText(r), ...(time === null ? [] : ['', time])];
  const rest = unaligned(r) ? [] : restLines(r, code);
  if (rest.length > 0) tail.push('', 'Not accounted for:', '', ...rest.map((l) => `- ${l}`));
  const last = notesLast(r);
  if (last.length > 0) tail.push(...(tail.length > 0 ? [''] : []), ...last.map((n) => `- Note: ${noteText(n, code)}.`));
  const cell = (x: string): string => x.replace(/\|/g, '\\|');
  let used = out.join('\n').length + tail.join('\n').length + 200;
  if (r.rewrites.length === 0) out.push(`${noneText(r, code)}${unaligned(r) ? '.' : ''}`, '');
  else {
    const short = (tokens: string[]): string =>
      tokens.length === 0 ? 'nothing' : tokens.length <= 2 ? chainText(tokens, code) : plural(tokens.length, 'kernel');
    const rows: string[] = [];
    const details: string[] = [];
    const notFused: string[] = [];
    const keptLines: string[] = [];
    let shown = 0;
    for (const [i, w] of r.rewrites.entries()) {
      const total = totalSavingText(w);
      const row = `| ${[
        String(i + 1),
        `${short(w.removed)}${streamsOf(w, 'base', code)} → ${short(w.added)}${streamsOf(w, 'pr', code)}`,
        perStepText(w, code),
        layersText(w) ?? '',
        ranksText(w.ranks, code),
        w.base === null ? '' : fmtUs(us(w.base.medianTicks)),
        w.pr === null ? (w.added.length === 0 ? '0 µs' : '') : fmtUs(us(w.pr.medianTicks)),
        perChainSavingText(w),
        fmtCount(w.chains),
        total,
      ]
        .map(cell)
        .join(' | ')} |`;
      const nf = notFusedLines(w, r.lanes, code, 4).map((l) => `- #${i + 1} ${l}`);
      const keptLine = keptText(w, code);
      const kept = keptLine === null ? [] : [`- #${i + 1} ${keptLine}`];
      const across = acrossText(w, code);
      const chain = [
        `**#${i + 1}** ${rewriteTitle(w, code)}`,
        '',
        `- base: ${chainText(w.removed, code)}${w.base === null ? '' : `; ${chainTimeText(w.base, true)}`}`,
        `- PR: ${chainText(w.added, code)}${w.pr === null ? '' : `; ${chainTimeText(w.pr, true)}`}`,
        ...(across === null ? [] : [`- ${across[0]!.toUpperCase()}${across.slice(1)}.`]),
        '',
      ];
      const size = row.length + nf.join('\n').length + kept.join('\n').length + chain.join('\n').length + 4;
      if (used + size > limit) break;
      used += size;
      rows.push(row);
      for (const l of nf) notFused.push(l);
      for (const l of kept) keptLines.push(l);
      for (const l of chain) details.push(l);
      shown++;
    }
    out.push(
      '| # | removed → added | how often | layers | ranks | base chain | PR chain | saved per chain | chains | saved |',
      '|---:|:---|---:|:---|:---|---:|---:|---:|---:|---:|',
      ...rows,
    );
    if (shown < r.rewrites.length)
      out.push(`| | (${plural(r.rewrites.length - shown, 'more rewrite')}: all of them in --format json) | | | | | | | | |`);
    out.push('');
    if (marker !== null) out.push(`Layers by the ${marker}.`, '');
    if (notFused.length > 0) out.push('**Not fused** (where the removed chain still runs in the PR):', '', ...notFused, '');
    if (keptLines.length > 0) out.push('**Kept** (kernels of the removed chain the PR still runs beside the added one):', '', ...keptLines, '');
    out.push('<details><summary>The chains</summary>', '', ...details, '</details>', '');
  }
  for (const l of tail) out.push(l);
  // Nothing after the sentence in place of the rewrites (steps that do not align): no empty line to end on.
  if (tail.length === 0 && out[out.length - 1] === '') out.pop();
  return out;
}

function chainTimeJson(t: Rewrite['base']): RewriteChainTimeJson | null {
  if (t === null) return null;
  return { occurrences: t.occurrences, medianUs: exactUs(t.medianTicks), medianSpanUs: exactUs(t.medianSpanTicks), meanUs: round4(us(t.meanTicks)) };
}

/** The declared `rewrites` section of the JSON diff (schema.ts DiffRewritesJson). */
export function rewritesJson(s: RewritesSection): DiffRewritesJson {
  if (s.status === 'unavailable') {
    return {
      version: REWRITES_VERSION,
      status: 'unavailable',
      groupBy: s.by,
      unavailable: s.sides.map((x) => ({ side: x.side, file: relPath(x.file), reason: x.why })),
      ranksPaired: null,
      scope: null,
      marker: null,
      lanes: [],
      rewrites: [],
      conservation: null,
      unverified: null,
      notes: [],
    };
  }
  const r = s.result;
  return {
    version: REWRITES_VERSION,
    status: 'ok',
    groupBy: s.by,
    unavailable: [],
    ranksPaired: s.ranksPaired,
    scope: s.scope,
    marker: r.marker,
    lanes: r.lanes.map((l) => ({ ...l })),
    rewrites: r.rewrites.map((w) => ({
      removed: w.removed,
      added: w.added,
      perStep: w.perStep,
      ranks: w.ranks,
      undone: { ranks: w.undone.ranks, chains: w.undone.chains },
      chains: w.chains,
      kept: { kernels: w.kept.kernels, steps: w.kept.steps, tokens: w.kept.tokens.map((t) => ({ ...t })) },
      removedChains: w.removedChains,
      addedChains: w.addedChains,
      layers: w.layers,
      layerCount: w.layerCount,
      base: chainTimeJson(w.base),
      pr: chainTimeJson(w.pr),
      saving: {
        perChainUs: Number.isFinite(w.saving.delta) ? exactUs(w.saving.delta) : 0,
        totalUs: exactUs(w.totalSavingTicks),
        significant: w.saving.significant,
        reason: w.saving.reason,
        p: w.saving.test === null ? null : w.saving.test.p,
        samples: { base: w.saving.test?.n1 ?? 0, pr: w.saving.test?.n2 ?? 0 },
      },
      notFused: w.notFused,
      notFusedEdits: w.notFusedEdits,
      copy: w.copy,
      moved: w.moved,
      unplaced: w.unplaced,
    })),
    conservation: {
      ...r.conservation,
      time: {
        namedUs: exactUs(r.conservation.time.named),
        rewritesUs: exactUs(r.conservation.time.rewrites),
        outsideUs: exactUs(r.conservation.time.outside),
        unpairedUs: exactUs(r.conservation.time.unpaired),
        exact: r.conservation.time.exact,
        ranksSplit: r.conservation.time.ranksSplit,
      },
    },
    unverified: r.unverified,
    notes: r.notes,
  };
}
