// `kprof diff --format markdown`: ready to paste into a pull request. Pure: Diff (+ view) in, string out.

import { viewDiff, type Diff, type DiffRow, type DiffView, type Side, type UnevenSteps } from '../../analysis/diff.js';
import { fmtCount, fmtSignedCount, fmtSignedUs, fmtUs, fmtUsShort, listed } from '../../util/format.js';
import { markdownTable, mdCode, type Align } from '../render.js';
import { groupHeading } from '../summary/shared.js';
import { comparedLine, disagreementLines, disagreeTitle, headlineLines, othersLine, pctText, perStep, reportWarnings, rowLine, unevenStepLines, UNEVEN_TITLE, type Line } from './shared.js';

/** A compact signed duration for PR tables: "+674 µs", "-1.20 ms", "0 µs". */
function signedShort(us: number): string {
  const s = fmtUsShort(Math.abs(us));
  if (s === fmtUsShort(0)) return s;
  return us > 0 ? `+${s}` : `-${s}`;
}

const code = mdCode;

/** `73,652 (1.63 s)`; the totals row keeps two decimals of time (`832 (22.27 ms)`). */
function mdSide(s: Side, exact = false): string {
  if (s.count === 0 && s.us === 0) return '0';
  return `${fmtCount(s.count)} (${exact ? fmtUs(s.us) : fmtUsShort(s.us)})`;
}

/**
 * Whether a row's times need two decimals: a time change that is not `~` is never shown as two equal times
 * (three significant digits can round two times under 1% apart alike).
 */
function mdExact(l: Line): boolean {
  return !l.timeNoise && l.base.us !== l.pr.us && fmtUsShort(l.base.us) === fmtUsShort(l.pr.us);
}

function mdDelta(l: Line, exact = false): string {
  const time = l.timeNoise ? '~' : exact ? fmtSignedUs(l.deltaUs) : signedShort(l.deltaUs);
  return `${fmtSignedCount(l.deltaCount)} (${time})`;
}

function mdNote(l: Line, status: string, r: DiffRow | null): string {
  const time = l.timeNoise ? 'time ~' : `${pctText(l.deltaUsPct, l.pr.us)} time`;
  let note: string;
  if (status === 'removed' || status === 'added') note = status;
  else if (status === 'same') note = l.timeNoise ? 'same' : `same count, ${time}`;
  else note = `${pctText(l.deltaCountPct, l.pr.count)} count, ${time}`;
  const ranks = r !== null && r.disagreeingRanks.length > 0 ? `; ranks differ (${listed(r.disagreeingRanks.map((x) => code(x.rank)), 6)})` : '';
  const perRank = r === null ? [] : r.unevenSteps.map(stepsNote);
  const steps = perRank.length > 0 ? `; steps differ (${perRank.slice(0, 4).join('; ')}${perRank.length > 4 ? '; …' : ''})` : '';
  return `${note}${ranks}${steps}`;
}

/** `rank 1: 52, 53` */
function stepsNote(u: UnevenSteps): string {
  const ids = listed(u.steps.map((c) => String(c.step)), 6);
  return u.rank === '-' ? ids : `rank ${code(u.rank)}: ${ids}`;
}

/**
 * The first line of every Markdown diff: an HTML comment (not shown where the Markdown is rendered) by which a CI
 * job finds its earlier pull request comment to update it. Never changes; no input text can start a line.
 */
export const DIFF_MARKDOWN_MARKER = '<!-- kprof:diff -->';

export function diffMarkdown(d: Diff, view: DiffView): string {
  const v = viewDiff(d, view);
  const ps = perStep(d) ? ' per step' : '';
  const head = [groupHeading(d.groupBy, d.rows), `base${ps}`, `PR${ps}`, 'Δ', 'note'];
  const align: Align[] = ['left', 'right', 'right', 'right', 'left'];
  const body = v.rows.map((r) => {
    const l = rowLine(r);
    const exact = mdExact(l);
    return [code(l.label), mdSide(l.base, exact), mdSide(l.pr, exact), mdDelta(l, exact), mdNote(l, r.status, r)];
  });
  if (v.others) {
    const l = othersLine(v.others, d.timeTolerancePct);
    body.push([l.label, mdSide(l.base), mdSide(l.pr), mdDelta(l), '']);
  }
  const t: Line = { ...d.totals, label: 'total', status: '' };
  body.push(['**total**', `**${mdSide(t.base, true)}**`, `**${mdSide(t.pr, true)}**`, `**${mdDelta(t, true)}**`, mdNote(t, 'total', null)]);

  const [first, second] = headlineLines(d, code);
  const out: string[] = [DIFF_MARKDOWN_MARKER, `**Kernel diff:** ${first}`, '', `${second}`, ''];
  for (const w of reportWarnings(d, code)) out.push(`> **Warning:** ${w}`, '');
  out.push(markdownTable(head, body, align), '');
  const dis = disagreementLines(d, code);
  if (dis.length > 0) {
    out.push(`**${disagreeTitle(d)}**`, '');
    for (const l of dis) out.push(`- ${l}`);
    out.push('');
  }
  const un = unevenStepLines(d, code);
  if (un.length > 0) {
    out.push(`**${UNEVEN_TITLE}**`, '');
    for (const l of un) out.push(`- ${l}`);
    out.push('');
  }
  out.push(comparedLine(d, code, true));
  return `${out.join('\n')}\n`;
}
