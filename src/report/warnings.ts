// Row-level warnings on stderr: the first few with file:line (line 0: a JSON file, whose message says the byte), then a count. Stdout stays parseable.

import type { RowWarning } from '../model/model.js';
import { relPath } from '../util/paths.js';
import { shown } from './render.js';

export const WARNINGS_SHOWN = 5;

export function warningLines(warnings: RowWarning[], total: number, skipped: number): string {
  if (total === 0) return '';
  // Paths and messages carry text from input (folder names, cells): shown() escapes what a terminal or CI log would run.
  const lines = warnings
    .slice(0, WARNINGS_SHOWN)
    .map((w) => `kprof: warning: ${shown(relPath(w.file))}${w.line > 0 ? `:${w.line}` : ''}: ${shown(w.message)}`);
  if (total > lines.length) lines.push(`kprof: warning: … and ${total - lines.length} more`);
  if (skipped > 0)
    lines.push(
      `kprof: ${skipped} row${skipped === 1 ? '' : 's'} could not be read and ${skipped === 1 ? 'was' : 'were'} skipped (counted in the report's skipped rows).`,
    );
  return `${lines.join('\n')}\n`;
}
