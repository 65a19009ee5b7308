// A rules file (YAML or JSON) → a typed RuleSet. Everything is validated before any profile is read: an unknown
// key, a wrong type, a bad regular expression or an unknown group is an input error naming file:line:col, what
// was expected and what was found. The syntax is documented in docs/check.md.

import type { Pair } from 'yaml';
import { inQuotes, shown } from '../util/inputText.js';
import { idText, isMap, isScalar, isSeq, scalarText, type LineCounter, type Node } from '../util/yamlLib.js';
import { inputError } from '../util/errors.js';
import { parseSteps } from '../aggregate/group.js';
import type { StepRange, UserGroup } from '../model/model.js';
import { compilePattern } from '../util/regex.js';
import { countedMember, describe, groupsFromNode, parseMember, parseYaml, PatternCount, positionOf, readText } from '../aggregate/userGroups.js';
import { nearest } from '../util/nearName.js';
import { CHECK_KEYS, kindOf } from './checks/registry.js';
import type { CheckReader, Entries } from './checks/kind.js';
import { MAX_CHAIN } from './checks/sequence.js';
import { fusedPhase } from './checks/fused.js';
import { rejectImpossible } from './impossible.js';
import { readDuration } from './duration.js';
import {
  PERS,
  SEVERITIES,
  type Check,
  type CheckKind,
  type BareDuration,
  type BareFraction,
  type Evidence,
  type Per,
  type Rule,
  type RuleSet,
  type Selector,
  type Severity,
} from './model.js';

export const TOP_KEYS = ['version', 'groups', 'steps', 'rules'] as const;
export const SELECTOR_KEYS = ['type', 'name', 'group', 'match', 'kernels'] as const;
export const RULE_KEYS = ['rule', ...SELECTOR_KEYS, ...CHECK_KEYS, 'phase', 'ranks', 'steps', 'severity', 'why', 'evidence'] as const;
export const EVIDENCE_KEYS = ['base-count', 'note'] as const;

/** Read and validate a rules file; `shown` is the path used in messages and reports. */
export function readRulesFile(path: string, shown: string = path): RuleSet {
  return parseRules(shown, readText(path));
}

/** Parse and validate rules text; `path` is used in messages and kept on each rule. */
export function parseRules(path: string, text: string): RuleSet {
  const { doc, lc } = parseYaml(path, text);
  return new RulesReader(path, lc).file(doc.contents as Node | null);
}

/** Keys that belong one level down, written beside the check instead of inside it. */
const NESTED_HINTS: Record<string, string> = {
  min: ' It belongs inside count: or time:, e.g. count: { per: step, min: 1 }.',
  max: ' It belongs inside count: or time:, e.g. count: { per: step, max: 1 }.',
  exactly: ' It belongs inside count: or time:, e.g. count: { per: step, exactly: 1 }.',
  per: ' It belongs inside the check, e.g. count: { per: step, max: 1 }.',
  'fell-by-at-least': ' It belongs inside count-vs-base: or time-vs-base:, e.g. count-vs-base: { fell-by-at-least: 20% }.',
  'rose-by-at-most': ' It belongs inside count-vs-base: or time-vs-base:, e.g. time-vs-base: { rose-by-at-most: 5% }.',
  allow: ' It belongs inside no-new-types:, e.g. no-new-types: { allow: [MlaPrologV3] }.',
};

function suggestion(key: string, allowed: readonly string[]): string {
  if (allowed === RULE_KEYS && NESTED_HINTS[key] !== undefined) return NESTED_HINTS[key];
  const best = nearest(key, allowed);
  return best !== undefined ? ` Did you mean "${best}"?` : '';
}

class RulesReader implements CheckReader {
  private groups: UserGroup[] = [];
  private readonly patterns = new PatternCount();
  private bare: BareDuration[] = [];
  private fractions: BareFraction[] = [];

  constructor(
    private readonly path: string,
    private readonly lc: LineCounter,
  ) {}

  private at(node: Node | null | undefined): string {
    const p = positionOf(node, this.lc);
    return `${this.path}:${p.line}:${p.col}`;
  }

  fail(node: Node | null | undefined, message: string): never {
    throw inputError(`${this.at(node)}: ${message}`);
  }

  /** The pairs of a mapping, with unknown keys rejected. */
  entries(node: Node, allowed: readonly string[], what: string): Entries {
    if (!isMap(node)) this.fail(node, `${what} should be a mapping (key: value); found ${describe(node)}.`);
    const out = new Map<string, { key: Node; value: Node | null }>();
    for (const pair of node.items as Pair<Node, Node | null>[]) {
      const key = pair.key;
      const name = isScalar(key) ? String(key.value) : '';
      if (!allowed.includes(name)) {
        this.fail(key, `unknown key ${inQuotes(shown(name))} in ${what}; expected one of: ${allowed.join(', ')}.${suggestion(name, allowed)}`);
      }
      out.set(name, { key, value: pair.value ?? null });
    }
    return out;
  }

  file(root: Node | null): RuleSet {
    if (root === null || root === undefined) {
      throw inputError(
        `${this.path}:1:1: the rules file is empty; expected a mapping with a "rules:" list, such as: rules: [{ type: InterleaveRope, absent: true }].`,
      );
    }
    const top = this.entries(root, TOP_KEYS, 'the rules file');
    const version = top.get('version');
    if (version) {
      const v = version.value;
      if (!isScalar(v) || v.value !== 1) this.fail(v ?? version.key, `version: expected 1; found ${describe(v)}.`);
    }
    const groups = top.get('groups');
    if (groups) this.groups = groupsFromNode(this.path, groups.value ?? groups.key, this.lc, this.patterns);
    const rules = top.get('rules');
    if (!rules) this.fail(root, 'no "rules:" list; expected a list of rules, each with a kernel selector and a check.');
    const list = rules.value;
    if (!isSeq(list)) this.fail(list ?? rules.key, `rules: expected a list of rules (each item starting with "- "); found ${describe(list)}.`);
    if (list.items.length === 0) this.fail(list, 'rules: the list is empty; a gate with no rules cannot fail. Add at least one rule.');
    // A top-level steps: applies to every rule that does not set its own.
    const steps = top.get('steps');
    const allSteps = steps ? this.steps(steps.value ?? steps.key) : null;
    const read = (list.items as Node[]).map((item) => rejectImpossible(this.rule(item)));
    return {
      file: this.path,
      groups: this.groups,
      bareDurations: this.bare,
      bareFractions: this.fractions,
      rules: read.map((r) => (r.steps === null && allSteps !== null ? { ...r, steps: allSteps } : r)),
    };
  }

  private rule(node: Node): Rule {
    const e = this.entries(node, RULE_KEYS, 'a rule');
    const pos = positionOf(node, this.lc);
    const selectors = SELECTOR_KEYS.filter((k) => e.has(k));
    const checks = CHECK_KEYS.filter((k) => e.has(k));
    if (checks.length === 0) {
      this.fail(node, `the rule has no check; expected one of: ${CHECK_KEYS.join(', ')}.`);
    }
    if (checks.length > 1) {
      this.fail(e.get(checks[1]!)!.key, `one check per rule, found ${checks.join(' and ')}; split them into two rules.`);
    }
    const checkKey = checks[0]!;
    let selector: Selector | null = null;
    if (checkKey === 'no-new-types') {
      if (selectors.length > 0) {
        this.fail(e.get(selectors[0]!)!.key, `no-new-types looks at every kernel type; drop "${selectors[0]}:" (use allow: to permit new types).`);
      }
    } else if (checkKey === 'fused') {
      if (selectors.length > 0) {
        this.fail(
          e.get(selectors[0]!)!.key,
          `fused looks at the kernels of its catalogue entry (the fused kernel and its unfused chain); drop "${selectors[0]}:".`,
        );
      }
    } else {
      if (selectors.length === 0) {
        this.fail(
          node,
          `the rule does not say which kernels it is about; expected one of: ${SELECTOR_KEYS.join(', ')} (kernels: all for every kernel).`,
        );
      }
      if (selectors.length > 1) {
        this.fail(e.get(selectors[1]!)!.key, `one kernel selector per rule, found ${selectors.join(' and ')}; use a group for several kernels.`);
      }
      const k = selectors[0]!;
      selector = this.selector(k, e.get(k)!);
    }
    if (checkKey === 'sequence' && selector !== null) this.chain(selector, e.get(selectors[0]!)!);
    const { key: ck, value: cv } = e.get(checkKey)!;
    const bareBefore = this.bare.length;
    const fractionsBefore = this.fractions.length;
    let check = this.check(checkKey, ck, cv);
    for (const b of [...this.bare.slice(bareBefore), ...this.fractions.slice(fractionsBefore)]) b.line = pos.line; // the rule's, as reports name it
    const phase = e.get('phase');
    if (phase) {
      if (check.kind !== 'fused')
        this.fail(phase.key, `phase: belongs to a fused: rule (fused: mla-prolog, phase: decode); this rule is ${checkKey}:.`);
      if (cv !== null && isMap(cv) && cv.has('phase')) this.fail(phase.key, 'phase: is given twice, here and inside fused:; keep one.');
      check = { ...check, phase: fusedPhase(phase.value ?? phase.key, this) };
    }
    const label = e.get('rule');
    const why = e.get('why');
    const sev = e.get('severity');
    const ranks = e.get('ranks');
    const steps = e.get('steps');
    const evidence = e.get('evidence');
    return {
      label: label ? this.text(label.value ?? label.key, 'rule') : null,
      file: this.path,
      line: pos.line,
      col: pos.col,
      selector,
      check,
      ranks: ranks ? this.ranks(ranks.value ?? ranks.key) : null,
      steps: steps ? this.steps(steps.value ?? steps.key) : null,
      severity: sev ? this.severity(sev.value ?? sev.key) : 'error',
      why: why ? this.text(why.value ?? why.key, 'why') : null,
      evidence: evidence ? this.evidence(evidence.value ?? evidence.key) : null,
    };
  }

  /** `evidence: { base-count: N, note: "…" }`: at least one of the two; N a whole number of 1 or more. */
  private evidence(node: Node): Evidence {
    if (!isMap(node)) {
      this.fail(
        node,
        `evidence: expected a mapping such as { base-count: 32 } or { note: "removed by the MLA prolog fusion" }; found ${describe(node)}.`,
      );
    }
    const e = this.entries(node, EVIDENCE_KEYS, 'evidence');
    const count = e.get('base-count');
    const note = e.get('note');
    if (!count && !note)
      this.fail(node, 'evidence: expected base-count: (how many ran in the base) or note: (why the kernels are known to have run).');
    let baseCount: number | null = null;
    if (count) {
      const v = count.value;
      if (!isScalar(v) || typeof v.value !== 'number' || !Number.isSafeInteger(v.value) || v.value < 1) {
        this.fail(
          v ?? count.key,
          `evidence: base-count: expected a whole number of 1 or more (how many of the kernels ran in the base); found ${describe(v)}.`,
        );
      }
      baseCount = v.value;
    }
    return { baseCount, note: note ? this.text(note.value ?? note.key, 'evidence: note') : null };
  }

  /** A sequence rule's chain: the `type:` or `name:` list, in order, of at most MAX_CHAIN kernels. */
  private chain(selector: Selector, entry: { key: Node; value: Node | null }): void {
    if (selector.kind !== 'type' && selector.kind !== 'name') {
      this.fail(
        entry.key,
        `sequence: the chain is the rule's type: or name: list, in the order the kernels run; found ${entry.key.toString()}:. ` +
          'Write e.g. type: [RmsNorm, DynamicQuant, BatchMatMulV3].',
      );
    }
    if (selector.values.length > MAX_CHAIN) {
      this.fail(entry.value ?? entry.key, `sequence: the chain has ${selector.values.length} kernels; at most ${MAX_CHAIN} are allowed.`);
    }
  }

  private text(node: Node, key: string): string {
    if (!isScalar(node) || typeof node.value !== 'string' || node.value.trim() === '') {
      this.fail(node, `${key}: expected a text; found ${describe(node)}.`);
    }
    return node.value.trim();
  }

  private strings(node: Node, key: string): string[] {
    const items: Node[] = isSeq(node) ? (node.items as Node[]) : [node];
    if (items.length === 0) this.fail(node, `${key}: the list is empty; expected at least one kernel ${key}.`);
    return items.map((item) => {
      if (!isScalar(item) || (typeof item.value !== 'string' && typeof item.value !== 'number') || String(item.value) === '') {
        const what = item === node ? `a kernel ${key} or a list of them` : `each item of the list to be a kernel ${key}`;
        this.fail(item, `${key}: expected ${what}; found ${describe(item)}.`);
      }
      return scalarText(item); // 1.10 as written, not 1.1
    });
  }

  private regex(node: Node, key: string): RegExp {
    if (!isScalar(node) || typeof node.value !== 'string' || node.value === '') {
      this.fail(node, `${key}: expected a regular expression (a string such as "Rope" or "/rope/i"); found ${describe(node)}.`);
    }
    const text = node.value;
    return countedMember(this.patterns, this.at(node), text, key, () => {
      const m = parseMember(text);
      return typeof m === 'string' ? compilePattern(m) : m;
    });
  }

  private selector(key: (typeof SELECTOR_KEYS)[number], entry: { key: Node; value: Node | null }): Selector {
    const node = entry.value ?? entry.key;
    switch (key) {
      case 'type':
        return { kind: 'type', values: this.strings(node, 'type') };
      case 'name':
        return { kind: 'name', values: this.strings(node, 'name') };
      case 'match':
        return { kind: 'match', re: this.regex(node, 'match') };
      case 'group': {
        if (!isScalar(node) || (typeof node.value !== 'string' && typeof node.value !== 'number'))
          this.fail(node, `group: expected the name of a group from "groups:"; found ${describe(node)}.`);
        const name = scalarText(node);
        const g = this.groups.find((x) => x.name === name);
        if (!g) {
          const known = this.groups.map((x) => x.name);
          this.fail(
            node,
            `group ${inQuotes(shown(name))} is not defined; ${known.length ? `the groups: section defines ${known.join(', ')}.` : 'the file has no groups: section.'}` +
              suggestion(name, known),
          );
        }
        return { kind: 'group', group: g };
      }
      case 'kernels':
        if (!isScalar(node) || node.value !== 'all') this.fail(node, `kernels: expected "all" (every kernel); found ${describe(node)}.`);
        return { kind: 'all' };
    }
  }

  private check(key: CheckKind, keyNode: Node, value: Node | null): Check {
    return kindOf({ kind: key }).parse(value ?? keyNode, this);
  }

  member(node: Node, what: string): string | RegExp {
    if (!isScalar(node) || typeof node.value !== 'string' || node.value === '') {
      this.fail(node, `${what}: expected kernel types or /regular expressions/; found ${describe(node)}.`);
    }
    const text = node.value;
    return countedMember(this.patterns, this.at(node), text, what, () => parseMember(text));
  }

  per(e: Entries, what: string): Per {
    const p = e.get('per');
    if (!p) return 'total';
    const v = p.value ?? p.key;
    if (!isScalar(v) || !(PERS as readonly unknown[]).includes(v.value)) {
      this.fail(v, `${what}: per: expected ${PERS.join(' or ')}; found ${describe(v)}.`);
    }
    return v.value as Per;
  }

  count(node: Node, what: string): number {
    // Above 2^53 - 1 a number is not exact (99999999999999999999 reads as 1e20): refused, not shown rounded.
    if (!isScalar(node) || typeof node.value !== 'number' || !Number.isSafeInteger(node.value) || node.value < 0) {
      this.fail(node, `${what}: expected a whole number of kernels (0 or more, below 2^53); found ${describe(node)}.`);
    }
    return node.value;
  }

  /** A duration: a number of µs, or a string with a unit: 150us, 150µs, 1.5ms, 2s (duration.ts); a bare number is noted. */
  duration(node: Node, what: string): number {
    const { us, bare } = readDuration(node, what, (n, m) => this.fail(n, m));
    if (bare) this.bare.push({ line: positionOf(node, this.lc).line, what, written: describe(node), us });
    return us;
  }

  /** A percentage: 20% or 20; below 2^53, as counts are (1e308 bounds nothing, and prints as 309 digits). */
  percent(node: Node, what: string): number {
    const m = isScalar(node) && typeof node.value === 'string' ? /^\s*(\d+(?:\.\d+)?)\s*%\s*$/.exec(node.value) : null;
    const pct = isScalar(node) && typeof node.value === 'number' && node.value >= 0 ? node.value : m ? Number(m[1]) : Number.NaN;
    if (!(pct < 2 ** 53)) this.fail(node, `${what}: expected a percentage ${pct >= 0 ? 'below 2^53' : 'such as 20%'}; found ${describe(node)}.`);
    // A bare number below 1 may be a fraction (0.2 for 20%): taken as a percentage, and said (fractionNote).
    if (m === null && pct > 0 && pct < 1) this.fractions.push({ line: positionOf(node, this.lc).line, what, written: describe(node), pct });
    return pct;
  }

  private ranks(node: Node): string[] | null {
    if (isScalar(node) && node.value === 'all') return null;
    const items: Node[] = isSeq(node) ? (node.items as Node[]) : [node];
    if (items.length === 0) this.fail(node, 'ranks: the list is empty; expected rank ids such as [0, 1], or all.');
    const seen = new Set<string>();
    return items.map((item) => {
      const s = isScalar(item) ? idText(item) : '';
      // Plain, an id is letters, digits, _ . - (`0 1` or `0,1` is none); quoted, any id a profile names (PROF_ runs of a group: "PROF_L2Cache/PROF_000001_…").
      const quoted = isScalar(item) && (item.type === 'QUOTE_DOUBLE' || item.type === 'QUOTE_SINGLE');
      if (!(quoted ? s.trim() !== '' && s === s.trim() : /^[A-Za-z0-9_.-]+$/.test(s)) || s === 'all')
        this.fail(item, `ranks: expected a rank id, a list of them ([0, 1]) or all; found ${describe(item)}.`);
      if (seen.has(s)) this.fail(item, `ranks: rank ${describe(item)} is listed twice (a slip for another?); expected each rank once, as in [0, 1].`);
      seen.add(s);
      return s;
    });
  }

  /** `steps:` takes what --steps takes: `7`, `5-20`, `14-`, `-8` or a list `13,15,20-30`. */
  private steps(node: Node): StepRange[] {
    const v = isScalar(node) ? node.value : undefined;
    const text = typeof v === 'number' || typeof v === 'string' ? String(v) : '';
    if (text.trim() === '')
      this.fail(
        node,
        `steps: expected a Step Id, a range such as 5-20, an open range (14- or -8) or a list of them (13,15,20-30); found ${isSeq(node) ? 'a YAML list: write the list as one text, as in steps: 13,15,20-30' : describe(node)}.`,
      );
    try {
      return parseSteps(text);
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e);
      const empty = /; found an empty item in /.test(message); // (errors.ts listItems), said of the rules file's value
      const why = empty ? 'an empty item in the list (a stray comma?)' : message.replace(/^--steps: /, '').replace(/; found .*$/s, '');
      this.fail(
        node,
        `steps: ${why}; found ${describe(node)}. Expected a Step Id (7), a range (5-20), an open range (14- or -8) or a list of them (13,15,20-30).`,
      );
    }
  }

  private severity(node: Node): Severity {
    if (!isScalar(node) || !(SEVERITIES as readonly unknown[]).includes(node.value)) {
      this.fail(node, `severity: expected ${SEVERITIES.join(' or ')}; found ${describe(node)}.`);
    }
    return node.value as Severity;
  }
}
