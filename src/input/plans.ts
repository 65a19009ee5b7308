// The rank plans of a `<profile>` argument, before any kernel is read: the ranks --rank keeps (an unknown rank
// said with what the input has, and for the two sides of a diff, with the ranks both have), and the message of an
// unusable file of one rank of several (which rank, and the --rank that reads the others), and of ranks --rank
// selects where no row was read.

import { inputError, isKprofError, KprofError } from '../util/errors.js';
import { NO_RANK_ID, rankOption, ranksNamed } from '../util/format.js';
import { shellWord, shown } from '../util/inputText.js';
import { compareRanks, type RankData } from '../model/model.js';
import { readerOf, readerUsable } from './formats/readers.js';
import { formatOf, ranksInFile } from './formats/registry.js';
import { resolveInput, type Prefer, type RankPlan, type ResolvedInput } from './formats/resolve.js';

/** What planning takes of the read's options. */
export interface PlanOptions {
  ranks: string[] | null;
  prefer?: Prefer | null;
}

/**
 * Which plans the rank selection keeps; an unknown rank is a usage error that lists the ranks found, and then says
 * what to do (`advice`, by default: another --rank of those).
 */
export function selectPlans(resolved: ResolvedInput, ranks: string[] | null, said: { side?: string; advice?: string } = {}): RankPlan[] {
  if (ranks === null) return resolved.ranks;
  if (resolved.ranks.some((p) => ranksInFile(p.format))) return resolved.ranks; // filtered after reading
  const have = new Set(resolved.ranks.map((p) => p.rank));
  const missing = ranks.filter((r) => !have.has(r));
  // An msprof op_summary may hold several devices, each a rank known only once read: read, then filter.
  if (missing.length > 0 && resolved.ranks.some((p) => formatOf(p.format).answers.ranks === 'column')) return resolved.ranks;
  if (missing.length > 0) {
    throw inputError(
      `${resolved.input}${said.side !== undefined ? ` (${said.side})` : ''}: ${ranksNamed(missing, shown)} not found; the input has ` +
        `${ranksNamed([...have].sort(compareRanks), shown)}. ${said.advice ?? 'Use --rank with one of those, or --rank all.'}`,
    );
  }
  return resolved.ranks.filter((p) => ranks.includes(p.rank));
}

/**
 * A `<profile>` argument resolved into the rank plans its read takes: planned before the read, so that a command
 * can ask what the formats of its files answer (kernel names only?) before it reads them.
 */
export interface PlannedProfile {
  input: string;
  resolved: ResolvedInput;
  plans: RankPlan[];
}

/** Resolve a `<profile>` argument and select its rank plans (no kernel is read; a bad path or rank throws here). */
export function planProfile(input: string, options: PlanOptions): PlannedProfile {
  const resolved = resolveInput(input, { prefer: options.prefer ?? null });
  return { input, resolved, plans: selectPlans(resolved, options.ranks) };
}

/**
 * The two sides of a diff (or of kprof rules, or check's profile and --base), planned with the same --rank: a
 * rank one side lacks is said with the side (`sides`) and the ranks both have, since another rank of that side
 * alone would stop the other side's read.
 */
export function planPair(
  inputs: readonly [string, string],
  options: PlanOptions,
  sides: readonly [string, string] = ['the base', 'the PR'],
): [PlannedProfile, PlannedProfile] {
  const resolved = inputs.map((i) => resolveInput(i, { prefer: options.prefer ?? null }));
  const ids = (r: ResolvedInput) => new Set(r.ranks.map((p) => p.rank));
  const plans = resolved.map((r, i) => {
    const other = ids(resolved[1 - i]!);
    const both = [...ids(r)].filter((x) => other.has(x) && x !== NO_RANK_ID).sort(compareRanks);
    const option = rankOption(both);
    const advice =
      both.length > 0
        ? `Use --rank with ranks both sides have (${option !== null ? `--rank ${shellWord(option)}` : ranksNamed(both, shown)}), or --rank all.`
        : `${sides[0].replace(/^t/, 'T')} and ${sides[1]} share no rank id: --rank all compares them whole.`;
    return selectPlans(r, options.ranks, { side: sides[i]!, advice });
  });
  return [0, 1].map((i) => ({ input: inputs[i]!, resolved: resolved[i]!, plans: plans[i]! })) as [PlannedProfile, PlannedProfile];
}

/** At most this many runs of other ranks (`0-6`, `9`) are named in the --rank a message suggests (a cluster's thousand scattered ones are not). */
const OTHER_RANKS_NAMED = 8;

/**
 * An input error of one rank of several (a rank's file empty, binary, of no known format): the message says
 * which rank it is and how to read the others without it (`--rank 0,2`), as one bad rank of 64 stops the read of
 * the whole folder. Other errors, and those of a file that holds several ranks, are given as they are.
 */
export function withOtherRanks(e: unknown, plan: RankPlan, plans: RankPlan[]): unknown {
  if (!isKprofError(e) || e.kind !== 'input' || plans.length < 2 || plan.rank === '-' || ranksInFile(plan.format)) return e;
  // A format that cannot be read here (a db without an SQLite library): every rank of it fails alike, so the others
  // are the ranks of other formats.
  const alike = readerUsable(plan.format) ? () => false : (p: RankPlan) => p.format === plan.format;
  const others = [
    ...new Set(
      plans
        .filter((p) => !alike(p))
        .map((p) => p.rank)
        .filter((r) => r !== plan.rank && r !== '-'),
    ),
  ].sort(compareRanks);
  if (others.length === 0) return e;
  const option = rankOption(others, OTHER_RANKS_NAMED);
  const read =
    option !== null
      ? `--rank ${shellWord(option)} reads the ${others.length === 1 ? 'other' : `other ${others.length}`} without it`
      : `--rank with the other ranks reads them without it`;
  return new KprofError(e.kind, `${e.message} It is rank ${shown(plan.rank)}, one of ${plans.length} ranks read: ${read}.`);
}

/**
 * Refuse a profile (or the ranks --rank selects of it) where no row was read: zeros it never measured would be its
 * figures. Of ranks a file holds (a summary JSON), a rank that read none when it was saved is named as such, not
 * the file as empty; with --rank, the input's other ranks are named with the --rank that reads them.
 */
export function noKernelRows(input: string, resolved: ResolvedInput, byRank: Map<string, RankData>, out: RankData[], ranks: string[] | null): never {
  const read = out.flatMap((r) => r.files);
  const files = [...new Set(read.map((f) => f.path))];
  const named = ranksNamed(
    out.map((r) => r.rank),
    shown,
  );
  const saved = read.every((f) => readerOf(f.format).kind === 'ranks');
  let empty: string;
  if (saved) {
    // A file of finished ranks (a summary JSON) saved the rank as it was read: with no row.
    empty = `${files.length === 1 ? 'holds' : 'hold'} ${named} with no kernel row (the profile it was made from had none for ${out.length === 1 ? 'it' : 'them'})`;
  } else {
    // A CSV export is told apart by its header; a file of another format (a db export) has none.
    const what = read.every((f) => formatOf(f.format).naming.header !== null) ? 'a header but no data' : 'no kernels in it';
    empty = `${files.length === 1 ? 'has' : 'have'} ${what}`;
  }
  // What the writers of these formats are told to record kernels (registry naming.record), if they say.
  const record = [...new Set(read.map((f) => formatOf(f.format).naming.record))];
  const advice = saved
    ? ': a profile of no kernel row is read by no command, saved or not (its figures would be zeros it never measured, and a gate that read nothing does not pass).'
    : record.length === 1 && record[0] !== undefined
      ? `; was the profile collected with ${record[0]}?`
      : '.';
  let others = '';
  if (ranks !== null) {
    // The input's ranks that --rank left out: read (of a file of several ranks) with rows, or planned (not read).
    const kept = new Set(ranks);
    const left = new Set<string>();
    for (const [id, r] of byRank) if (!kept.has(id) && r.rowsRead > 0) left.add(id);
    for (const p of resolved.ranks) if (!kept.has(p.rank) && p.rank !== NO_RANK_ID && !byRank.has(p.rank)) left.add(p.rank);
    const ids = [...left].sort(compareRanks);
    if (ids.length > 0) {
      const option = rankOption(ids);
      const reads = `--rank ${option !== null ? shellWord(option) : 'with those'} reads ${ids.length === 1 ? 'it' : 'them'}`;
      others = ` --rank left out the input's other ${ranksNamed(ids, shown)}: ${reads}; read whole, the profile shows ${named} with no kernels.`;
    }
  }
  throw inputError(
    `${input}: no kernel rows${ranks === null ? '' : ` on ${named} (--rank)`}: ${files.join(', ')} ${empty}. Expected at least one kernel row${advice}${others}`,
  );
}
