// Selectors that match no kernel. A rule about a kernel that is not there holds for `absent: true` and for a
// maximum, so a misspelt `type: InterleaveRop` would pass forever. Two answers:
//
//   - the value is close to a kernel that does exist (the same but for case, an edit or two, or a communication
//     name written with its counters, `hcom_allReduce__586_0_1`): a mistake in the rules file, reported
//     as an input error with "did you mean";
//   - otherwise the rule is evaluated as written and its report says that the selector matched nothing.
//
// "Exists" means: has at least one kernel in the profile or in the base, on any rank, in any step.

import { inputError } from '../util/errors.js';
import { normaliseName } from '../input/formats/names.js';
import { shortenName } from '../input/formats/trace/shortName.js';
import { inSteps, kernelMatches } from '../aggregate/group.js';
import { forEachStepFigure, type FineGroup, type Profile, type RankData, type UserGroup } from '../model/model.js';
import { stepless, type RecordedRank } from '../analysis/rewrites/recorderSink.js';
import { saidText, type Rule, type RuleSet, type Said } from './model.js';
import { closest, MAX_COMPARED, newBudget, type Budget } from '../util/nearName.js';
import { clipped, WHOLE, inQuotes } from '../util/inputText.js';
import { shapeHint } from './shapeHints.js';

/** Kernel types and names of the fine groups that hold kernels; null where the source has no such field. */
interface Known {
  types: Set<string>;
  names: Set<string>;
  /** Some group has no type (or no name): selectors by that field cannot be answered here (evaluate says why). */
  typeless: boolean;
  nameless: boolean;
  groups: FineGroup[];
}

const cache = new WeakMap<Profile, WeakMap<Profile | typeof NO_BASE, Known>>();
const NO_BASE = {};

/** The kernels of a profile and its base, gathered once for all the rules of a file. */
function knownOf(profile: Profile, base: Profile | null): Known {
  let byBase = cache.get(profile);
  if (!byBase) {
    byBase = new WeakMap();
    cache.set(profile, byBase);
  }
  let k = byBase.get(base ?? NO_BASE);
  if (!k) {
    k = known([profile, base]);
    byBase.set(base ?? NO_BASE, k);
  }
  return k;
}

/** The kernel types and names (raw names too) of a profile and its base. */
export interface KnownValues {
  types: ReadonlySet<string>;
  names: ReadonlySet<string>;
}

export function knownValues(profile: Profile, base: Profile | null): KnownValues {
  return knownOf(profile, base);
}

/** The kernels a group has in a rule's steps (all of them without steps:). */
export function countIn(rule: Rule | null, g: FineGroup): number {
  if (rule === null || rule.steps === null) return g.total.count;
  const steps = rule.steps;
  let n = 0;
  forEachStepFigure(g.steps, (s, count) => {
    if (inSteps(steps, s)) n += count;
  });
  return n;
}

/** The ranks of a profile (or of its base) that a rule looks at. */
function ranksFor(rule: Rule | null, p: Profile, profile: Profile): RankData[] {
  if (rule === null || rule.ranks === null) return p.ranks;
  // One rank against one rank is a pair whatever their ids (as evaluate pairs them).
  if (p !== profile && p.ranks.length === 1 && profile.ranks.length === 1) return p.ranks;
  return p.ranks.filter((r) => rule.ranks!.includes(r.rank));
}

function known(profiles: (Profile | null)[], rule: Rule | null = null): Known {
  const k: Known = { types: new Set(), names: new Set(), typeless: false, nameless: false, groups: [] };
  const profile = profiles[0]!;
  for (const p of profiles) {
    if (p === null) continue;
    for (const rank of ranksFor(rule, p, profile)) {
      for (const g of rank.groups.values()) {
        if (countIn(rule, g) === 0) continue;
        k.groups.push(g);
        // Only the profile's own gaps leave a field unanswered (evaluate says why): a base that holds no names
        // (a summary by type) or no types cannot show that the kernel ever ran, so it adds nothing.
        if (g.type === null) k.typeless ||= p === profile;
        else k.types.add(g.type);
        if (g.name === null) k.nameless ||= p === profile;
        else k.names.add(g.name);
        // A communication kernel answers to its raw name too (hcom_allGather__612_7_1), as selectors match it.
        if (g.rawName !== undefined) k.names.add(g.rawName);
      }
    }
  }
  return k;
}

function inGroup(g: FineGroup, ug: UserGroup): boolean {
  if (g.savedUserGroup !== undefined) return g.savedUserGroup === ug.name;
  if ((g.type !== null && ug.exact.has(g.type)) || (g.name !== null && ug.exact.has(g.name))) return true;
  if (g.rawName !== undefined && ug.exact.has(g.rawName)) return true;
  return ug.patterns.some((p) => kernelMatches(p, g));
}

function unmatchedIn(rule: Rule, k: Known): string[] {
  const s = rule.selector;
  if (s === null) return [];
  switch (s.kind) {
    case 'all':
      return [];
    case 'type':
      return k.typeless ? [] : s.values.filter((v) => !k.types.has(v));
    case 'name':
      return k.nameless ? [] : s.values.filter((v) => !k.names.has(v));
    case 'match':
      return k.groups.some((g) => kernelMatches(s.re, g)) ? [] : [`/${s.re.source}/${s.re.flags}`];
    case 'group':
      return k.groups.some((g) => inGroup(g, s.group)) ? [] : [s.group.name];
  }
}

const sequenceCache = new WeakMap<Profile, WeakMap<Profile | typeof NO_BASE, Map<string, Known | null>>>();

/**
 * For a sequence rule: the kernels of the recorded sequences of the rule's ranks and steps, in the profile and the
 * base. A chain is not thinned by --core, --match or --exclude, so what they leave out of the groups still runs for
 * it; communication kernels are in no sequence, so never in a chain. Null when a rank cannot answer a chain (a
 * summary JSON, op_statistic, no Step Id: the rule's evaluation says why).
 */
function sequenceKnown(rule: Rule, profile: Profile, base: Profile | null): Known | null {
  let byBase = sequenceCache.get(profile);
  if (!byBase) {
    byBase = new WeakMap();
    sequenceCache.set(profile, byBase);
  }
  let byScope = byBase.get(base ?? NO_BASE);
  if (!byScope) {
    byScope = new Map();
    byBase.set(base ?? NO_BASE, byScope);
  }
  const by = rule.selector?.kind === 'name' ? 'name' : 'type';
  const key = JSON.stringify([by, rule.ranks, rule.steps]);
  if (byScope.has(key)) return byScope.get(key)!;
  const k: Known | null = { types: new Set(), names: new Set(), typeless: false, nameless: false, groups: [] };
  const pool = by === 'name' ? k.names : k.types;
  let answered = true;
  for (const p of [profile, base]) {
    if (p === null || !answered) continue;
    for (const rank of ranksFor(rule, p, profile)) {
      const parts = rank.beside as RecordedRank[] | undefined;
      if (parts === undefined || rank.snapshot !== null || stepless(parts) || parts.some((x) => x.unordered !== null || x.withoutSteps !== null)) {
        answered = false;
        break;
      }
      const steps = new Set(rank.stepIds);
      for (const part of parts) {
        const seen = new Set<number>();
        for (const st of part.seq.steps) {
          if (seen.has(st.shape) || !steps.has(st.step) || (rule.steps !== null && !inSteps(rule.steps, st.step))) continue;
          seen.add(st.shape);
          for (const t of part.seq.shapes[st.shape]!.tokens) pool.add(part.seq.tokens[t]!);
        }
      }
    }
  }
  const out = answered ? k : null;
  byScope.set(key, out);
  return out;
}

/** What a rule's selector is tested against: the recorded sequences for a sequence rule, else the groups. */
function knownFor(rule: Rule, profile: Profile, base: Profile | null): Known {
  if (rule.check.kind === 'sequence') {
    const k = sequenceKnown(rule, profile, base);
    if (k !== null) return k;
  }
  return rule.ranks === null && rule.steps === null ? knownOf(profile, base) : known([profile, base], rule);
}

/**
 * The selector values of a rule that match no kernel in the profile nor in the base: type or name values, the
 * group's name, or the regular expression. Empty when the selector matched something (or selects every kernel).
 */
export function unmatchedOf(rule: Rule, profile: Profile, base: Profile | null): string[] {
  // What the rule's ranks: and steps: leave, as --rank and --steps leave it: a kernel that runs only outside
  // them is not there for the rule.
  // A chain (sequence:) may name a kernel twice: it is said once.
  return [...new Set(unmatchedIn(rule, knownFor(rule, profile, base)))];
}

/**
 * The patterns and values a rules file selects kernels by, for reading: a communication kernel's raw names are
 * kept apart where these tell them apart (a `name:` value or group member that is a raw name, a `match:` on its
 * counter). Type values too: a type value equal to a raw name is "a kernel name" to rejectMisspelt.
 */
export function ruleNameTests(set: RuleSet): { patterns: RegExp[]; exact: string[] } {
  const patterns: RegExp[] = [];
  const exact: string[] = [];
  const group = (g: UserGroup): void => {
    patterns.push(...g.patterns);
    exact.push(...g.exact);
  };
  for (const g of set.groups) group(g);
  for (const rule of set.rules) {
    const s = rule.selector;
    if (s === null) continue;
    if (s.kind === 'type' || s.kind === 'name') exact.push(...s.values);
    else if (s.kind === 'match') patterns.push(s.re);
    else if (s.kind === 'group') group(s.group);
  }
  return { patterns, exact };
}

/** The rule says why its kernels are known to have run (evidence: base-count or note). */
export function hasEvidence(rule: Rule): boolean {
  return rule.evidence !== undefined && rule.evidence !== null;
}

const shortened = new WeakMap<Known, Set<string>>();

/** The names of `k` that --short-names would shorten, shortened (once per profile and base). */
function shortenedNames(k: Known): Set<string> {
  let out = shortened.get(k);
  if (!out) {
    out = new Set();
    for (const n of k.names) {
      const s = shortenName(n);
      if (s !== n) out.add(s);
    }
    shortened.set(k, out);
  }
  return out;
}

/** What an unmatched value of a rule was most likely meant to be, as the end of a sentence, or null. */
/** The end of the hint for a name written shortened, checked without --short-names (see meant). */
export const SHORT_NAMES_HINT = ' is the shortened name of kernels that run; did you mean to pass --short-names?';

function meant(kind: 'type' | 'name' | 'member', value: string, k: Known, budget: Budget): Said | null {
  const v = { input: value };
  if (kind === 'type' && k.names.has(value)) return [v, ' is a kernel name; did you mean name: ', v, '?'];
  if (kind === 'name' && k.types.has(value)) return [v, ' is a kernel type; did you mean type: ', v, '?'];
  const pools = kind === 'type' ? [k.types] : kind === 'name' ? [k.names] : [k.types, k.names];
  const normal = normaliseName(value);
  if (normal !== value && pools.some((p) => p.has(normal))) {
    return ['communication kernels are named with their counters folded; did you mean ', { input: normal }, '?'];
  }
  // A name written shortened (at::native::vectorized_elementwise_kernel) against whole CUDA/ROCm names: the rules
  // were written for --short-names, and the check runs without it.
  if (kind !== 'type' && shortenedNames(k).has(value)) {
    return [v, SHORT_NAMES_HINT];
  }
  if (kind !== 'member') {
    const shape = shapeHint(kind, value, kind === 'type' ? k.types : k.names, budget);
    if (shape !== null) return shape;
  }
  for (const pool of pools) {
    const c = closest(value, pool, budget);
    if (c !== null) return ['did you mean ', { input: c }, '?'];
  }
  return null;
}

/** A text from the input in a message: in double quotes, escaped, and cut past the longest name compared. */
function quoted(text: string): string {
  return `${inQuotes(clipped(text, MAX_COMPARED))}`;
}

/** A rule whose selector names a kernel that runs nowhere but is close to one that runs: likely a misspelling. */
export interface Misspelt {
  rule: Rule;
  /** `file:line: type "X" matches no kernel in …; did you mean "Y"?` */
  message: string;
  /** The end of the message: what the rule most likely meant (`did you mean "Y"?`), for the report. */
  hint: Said;
}

/**
 * Stop (exit 2) at the first rule whose selector names a kernel that is not in the profile nor in the base but
 * is close to one that is: a misspelt selector.
 */
export function rejectMisspelt(set: RuleSet, profile: Profile, base: Profile | null): void {
  const first = misspelt(set, profile, base)[0];
  if (first !== undefined)
    throw inputError(`${first.message} A misspelt selector matches nothing, so absent: and max: would hold whatever runs. Fix the rules file.`);
}

/**
 * The rules whose selector names a kernel that is not in the profile nor in the base but is close to one that is
 * (rules with evidence are taken as meant). A layer marker that runs nowhere, or a communication kernel in a chain,
 * is an error whatever it is close to: those throw.
 */
export function misspelt(set: RuleSet, profile: Profile, base: Profile | null): Misspelt[] {
  const found: Misspelt[] = [];
  const all = knownOf(profile, base);
  const where = `${clipped(profile.input, WHOLE)}${base !== null ? ` nor in the base ${clipped(base.input, WHOLE)}` : ''}`;
  const at = (rule: Rule): string => `${clipped(rule.file, WHOLE)}:${rule.line}`;
  // The comparisons of the whole file share one budget: a million names and thousands of values stay linear.
  const budget = newBudget();
  for (const rule of set.rules) {
    const s = rule.selector;
    if (s === null) continue;
    // A rank the profile lacks is said by the evaluation (the rule applies to rank 7, but …): of no rank, every
    // kernel and marker of the rule would seem to run nowhere.
    if (rule.ranks?.some((r) => !profile.ranks.some((x) => x.rank === r))) continue;
    const k = rule.check.kind === 'sequence' ? (sequenceKnown(rule, profile, base) ?? all) : all;
    if (rule.check.kind === 'sequence' && rule.check.layerMarker !== null && (s.kind === 'type' || s.kind === 'name')) {
      // A layer marker runs once per layer, so one that runs nowhere is a mistake whatever it is close to.
      const marker = rule.check.layerMarker;
      const pool = s.kind === 'type' ? (k.typeless ? null : k.types) : k.nameless ? null : k.names;
      if (pool !== null && !pool.has(marker)) {
        const c = closest(marker, pool, budget);
        throw inputError(
          `${at(rule)}: sequence: layer-marker ${quoted(marker)} is no compute kernel ${s.kind} in ${where}` +
            `${c !== null ? `; did you mean ${quoted(c)}?` : '.'} The layer marker is a kernel that runs once per layer ` +
            `(the chain is given by ${s.kind}, so the marker is too). Fix the rules file.`,
        );
      }
    }
    if (rule.check.kind === 'sequence' && k !== all && (s.kind === 'type' || s.kind === 'name')) {
      // Against the kernels of the same ranks and steps: one that runs only on a rank or in a step the rule does not
      // look at (a layer of another rank left unfused) is in no sequence of the rule's, and is no communication kernel.
      const missing = unmatchedIn(rule, k);
      const scoped = missing.length > 0 ? known([profile, base], rule) : all;
      const pool = s.kind === 'type' ? scoped.types : scoped.names;
      const out = missing.find((v) => pool.has(v));
      if (out !== undefined) {
        throw inputError(
          `${at(rule)}: sequence: ${s.kind} ${quoted(out)} runs, but not in the kernel sequence a chain is read from: ` +
            'communication kernels (and kernels without a Step Id) are left out of it, so a chain that holds one never runs. Take it out of the chain.',
        );
      }
    }
    // A rule with evidence that its kernels ran (kprof rules writes the base count; a person may write a note)
    // names kernels that existed: matching none of them now is what the rule asks for, not a misspelling.
    if (hasEvidence(rule)) continue;
    const values: { kind: 'type' | 'name' | 'member'; value: string }[] =
      s.kind === 'type' || s.kind === 'name'
        ? unmatchedIn(rule, k).map((value) => ({ kind: s.kind, value }))
        : s.kind === 'group' && !k.groups.some((g) => g.savedUserGroup === s.group.name)
          ? [...s.group.exact].filter((m) => !k.types.has(m) && !k.names.has(m)).map((value) => ({ kind: 'member' as const, value }))
          : [];
    for (const { kind, value } of values) {
      const hint = meant(kind, value, k, budget);
      if (hint === null) continue;
      const what = kind === 'member' ? `group ${s.kind === 'group' ? clipped(s.group.name) : ''}: ${quoted(value)}` : `${kind} ${quoted(value)}`;
      found.push({
        rule,
        message: `${at(rule)}: ${what} matches no kernel in ${where}; ${saidText(hint, quoted, (x) => clipped(x, MAX_COMPARED))}`,
        hint,
      });
      break;
    }
  }
  return found;
}
