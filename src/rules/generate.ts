// A base → PR diff → a starter rules file that locks in what the change achieved. Pure: text out.
//
//   removed kernel               → absent
//   kernel gone from some ranks  → absent on those ranks
//   added kernel                 → at least its lowest per-step count in the PR (present, where some step lacks it),
//                                  per rank where the ranks differ
//   kernel cut by ≥ threshold    → at most the PR's highest per-step count (per rank, or in total, where only that
//                                  breaks on the base)
//   all kernels                  → at most the PR's highest per-step count, and a time maximum with --margin
//
// Counts are exact, so a count bound is the PR's own level, never "+10% rounded up"; the margin is for time only.
//
// Every candidate rule is evaluated, before it is written, on the PR and on the base (as `kprof check` would):
// a rule is written only when it holds on the PR and breaks on the base, except the cap on all kernels, which is
// kept with a comment that says why. A rule left out is named in a comment with the reason. The header states
// what was verified. Each rule carries a comment with the numbers it came from.
//
// Over 400 lines: one generator over one diff: each rule kind's candidates beside the comment that says why, so that
// a comment stays true of its rule.

import type { Diff, DiffRow } from '../analysis/diff.js';
import { stepsLabel } from '../aggregate/group.js';
import {
  compareRanks,
  MAX_EXACT_TEXT,
  MAX_EXACT_TICKS,
  TICKS_PER_US,
  type Profile,
  type RankSummary,
  type StepRange,
  type Summary,
  type UserGroup,
} from '../model/model.js';
import { fmtCount, fmtSignedPct, fmtUs, plural, rankIdsText, ranksNamed, settled, stepCountsText } from '../util/format.js';
import { CELL_WIDTH, escaped as shown, jsonSafe, inQuotes } from '../util/inputText.js';
import { inputError, usageError } from '../util/errors.js';
import { MAX_TEXT_FILE_BYTES } from '../aggregate/userGroups.js';
import { evaluate } from './evaluate.js';
import { parseRules } from './parse.js';
import { rejectMisspelt } from './unmatched.js';
import { chainCounts } from './checks/sequence.js';
import type { Rewrites } from '../analysis/rewrites/rewrites.js';

/**
 * The evidence a rule for removed kernels carries: how many ran in the base it was written from. After the change
 * lands and the baseline is refreshed, neither side runs them: the rule then holds as the steady state it asks
 * for, where one without evidence is taken for a possible misspelling (docs/check.md, "Evidence").
 */
function evidenceLine(baseCount: number): string {
  return `    evidence: { base-count: ${baseCount} }`;
}

export interface GenerateOptions {
  /** A kernel whose count fell by at least this many percent gets a maximum. */
  cutThresholdPct: number;
  /** Headroom added to the PR's kernel time in the time maximum, in percent. */
  marginPct: number;
  /** --margin as the user wrote it, for a message (absent: the number). */
  marginText?: string;
  /** The inputs, as shown to the user. */
  basePath: string;
  prPath: string;
  /** The selection options `kprof check` must be given to see what these rules were made from ("--rank 0"). */
  checkOptions: string;
  /** --steps: written as the file's top-level steps:. */
  steps: StepRange[] | null;
  /** --groups: copied into the file's groups: section. */
  groups: UserGroup[];
  /** The fusion rewrites of the pair (from the kernel sequences), or why there are none to say; absent: not asked. */
  rewrites?: Rewrites | string;
}

/** The inputs as the rules see them (after --rank, --steps and the filters), to verify each rule on. */
export interface GenerateProfiles {
  base: Profile;
  pr: Profile;
}

/** One rank's level of a group (or of all kernels): per step, or its total when there are no steps. */
interface RankLevel {
  rank: string;
  /** Lowest and highest count in a step (the total, twice, without steps). */
  min: number;
  max: number;
  total: number;
  /** Highest kernel time in a step (or the total), in µs. */
  maxUs: number;
  steps: number;
}

function rankLevel(r: RankSummary, key: string | null, perStep: boolean): RankLevel {
  const g = key === null ? null : r.groups.find((x) => x.key === key);
  const total = key === null ? r.totals.count : (g?.total.count ?? 0);
  const totalUs = (key === null ? r.totals.ticks : (g?.total.ticks ?? 0)) / TICKS_PER_US;
  if (!perStep) return { rank: r.rank, min: total, max: total, total, maxUs: totalUs, steps: r.steps.length };
  let min = Number.POSITIVE_INFINITY;
  let max = 0;
  let maxUs = 0;
  for (const step of r.steps) {
    let count = 0;
    let ticks = 0;
    if (key === null) {
      for (const x of r.groups) {
        const c = x.steps.get(step);
        if (c) {
          count += c.count;
          ticks += c.ticks;
        }
      }
    } else {
      const c = g?.steps.get(step);
      count = c?.count ?? 0;
      ticks = c?.ticks ?? 0;
    }
    if (count < min) min = count;
    if (count > max) max = count;
    if (ticks / TICKS_PER_US > maxUs) maxUs = ticks / TICKS_PER_US;
  }
  return { rank: r.rank, min: Number.isFinite(min) ? min : 0, max, total, maxUs, steps: r.steps.length };
}

// Letters, digits, `_ . -` and inner spaces: never a YAML indicator, never `: ` or ` #`.
const PLAIN = /^[A-Za-z_](?:[A-Za-z0-9_. -]*[A-Za-z0-9_.])?$/;
const RESERVED = /^(true|false|null|yes|no|on|off|y|n)$/i;

/**
 * A YAML scalar: plain when that is unambiguous, else double-quoted (JSON string syntax is valid YAML, and so
 * are the \u escapes of jsonSafe, which keep control characters out of the file).
 */
export function yamlString(s: string): string {
  return PLAIN.test(s) && !RESERVED.test(s) ? s : jsonSafe(JSON.stringify(s));
}

/**
 * A name in a comment or a rule label: whole up to CELL_WIDTH characters (code points), else its first ones and
 * `…`, as tables show it. The selectors keep names whole; a name may be 64 KiB, and kprof check reads a rules
 * file of at most 256 KiB, so a long name written whole in every comment and label too would make a file that
 * kprof check refuses.
 */
function said(name: string): string {
  if (name.length <= CELL_WIDTH) return name;
  const points = Array.from(name.slice(0, 2 * CELL_WIDTH));
  return points.length <= CELL_WIDTH ? name : `${points.slice(0, CELL_WIDTH - 1).join('')}…`;
}

/** A comment line; names in it are shown as every text format shows them (no line break, no control). */
function comment(text: string): string {
  return `  # ${shown(text)}`;
}

/** "4 in every step", "2 to 3 in a step", "61 in total", "none". */
function levelText(l: { min: number; max: number }, perStep: boolean): string {
  if (l.min === 0 && l.max === 0) return 'none';
  if (l.min === l.max) return `${fmtCount(l.min)} ${perStep ? 'in every step' : 'in total'}`;
  return `${fmtCount(l.min)} to ${fmtCount(l.max)} ${perStep ? 'in a step' : 'in total'}`;
}

/**
 * Rank ids for a label or a comment as reports name them: consecutive ids as a range, of many the first and the
 * last (`0–6, 8–46`; `ranks:` lists each), the rank of no id as `(no id)`, not `-`.
 */
function rankList(ranks: readonly string[]): string {
  return rankIdsText(ranks);
}

/**
 * A kernel that ran at most once in a step, in under half of the steps of every rank that ran it (a warm-up copy in
 * the first step, a sync of one step): a rule on it would lock in what may be a one-off of that run, and the next
 * run of the same build would break it (or pass it) by chance. Said in a comment, not written.
 */
function oneOff(levels: readonly RankLevel[]): boolean {
  const ran = levels.filter((l) => l.total > 0);
  return ran.length > 0 && ran.every((l) => l.max <= 1 && l.total * 2 < l.steps);
}

const ONE_OFF =
  'it ran at most once in a step, in under half of the steps of each rank that ran it: one run cannot tell such a kernel from a one-off, so the next run of the same build could break the rule by chance (write it by hand if the change is about it)';

/** The levels of all ranks: one text when they agree, else rank by rank. */
function levelsText(levels: RankLevel[], perStep: boolean): string {
  if (levels.length === 0) return 'none';
  const texts = levels.map((l) => levelText(l, perStep));
  if (texts.every((t) => t === texts[0])) return levels.length > 1 ? `${texts[0]} of every rank` : texts[0]!;
  // The ranks of one level together (`ranks 0–6, 8–46: none; rank 7: 52 in every step`), not one item per rank.
  const alike = new Map<string, string[]>();
  for (const [i, l] of levels.entries()) alike.get(texts[i]!)?.push(l.rank) ?? alike.set(texts[i]!, [l.rank]);
  return [...alike].map(([t, ranks]) => `${ranksNamed(ranks)}: ${t}`).join('; ');
}

/**
 * The change of a row as the diff saw it: "-50.0% per step" (all ranks together). The figures of the ranks are
 * added up, so where the sides have different numbers of ranks the sum moves with that number alone: the change
 * per rank (the sum over the side's ranks) is said first, "unchanged per rank" when only the ranks changed.
 */
function changeText(d: Diff, row: DiffRow): string {
  const how = d.normalization === 'per-step' ? 'per step' : 'in total';
  const nb = d.base.ranks.length;
  const np = d.pr.ranks.length;
  const summed = `${fmtSignedPct(row.deltaCountPct!)} ${how}`;
  if (nb === np) return `${summed}${np > 1 ? ` over ${fmtCount(np)} ranks` : ''}`;
  const perRank = perRankPct(d, row)!;
  const rank = Math.abs(perRank) < 1e-9 ? 'unchanged per rank' : `${fmtSignedPct(perRank)} ${how} per rank`;
  return `${rank}; ${summed} summed over the ranks, as the base has ${plural(nb, 'rank')} and the PR ${fmtCount(np)}`;
}

/**
 * The change of a row's count per rank: where the sides have different numbers of ranks, the change of the mean
 * over each side's ranks (the sum over the ranks moves with their number alone); else the diff's own. null
 * against a base of zero.
 */
function perRankPct(d: Diff, row: DiffRow): number | null {
  const nb = d.base.ranks.length;
  const np = d.pr.ranks.length;
  if (nb === np || row.base.count === 0) return row.deltaCountPct;
  const base = row.base.count / nb;
  return ((row.pr.count / np - base) / base) * 100;
}

/** A rule as it will be written, before it is verified. */
interface Candidate {
  /** The comment lines above it (the numbers it came from). */
  notes: string[];
  lines: string[];
  /** Why the rule is written even when the base holds it too; undefined: only when it breaks on the base. */
  keepAnyway?: string;
  /** A sequence rule: its chain cannot be written as a match: (a chain is of exact types or names). */
  chain?: true;
}

interface Verified {
  holdsOnPr: boolean;
  breaksOnBase: boolean;
  /** Why the base could not answer the rule (a rank or a step it lacks), when it could not. */
  baseError: string | null;
  /**
   * Why the PR could not answer the rule, when it could not: a summary JSON that holds user groups cannot say
   * which kernels of a type are in them, nor one saved with other groups which are in the rule's group.
   */
  prError: string | null;
  /** kprof check on the PR alone would take the selector for a misspelling of a kernel that runs there. */
  misspelt: boolean;
}

/** `type: Muls` → `match: "/^Muls$/"`: the same kernels, and no "did you mean Mul" from kprof check. */
function asMatch(lines: string[]): string[] {
  return lines.map((l) => {
    const m = /^ {4}(?:type|name): (.*)$/.exec(l);
    if (!m) return l;
    const raw = m[1]!;
    const value = raw.startsWith('"') ? (JSON.parse(raw) as string) : raw;
    return `    match: ${yamlString(`/^${value.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}$/`)}`;
  });
}

/** `ranks: [0, 1]` when the rule is for some ranks only. */
function ranksLine(ranks: string[], all: string[]): string[] {
  if (ranks.length === all.length) return [];
  // Plain when YAML and the rules parser read it back as written (a number, a word), else quoted: the rank of no
  // id (`-`, a block indicator plain) and a rank named by its folder path.
  return [
    `    ranks: [${ranks.map((r) => (/^(?:\d+|[A-Za-z_][A-Za-z0-9_.-]*)$/.test(r) && !RESERVED.test(r) ? r : jsonSafe(JSON.stringify(r)))).join(', ')}]`,
  ];
}

/** Ranks grouped by a value, in rank order of their first member: rule by rule, ranks of one level together. */
function byValue<T extends number>(levels: RankLevel[], value: (l: RankLevel) => T): { value: T; ranks: string[] }[] {
  const out = new Map<T, string[]>();
  for (const l of levels) {
    const v = value(l);
    const list = out.get(v);
    if (list) list.push(l.rank);
    else out.set(v, [l.rank]);
  }
  return [...out].map(([v, ranks]) => ({ value: v, ranks }));
}

/** A chain in words: "QuantBatchMatmulV3 · RmsNorm ×2 · DynamicQuant" (runs of one kernel said once). */
function chainWords(chain: string[]): string {
  const out: string[] = [];
  for (let i = 0; i < chain.length; ) {
    let j = i;
    while (j < chain.length && chain[j] === chain[i]) j++;
    out.push(j - i > 1 ? `${said(chain[i]!)} ×${j - i}` : said(chain[i]!));
    i = j;
  }
  return out.join(' · ');
}

/** Per PR rank, the lowest and highest count of a chain in a step (as a sequence rule counts it). */
function chainLevels(profile: Profile, by: 'type' | 'name', chain: string[]): RankLevel[] {
  return profile.ranks.map((r) => {
    const counts = [...chainCounts(r, by, chain).values()];
    const total = counts.reduce((a, b) => a + b, 0);
    const min = counts.length > 0 ? Math.min(...counts) : 0;
    const max = counts.length > 0 ? Math.max(...counts) : 0;
    return { rank: r.rank, min, max, total, maxUs: 0, steps: counts.length };
  });
}

/**
 * Sequence rules for each fusion rewrite: the removed chain at most its PR level per step (0: gone; per rank where
 * the ranks differ), and the chain that replaced it at least its PR level per step where every step runs it.
 */
function sequenceRules(
  rewrites: Rewrites | string,
  field: 'type' | 'name',
  profiles: GenerateProfiles,
  body: string[],
  emit: (candidates: Candidate[], what: string) => void,
): void {
  body.push(
    '',
    comment('Fusion rewrites (kernel sequences): the chains the change replaced must not come back, and what replaced them must keep running.'),
  );
  if (typeof rewrites === 'string') {
    body.push(comment(`No sequence rules: ${rewrites}.`));
    return;
  }
  if (rewrites.rewrites.length === 0) {
    body.push(comment('No sequence rules: the kernel sequences show no chain replaced by another.'));
    return;
  }
  const prRanks = profiles.pr.ranks.map((r) => r.rank).sort(compareRanks);
  const marker = rewrites.marker === null ? '' : `, layer-marker: ${yamlString(rewrites.marker.token)}`;
  const list = (chain: string[]): string => `[${chain.map(yamlString).join(', ')}]`;
  const onRanks = (ranks: string[]): string => (ranks.length < prRanks.length ? ` on rank${ranks.length === 1 ? '' : 's'} ${rankList(ranks)}` : '');
  rewrites.rewrites.forEach((rw, i) => {
    const n = i + 1;
    const into = rw.added.length === 0 ? 'removed with nothing in its place' : `replaced by ${chainWords(rw.added)}`;
    const what = rw.removed.length === 0 ? 'nothing' : `${chainWords(rw.removed)} (${plural(rw.removed.length, 'kernel')})`;
    // A range that takes in the steps of ranks where the PR ran the chain more often (Rewrite.undone) names them.
    const ranksText = (ranks: string[]): string => `rank${ranks.length === 1 ? '' : 's'} ${rankList(ranks)}`;
    const u = rw.undone;
    const where =
      u.ranks.length > 0
        ? ` over ${ranksText([...rw.ranks, ...u.ranks].sort(compareRanks))}, replaced on ${ranksText(rw.ranks)}`
        : rw.ranks.length === 1 && rw.ranks[0] === '-'
          ? ''
          : ` on ${ranksText(rw.ranks)}`;
    const undid = u.ranks.length > 0 ? `; ${ranksText(u.ranks)} undid ${fmtCount(u.chains)}: the PR ran the chain more often there` : '';
    const notes = [
      comment(
        `Rewrite #${n}: ${what} ${into}, ` +
          `${rw.perStep.min === rw.perStep.max ? fmtCount(rw.perStep.min) : `${fmtCount(rw.perStep.min)} to ${fmtCount(rw.perStep.max)}`} per step${where} ` +
          `(${plural(rw.chains, 'chain')}${undid}); the chain runs ${fmtCount(rw.removedChains.base)} times in the base, ${fmtCount(rw.removedChains.pr)} in the PR.`,
      ),
    ];
    const candidates: Candidate[] = [];
    // A chain added with nothing removed has no chain to keep out.
    const removedLevels = rw.removed.length > 0 ? chainLevels(profiles.pr, field, rw.removed) : [];
    // The evidence of a rule on some ranks is the chains of those ranks in the base, not of every rank.
    const baseLevels = removedLevels.length > 0 ? chainLevels(profiles.base, field, rw.removed) : [];
    const ranBase = (ranks: string[]): number =>
      ranks.length === prRanks.length ? rw.removedChains.base : baseLevels.reduce((a, l) => a + (ranks.includes(l.rank) ? l.total : 0), 0);
    for (const { value, ranks } of byValue(removedLevels, (l) => l.max)) {
      candidates.push({
        notes: candidates.length === 0 ? notes : [],
        lines: [
          `  - rule: ${yamlString(`the chain of ${plural(rw.removed.length, 'kernel')} ${rw.added.length === 0 ? 'removed' : `fused into ${chainWords(rw.added)}`} ${value === 0 ? 'stays gone' : `stays at most ${fmtCount(value)} per step`}${onRanks(ranks)}`)}`,
          `    ${field}: ${list(rw.removed)}`,
          `    sequence: { per: step, max: ${value}${marker} }`,
          ...ranksLine(ranks, prRanks),
          ...(ranBase(ranks) > 0 ? [evidenceLine(ranBase(ranks))] : []),
        ],
        chain: true,
      });
    }
    if (rw.added.length > 0) {
      const running = chainLevels(profiles.pr, field, rw.added).filter((l) => l.min > 0);
      for (const { value, ranks } of byValue(running, (l) => l.min)) {
        candidates.push({
          notes: candidates.length === 0 ? notes : [],
          lines: [
            `  - rule: ${yamlString(`${chainWords(rw.added)} runs in place of the chain, at least ${fmtCount(value)} per step${onRanks(ranks)}`)}`,
            `    ${field}: ${list(rw.added)}`,
            `    sequence: { per: step, min: ${value}${marker} }`,
            ...ranksLine(ranks, prRanks),
          ],
          chain: true,
        });
      }
      if (running.length === 0) body.push(comment(`Not written: a minimum on ${chainWords(rw.added)}; some step of every rank lacks it.`));
    }
    emit(candidates, `a sequence rule on rewrite #${n}`);
  });
}

/** The rules YAML for a diff. `base` and `pr` are the summaries the diff was made from. */
export function generateRules(d: Diff, base: Summary, pr: Summary, profiles: GenerateProfiles, opts: GenerateOptions): string {
  const field = (row: DiffRow): string =>
    row.userGroup !== undefined ? `group: ${yamlString(row.userGroup)}` : `${d.groupBy === 'name' ? 'name' : 'type'}: ${yamlString(row.key)}`;
  // Per step only when every rank of both sides has steps: a per-step rule cannot be checked on the other side.
  const perStep = [base, pr].every((s) => s.hasSteps && s.perRank.every((r) => r.steps.length > 0));
  const per = perStep ? 'step' : 'total';
  const prRanks = pr.perRank.map((r) => r.rank).sort(compareRanks);
  const prLevels = (key: string | null): RankLevel[] => pr.perRank.map((r) => rankLevel(r, key, perStep));
  // The base rank compared with a PR rank: the same id, or the only rank when both sides have one.
  const baseRankOf = (rank: string): RankSummary | undefined =>
    pr.perRank.length === 1 && base.perRank.length === 1 ? base.perRank[0] : base.perRank.find((r) => r.rank === rank);
  const baseLevel = (rank: string, key: string | null): RankLevel | null => {
    const b = baseRankOf(rank);
    return b ? rankLevel(b, key, perStep) : null;
  };
  const baseLevels = (key: string | null): RankLevel[] => base.perRank.map((r) => rankLevel(r, key, perStep));

  const preamble: string[] = ['version: 1'];
  if (opts.groups.length > 0) {
    preamble.push('groups:');
    for (const g of opts.groups) {
      const members = [...[...g.exact].sort(), ...g.patterns.map((p) => `/${p.source}/${p.flags}`)];
      preamble.push(`  ${yamlString(g.name)}: [${members.map(yamlString).join(', ')}]`);
    }
  }
  if (opts.steps) preamble.push(`steps: ${stepsLabel(opts.steps)}`);

  const verify = (c: Candidate): Verified => {
    const set = parseRules('generated rules', [...preamble, 'rules:', ...c.lines, ''].join('\n'));
    let misspelt = false;
    try {
      rejectMisspelt(set, profiles.pr, null);
    } catch {
      misspelt = true;
    }
    let holdsOnPr = false;
    let prError: string | null = null;
    try {
      holdsOnPr = evaluate(profiles.pr, null, set).results.every((r) => r.passed);
    } catch (e) {
      holdsOnPr = false;
      prError = e instanceof Error ? e.message : String(e);
    }
    try {
      return { holdsOnPr, breaksOnBase: !evaluate(profiles.base, null, set).results.every((r) => r.passed), baseError: null, prError, misspelt };
    } catch (e) {
      return { holdsOnPr, breaksOnBase: false, baseError: e instanceof Error ? e.message : String(e), prError, misspelt };
    }
  };

  const body: string[] = [];
  let written = 0;
  let breaking = 0;
  let keptAnyway = 0;
  /** Verify the candidates of one kernel group and write those that discriminate; say why the others are left out. */
  const emit = (candidates: Candidate[], what: string): void => {
    for (const c0 of candidates) {
      let c = c0;
      let v = verify(c);
      if (v.misspelt && c.chain) {
        body.push(
          ...c.notes,
          comment(
            `Not written: ${what}; kprof check, run on the PR without --base, would take a kernel of the chain for a misspelling of one that runs there.`,
          ),
        );
        continue;
      }
      if (v.misspelt) {
        // Checked without the base, the kernel's name is one letter or two from a kernel that runs in the PR, and
        // kprof check would stop at it as a typo: select it by an anchored regular expression instead.
        c = {
          ...c,
          lines: asMatch(c.lines),
          notes: [
            ...c.notes,
            comment(
              'Written as match: kprof check, run on the PR without --base, would take the name for a misspelling of a kernel that runs there.',
            ),
          ],
        };
        v = verify(c);
      }
      if (!v.holdsOnPr) {
        const why = v.prError !== null ? 'the PR cannot answer it (see kprof check on the PR)' : 'it would not hold on the PR';
        body.push(...c.notes, comment(`Not written: ${what}; ${why}.`));
        continue;
      }
      if (!v.breaksOnBase && c.keepAnyway === undefined) {
        const why =
          v.baseError !== null
            ? 'the base cannot answer it (see kprof check on the base)'
            : 'the base holds it too, so it would not catch the change coming undone';
        body.push(...c.notes, comment(`Not written: ${what}; ${why}.`));
        continue;
      }
      body.push(...c.notes);
      if (!v.breaksOnBase) {
        body.push(comment(`Kept although the base holds it too: ${c.keepAnyway}`));
        keptAnyway++;
      } else {
        breaking++;
      }
      body.push(...c.lines);
      written++;
    }
  };

  const rows = d.rows.filter((r) => r.key !== '');
  const removed = rows.filter((r) => r.status === 'removed');
  const added = rows.filter((r) => r.status === 'added');
  // Cut per rank: with one rank fewer in the PR, every kernel's sum over the ranks falls, none of them cut.
  const cut = rows.filter((r) => {
    const pct = perRankPct(d, r);
    // Settled (util/format.ts): 1 → 0.8 per step is -19.999999999999996% unrounded, a cut of exactly 20%.
    return r.status === 'fewer' && pct !== null && settled(pct) <= -opts.cutThresholdPct;
  });

  if (removed.length > 0) body.push('', comment('Removed by the change: they must not come back.'));
  for (const r of removed) {
    if (perStep && oneOff(baseLevels(r.key))) {
      body.push(
        comment(`${said(r.key)}: base ${levelsText(baseLevels(r.key), perStep)}, PR none.`),
        comment(`Not written: "${said(r.key)} stays removed"; ${ONE_OFF}.`),
      );
      continue;
    }
    emit(
      [
        {
          notes: [comment(`${said(r.key)}: base ${levelsText(baseLevels(r.key), perStep)}, PR none.`)],
          lines: [
            `  - rule: ${yamlString(`${said(r.key)} stays removed`)}`,
            `    ${field(r)}`,
            '    absent: true',
            evidenceLine(baseLevels(r.key).reduce((n, l) => n + l.total, 0)),
          ],
        },
      ],
      `"${said(r.key)} stays removed"`,
    );
  }

  if (added.length > 0) body.push('', comment('Added by the change: they must keep running.'));
  for (const r of added) {
    const levels = prLevels(r.key);
    const notes = [comment(`${said(r.key)}: base none, PR ${levelsText(levels, perStep)}.`)];
    if (perStep && oneOff(levels)) {
      body.push(...notes, comment(`Not written: a rule on ${said(r.key)}; ${ONE_OFF}.`));
      continue;
    }
    const candidates: Candidate[] = [];
    // Where the ranks run it alike, one rule; else a rule per level, on the ranks of that level.
    const running = levels.filter((l) => l.min > 0);
    for (const { value: min, ranks } of byValue(running, (l) => l.min)) {
      candidates.push({
        notes: candidates.length === 0 ? notes : [],
        lines: [
          `  - rule: ${yamlString(`${said(r.key)} runs at least ${plural(min, 'time')}${perStep ? ' per step' : ''}${ranks.length < prRanks.length ? ` on rank${ranks.length === 1 ? '' : 's'} ${rankList(ranks)}` : ''}`)}`,
          `    ${field(r)}`,
          `    count: { per: ${per}, min: ${min} }`,
          ...ranksLine(ranks, prRanks),
        ],
      });
    }
    // Ranks where some step lacks it: it runs, somewhere in the run.
    const sometimes = levels.filter((l) => l.min === 0 && l.total > 0).map((l) => l.rank);
    if (sometimes.length > 0) {
      candidates.push({
        notes: candidates.length === 0 ? notes : [],
        lines: [
          `  - rule: ${yamlString(`${said(r.key)} runs${sometimes.length < prRanks.length ? ` on rank${sometimes.length === 1 ? '' : 's'} ${rankList(sometimes)}` : ''}`)}`,
          `    ${field(r)}`,
          '    present: true',
          ...ranksLine(sometimes, prRanks),
        ],
      });
    }
    emit(candidates, `a rule on ${said(r.key)}`);
  }

  if (cut.length > 0) body.push('', comment(`Cut by ${opts.cutThresholdPct}% or more: they must stay at the PR's level.`));
  for (const r of cut) {
    const levels = prLevels(r.key);
    const paired = levels.map((l) => ({ l, b: baseLevel(l.rank, r.key) }));
    const notes = [
      comment(`${said(r.key)}: base ${levelsText(baseLevels(r.key), perStep)}, PR ${levelsText(levels, perStep)} (${changeText(d, r)}).`),
    ];
    const candidates: Candidate[] = [];
    const first = (): string[] => (candidates.length === 0 ? notes : []);
    let after: string[] = [];
    // Ranks where the change removed it altogether.
    const gone = paired.filter((x) => x.l.total === 0 && (x.b?.total ?? 0) > 0).map((x) => x.l.rank);
    if (gone.length > 0) {
      candidates.push({
        notes: first(),
        lines: [
          `  - rule: ${yamlString(`${said(r.key)} stays removed on rank${gone.length === 1 ? '' : 's'} ${rankList(gone)}`)}`,
          `    ${field(r)}`,
          '    absent: true',
          ...ranksLine(gone, prRanks),
          evidenceLine(paired.filter((x) => gone.includes(x.l.rank)).reduce((n, x) => n + (x.b?.total ?? 0), 0)),
        ],
      });
    }
    // Each rank that still runs it is held to its own level, so that no limit sits at or above the base's level
    // on a rank it applies to: a per-step maximum where the rank's highest step fell, else (fused in some steps
    // or layers only: no step has fewer at the most, but the run has) a maximum on the run, when both sides
    // have as many steps.
    const rest = paired.filter((x) => x.l.total > 0);
    const stepFell = rest.filter((x) => x.b !== null && x.b.max > x.l.max).map((x) => x.l);
    const runFell = rest.filter((x) => x.b !== null && x.b.max <= x.l.max && x.b.steps === x.l.steps && x.b.total > x.l.total).map((x) => x.l);
    const onRanks = (ranks: string[]): string => (ranks.length < prRanks.length ? ` on rank${ranks.length === 1 ? '' : 's'} ${rankList(ranks)}` : '');
    // A maximum matches nothing once a later change removes the rest of the kernels: the base's count of them on
    // its ranks says they ran, so that steady state holds without a warning (as for absent: true).
    const ranBefore = (ranks: string[]): string =>
      evidenceLine(paired.filter((x) => ranks.includes(x.l.rank)).reduce((n, x) => n + (x.b?.total ?? 0), 0));
    for (const { value, ranks } of byValue(stepFell, (l) => l.max)) {
      candidates.push({
        notes: first(),
        lines: [
          `  - rule: ${yamlString(`${said(r.key)} stays at most ${fmtCount(value)}${perStep ? ' per step' : ''}${onRanks(ranks)}`)}`,
          `    ${field(r)}`,
          `    count: { per: ${per}, max: ${value} }`,
          ...ranksLine(ranks, prRanks),
          ranBefore(ranks),
        ],
      });
    }
    if (perStep) {
      for (const { value, ranks } of byValue(runFell, (l) => l.total)) {
        candidates.push({
          notes: first(),
          lines: [
            `  - rule: ${yamlString(`${said(r.key)} stays at most ${fmtCount(value)} in total${onRanks(ranks)}`)}`,
            `    ${field(r)}`,
            `    count: { per: total, max: ${value} }`,
            ...ranksLine(ranks, prRanks),
            ranBefore(ranks),
          ],
        });
      }
    }
    const unchanged = rest.filter((x) => !stepFell.some((l) => l.rank === x.l.rank) && !(perStep && runFell.some((l) => l.rank === x.l.rank)));
    if (unchanged.length > 0) {
      // Why, rank by rank, in words true of each: ranks alike in the reason are named together.
      const why = new Map<string, string[]>();
      for (const { l, b } of unchanged) {
        let reason: string;
        if (b === null) reason = 'the base does not have the rank';
        else if (b.total > l.total && b.steps !== l.steps && perStep)
          reason = `its highest step did not fall, and the base and the PR profiled ${fmtCount(b.steps)} and ${fmtCount(l.steps)} steps there, so their totals do not compare`;
        else if (b.total > l.total) reason = 'its highest step did not fall';
        else reason = 'no count of it in a step or in the run is lower there than in the base';
        why.set(reason, [...(why.get(reason) ?? []), l.rank]);
      }
      const all = why.size === 1 && unchanged.length === prRanks.length;
      after = [
        ...(candidates.length === 0 ? notes : []),
        ...[...why].map(([reason, ranks]) =>
          comment(`Not written: a maximum on ${said(r.key)}${all ? '' : ` on rank${ranks.length === 1 ? '' : 's'} ${rankList(ranks)}`}; ${reason}.`),
        ),
      ];
    }
    emit(candidates, `a maximum on ${said(r.key)}`);
    body.push(...after);
  }

  if (opts.rewrites !== undefined) sequenceRules(opts.rewrites, d.groupBy === 'name' ? 'name' : 'type', profiles, body, emit);

  if (removed.length + added.length + cut.length === 0) {
    body.push(
      '',
      comment(`The diff found no kernel ${d.groupBy === 'name' ? 'name' : 'type'} removed, added or cut by ${opts.cutThresholdPct}% or more.`),
    );
  }

  const all = prLevels(null);
  const allMax = all.reduce((m, l) => Math.max(m, l.max), 0);
  const allBase = baseLevels(null);
  body.push('', comment('All kernels.'));
  emit(
    [
      {
        notes: [comment(`base ${levelsText(allBase, perStep)}, PR ${levelsText(all, perStep)}; max = the PR's highest.`)],
        lines: [
          `  - rule: ${yamlString(`total kernels stay at most ${fmtCount(allMax)}${perStep ? ' per step' : ''}`)}`,
          '    kernels: all',
          `    count: { per: ${per}, max: ${allMax} }`,
        ],
        keepAnyway: 'a cap on all kernels catches kernels that a later change adds.',
      },
    ],
    'the cap on all kernels',
  );
  // Time: the PR's highest, plus the margin (kernel time varies from run to run; counts do not).
  const usMax = all.reduce((m, l) => Math.max(m, l.maxUs), 0);
  const usBase = allBase.reduce((m, l) => Math.max(m, l.maxUs), 0);
  const limit = Math.ceil(Math.round(usMax * (1 + opts.marginPct / 100) * 100 * 1e6) / 1e6) / 100;
  // A rules file refuses a bound above the most kernel time kprof sums: so large a margin is the user's, not ours.
  if (!(limit <= MAX_EXACT_TICKS / TICKS_PER_US)) {
    throw usageError(
      `--margin: expected a percentage that keeps the time maximum (the PR's highest, ${fmtUs(usMax)}, plus the margin) at most ${MAX_EXACT_TEXT}, ` +
        `the most kernel time kprof sums; found ${inQuotes(shown(opts.marginText ?? String(opts.marginPct)))}. Give a smaller --margin (the default is 10).`,
    );
  }
  emit(
    [
      {
        notes: [
          comment(
            `kernel time${perStep ? ' per step' : ''}: base at most ${fmtUs(usBase)}, PR at most ${fmtUs(usMax)}; max = ${fmtUs(usMax)} + ${opts.marginPct}%, rounded up.`,
          ),
        ],
        lines: [
          `  - rule: ${yamlString(`kernel time stays at most ${fmtUs(limit)}${perStep ? ' per step' : ''}`)}`,
          '    kernels: all',
          `    time: { per: ${per}, max: ${limit}us }`,
          '    severity: warn',
          '    why: kernel time varies between runs; a warning, not a gate',
        ],
      },
    ],
    `a time maximum of ${fmtUs(limit)}${perStep ? ' per step' : ''} (the PR's highest + ${opts.marginPct}%)`,
  );

  const header = [
    `# kprof rules generated from the diff of ${shown(opts.basePath)} (base) and ${shown(opts.prPath)} (PR), kernels grouped by ${d.groupBy}.`,
    `# Base: ${plural(d.base.ranks.length, 'rank')}, ${d.base.steps === null ? 'no steps' : stepCountsText(d.base.rankSteps, shown)}; ` +
      `PR: ${plural(d.pr.ranks.length, 'rank')}, ${d.pr.steps === null ? 'no steps' : stepCountsText(d.pr.rankSteps, shown)}. ` +
      `Counts compared ${d.normalization === 'per-step' ? 'per step' : 'in total'}.`,
    `# Verified before writing: ${written === 1 ? 'the 1 rule holds' : `all ${fmtCount(written)} rules hold`} on the PR and ${breaking === 0 ? 'none' : fmtCount(breaking)} of them ${breaking === 1 && written === 1 ? 'breaks' : 'break'} on the base` +
      `${keptAnyway > 0 ? ` (${fmtCount(keptAnyway)} kept anyway, as ${keptAnyway === 1 ? 'its comment says' : 'their comments say'})` : ''}.`,
    `# Review the rules, say in why: what each protects, and check the file in:`,
    `#   kprof check <profile> --rules <this file>${opts.checkOptions ? ` ${opts.checkOptions}` : ''}`,
  ];
  const text = `${[...header, ...preamble, 'rules:', ...body].join('\n')}\n`;
  const bytes = Buffer.byteLength(text);
  if (bytes > MAX_TEXT_FILE_BYTES) {
    const longest = d.rows.reduce((n, r) => Math.max(n, r.key.length), 0);
    throw inputError(
      `the rules file would be ${fmtCount(bytes)} bytes, more than the 256 KiB kprof check reads: its selectors name kernels whole, ` +
        `and some names are long (up to ${fmtCount(longest)} characters). Nothing was written. Leave the kernels with the longest names out ` +
        `(--exclude REGEX)${d.groupBy === 'name' ? ' or group them by type (--by type)' : ''}, and run kprof rules again.`,
    );
  }
  // What is written reads back as the rules that were verified, and every one of them holds on the PR.
  const final = evaluate(profiles.pr, null, parseRules('generated rules', text));
  if (!final.results.every((r) => r.passed) || final.results.length !== written) {
    throw new Error(`the generated rules do not all hold on the PR ${opts.prPath}`);
  }
  return text;
}
