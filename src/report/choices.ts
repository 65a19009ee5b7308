// The fixed choices of the flags whose owners are heavy modules (reporters, commands). They live here so that
// run.ts can declare every flag, and print --help, without loading those modules: each command's code is loaded
// only when that command runs (start-up time is part of every run).

/** summary's and diff's --format; the keys of SUMMARY_REPORTERS and DIFF_REPORTERS, in the order --help lists. */
export const OUTPUT_FORMATS = ['table', 'markdown', 'json', 'csv', 'html'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

/** inspect's --format. */
export const INSPECT_FORMATS = ['text', 'json'] as const;
export type InspectFormat = (typeof INSPECT_FORMATS)[number];

/** check's --format. */
export const CHECK_FORMATS = ['text', 'json', 'junit', 'github', 'markdown', 'html'] as const;
export type CheckFormat = (typeof CHECK_FORMATS)[number];

// The plain-text format is `table` for summary and diff and `text` for inspect and check; every command takes
// both names, so that one name works everywhere. The choices below are what commander accepts and --help lists.

export const OUTPUT_FORMAT_NAMES = ['table', 'text', 'markdown', 'json', 'csv', 'html'] as const;
export type OutputFormatName = (typeof OUTPUT_FORMAT_NAMES)[number];
export const INSPECT_FORMAT_NAMES = ['text', 'table', 'json'] as const;
export type InspectFormatName = (typeof INSPECT_FORMAT_NAMES)[number];
export const CHECK_FORMAT_NAMES = ['text', 'table', 'json', 'junit', 'github', 'markdown', 'html'] as const;
export type CheckFormatName = (typeof CHECK_FORMAT_NAMES)[number];

export function canonicalOutputFormat(f: OutputFormatName): OutputFormat {
  return f === 'text' ? 'table' : f;
}

export function canonicalInspectFormat(f: InspectFormatName): InspectFormat {
  return f === 'table' ? 'text' : f;
}

export function canonicalCheckFormat(f: CheckFormatName): CheckFormat {
  return f === 'table' ? 'text' : f;
}

/** rules' --by: rules select kernels by type or by name; the other groupings have no rule selector. */
export const RULES_BYS = ['type', 'name'] as const;
export type RulesBy = (typeof RULES_BYS)[number];
