// Which raw kernel names a run tells apart (--match, --exclude, user groups, a rules file's selectors): the tests
// that say it, and the classes of raw names they make, by which the accumulator keeps the raw names of one
// normalised name apart (input/accumulator.ts).

import type { RawNameTests, Selection } from '../model/model.js';
import { compilePattern } from '../util/regex.js';

/** The tests of these patterns and names, or null when there are none (no raw name is told apart then). */
export function rawNameTests(patterns: Iterable<RegExp | null>, exact: Iterable<string>): RawNameTests | null {
  const p = new Map<string, { source: string; flags: string }>();
  for (const re of patterns) {
    if (re === null) continue;
    // RE2's flags only (a RegExp made in code may carry g or y, which change nothing for a test).
    const flags = [...re.flags].filter((f) => 'imsu'.includes(f)).join('');
    p.set(`/${re.source}/${flags}`, { source: re.source, flags });
  }
  const e = [...new Set(exact)];
  return p.size === 0 && e.length === 0 ? null : { patterns: [...p.values()], exact: e };
}

/** The tests of a selection (--match, --exclude, user groups), with `more` (a rules file's selectors). */
export function selectionRawNames(sel: Selection, more: { patterns: RegExp[]; exact: string[] } = { patterns: [], exact: [] }): RawNameTests | null {
  return rawNameTests(
    [sel.match, sel.exclude, ...sel.groups.flatMap((g) => g.patterns), ...more.patterns],
    [...sel.groups.flatMap((g) => [...g.exact]), ...more.exact],
  );
}

/**
 * Which raw names a run can tell apart. In a real export every communication row has a raw name of its own (the
 * counter counts calls), so a fine group per raw name would be a fine group per row. Instead the raw names of one
 * normalised name are kept apart only by what the run's tests say of them: a name equal to an exact value is a
 * class of its own, the others are classed by which patterns match them. All raw names of one class answer every
 * test of the run alike, so one fine group per class (holding the first raw name read as its `rawName`) selects
 * exactly the kernels one group per raw name would.
 */
export class RawNameClasses {
  private readonly patterns: RegExp[];
  private readonly exact: Set<string>;

  constructor(tests: RawNameTests) {
    this.patterns = tests.patterns.map((p) => compilePattern(p.source, p.flags));
    this.exact = new Set(tests.exact);
  }

  /** The class of a raw name: '' when no test tells it from the others of its normalised name. */
  of(raw: string): string {
    if (this.exact.has(raw)) return `=${raw}`;
    let bits = '';
    let any = false;
    for (const re of this.patterns) {
      re.lastIndex = 0;
      const hit = re.test(raw);
      bits += hit ? '1' : '0';
      any ||= hit;
    }
    return any ? bits : '';
  }
}
