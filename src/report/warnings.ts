// Row-level warnings on stderr: the first few with file:line (line 0: a JSON file, whose message says the byte), then a count. Stdout stays parseable.

import type { RowWarning } from '../model/model.js';
import { fmtCount, plural } from '../util/format.js';
import { relPath } from '../util/paths.js';
import { githubAnnotation } from './failure.js';
import { escaped, oneLine } from './render.js';

export const WARNINGS_SHOWN = 5;

/** Under `--format github`: warnings become `::warning` annotations on their file and line (see githubAnnotation). */
export interface GithubWarnings {
  /** GITHUB_WORKSPACE, when set: files are named relative to it. */
  workspace: string | undefined;
}

/** How warningLines says them. */
export interface WarningStyle {
  /** Under `--format github`: annotations (see GithubWarnings). */
  github?: GithubWarnings | null;
  /**
   * The report counts the skipped rows (every format but CSV, whose rows are groups only: for it this line is their
   * one count). True when left out.
   */
  inReport?: boolean;
  /** The input they are of, where a command reads two (`base`, `PR`): said on the lines that name no file. */
  side?: string;
}

/** The first warnings, how many more, and how many rows were skipped. */
export function warningLines(warnings: RowWarning[], total: number, skipped: number, style: WarningStyle = {}): string {
  if (total === 0) return '';
  const { github = null, inReport = true } = style;
  const of = style.side === undefined ? '' : `${style.side}: `;
  // Paths carry text from input (folder names): escaped() escapes what a terminal or CI log would run. Messages
  // quote cells already escaped (excerpt()): oneLine() leaves those as they are.
  const lines = warnings
    .slice(0, WARNINGS_SHOWN)
    .map((w) =>
      github
        ? githubAnnotation(
            'warning',
            w.message,
            'read warning',
            { file: relPath(w.file), line: w.line > 0 ? w.line : null, col: null },
            github.workspace,
          ).trimEnd()
        : `kprof: warning: ${escaped(relPath(w.file))}${w.line > 0 ? `:${w.line}` : ''}: ${oneLine(w.message)}`,
    );
  if (total > lines.length) lines.push(`kprof: warning: ${of}… and ${fmtCount(total - lines.length)} more`);
  if (skipped > 0)
    lines.push(
      `kprof: ${of}${plural(skipped, 'row')} could not be read and ${skipped === 1 ? 'was' : 'were'} skipped (${inReport ? "counted in the report's skipped rows" : 'the CSV report has no field for them'}).`,
    );
  return `${lines.join('\n')}\n`;
}
