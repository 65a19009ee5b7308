// `kprof merge <summary...>`: many summary JSONs (per rank, per node, or merged ones) → one summary JSON.
//
// The ranks of every input are read as saved and written again by the summary JSON writer, so the output reads
// back exactly like any summary JSON. Counts and times are whole numbers added exactly, and each rank is kept as
// its own perRank entry (a rank in two inputs is refused), so merging is associative and does not depend on the
// order of the inputs: a cluster can be merged in a tree (per node, then per rack, then all).

import { inputError, usageError } from '../util/errors.js';
import { extensionFormat, formatLabel } from '../report/choices.js';
import { summarize } from '../aggregate/group.js';
import { emit, type Io } from '../util/io.js';
import type { Profile, RankData, Selection } from '../model/model.js';
import { isEmptyFolder, resolveInput, type RankPlan } from '../input/formats/resolve.js';
import { formatOf } from '../input/formats/registry.js';
import { finishProfile } from '../input/read.js';
import { readRank } from '../input/readRank.js';
import { summaryJson } from '../report/summary/json.js';
import { escaped, shellWord, shown } from '../util/inputText.js';
import { readableSnapshot, snapshotLimit } from './summary.js';

export interface MergeFlags {
  out?: string;
}

const NO_SELECTION: Selection = { ranks: null, steps: null, cores: null, match: null, exclude: null, groups: [] };

export async function mergeCommand(inputs: string[], flags: MergeFlags, io: Io): Promise<number> {
  // Other commands' -o picks the format its extension names: a merged summary is JSON only, which `x.csv` would hide.
  const named = flags.out === undefined ? undefined : extensionFormat(flags.out);
  if (named !== undefined && named !== 'json') {
    throw usageError(
      `-o ${escaped(flags.out!)}: kprof merge writes a summary JSON, and this name says ${formatLabel(named)}. Name it .json or .json.gz.`,
    );
  }
  const profile = await readSnapshots(inputs);
  const first = profile.ranks[0]!.snapshot!;
  // Step time saved in any of the snapshots is kept (a rank saved without it says so).
  const stepTime = profile.ranks.some((r) => r.stepSpans !== undefined || r.stepTrace !== undefined);
  const s = summarize(profile, { by: first.groupBy, selection: NO_SELECTION, savedSelection: first.selection, stepTime });
  const report = summaryJson(s, { sort: 'time', top: null, inputs: mergedInputs(profile.ranks) });
  await emit(io, flags.out, readableSnapshot(report, snapshotLimit(io), flags.out, { command: 'merge' }));
  return 0;
}

/** Every argument (a summary JSON or a folder of them) read into one profile, by the rules of a folder of them. */
export async function readSnapshots(inputs: string[]): Promise<Profile> {
  const plans: RankPlan[] = [];
  const notes: string[] = [];
  const unread: string[] = [];
  for (const input of inputs) {
    // An empty folder is not a folder of the wrong format: what it lacks is files, and merge wants summary JSONs.
    if (isEmptyFolder(input)) {
      throw inputError(
        `${shown(input)}: the folder is empty (no files). kprof merge combines summary JSONs: pass the files that ` +
          '`kprof summary <profile> --format json -o <file>` wrote, or a folder that holds them.',
      );
    }
    const resolved = resolveInput(input);
    notes.push(...resolved.notes);
    unread.push(...resolved.unread);
    for (const p of resolved.ranks) {
      const format = formatOf(p.format);
      if (format.holds !== 'summary') {
        throw inputError(
          `${p.files[0] ?? input}: not a summary JSON (it is a ${format.holds === 'kernels' ? 'kernel' : format.id} export); kprof merge combines ` +
            `the output of \`kprof summary <profile> --format json\`. Summarise it first (kprof summary ${shellWord(input)} --format json -o <file>), then merge that file.`,
        );
      }
      plans.push(p);
    }
  }
  const read: RankData[] = [];
  for (const p of plans) read.push(...(await readRank(p, { withShapes: false })));
  const label = inputs.length === 1 ? inputs[0]! : `${inputs.length} inputs`;
  return finishProfile(label, { input: label, ranks: plans, notes, unread }, read, null);
}

/** The profiles the merged snapshots were made from: each once, sorted (so the order of merging does not show). */
function mergedInputs(ranks: RankData[]): string[] {
  return [...new Set(ranks.flatMap((r) => r.snapshot?.inputs ?? []))].sort();
}
