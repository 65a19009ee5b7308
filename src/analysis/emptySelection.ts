// Filters that select nothing. `--core ai_core` would otherwise give an empty report that looks like a profile
// with no such kernels: say which filter kept nothing and what the profile has instead. `--steps 99-100` on a
// profile of steps 7-8 selects no part of the profile at all, as `--rank 9` of ranks 0-1 does: a usage error.

import { inSteps, keepGroup, kernelMatches, stepsLabel, stepsText } from '../aggregate/group.js';
import type { Profile, Selection, StepRange, Summary } from '../model/model.js';
import { fmtCount } from '../util/format.js';
import { usageError } from '../util/errors.js';
import { shown, inQuotes } from '../util/inputText.js';

function list(values: Iterable<string>, max = 8): string {
  const all = [...values];
  const head = all.slice(0, max).map(shown).join(', ');
  return all.length > max ? `${head} and ${all.length - max} more` : head;
}

/** Step Ids as ranges: 1-4, 7, 9-12. */
export function stepRanges(ids: number[]): string {
  const out: string[] = [];
  for (let i = 0; i < ids.length; ) {
    let j = i;
    while (j + 1 < ids.length && ids[j + 1] === ids[j]! + 1) j++;
    out.push(i === j ? `${ids[i]}` : `${ids[i]}-${ids[j]}`);
    i = j + 1;
  }
  return out.length > 8 ? `${out.slice(0, 8).join(', ')}, …` : out.join(', ');
}

/**
 * `--steps` naming a step (or a range) the profile does not have is a usage error (exit 2), as `--rank` naming a
 * rank it does not have is: a selection that matches nothing must not pass quietly (an empty report, a footer
 * saying "no Step Id", a gate on nothing). Each item of the list must match a step of some rank read (a range one
 * of its steps); the message names the steps the profile has. A rank read from a summary JSON counts with the steps
 * it holds (those selected when it was made: a different --steps is refused when it is read), so that a snapshot
 * and the profile it was made of give the same answer.
 */
export function requireSelectedSteps(profile: Profile, sel: Selection): void {
  if (!sel.steps) return;
  const ranks = profile.ranks;
  // A rank of no steps at all (no Step Id column, a trace of no ProfilerStep#N) is refused by the grouping, which
  // says why its format has none.
  if (ranks.length === 0 || ranks.some((r) => !r.fields.steps)) return;
  const ids = [...new Set(ranks.flatMap((r) => r.stepIds))].sort((a, b) => a - b);
  const gap = stepsNamingNone(sel.steps, ids);
  if (gap === null) return;
  // Summary JSONs whose ranks kept no kernel under the filters they were made with have steps, none kept: not a
  // Step Id column left empty.
  const made = ids.length === 0 && ranks.every((r) => r.kernels === 0 && (r.snapshot?.filteredKernels ?? 0) > 0) ? ranks[0]!.snapshot : null;
  if (made)
    throw usageError(
      `--steps ${stepsLabel(sel.steps)}: ${shown(profile.input)} holds no kernel in any step: it was made with ${shown(made.selection)}, which left out every kernel of ${ranks.length === 1 ? `rank ${shown(ranks[0]!.rank)}` : 'its ranks'}. ` +
        'Pass the profile it was made from, or a summary JSON made with other filters.',
    );
  throw usageError(`--steps ${stepsSaid(sel.steps)}: ${shown(profile.input)} has ${gap}. Select steps it has, or leave --steps out for every step.`);
}

/** Most items of a step selection a message names (those that name no step; the selection itself, see stepsSaid). */
const MAX_SAID = 8;

/**
 * A step selection in a message: as written (stepsLabel) up to MAX_SAID items, else the first 6, `…` and the last,
 * with the number of items (`1,3,5,7,9,11,…,19999 (10,000 items)`).
 */
export function stepsSaid(steps: readonly StepRange[]): string {
  if (steps.length <= MAX_SAID) return stepsLabel(steps);
  return `${stepsLabel(steps.slice(0, 6))},…,${stepsLabel(steps.slice(-1))} (${fmtCount(steps.length)} items)`;
}

/**
 * The items of a step selection that name no step of `ids` (sorted Step Ids), said with the steps there are
 * (`no step 99; its steps are 21-24`; `its` is the pronoun of what has them), or null when each item names one.
 * For --steps and a rule's steps:.
 */
export function stepsNamingNone(steps: readonly StepRange[], ids: readonly number[], its = 'its'): string | null {
  const missing = steps.filter((range) => !ids.some((s) => inSteps([range], s)));
  if (missing.length === 0) return null;
  const item = (r: StepRange): string =>
    r.from === r.to ? `${r.from}` : r.to === Number.POSITIVE_INFINITY ? `from ${r.from} on` : `in ${r.from}-${r.to}`;
  // The first MAX_SAID of them, and how many more: a list of thousands (a script's --steps) is no message.
  const what =
    missing
      .slice(0, MAX_SAID)
      .map((r, i) => (i === 0 ? `no step ${item(r)}` : `none ${item(r)}`))
      .join(', ') + (missing.length > MAX_SAID ? `, nor ${fmtCount(missing.length - MAX_SAID)} more of the items` : '');
  const has =
    ids.length > 1 ? `${its} steps are ${stepRanges([...ids])}` : ids.length === 1 ? `${its} one step is ${ids[0]}` : 'every Step Id cell is empty';
  return `${what}; ${has}`;
}

/**
 * What in the selection kept no kernel, as one message per filter (--core, --match, --exclude: a --steps that
 * selects no step stopped at requireSelectedSteps); and, when the filters together keep nothing
 * though each alone keeps something, one message saying so. Empty when the summary holds kernels and every filter
 * matched one. Ranks read from a summary JSON are left out (their filters were applied when it was made).
 */
export function emptySelectionMessages(profile: Profile, sel: Selection, summary: Summary): string[] {
  const ranks = profile.ranks.filter((r) => !r.snapshot);
  if (ranks.length === 0) return [];
  const read = ranks.reduce((n, r) => n + r.kernels, 0);
  const out: string[] = [];
  if (sel.cores) {
    const have = new Map<string, number>();
    for (const r of ranks) for (const g of r.groups.values()) if (g.core !== null) have.set(g.core, (have.get(g.core) ?? 0) + g.total.count);
    for (const c of sel.cores) {
      if (have.has(c)) continue;
      const like = [...have.keys()].find((h) => h.toLowerCase() === c.toLowerCase());
      out.push(
        `--core ${shown(c)} selects no kernel: no kernel of the profile ran on that core` +
          `${like !== undefined ? ` (did you mean ${shown(like)}? core names are case-sensitive)` : ''}; its cores are ${have.size > 0 ? list([...have.keys()].sort()) : 'none'}.`,
      );
    }
  }
  for (const [flag, re] of [
    ['--match', sel.match],
    ['--exclude', sel.exclude],
  ] as const) {
    if (re === null) continue;
    let hits = 0;
    for (const r of ranks) for (const g of r.groups.values()) if (kernelMatches(re, g)) hits += g.total.count;
    if (flag === '--match' && hits === 0)
      out.push(`--match ${shown(re.source)} selects no kernel: it matches no kernel name or type of the profile.`);
    if (flag === '--exclude' && hits === read && read > 0) out.push(`--exclude ${shown(re.source)} leaves out every kernel of the profile.`);
  }
  if (out.length === 0 && summary.totals.count === 0 && read > 0) {
    const kept = ranks.some((r) => [...r.groups.values()].some((g) => keepGroup(g, sel)));
    out.push(
      `the filters (${filterText(sel)}) keep none of the ${fmtCount(read)} kernels read${kept ? ' (some kernels pass --core, --match and --exclude, but none of them in the selected steps)' : ''}.`,
    );
  }
  return out;
}

/**
 * The user groups (--groups) that hold no kernel of the summary, one message each: their members match no kernel
 * that an earlier group did not take (a kernel joins the first group it matches), so they are in no row. None when
 * the selection keeps no kernel at all (that is said above), or when every rank is a summary JSON.
 */
export function emptyGroupMessages(profile: Profile, sel: Selection, summary: Summary): string[] {
  if (sel.groups.length === 0 || summary.totals.count === 0 || profile.ranks.every((r) => r.snapshot)) return [];
  const held = new Set<string>();
  for (const g of summary.groups) if (g.userGroup !== undefined && g.total.count > 0) held.add(g.userGroup);
  const empty = sel.groups.filter((g) => !held.has(g.name));
  const out = empty
    .slice(0, EMPTY_GROUPS_SAID)
    .map(
      (g) =>
        `--groups: group ${inQuotes(shown(g.name))} holds no kernel: its members match none that no earlier group took (a kernel joins the first group it matches).`,
    );
  // A file of hundreds of such groups: the rest in one line, not a screen of warnings that hides the others.
  const more = empty.length - out.length;
  if (more > 0)
    out.push(
      `--groups: ${fmtCount(more)} more group${more === 1 ? '' : 's'} of the file hold${more === 1 ? 's' : ''} no kernel, as the ${out.length} above.`,
    );
  return out;
}

/** The empty user groups named one by one; the rest are counted in one line. */
const EMPTY_GROUPS_SAID = 8;

function filterText(sel: Selection): string {
  const o: string[] = [];
  if (sel.steps) o.push(`--steps ${stepsText(sel.steps)}`);
  if (sel.cores) o.push(`--core ${list(sel.cores)}`);
  if (sel.match) o.push(`--match ${shown(sel.match.source)}`);
  if (sel.exclude) o.push(`--exclude ${shown(sel.exclude.source)}`);
  return o.join(', ');
}

/** The messages as warning lines for stderr, each with a prefix (the side of a diff), or ''. */
export function emptySelectionWarnings(messages: string[], prefix = ''): string {
  return messages.map((m) => `kprof: warning: ${prefix}${m}\n`).join('');
}
