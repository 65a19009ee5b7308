// What kprof writes when it stops with an error (exit 2 or 3) under `--format github` or `--format junit`: CI
// reads those formats, so an error is an `::error` annotation, or a JUnit report with one failed test case,
// rather than a line that only a person reading the log would see. Pure: message in, string out.

import { existsSync } from 'node:fs';
import { onDisk } from '../util/files.js';
import { workspacePath } from '../util/paths.js';
import { escaped, oneLine, xmlEscape } from './render.js';

/** The formats that report an error in their own way. */
export type FailureFormat = 'github' | 'junit';

/** Escape workflow-command data (https://docs.github.com/actions/reference/workflow-commands-for-github-actions). */
export function ghData(s: string): string {
  return s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

export function ghProperty(s: string): string {
  return ghData(s).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

/**
 * A path as an annotation's `file=` property: escaped as text from input is, but for a leading `::`, which is no
 * workflow command inside a property (and ghProperty writes each `:` as `%3A`): escaped, it would name no file.
 */
export function ghFile(path: string): string {
  const lead = /^ *::/.exec(path)?.[0] ?? '';
  return ghProperty(lead + escaped(path.slice(lead.length)));
}

/** The value of the last `--flag value` or `--flag=value` (or `-o value` / `-ovalue` for a short name) in argv. */
function flagValue(argv: string[], long: string, short?: string): string | undefined {
  let value: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') break;
    if (a === long || (short !== undefined && a === short)) value = argv[i + 1];
    else if (a.startsWith(`${long}=`)) value = a.slice(long.length + 1);
    else if (short !== undefined && a.startsWith(short) && !a.startsWith('--') && a.length > short.length) value = a.slice(short.length);
  }
  return value;
}

/**
 * The arguments of a command line that may name a file or folder (a `--flag=value` as its value), but the value
 * of --out: what an error report written to --out must not replace, though the run stopped before reading it.
 */
export function namedPaths(argv: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--out' || a === '-o') {
      i++;
      continue;
    }
    if (a.startsWith('--out=') || (a.startsWith('-o') && !a.startsWith('--'))) continue;
    const eq = a.startsWith('--') ? a.indexOf('=') : -1;
    out.push(eq >= 0 ? a.slice(eq + 1) : a);
  }
  return out;
}

/**
 * The --format of a command line when it is one that reports errors itself, and its --out: only when `formats`, the
 * --format names of the command, has it (choices.ts failureFormat gives them). `kprof summary --format github` is a
 * usage error (summary writes no annotations), said on stderr as any other, not as an annotation; `kprof diff
 * --format junit -o r.xml` writes no JUnit report.
 */
export function failureFormatOf(argv: string[], formats: readonly string[]): { format: FailureFormat; out: string | undefined } | null {
  const format = flagValue(argv, '--format');
  if ((format !== 'github' && format !== 'junit') || !formats.includes(format)) return null;
  const out = flagValue(argv, '--out', '-o');
  // `-o -` is stdout, as for the report itself (cli/run.ts emptyPaths).
  return { format, out: out === '-' ? undefined : out };
}

/** The `file:line:col: ` a message starts with, when that file exists (messages name the file first). */
export function messageLocation(message: string): { file: string; line: number | null; col: number | null } | null {
  const m = /^([^\s:][^:]*?)(?::(\d+))?(?::(\d+))?: /.exec(message);
  if (!m || m[1]!.startsWith('-') || !existsSync(onDisk(m[1]!))) return null;
  return { file: m[1]!, line: m[2] !== undefined ? Number(m[2]) : null, col: m[3] !== undefined ? Number(m[3]) : null };
}

/** Where an annotation points: a file (its path, not yet escaped), and a line and column in it when known. */
export interface AnnotationAt {
  file: string;
  line: number | null;
  col: number | null;
}

/**
 * One workflow-command annotation (`::error` or `::warning`) for a message (text from input in it already
 * escaped, see oneLine), on `at` (its file relative to GITHUB_WORKSPACE when set), titled `kprof: <title>`.
 */
export function githubAnnotation(
  command: 'error' | 'warning',
  message: string,
  title: string,
  at: AnnotationAt | null,
  workspace: string | undefined,
): string {
  const props = [
    ...(at ? [`file=${ghFile(workspacePath(at.file, workspace))}`] : []),
    ...(at?.line != null ? [`line=${at.line}`] : []),
    ...(at?.col != null ? [`col=${at.col}`] : []),
    `title=${ghProperty(`kprof: ${title}`)}`,
  ];
  return `::${command} ${props.join(',')}::${ghData(oneLine(message))}\n`;
}

/** One `::error` annotation for a message, on the file and line it starts with (see messageLocation). */
export function githubError(message: string, title: string, workspace: string | undefined): string {
  return githubAnnotation('error', message, title, messageLocation(message), workspace);
}

/** A JUnit report with one failed test case that carries the message: the dashboard shows why kprof stopped. */
export function junitError(message: string, title: string): string {
  // The common JUnit schema (junit-10.xsd): testsuites takes no skipped; testsuite does.
  const attrs = `tests="1" failures="1" errors="0"`;
  const msg = xmlEscape(oneLine(message));
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="kprof" ${attrs}>`,
    `  <testsuite name="kprof" ${attrs} skipped="0">`,
    `    <testcase name="kprof: ${xmlEscape(title)}" classname="kprof">`,
    `      <failure message="${msg}" type="kprof.${title === 'internal error' ? 'internal' : 'input'}">${msg}</failure>`,
    '    </testcase>',
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}

/**
 * The stderr line of an error in writing the JUnit error report (`w`), or nothing when it is the run's own error
 * (`message`, already said: -o naming a folder fails the run and its error report alike).
 */
export function reportWriteError(w: unknown, message: string): string {
  const said = oneLine(w instanceof Error ? w.message : String(w));
  return sameRefusal(said, oneLine(message)) ? '' : `kprof: ${said}\n`;
}

/**
 * Do two messages say the same, but for how they name the report's option? A command's check of its outputs names
 * it `-o` (`-o x: this is an input … Pass -o another path`), the write of a report `--out`, whose name it leaves out
 * before the path (`x: this is an input … Pass --out another path`).
 */
function sameRefusal(a: string, b: string): boolean {
  // The option's name at the message's start, and in its last sentence (a path may hold ` Pass -o ` itself).
  const plain = (m: string): string => m.replace(/^(?:-o|--out) /, '').replace(/ Pass (?:-o|--out) (?!.* Pass (?:-o|--out) )/, ' Pass --out ');
  return plain(a) === plain(b);
}
