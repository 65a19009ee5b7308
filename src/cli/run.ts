// The commander program: every flag in one place, actions that call the commands. `run(argv, io)` returns the
// exit code and never touches `process`, so tests run the whole CLI in-process. Only what declaring the flags
// needs is imported here; each action imports its command when it runs. A command pulls in the readers, the
// reporters and what they use, and loading all of them for every run (--version, --help, a small diff) took most
// of kprof's start-up.

import { Command, CommanderError, Option } from 'commander';
import { createRequire } from 'node:module';
import {
  CHECK_FORMAT_NAMES,
  CHECK_FORMATS,
  auditFormat,
  EMPTY_VALUE,
  failureFormat,
  DIFF_FORMAT_NAMES,
  DIFF_FORMATS,
  INSPECT_FORMAT_NAMES,
  AUDIT_FORMAT_NAMES,
  INSPECT_FORMATS,
  reportFormat,
  RULES_BYS,
  SUMMARY_FORMAT_NAMES,
  SUMMARY_FORMATS,
  type DiffFormat,
  type FormatName,
  type InspectFormat,
  type SummaryFormat,
} from '../report/choices.js';
import type { AuditFlags } from '../commands/audit.js';
import type { CheckFlags } from '../commands/check.js';
import type { DiffFlags } from '../commands/diff.js';
import type { InspectFlags } from '../commands/inspect.js';
import type { MergeFlags } from '../commands/merge.js';
import type { RulesFlags } from '../commands/rules.js';
import type { SummaryFlags } from '../commands/summary.js';
import { DEFAULT_TIME_TOLERANCE_PCT, DIFF_ONLY, DIFF_SORTS } from '../analysis/diff.js';
import { DEFAULT_ALPHA } from '../analysis/timeTest.js';
import { EXIT, isKprofError, usageError } from '../util/errors.js';
import { parseEngine, setDefaultEngine } from '../input/engine.js';
import { SUMMARY_SORTS } from '../aggregate/group.js';
import { clearInputs, emit, writablePath, type Io } from '../util/io.js';
import { noteNamedInputs } from '../util/namedInputs.js';
import { inWorkingDir } from '../util/files.js';
import { GROUP_BYS } from '../model/model.js';
import { EXPORT_KINDS, isExportName, profileArgumentHelp, witnessText } from '../input/formats/registry.js';
import { stepTimeFiles } from '../input/formats/readers.js';
import { checkSavedFiguresWith } from '../input/formats/summary/snapshot.js';
import { checkSavedFigures } from '../report/savedSummary.js';
import { catalogueArgs } from './auditArgs.js';
import { makeProgress } from './progressBar.js';
import type { Progress } from '../model/progress.js';
import { githubError, junitError, namedPaths, reportWriteError } from '../report/failure.js';
import { escaped, oneLine } from '../report/render.js';
// A summary JSON read back is checked against what kprof writes (see report/savedSummary.ts).
checkSavedFiguresWith(checkSavedFigures);

/** package.json's version, which scripts/bundle.mjs writes into the bundle. */
declare const KPROF_VERSION: string | undefined;
/**
 * `kprof --version`: package.json's, its one source. The bundle (what bin/kprof.js runs) has it written in; the
 * modules tsc builds and the sources under vitest read it from package.json, one folder up from both.
 */
export const VERSION: string =
  typeof KPROF_VERSION === 'string' ? KPROF_VERSION : (createRequire(import.meta.url)('../../package.json') as { version: string }).version;

export interface RunHooks {
  /** Set by an action: the exit code it returns. */
  code: number;
  /** The progress bars the run made: erased however it ends, before any error is printed. */
  progress?: Progress[];
}

/** Options every reading command takes. */
function addCommonOptions(cmd: Command): Command {
  return addSelectionOptions(
    cmd
      .addOption(
        new Option('--by <grouping>', 'group kernels by (default: type; name for an input of kernel names only: traces, Nsight)').choices(GROUP_BYS),
      )
      .option('--groups <file>', 'user-defined groups (YAML or JSON): group name → types, names or /regex/'),
  );
}

/** Which ranks, steps and kernels to read (summary, diff, check, rules). */
function addSelectionOptions(cmd: Command): Command {
  return cmd
    .option('--rank <ranks>', 'ranks to read: 0, 0,3 or all (all ranks aggregated)', 'all')
    .option('--steps <range>', 'only these Step Ids, e.g. 5-20, 14- (from 14 on), -8 (up to 8) or 13,15,20-30')
    .option('--core <cores>', 'only these cores, e.g. AI_CORE,MIX_AIC')
    .option('--match <regex>', 'only kernels whose name or type matches')
    .option('--exclude <regex>', 'leave out kernels whose name or type matches')
    .option('--short-names', 'strip template arguments, parameters and return types from CUDA/ROCm kernel names (kineto, Nsight)')
    .addOption(preferOption());
}

/** `--prefer db|text`: which export to read where a folder holds both the text and the db export of one run. */
function preferOption(): Option {
  return new Option(
    '--prefer <export>',
    `where a folder holds both the text and the db export of a run, read this one (default: ${EXPORT_KINDS[0]})`,
  ).choices([...EXPORT_KINDS].sort());
}

function addRunOptions(cmd: Command): Command {
  return cmd
    .option('--strict', 'treat any unreadable row as an error (exit 2)')
    .option('-q, --quiet', 'no progress bar')
    .option('--debug', 'print stack traces of errors');
}

/** A command's flags as commander hands them over: --format may be either name of the text format. */
type Formatted<T extends { format: unknown }, F> = Omit<T, 'format'> & { format: F };

/**
 * Commander's own error message (a usage error), started like every other kprof error, with the text of the command line in it
 * escaped, and under `--format github` (of a command that has it) an annotation. Its "(Did you mean …?)" line is commander's own.
 */
function commanderError(str: string, github: boolean, io: Io): string {
  const m = /^([\s\S]*?)(\n\(Did you mean [^\n]*\?\))?\n?$/.exec(str)!;
  const message = choiceError(m[1]!.replace(/^error: /, ''));
  if (github) return githubError(`${escaped(message)}${m[2] !== undefined ? ` ${m[2].slice(1)}` : ''}`, 'usage error', io.env.GITHUB_WORKSPACE);
  return `kprof: ${escaped(message)}${m[2] ?? ''}\n`;
}

/**
 * Commander's word on a value not among an option's choices (`option '--by <grouping>' argument 'x' is invalid.
 * Allowed choices are …`) as kprof words every other bad value: the option, what it takes, the value found.
 */
function choiceError(message: string): string {
  const m = /^option '(?:-\w, )?(--[\w-]+)[^']*' argument '([\s\S]*)' is invalid\. Allowed choices are ([^']*)\.$/.exec(message);
  if (!m) return message;
  const choices = m[3]!.split(', ');
  const list = choices.length > 1 ? `${choices.slice(0, -1).join(', ')} or ${choices[choices.length - 1]}` : m[3]!;
  return `${m[1]}: expected ${choices.length > 2 ? 'one of ' : ''}${list}; found ${m[2]!.trim() === '' ? EMPTY_VALUE : `"${m[2]}"`}.`;
}

/**
 * An empty path (`--base "$BASE"` with BASE unset) is named by its option or argument before the command runs,
 * not as ": no such file or folder". -o "" is left to writeFileAtomic, which says the same in its own words; -o
 * naming a folder or a path in no folder is said here, before a profile is read (writablePath); -o - is stdout.
 */
function emptyPaths(command: Command): void {
  const opts = command.opts();
  if (opts.out === '-') command.setOptionValue('out', undefined);
  else if (typeof opts.out === 'string') writablePath('--out', opts.out);
  const isEmpty = (value: unknown): boolean => value === '' || (Array.isArray(value) && value.includes(''));
  const empty = (what: string, required: boolean): never => {
    throw usageError(
      `${what}: found an empty value (an unset variable?); expected a path. Pass the path${required ? '' : `, or leave ${what} out`}.`,
    );
  };
  for (const option of command.options) {
    if (!/<(file|profile)(\.\.\.)?>/.test(option.flags) || option.attributeName() === 'out') continue;
    if (isEmpty(opts[option.attributeName()])) empty(option.long ?? option.flags, option.mandatory);
  }
  command.registeredArguments.forEach((argument, i) => {
    if (isEmpty(command.processedArgs[i])) empty(`<${argument.name()}${argument.variadic ? '...' : ''}>`, argument.required);
  });
}

export function buildProgram(io: Io, hooks: RunHooks, github = false): Command {
  const program = new Command();
  const progressFor = (opts: { quiet?: boolean }): Progress => {
    const p = makeProgress(io, opts.quiet === true);
    if (hooks.progress === undefined) hooks.progress = [];
    hooks.progress.push(p);
    return p;
  };
  program
    .name('kprof')
    .description('Kernel-trace profiler for Ascend NPU runs: summarize, diff and gate torch_npu / msprof kernel exports.')
    .version(VERSION, '-V, --version')
    .showHelpAfterError('(run with --help for usage)')
    .configureOutput({
      writeOut: (s) => io.stdout(s),
      writeErr: (s) => io.stderr(s),
      outputError: (s, write) => write(commanderError(s, github, io)),
    })
    .exitOverride()
    .hook('preAction', (_, command) => emptyPaths(command));

  addRunOptions(
    addCommonOptions(
      program.command('summary').description('count and time the kernels of one profile, grouped').argument('<profile>', profileArgumentHelp()),
    )
      .addOption(new Option('--sort <key>', 'sort groups by').choices(SUMMARY_SORTS).default('time'))
      .option('--top <n>', 'show the first N groups (the rest are folded into one row)')
      .option('--witness', `cross-check the kernel table against the same run's ${witnessText().totals} beside it (per type and core), on stderr`)
      .option('--step-time', `add each step's wall span on the device and its ${stepTimeFiles()} (reads every start time)`)
      .addOption(new Option('--format <format>', 'output format (text is table)').choices(SUMMARY_FORMAT_NAMES).default('table'))
      .option(
        '-o, --out <file>',
        'write the report to a file instead of stdout (without --format, its extension names the format: .json, .csv, .md, .html)',
      )
      .option('--wide', 'on a terminal, print tables and lines whole (they are fitted to its width by default)'),
  ).action(async (profile: string, opts: Formatted<SummaryFlags, FormatName<SummaryFormat>> & { quiet?: boolean }, cmd: Command) => {
    const { summaryCommand } = await import('../commands/summary.js');
    hooks.code = await summaryCommand(
      profile,
      { ...cmd.optsWithGlobals(), ...opts, format: reportFormat(SUMMARY_FORMATS, opts.format, cmd, opts.out) },
      io,
      progressFor(opts),
    );
  });

  program
    .command('inspect')
    .description('show what a profile holds and how kprof will read it: files, formats, ranks, steps, columns, warnings')
    .argument('<profile>', 'a file or folder, as for summary')
    .option('--rank <ranks>', 'ranks to read: 0, 0,3 or all', 'all')
    .option('--short-names', 'strip template arguments, parameters and return types from CUDA/ROCm kernel names (kineto, Nsight)')
    .addOption(preferOption())
    .addOption(new Option('--format <format>', 'output format (table is text)').choices(INSPECT_FORMAT_NAMES).default('text'))
    .option('-o, --out <file>', 'write the report to a file instead of stdout (without --format, a .json file is written as JSON)')
    .option('-q, --quiet', 'no progress bar')
    .option('--debug', 'print stack traces of errors')
    .action(async (profile: string, opts: Formatted<InspectFlags, FormatName<InspectFormat>> & { quiet?: boolean }, cmd: Command) => {
      const { inspectCommand } = await import('../commands/inspect.js');
      const format = reportFormat(INSPECT_FORMATS, opts.format, cmd, opts.out);
      hooks.code = await inspectCommand(profile, { ...opts, format }, io, progressFor(opts));
    });

  addRunOptions(
    addCommonOptions(
      program
        .command('diff')
        .description('compare a base profile with a PR profile: which kernel groups appeared, went away or changed, and the time it made')
        .argument('<base>', 'the base: any input summary accepts (profile file or folder, folder of ranks, summary JSON)')
        .argument('<pr>', 'the PR: same kinds of input as the base'),
    )
      .addOption(new Option('--sort <key>', 'row order (changed rows first by default)').choices(DIFF_SORTS).default('delta-count'))
      .addOption(new Option('--only <which>', 'show only these rows (the others are summed in one row)').choices(DIFF_ONLY))
      .option('--top <n>', 'show the first N rows (the rest are summed in one row)')
      .option('--per-step', "divide each side's counts and times by its number of steps (both need Step Id)")
      .option('--time-tolerance <pct>', 'time changes within ±this percentage are shown as ~', String(DEFAULT_TIME_TOLERANCE_PCT))
      .addOption(
        new Option('--rewrites <on|off>', 'the Fusion rewrites section: which chains of kernels the PR replaced, where')
          .choices(['on', 'off'])
          .default('on'),
      )
      .option('--layer-marker <token>', 'the kernel that marks each model layer in the rewrites section (default: found automatically)')
      .option('--save-fusions <file>', 'write the rewrites found as fusion catalogue entries, for kprof audit --catalogue')
      .option('--alpha <p>', 'time changes whose per-step samples differ at p ≥ this level are shown as ~', String(DEFAULT_ALPHA))
      .option('--step-time', `compare each step's wall span on the device and its ${stepTimeFiles()} (reads every start time)`)
      .addOption(new Option('--format <format>', 'output format (text is table)').choices(DIFF_FORMAT_NAMES).default('table'))
      .option(
        '-o, --out <file>',
        'write the report to a file instead of stdout (without --format, its extension names the format: .json, .csv, .md, .html)',
      )
      .option('--wide', 'on a terminal, print tables and lines whole (they are fitted to its width by default)'),
  ).action(async (base: string, pr: string, opts: Formatted<DiffFlags, FormatName<DiffFormat>> & { quiet?: boolean }, cmd: Command) => {
    const { diffCommand } = await import('../commands/diff.js');
    hooks.code = await diffCommand(
      base,
      pr,
      { ...cmd.optsWithGlobals(), ...opts, format: reportFormat(DIFF_FORMATS, opts.format, cmd, opts.out) },
      io,
      progressFor(opts),
    );
  });

  addRunOptions(
    addSelectionOptions(
      program
        .command('check')
        .description('gate CI on a rules file: exit 0 when every error-level rule holds, 1 when one breaks, 2 for bad rules or input')
        .argument('<profile>', 'the profile to check: a file or folder as for summary, or a summary JSON')
        .requiredOption('--rules <file>', 'the rules file (YAML or JSON), e.g. kprof.rules.yaml')
        .option('--base <profile>', 'the base to compare against (a profile or a summary JSON), for count-vs-base, time-vs-base and no-new-types'),
    )
      .addOption(new Option('--format <format>', 'output format (table is text)').choices(CHECK_FORMAT_NAMES).default('text'))
      .option(
        '-o, --out <file>',
        'write the report to a file instead of stdout, also when the check fails (without --format, its extension names the format: .json, .xml, .md, .html)',
      )
      .option('--markdown-out <file>', 'also write the Markdown report to a file: one check, two reports (the GitHub Action uses it)')
      .option('--html-out <file>', 'also write the HTML report to a file, from the same check (the GitHub Action keeps it as an artifact)')
      .option('--wide', 'on a terminal, print tables and lines whole (they are fitted to its width by default)'),
  ).action(async (profile: string, opts: CheckFlags & { quiet?: boolean }, cmd: Command) => {
    const { checkCommand } = await import('../commands/check.js');
    hooks.code = await checkCommand(profile, { ...opts, format: reportFormat(CHECK_FORMATS, opts.format, cmd, opts.out) }, io, progressFor(opts));
  });

  addRunOptions(
    addSelectionOptions(
      program
        .command('rules')
        .description('write a starter rules file for kprof check that locks in what a base → PR change achieved')
        .argument('<base>', 'the base profile (a file or folder as for summary, or a summary JSON)')
        .argument('<pr>', 'the PR profile')
        .addOption(
          new Option('--by <grouping>', 'select kernels in the rules by (default: type; name for an input of kernel names only)').choices(RULES_BYS),
        )
        .option('--groups <file>', 'user-defined groups (YAML or JSON): rules select these groups; the file is copied into the rules'),
    )
      .option('--cut-threshold <percent>', 'a kernel whose count per step fell by at least this much gets a maximum', '20')
      .option('--margin <percent>', "headroom above the PR's kernel time per step in the time maximum (counts are exact and get none)", '10')
      .option('-o, --out <file>', 'write the rules to a file instead of stdout'),
  ).action(async (base: string, pr: string, opts: RulesFlags & { quiet?: boolean }) => {
    const { rulesCommand } = await import('../commands/rules.js');
    hooks.code = await rulesCommand(base, pr, opts, io, progressFor(opts));
  });

  addRunOptions(
    program
      .command('audit')
      .description('which fusions of the catalogue ran, and where the unfused chain ran instead (rank, phase, layer, step, row) and its time')
      .argument('[profile...]', 'profiles to audit (a file or folder as for summary); several with --matrix')
      .option('--list', 'show the fusion catalogue (its entries, chains and sources) and exit')
      .option('--catalogue <file...>', 'your own catalogue files (YAML, the format of catalogue/README.md), added to the shipped one')
      .option('--only <ids>', 'audit only these entries (comma-separated ids)')
      .option('--all', 'show entries whose kernels never ran too')
      .option('--matrix', 'one table of statuses, entry by profile (one profile per configuration)')
      .option('--rank <ranks>', 'ranks to read: 0, 0,3 or all', 'all')
      .addOption(new Option('--format <format>', 'output format (text is table)').choices(AUDIT_FORMAT_NAMES).default('table'))
      .option('-o, --out <file>', 'write the report to a file instead of stdout (without --format, its extension says which: .json, .md, .html)'),
  ).action(async (profiles: string[], opts: AuditFlags & { quiet?: boolean }, cmd: Command) => {
    const { auditCommand } = await import('../commands/audit.js');
    const format = auditFormat(opts, cmd);
    hooks.code = await auditCommand(profiles, { ...opts, format }, io, progressFor(opts));
  });

  program
    .command('merge')
    .description('combine summary JSONs (one per rank or per node) into one summary JSON, exactly; merged files merge again')
    .argument('<summary...>', 'summary JSONs (kprof summary --format json), or folders of them')
    .option('-o, --out <file>', 'write the merged summary JSON to a file instead of stdout')
    .option('-q, --quiet', 'no progress bar (merge shows none; taken as the other commands take it, for scripts)')
    .option('--debug', 'print stack traces of errors')
    .action(async (inputs: string[], opts: MergeFlags) => {
      const { mergeCommand } = await import('../commands/merge.js');
      hooks.code = await mergeCommand(inputs, opts, io);
    });

  return program;
}

/** Run the CLI; returns the exit code. Every path is resolved against io.cwd (see onDisk), never the process's. */
export function run(argv: string[], io: Io): Promise<number> {
  return inWorkingDir(io.cwd, () => runIn(argv, io));
}

async function runIn(argv: string[], io: Io): Promise<number> {
  const hooks: RunHooks = { code: EXIT.ok };
  const failure = failureFormat(argv);
  const program = buildProgram(io, hooks, failure?.format === 'github');
  const debug = argv.includes('--debug');
  clearInputs();
  /** An error message (exit 2 or 3): on stderr, as an annotation under --format github, as a JUnit report under junit. */
  const fail = async (message: string, title: string): Promise<void> => {
    io.stderr(failure?.format === 'github' ? githubError(message, title, io.env.GITHUB_WORKSPACE) : `kprof: ${oneLine(message)}\n`);
    await junit(message, title);
  };
  const junit = async (message: string, title: string): Promise<void> => {
    if (failure?.format !== 'junit') return;
    try {
      // The run may have stopped before it read (and noted) its inputs: --out replaces none of them all the same.
      if (failure.out !== undefined) noteNamedInputs(namedPaths(argv), failure.out, isExportName);
      await emit(io, failure.out, junitError(message, title));
    } catch (w) {
      io.stderr(reportWriteError(w, message));
    }
  };
  const stack = (e: unknown): void => {
    if (debug && e instanceof Error && e.stack) io.stderr(`${e.stack.split('\n').map(oneLine).join('\n')}\n`);
  };
  try {
    setDefaultEngine(parseEngine(io.env.KPROF_ENGINE));
    await program.parseAsync(catalogueArgs(argv), { from: 'user' });
    return hooks.code;
  } catch (e) {
    // A bar left on the terminal would sit above the message, frozen part-way.
    for (const p of hooks.progress ?? []) p.done();
    if (e instanceof CommanderError) {
      // --help and --version exit 0; help shown because no command was given is a usage error.
      if (e.code === 'commander.helpDisplayed' || e.code === 'commander.version') return EXIT.ok;
      if (e.code === 'commander.help') return e.exitCode === 0 ? EXIT.ok : EXIT.badInput;
      if (e.code === 'commander.executeSubCommandAsync') return EXIT.ok;
      // Commander already printed its message; usage errors are exit 2, never 1.
      await junit(choiceError(e.message.replace(/^error: /, '')), 'usage error');
      return EXIT.badInput;
    }
    if (isKprofError(e)) {
      await fail(e.message, e.kind === 'usage' ? 'usage error' : 'input error');
      stack(e);
      return EXIT.badInput;
    }
    // Anything else is a bug of kprof: say so, so that it is reported rather than taken for bad input.
    const msg = e instanceof Error ? e.message : String(e);
    await fail(
      `internal error: ${msg}. This is a bug in kprof; please report it with the command that caused it${debug ? '' : ' (run with --debug for the stack trace)'}.`,
      'internal error',
    );
    stack(e);
    return EXIT.internal;
  } finally {
    for (const p of hooks.progress ?? []) p.done();
  }
}
