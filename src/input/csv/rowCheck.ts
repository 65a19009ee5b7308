// The check every table reader makes of a record before reading its cells: counted as read, then skipped (with its
// line and why) when it is damaged or not as wide as the header.

import { problemMessage, type RowView } from './scan.js';

/** What the check writes to: the rank's row log (input/sink.ts RowLog), as far as it is used here. */
interface RowCount {
  rowsRead: number;
  skip(file: string, line: number, message: string): void;
}

/** The skip message of a row that is the table's header again (files joined together). */
export const REPEATED_HEADER = 'the header is repeated here (files joined together?); row skipped';

/** Counts the record as read; false (and the row skipped in `log`) when it cannot be read as a row of `width` cells. */
export function readableRow(v: RowView, width: number, log: RowCount, file: string): boolean {
  log.rowsRead++;
  const why = v.problem !== 'none' ? problemMessage(v.problem) : v.n !== width ? `row has ${v.n} cells, the header has ${width}; row skipped` : null;
  if (why === null) return true;
  log.skip(file, v.line, why);
  return false;
}
