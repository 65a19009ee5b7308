// A base → PR diff → a starter rules file that locks in what the change achieved. Pure: text out.
//
//   removed kernel             → absent
//   added kernel               → at least its lowest per-step count in the PR (present, when some step lacks it)
//   kernel cut by ≥ threshold  → at most the PR's highest per-step count plus a margin
//   all kernels                → at most the PR's highest per-step total plus a margin
//
// Bounds come from every rank and every step of the PR, so the rules hold on the PR they were made from.
// Each rule carries a comment with the numbers it came from.

import type { Diff, DiffRow } from '../diff.js';
import type { Summary } from '../model.js';
import { fmtCount, fmtSignedPct } from '../reporters/format.js';

export interface GenerateOptions {
  /** A kernel whose count fell by at least this many percent gets a maximum. */
  cutThresholdPct: number;
  /** Headroom added to the PR's level in a maximum, in percent. */
  marginPct: number;
  /** The inputs, as shown to the user. */
  basePath: string;
  prPath: string;
}

/** Lowest and highest count of a group (or of all kernels) over every step of every rank, or per rank when there are no steps. */
interface Level {
  min: number;
  max: number;
  perStep: boolean;
}

function level(s: Summary, key: string | null): Level {
  const perStep = s.hasSteps && s.perRank.every((r) => r.steps.length > 0);
  let min = Number.POSITIVE_INFINITY;
  let max = 0;
  for (const r of s.perRank) {
    const g = key === null ? null : r.groups.find((x) => x.key === key);
    const values: number[] = [];
    if (perStep) {
      for (const step of r.steps) {
        if (key === null) values.push(r.groups.reduce((n, x) => n + (x.steps.get(step)?.count ?? 0), 0));
        else values.push(g?.steps.get(step)?.count ?? 0);
      }
    } else {
      values.push(key === null ? r.totals.count : (g?.total.count ?? 0));
    }
    for (const v of values) {
      if (v < min) min = v;
      if (v > max) max = v;
    }
  }
  return { min: Number.isFinite(min) ? min : 0, max, perStep };
}

// Letters, digits, `_ . -` and inner spaces: never a YAML indicator, never `: ` or ` #`.
const PLAIN = /^[A-Za-z_](?:[A-Za-z0-9_. -]*[A-Za-z0-9_.])?$/;
const RESERVED = /^(true|false|null|yes|no|on|off|y|n)$/i;

/** A YAML scalar: plain when that is unambiguous, else double-quoted (JSON string syntax is valid YAML). */
export function yamlString(s: string): string {
  return PLAIN.test(s) && !RESERVED.test(s) ? s : JSON.stringify(s);
}

function comment(text: string): string {
  return `  # ${text.replace(/[\r\n]+/g, ' ')}`;
}

function withMargin(n: number, marginPct: number): number {
  // Rounded to 1e-9 first so that 10 × 1.1 is 11, not 12.
  return Math.ceil(Math.round(n * (1 + marginPct / 100) * 1e9) / 1e9);
}

function perStepText(n: number, l: Level): string {
  return `${fmtCount(n)}${l.perStep ? ' per step' : ''}`;
}

/** "4 in every step of every rank", "2 to 3 in a step of a rank", "61 on each rank". */
function rangeText(l: Level, ranks: number): string {
  if (l.min === 0 && l.max === 0) return 'none';
  const many = ranks > 1;
  if (l.min === l.max) {
    return `${fmtCount(l.min)} ${l.perStep ? `in every step${many ? ' of every rank' : ''}` : many ? 'on every rank' : 'in total'}`;
  }
  return `${fmtCount(l.min)} to ${fmtCount(l.max)} ${l.perStep ? `in a step${many ? ' of a rank' : ''}` : many ? 'on a rank' : 'in total'}`;
}

/** The change of a row as the diff saw it: "-50.0% per step" (all ranks together). */
function changeText(d: Diff, row: DiffRow): string {
  const how = d.normalization === 'per-step' ? 'per step' : 'in total';
  return `${fmtSignedPct(row.deltaCountPct!)} ${how}${d.pr.ranks.length > 1 ? ` over ${fmtCount(d.pr.ranks.length)} ranks` : ''}`;
}

/** The rules YAML for a diff. `base` and `pr` are the summaries the diff was made from. */
export function generateRules(d: Diff, base: Summary, pr: Summary, opts: GenerateOptions): string {
  const field = d.groupBy === 'name' ? 'name' : 'type';
  const per = (l: Level): string => (l.perStep ? 'step' : 'total');
  const out: string[] = [
    `# kprof rules generated from the diff of ${opts.basePath} (base) and ${opts.prPath} (PR), kernels grouped by ${d.groupBy}.`,
    `# Base: ${plural(d.base.ranks.length, 'rank')}, ${d.base.steps === null ? 'no steps' : plural(d.base.steps, 'step')}; ` +
      `PR: ${plural(d.pr.ranks.length, 'rank')}, ${d.pr.steps === null ? 'no steps' : plural(d.pr.steps, 'step')}. ` +
      `Counts compared ${d.normalization === 'per-step' ? 'per step' : 'in total'}.`,
    `# Every rule holds on every rank of the PR. Review the rules, say in why: what each protects, and check the file in:`,
    `#   kprof check <profile> --rules <this file>`,
    'version: 1',
    'rules:',
  ];
  const rows = d.rows.filter((r) => r.key !== '');
  const removed = rows.filter((r) => r.status === 'removed');
  const added = rows.filter((r) => r.status === 'added');
  const cut = rows.filter((r) => r.status === 'fewer' && r.deltaCountPct !== null && r.deltaCountPct <= -opts.cutThresholdPct);

  if (removed.length > 0) out.push('', comment('Removed by the change: they must not come back.'));
  for (const r of removed) {
    const b = level(base, r.key);
    out.push(
      comment(`${r.key}: base ${rangeText(b, base.perRank.length)}, PR none.`),
      `  - rule: ${yamlString(`${r.key} stays removed`)}`,
      `    ${field}: ${yamlString(r.key)}`,
      '    absent: true',
    );
  }

  if (added.length > 0) out.push('', comment('Added by the change: they must keep running.'));
  for (const r of added) {
    const p = level(pr, r.key);
    out.push(comment(`${r.key}: base none, PR ${rangeText(p, pr.perRank.length)}.`));
    if (p.min > 0) {
      out.push(
        `  - rule: ${yamlString(`${r.key} runs at least ${p.min} time${p.min === 1 ? '' : 's'}${p.perStep ? ' per step' : ''}`)}`,
        `    ${field}: ${yamlString(r.key)}`,
        `    count: { per: ${per(p)}, min: ${p.min} }`,
      );
    } else {
      out.push(`  - rule: ${yamlString(`${r.key} runs`)}`, `    ${field}: ${yamlString(r.key)}`, '    present: true');
    }
  }

  if (cut.length > 0) out.push('', comment(`Cut by ${opts.cutThresholdPct}% or more: they must stay at the PR's level (+${opts.marginPct}% margin).`));
  for (const r of cut) {
    const p = level(pr, r.key);
    const max = withMargin(p.max, opts.marginPct);
    out.push(
      comment(
        `${r.key}: base ${rangeText(level(base, r.key), base.perRank.length)}, PR ${rangeText(p, pr.perRank.length)} ` +
          `(${changeText(d, r)}); max = ${fmtCount(p.max)} + ${opts.marginPct}%, rounded up.`,
      ),
      `  - rule: ${yamlString(`${r.key} stays at most ${perStepText(max, p)}`)}`,
      `    ${field}: ${yamlString(r.key)}`,
      `    count: { per: ${per(p)}, max: ${max} }`,
    );
  }

  if (removed.length + added.length + cut.length === 0) {
    out.push('', comment(`The diff found no kernel ${field} removed, added or cut by ${opts.cutThresholdPct}% or more.`));
  }
  const all = level(pr, null);
  const allBase = level(base, null);
  const maxAll = withMargin(all.max, opts.marginPct);
  out.push(
    '',
    comment('All kernels.'),
    comment(
      `base ${rangeText(allBase, base.perRank.length)}, PR ${rangeText(all, pr.perRank.length)}; max = ${fmtCount(all.max)} + ${opts.marginPct}%, rounded up.`,
    ),
    `  - rule: ${yamlString(`total kernels stay at most ${perStepText(maxAll, all)}`)}`,
    '    kernels: all',
    `    count: { per: ${per(all)}, max: ${maxAll} }`,
  );
  return `${out.join('\n')}\n`;
}

function plural(n: number, one: string): string {
  return `${fmtCount(n)} ${one}${n === 1 ? '' : 's'}`;
}
