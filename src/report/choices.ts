// The fixed choices of the flags whose owners are heavy modules (reporters, commands). They live here so that
// run.ts can declare every flag, and print --help, without loading those modules: each command's code is loaded
// only when that command runs (start-up time is part of every run). The output formats are the keys of the
// reporter registries (registry.ts), which load no reporter until one is used.

import { usageError } from '../util/errors.js';
import { escaped } from '../util/inputText.js';

export { EMPTY_VALUE } from '../util/inputText.js';
import { AUDIT_FORMATS, AUDIT_LIST_FORMATS, type AuditFormat } from './audit/formats.js';
import { failureFormatOf, type FailureFormat } from './failure.js';
import { CHECK_REPORTERS, DIFF_REPORTERS, INSPECT_REPORTERS, SUMMARY_REPORTERS } from './registry.js';

/** The formats of a registry, in its order (the order --help lists). */
function formatsOf<R extends object>(registry: R): readonly (keyof R & string)[] {
  return Object.keys(registry) as (keyof R & string)[];
}

export type SummaryFormat = keyof typeof SUMMARY_REPORTERS;
export type DiffFormat = keyof typeof DIFF_REPORTERS;
export type CheckFormat = keyof typeof CHECK_REPORTERS;
export type InspectFormat = keyof typeof INSPECT_REPORTERS;

export const SUMMARY_FORMATS = formatsOf(SUMMARY_REPORTERS);
export const DIFF_FORMATS = formatsOf(DIFF_REPORTERS);
export const CHECK_FORMATS = formatsOf(CHECK_REPORTERS);
export const INSPECT_FORMATS = formatsOf(INSPECT_REPORTERS);

// The plain-text format is `table` for summary and diff and `text` for inspect and check; every command takes
// both names, so that one name works everywhere. The names below are what commander accepts and --help lists:
// each format, its other name right after it.

const OTHER_NAME = { table: 'text', text: 'table' } as const;

/** A format or its other name. */
export type FormatName<F extends string> = F | (F extends keyof typeof OTHER_NAME ? (typeof OTHER_NAME)[F] : never);

function namesOf<F extends string>(formats: readonly F[]): readonly FormatName<F>[] {
  return formats.flatMap((f): FormatName<F>[] => (f in OTHER_NAME ? [f, OTHER_NAME[f as keyof typeof OTHER_NAME] as FormatName<F>] : [f]));
}

export const SUMMARY_FORMAT_NAMES = namesOf(SUMMARY_FORMATS);
export const DIFF_FORMAT_NAMES = namesOf(DIFF_FORMATS);
export const CHECK_FORMAT_NAMES = namesOf(CHECK_FORMATS);
export const INSPECT_FORMAT_NAMES = namesOf(INSPECT_FORMATS);
export const AUDIT_FORMAT_NAMES = namesOf(AUDIT_FORMATS);

export type CheckFormatName = FormatName<CheckFormat>;

/** Each command's --format names (a command without --format is not here). */
const COMMAND_FORMAT_NAMES: Readonly<Record<string, readonly string[]>> = {
  summary: SUMMARY_FORMAT_NAMES,
  diff: DIFF_FORMAT_NAMES,
  check: CHECK_FORMAT_NAMES,
  inspect: INSPECT_FORMAT_NAMES,
  audit: AUDIT_FORMAT_NAMES,
};

/**
 * The format a command line's errors take (failure.ts): `github` or `junit` when its command has that --format, else
 * null (a plain line on stderr). The command is the first word that is no option (kprof's own, -V and -h, take no value).
 */
export function failureFormat(argv: string[]): { format: FailureFormat; out: string | undefined } | null {
  const command = argv.find((a) => !a.startsWith('-'));
  const formats = command !== undefined && Object.hasOwn(COMMAND_FORMAT_NAMES, command) ? COMMAND_FORMAT_NAMES[command]! : [];
  return failureFormatOf(argv, formats);
}

/** The format a name given to --format stands for (commander has checked it is one of `formats`' names). */
export function canonicalFormat<F extends string>(formats: readonly F[], name: FormatName<NoInfer<F>>): F {
  return (formats as readonly string[]).includes(name) ? (name as F) : (OTHER_NAME[name as keyof typeof OTHER_NAME] as F);
}

/** rules' --by: rules select kernels by type or by name; the other groupings have no rule selector. */
export const RULES_BYS = ['type', 'name'] as const;
export type RulesBy = (typeof RULES_BYS)[number];

/** The format a report file's extension names (before any .gz). */
const EXTENSION_FORMATS: Readonly<Record<string, string>> = {
  json: 'json',
  csv: 'csv',
  md: 'markdown',
  markdown: 'markdown',
  html: 'html',
  htm: 'html',
  xml: 'junit',
};

/** The report format the extension of a file name names (`x.json`, `x.csv.gz`: see EXTENSION_FORMATS), if any. */
export function extensionFormat(out: string): string | undefined {
  const ext = /\.([a-z]+)(?:\.gz)?$/i.exec(out)?.[1]?.toLowerCase();
  return ext === undefined ? undefined : EXTENSION_FORMATS[ext];
}

/** A format as a message names it. */
export function formatLabel(format: string): string {
  const labels: Readonly<Record<string, string>> = {
    junit: 'JUnit XML',
    markdown: 'Markdown',
    github: 'GitHub annotations',
    table: 'text',
    text: 'text',
  };
  return labels[format] ?? format.toUpperCase();
}

/**
 * The format of a command's report: the one --format names when given on the command line (`cmd` says where its
 * value came from), else the one the extension of `out` (-o) names (`-o base.json` writes JSON, as `.json.gz`
 * gzipped JSON, `.md` Markdown, `.html`, `.csv`, `.xml` JUnit), else the default (`name`, commander's). An
 * extension that names a format the command does not write (`check -o report.csv`, `inspect -o x.md`) is a usage
 * error: the file would hold another format than its name says.
 */
export function reportFormat<F extends string>(
  formats: readonly F[],
  name: FormatName<NoInfer<F>>,
  cmd: { getOptionValueSource(key: string): string | undefined; name(): string },
  out: string | undefined,
  what = cmd.name(),
): F {
  if (cmd.getOptionValueSource('format') === 'default' && out !== undefined) {
    const f = extensionFormat(out);
    if (f !== undefined && (formats as readonly string[]).includes(f)) return f as F;
    if (f !== undefined) {
      const writes = [...new Set(formats.map(formatLabel))].join(', ');
      throw usageError(
        `-o ${escaped(out)}: this name says ${formatLabel(f)}, which kprof ${what} does not write (it writes ${writes}). Pass --format to choose what is written under this name, or give the file a name that fits the report.`,
      );
    }
  }
  return canonicalFormat(formats, name);
}

/**
 * The format of `kprof audit`'s report, or of its `--list` catalogue, which has no HTML form: `--list -o x.html` is
 * refused as any name of a format not written is (it wrote the text table under x.html).
 */
export function auditFormat(
  opts: { list?: boolean; format: FormatName<AuditFormat>; out?: string },
  cmd: { getOptionValueSource(key: string): string | undefined; name(): string },
): AuditFormat {
  // --list --format html stays html, for the command to refuse by its own words.
  if (opts.list !== true || opts.format === 'html') return reportFormat(AUDIT_FORMATS, opts.format, cmd, opts.out);
  return reportFormat<AuditFormat>(AUDIT_LIST_FORMATS, opts.format, cmd, opts.out, 'audit --list');
}
