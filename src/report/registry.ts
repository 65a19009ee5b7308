// The reporters of every command, by --format: the one list of the output formats. The --format choices of each
// command (choices.ts, --help) are the keys of its registry, in this order.
//
// The convention: a reporter is a pure function (what the command made, how to show it, RenderContext) → the
// report as a string or as chunks (see json.ts); each command and format has its own module
// (src/report/<command>/<format>.ts), and what a command's formats share is in src/report/<command>/shared.ts.
// An entry loads its module only when its format is asked for: --help and the other commands never load it.
// Adding an output format is its module and one line per command here.

import type { Diff, DiffView } from '../analysis/diff.js';
import type { Witnessed } from '../analysis/witness.js';
import type { Profile, Summary } from '../model/model.js';
import type { Verdict } from '../rules/model.js';
import type { Report } from '../util/io.js';
import type { CheckContext } from './check/shared.js';
import type { RenderContext } from './render.js';
import type { SummaryView } from './summary/shared.js';

/** A reporter: what a command made and how to show it in, the report out. Pure: it writes nowhere. */
export type Reporter<Subject, Options> = (subject: Subject, options: Options, ctx: RenderContext) => Report;

export type SummaryReporter = Reporter<Summary, SummaryView>;
export type DiffReporter = Reporter<Diff, DiffView>;
export type CheckReporter = Reporter<Verdict, CheckContext>;
export type InspectReporter = Reporter<Profile, Witnessed>;

/** A command's reporters by format name, each loaded on first use. */
export type Registry<F extends string, R> = Readonly<Record<F, () => Promise<R>>>;

/** A registry of reporters of type R, its format names those of `entries`. */
function registry<R>(): <F extends string>(entries: Registry<F, R>) => Registry<F, R> {
  return (entries) => entries;
}

export const SUMMARY_REPORTERS = registry<SummaryReporter>()({
  table: async () => (await import('./summary/table.js')).summaryTableChunks,
  markdown: async () => (await import('./summary/markdown.js')).summaryMarkdown,
  json: async () => (await import('./summary/json.js')).summaryJson,
  csv: async () => (await import('./summary/csv.js')).summaryCsvChunks,
  html: async () => (await import('./html/summary.js')).summaryHtml,
});

export const DIFF_REPORTERS = registry<DiffReporter>()({
  table: async () => (await import('./diff/table.js')).diffTableChunks,
  markdown: async () => (await import('./diff/markdown.js')).diffMarkdown,
  json: async () => (await import('./diff/json.js')).diffJson,
  csv: async () => (await import('./diff/csv.js')).diffCsvChunks,
  html: async () => (await import('./html/diff.js')).diffHtml,
});

export const CHECK_REPORTERS = registry<CheckReporter>()({
  text: async () => (await import('./check/text.js')).checkText,
  json: async () => (await import('./check/json.js')).checkJson,
  junit: async () => (await import('./check/junit.js')).checkJunit,
  github: async () => (await import('./check/github.js')).checkGithub,
  markdown: async () => (await import('./check/markdown.js')).checkMarkdown,
  html: async () => (await import('./html/check.js')).checkHtml,
});

export const INSPECT_REPORTERS = registry<InspectReporter>()({
  text: async () => (await import('./inspect/text.js')).inspectText,
  json: async () => (await import('./inspect/json.js')).inspectJson,
});

/** Every command's registry. */
export const REPORTERS = {
  summary: SUMMARY_REPORTERS,
  diff: DIFF_REPORTERS,
  check: CHECK_REPORTERS,
  inspect: INSPECT_REPORTERS,
} as const;
