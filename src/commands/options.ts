// Command-line option values → the typed options the stages take. Validation errors are usage errors.

import { usageError } from '../util/errors.js';
import { parseSteps } from '../aggregate/group.js';
import { GROUP_BYS, type GroupBy, type Selection } from '../model/model.js';
import { compilePattern, quotePattern } from '../util/regex.js';
import { readGroupsFile } from '../aggregate/userGroups.js';
import type { Prefer } from '../input/formats/resolve.js';

/** Options shared by summary, diff, check and rules. */
export interface CommonFlags {
  by: string;
  groups?: string;
  rank?: string;
  steps?: string;
  core?: string;
  match?: string;
  exclude?: string;
  prefer?: string;
}

export interface Common {
  by: GroupBy;
  selection: Selection;
  withShapes: boolean;
  /** Which export to read where a folder holds both the text and the db export of one run; null: the default (text). */
  prefer: Prefer | null;
}

/** The choices of `--prefer`. */
export const PREFER_CHOICES = ['db', 'text'] as const;

/** `--prefer db|text` → which export to read where a folder holds both; null when not given. */
export function parsePrefer(text: string | undefined): Prefer | null {
  if (text === undefined) return null;
  if (!(PREFER_CHOICES as readonly string[]).includes(text)) throw usageError(`--prefer: expected db or text; found "${text}".`);
  return text as Prefer;
}

export function parseRegex(flag: string, text: string): RegExp {
  try {
    return compilePattern(text);
  } catch (e) {
    throw usageError(`${flag}: bad regular expression ${quotePattern(text, '"')}: ${e instanceof Error ? e.message : String(e)}.`);
  }
}

/**
 * `--rank 0`, `--rank 0,3`, `--rank all` → rank ids or null (all). A rank with no id of its own is named by its
 * folder below the input (`run-a/node3`), and that name is taken as it is printed (`./run-a/node3/` and
 * `run-a\node3` name it too).
 */
export function parseRanks(text: string | undefined): string[] | null {
  if (text === undefined || text.trim() === 'all') return null;
  // An empty value is most often an unset variable (`--rank "$RANK"`): taking it as every rank would gate ranks
  // the run meant to leave out.
  if (text.trim() === '') {
    throw usageError(
      '--rank: expected a rank id, a comma-separated list (0,3) or "all"; found an empty value (an unset variable?). Pass --rank all for every rank, or leave --rank out.',
    );
  }
  const ranks = text.split(',').map((r) => normaliseRankPath(r.trim()));
  for (const r of ranks) {
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this pattern finds
    if (r === '' || /[\u0000-\u001f\u007f]/.test(r)) {
      throw usageError(
        // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this pattern finds
        `--rank: expected a rank id, a rank's folder path as kprof inspect shows it, a comma-separated list (0,3) or "all"; found "${text.replace(/[\u0000-\u001f\u007f]/g, '?')}".`,
      );
    }
  }
  return ranks;
}

/** A folder path written the way a shell completes it (`./a/b/`, `a\b`) → the way ranks are named (`a/b`). */
function normaliseRankPath(r: string): string {
  if (!/[/\\]/.test(r)) return r;
  return r
    .replace(/\\/g, '/')
    .replace(/^(\.\/)+/, '')
    .replace(/\/+$/, '')
    .replace(/\/{2,}/g, '/');
}

export function parseCommon(flags: CommonFlags): Common {
  if (!(GROUP_BYS as readonly string[]).includes(flags.by)) {
    throw usageError(`--by: expected one of ${GROUP_BYS.join(', ')}; found "${flags.by}".`);
  }
  const by = flags.by as GroupBy;
  const selection: Selection = {
    ranks: parseRanks(flags.rank),
    steps: flags.steps !== undefined ? parseSteps(flags.steps) : null,
    cores:
      flags.core !== undefined
        ? flags.core
            .split(',')
            .map((c) => c.trim())
            .filter(Boolean)
        : null,
    match: flags.match !== undefined ? parseRegex('--match', flags.match) : null,
    exclude: flags.exclude !== undefined ? parseRegex('--exclude', flags.exclude) : null,
    groups: flags.groups !== undefined ? readGroupsFile(flags.groups) : [],
  };
  return { by, selection, withShapes: by === 'type+shapes', prefer: parsePrefer(flags.prefer) };
}

/** `--top N`. */
export function parseTop(text: string | undefined): number | null {
  if (text === undefined) return null;
  if (!/^\d+$/.test(text) || Number(text) < 1) throw usageError(`--top: expected a whole number of at least 1; found "${text}".`);
  return Number(text);
}
