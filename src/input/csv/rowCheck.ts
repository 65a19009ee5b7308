// The check every table reader makes of a record before reading its cells: damaged, or not as wide as the header.

import { problemMessage, type RowView } from './scan.js';

/** Why a record cannot be read as a row of a table of `width` columns (the message of its skip), or null. */
export function unreadableRow(v: RowView, width: number): string | null {
  if (v.problem !== 'none') return problemMessage(v.problem);
  if (v.n !== width) return `row has ${v.n} cells, the header has ${width}; row skipped`;
  return null;
}
