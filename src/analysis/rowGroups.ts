// Each row's group on each side of a diff, read where the row holds it: a diff of one rank against one (a summary
// of one rank holds one list of groups for the profile and the rank) reads a row's groups from the row, not by its
// key from each rank's index (a diff by name of a million rows looks nothing up then); else by key.

import type { Group, RankSummary, Summary } from '../model/model.js';
import { groupsByKey } from '../aggregate/group.js';
import { DiffRowView, type DiffRow, type DiffRowTable } from './diffRows.js';

/** A summary of one rank whose list of groups is the rank's (summarize makes one list of a rank's groups). */
export function oneList(s: Summary): boolean {
  return s.perRank.length === 1 && s.groups === s.perRank[0]!.groups;
}

/**
 * Rank `r`'s group of each row on one side (undefined: none): the row's own group of that side when the side is
 * this one rank with one list of groups (oneList), else the rank's group of the row's key.
 */
export function rankGroups(t: DiffRowTable, side: 'base' | 'pr', s: Summary, r: RankSummary): (i: number) => Group | undefined {
  if (oneList(s) && s.perRank[0] === r) {
    return side === 'base' ? (i) => t.group(i, 0) : (i) => t.group(i, 1);
  }
  const index = groupsByKey(r.groups);
  return (i) => index.get(t.keys[i]!);
}

/** The row as a row of a DiffRowTable (whose groups it reads: DiffRowView.group), or null when it is not one. */
export function tableRow(r: DiffRow): DiffRowView | null {
  return r instanceof DiffRowView ? r : null;
}
