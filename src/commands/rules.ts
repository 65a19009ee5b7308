// `kprof rules <base> <pr>`: a starter rules file that locks in what a change achieved (see rules/generate.ts).

import type { RulesBy } from '../choices.js';
import { diffSummaries } from '../diff.js';
import { usageError } from '../errors.js';
import { summarize } from '../group.js';
import { emit, type Io } from '../io.js';
import type { Profile, Selection } from '../model.js';
import { relPath } from '../paths.js';
import type { Progress } from '../progress.js';
import { readProfile } from '../read.js';
import { generateRules } from '../rules/generate.js';
import { warningLines } from '../warnings.js';
import { strictCheck } from './summary.js';

export interface RulesFlags {
  by: RulesBy;
  cutThreshold: string;
  margin: string;
  out?: string;
  strict?: boolean;
}

/** `20`, `20%` → 20. */
export function parsePercent(flag: string, text: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*%?\s*$/.exec(text);
  if (!m) throw usageError(`${flag}: expected a percentage such as 20 or 20%; found "${text}".`);
  return Number(m[1]);
}

const NO_SELECTION: Selection = { ranks: null, steps: null, cores: null, match: null, exclude: null, groups: [] };

function report(io: Io, p: Profile, strict: boolean | undefined): void {
  const skipped = p.ranks.reduce((n, r) => n + r.rowsSkipped, 0);
  io.stderr(warningLines(p.ranks.flatMap((r) => r.warnings), p.ranks.reduce((n, r) => n + r.warningCount, 0), skipped));
  strictCheck(strict, skipped);
}

export async function rulesCommand(basePath: string, prPath: string, flags: RulesFlags, io: Io, progress: Progress): Promise<number> {
  const cutThresholdPct = parsePercent('--cut-threshold', flags.cutThreshold);
  if (cutThresholdPct <= 0 || cutThresholdPct > 100) throw usageError(`--cut-threshold: expected a percentage above 0 and at most 100; found "${flags.cutThreshold}".`);
  const marginPct = parsePercent('--margin', flags.margin);
  const read = (input: string): Promise<Profile> => readProfile(input, { withShapes: false, ranks: null, onBytes: progress.tracker(input) });
  const [base, pr] = await Promise.all([read(basePath), read(prPath)]);
  progress.done();
  report(io, base, flags.strict);
  report(io, pr, flags.strict);
  const opts = { by: flags.by, selection: NO_SELECTION };
  const bs = summarize(base, opts);
  const ps = summarize(pr, opts);
  // Per step when every rank of both sides has steps (what diff --per-step needs).
  const perStep = [bs, ps].every((x) => x.hasSteps && x.perRank.every((r) => r.steps.length > 0));
  const diff = diffSummaries(bs, ps, { normalization: perStep ? 'per-step' : 'none', timeTolerancePct: 2 });
  const text = generateRules(diff, bs, ps, { cutThresholdPct, marginPct, basePath: relPath(basePath), prPath: relPath(prPath) });
  emit(io, flags.out, text);
  return 0;
}
