// Shared building blocks for reporters: terminal tables, Markdown tables, CSV lines, colour. Pure functions.

import { createRequire } from 'node:module';
import type TableType from 'cli-table3';

// Loaded on first use: JSON, CSV and Markdown output never need it.
let TableClass: typeof TableType | null = null;
function Table(): typeof TableType {
  TableClass ??= createRequire(import.meta.url)('cli-table3') as typeof TableType;
  return TableClass;
}

export type Align = 'left' | 'right';

export interface RenderContext {
  /** Colour allowed (stdout is a TTY and NO_COLOR is not set). */
  color: boolean;
}

const ANSI = {
  bold: [1, 22],
  dim: [2, 22],
  red: [31, 39],
  green: [32, 39],
  yellow: [33, 39],
  cyan: [36, 39],
} as const;

export type Paint = keyof typeof ANSI;

export function paint(ctx: RenderContext, style: Paint, text: string): string {
  if (!ctx.color) return text;
  const [on, off] = ANSI[style];
  return `\u001b[${on}m${text}\u001b[${off}m`;
}

/** A borderless terminal table: a header, a rule under it, right-aligned numbers. */
export function textTable(ctx: RenderContext, head: string[], rows: string[][], align: Align[], footer?: string[]): string {
  const table = new (Table())({
    head: head.map((h) => paint(ctx, 'bold', h)),
    colAligns: align,
    style: { head: [], border: [], compact: true, 'padding-left': 0, 'padding-right': 2 },
    chars: {
      top: '', 'top-mid': '', 'top-left': '', 'top-right': '',
      bottom: '', 'bottom-mid': '', 'bottom-left': '', 'bottom-right': '',
      left: '', 'left-mid': '', mid: '', 'mid-mid': '',
      right: '', 'right-mid': '', middle: '',
    },
  });
  const widths = head.map((h, i) => Math.max(visible(h), ...rows.map((r) => visible(r[i] ?? '')), ...(footer ? [visible(footer[i] ?? '')] : [])));
  table.push(widths.map((w) => '─'.repeat(w)));
  for (const r of rows) table.push(r);
  if (footer) {
    table.push(widths.map((w) => '─'.repeat(w)));
    table.push(footer);
  }
  return table
    .toString()
    .split('\n')
    .map((l) => l.trimEnd())
    .join('\n');
}

function visible(s: string): number {
  // eslint-disable-next-line no-control-regex
  return s.replace(/\u001b\[[0-9;]*m/g, '').length;
}

/** Escape a Markdown table cell: `|` and line breaks would break the table. */
export function mdCell(s: string): string {
  return s.replace(/\\/g, '\\\\').replace(/\|/g, '\\|').replace(/\r?\n|\r/g, ' ');
}

export function markdownTable(head: string[], rows: string[][], align: Align[]): string {
  const line = (cells: string[]): string => `| ${cells.map(mdCell).join(' | ')} |`;
  const rule = `|${align.map((a) => (a === 'right' ? '---:' : ':---')).join('|')}|`;
  return [line(head), rule, ...rows.map(line)].join('\n');
}

/**
 * One CSV cell: quoted when needed; a text cell starting with = + - @ (or TAB/CR) is prefixed with `'` so a
 * spreadsheet does not run it as a formula. Numbers are passed as numbers and never prefixed.
 */
export function csvCell(v: string | number | boolean | null | undefined): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  let s = v;
  if (/^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  if (/[",\r\n]/.test(s)) s = `"${s.replace(/"/g, '""')}"`;
  return s;
}

export function csvLines(head: string[], rows: (string | number | boolean | null | undefined)[][]): string {
  return [head.map(csvCell).join(','), ...rows.map((r) => r.map(csvCell).join(','))].join('\n') + '\n';
}

/** Escape text for XML (JUnit). */
export function xmlEscape(s: string): string {
  return s
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;')
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, '');
}
