// `kprof check <profile> --rules FILE [--base B]`: the CI gate. The rules are read and validated first, so a
// bad rules file fails fast (exit 2) before hundreds of MB of profile are read; then the profile and the base
// are read in parallel, the rules evaluated, the report written (also when the check fails), and the verdict
// mapped to the exit code.

import { fitHint, terminalFit } from './terminalFit.js';
import { selectionRawNames } from '../input/rawNames.js';
import { canonicalFormat, CHECK_FORMATS, type CheckFormatName } from '../report/choices.js';
import { inputError, usageError } from '../util/errors.js';
import { colorEnabled, distinctOutputs, emit, type Io, outputsNotInputs } from '../util/io.js';
import { skippedRowsOf, type Profile } from '../model/model.js';
import { parseCommon, unreadNote, type CommonFlags } from './options.js';
import { relPath } from '../util/paths.js';
import { plural } from '../util/format.js';
import type { Progress } from '../model/progress.js';
import { planPair, planProfile, readProfile, type PlannedProfile } from '../input/read.js';
import { unmatchedPart, verdictLine } from '../report/check/shared.js';
import { CHECK_REPORTERS } from '../report/registry.js';
import { githubAnnotation, messageLocation } from '../report/failure.js';
import { clipped, escaped, oneLine, WHOLE } from '../report/render.js';
import { evaluate, exitCodeOf, rejectUnpairedBase, ruleAt, rulesNeedingBase } from '../rules/evaluate.js';
import { readRulesFile } from '../rules/parse.js';
import { bareDurationNote, bareFractionNote } from '../rules/duration.js';
import type { RuleSet } from '../rules/model.js';
import { chainOf } from '../rules/checks/sequence.js';
import { SEQUENCE_RECORDER } from '../analysis/rewrites/recorderSink.js';
import { requireAlikeFilters, requireRuleStepsSelected, scopeProfile, selectRuleRanks } from '../rules/scope.js';
import { requireSelectedSteps } from '../analysis/emptySelection.js';
import { hasEvidence, misspelt, ruleNameTests, SHORT_NAMES_HINT } from '../rules/unmatched.js';
import { warningLines } from '../report/warnings.js';
import { strictCheck } from './summary.js';

/** check takes the selection options of summary (not --by or --groups: rules select their own kernels). */
export interface CheckFlags extends Omit<CommonFlags, 'by' | 'groups'> {
  /** Tables and lines whole on a terminal too (not fitted to its width). */
  wide?: boolean;
  rules: string;
  base?: string;
  format: CheckFormatName;
  out?: string;
  /** --markdown-out: the Markdown report too, from the same check. */
  markdownOut?: string;
  /** --html-out: the HTML report too, from the same check. */
  htmlOut?: string;
  strict?: boolean;
}

/** Rule warnings said one by one on stderr; past them, how many more (a rules file of thousands of rules). */
const RULE_WARNINGS_SHOWN = 10;

/** The line that says how many of `n` warnings (`what`, plural) were not said (RULE_WARNINGS_SHOWN were), or ''. */
function moreWarnings(n: number, what: string): string {
  const more = n - RULE_WARNINGS_SHOWN;
  return more > 0 ? `kprof: warning: … and ${more.toLocaleString('en-US')} more ${what} (the report has every rule).\n` : '';
}

/**
 * Warnings of one input on stderr (annotations under --format github); --strict turns skipped rows into an
 * error.
 */
function report(io: Io, p: Profile, strict: boolean | undefined, github: boolean, side?: string): void {
  const warnings = p.ranks.flatMap((r) => r.warnings);
  const count = p.ranks.reduce((n, r) => n + r.warningCount, 0);
  const skipped = p.ranks.reduce((n, r) => n + r.rowsSkipped, 0);
  io.stderr(
    warningLines(warnings, count, skipped, {
      github: github ? { workspace: io.env.GITHUB_WORKSPACE } : null,
      ...(side !== undefined ? { side } : {}),
    }),
  );
  strictCheck(strict, skipped);
  // A summary JSON made with filters holds only the kernels that passed them; say so once per file.
  const seen = new Set<string>();
  for (const r of p.ranks) {
    const snap = r.snapshot;
    // `short-names` (--short-names) is not a filter: every kernel is there, by its shortened name.
    const filters = snap?.selection.replace(/(?:^|; )short-names$/, '') ?? '';
    if (!snap || filters === '' || seen.has(snap.path)) continue;
    seen.add(snap.path);
    io.stderr(`kprof: note: ${escaped(relPath(snap.path))} was made with ${escaped(filters)}; the rules see only those kernels.\n`);
  }
}

/** Kernels the rules looked at, and rows that could not be read, for the report. */
function readCounts(p: Profile): { kernels: number; skippedRows: number } {
  let kernels = 0;
  for (const r of p.ranks) for (const g of r.groups.values()) kernels += g.total.count;
  return { kernels, skippedRows: skippedRowsOf(p.ranks) };
}

/**
 * What the sequence rules' chains are made of (one sequence is recorded per read), or null without one. A fused
 * rule reads the sequence by type (the catalogue names kernel types).
 */
export function sequenceGrouping(rules: RuleSet): 'type' | 'name' | null {
  const seq = rules.rules.filter((r) => r.check.kind === 'sequence');
  const fused = rules.rules.find((r) => r.check.kind === 'fused');
  if (seq.length === 0) return fused !== undefined ? 'type' : null;
  const by = chainOf(seq[0]!).by;
  const other = seq.find((r) => chainOf(r).by !== by);
  if (other !== undefined) {
    throw usageError(
      `${ruleAt(other)}: this sequence rule gives its chain by ${chainOf(other).by}, but the one at ${ruleAt(seq[0]!)} gives it by ${by}; ` +
        'the sequence rules of one file give their chains alike (all type: or all name:). Put the others in a second rules file.',
    );
  }
  if (fused !== undefined && by === 'name') {
    throw usageError(
      `${ruleAt(fused)}: a fused rule reads kernels by type, and the sequence rule at ${ruleAt(seq[0]!)} gives its chain by name; put one of them in a second rules file.`,
    );
  }
  return by;
}

export async function checkCommand(profile: string, flags: CheckFlags, io: Io, progress: Progress): Promise<number> {
  distinctOutputs(
    [
      ['-o', flags.out],
      ['--markdown-out', flags.markdownOut],
      ['--html-out', flags.htmlOut],
    ],
    [flags.rules, profile, ...(flags.base !== undefined ? [flags.base] : [])],
  );
  const rules = readRulesFile(flags.rules, relPath(flags.rules));
  // A time bound written as a bare number is µs: said once, with its line, as other assumptions are said.
  const bare = bareDurationNote(rules.file, rules.bareDurations ?? []);
  if (bare !== '') io.stderr(`kprof: note: ${oneLine(bare)}\n`);
  // So is a percentage written as a bare number below 1 (0.2 meant as 20%?).
  const fraction = bareFractionNote(rules.file, rules.bareFractions ?? []);
  if (fraction !== '') io.stderr(`kprof: note: ${oneLine(fraction)}\n`);
  const needing = rulesNeedingBase(rules);
  if (needing.length > 0 && flags.base === undefined) {
    throw usageError(
      `${ruleAt(needing[0]!)}: ${needing.length === 1 ? 'this rule compares' : `this rule and ${needing.length - 1} more compare`} against a base; ` +
        `pass --base <profile or summary.json>.`,
    );
  }
  const format = canonicalFormat(CHECK_FORMATS, flags.format);
  const sequenceBy = sequenceGrouping(rules);
  const { selection, prefer } = parseCommon({ ...flags, by: 'type' });
  requireRuleStepsSelected(rules, selection);
  const read = (input: PlannedProfile): Promise<Profile> =>
    readProfile(input, {
      withShapes: false,
      ranks: selection.ranks,
      rawNames: selectionRawNames(selection, ruleNameTests(rules)),
      shortNames: flags.shortNames === true,
      onBytes: progress.tracker(input.input),
      prefer,
      // Sequence rules read each rank's kernels in order, beside its accumulator (only when a rule needs it).
      beside: sequenceBy !== null ? { kind: SEQUENCE_RECORDER, options: { by: sequenceBy } } : null,
    });
  // With a base, a --rank one of the two lacks is said with the side and the ranks both have.
  const plans = { ranks: selection.ranks, prefer };
  const [planned, plannedBase] =
    flags.base !== undefined ? planPair([profile, flags.base], plans, ['the profile', 'the base']) : [planProfile(profile, plans), null];
  // A rule's ranks: that --rank left out: the rule sees the others (none: exit 2, naming both).
  const chosen = new Set(planned.plans.map((p) => p.rank));
  const left = planned.resolved.ranks.map((p) => p.rank).filter((r) => !chosen.has(r));
  const ruled = selectRuleRanks(rules, left, [...chosen]);
  const [read0, base0] = await Promise.all([read(planned), plannedBase !== null ? read(plannedBase) : Promise.resolve(null)]);
  progress.done();
  // With a base, each side's lines that name no file say whose they are.
  report(io, read0, flags.strict, format === 'github', base0 ? 'profile' : undefined);
  if (base0) report(io, base0, flags.strict, format === 'github', 'base');
  // A gate does not pass on a partly read profile in silence.
  unreadNote(base0 ? [read0, base0] : [read0], io, format === 'github');
  requireSelectedSteps(read0, selection);
  if (base0) requireSelectedSteps(base0, selection);
  if (base0) requireAlikeFilters(read0, base0, selection, flags.shortNames === true);
  const data = scopeProfile(read0, selection, 'the profile');
  const base = base0 && scopeProfile(base0, selection, 'the base');
  if (base) rejectUnpairedBase(data, base);
  // Rules whose selector is one or two letters from a kernel that runs: a misspelling, or a kernel meant (evidence:).
  const typos = misspelt(ruled, data, base);
  const verdict = evaluate(data, base, ruled);
  // The report says what such a rule most likely meant, as the warning does.
  const hintOf = new Map(typos.map((t) => [t.rule, t.hint]));
  for (const r of verdict.results) {
    const hint = hintOf.get(r.rule);
    if (hint !== undefined) r.hint = hint;
  }
  // A rule's warning starts with its file:line (the rule); under --format github it is an annotation there. Its
  // text from input is escaped already (shown()): oneLine, not escaped again (a rank `r\n1` read `r\x5cx0a1`).
  for (const w of verdict.warnings.slice(0, RULE_WARNINGS_SHOWN))
    io.stderr(
      format === 'github'
        ? githubAnnotation('warning', oneLine(w), 'rule warning', messageLocation(w), io.env.GITHUB_WORKSPACE)
        : `kprof: warning: ${oneLine(w)}\n`,
    );
  io.stderr(moreWarnings(verdict.warnings.length, 'rule warnings'));
  // A rule that held while matching nothing holds on absence, which is what absent: and max: ask for once a change
  // removed the kernels. Evidence that they ran once (kprof rules writes it) tells that from a misspelt name;
  // without it the rule is a warning, and under --strict an error. (A profile where nothing was read has already
  // stopped: absence of everything proves nothing.)
  const typoOf = new Map(typos.map((t) => [t.rule, t.message]));
  const fix =
    'If the kernels ran once (a change removed them), say so in the rule: evidence: { note: "…" } (kprof rules writes evidence: { base-count: N }).';
  const doubts = [
    ...typos.map((t) => ({
      typo: true,
      // A name written for --short-names is no misspelling: passing the flag is the fix.
      text: t.hint.includes(SHORT_NAMES_HINT)
        ? `${t.message} Without it the name matches nothing, so the rule holds whatever runs.`
        : `${t.message} A misspelt name matches nothing, so the rule holds whatever runs: fix the name. ${fix}`,
    })),
    ...verdict.results
      .filter((r) => r.passed && r.unmatched.length > 0 && !hasEvidence(r.rule) && !typoOf.has(r.rule))
      .map((r) => ({
        typo: false,
        text: `${clipped(r.rule.file, WHOLE)}:${r.rule.line}: ${unmatchedPart(r, base !== null, clipped)}; a misspelt name would match nothing too. ${fix}`,
      })),
  ];
  if (doubts.length > 0 && flags.strict === true) {
    throw inputError(
      `${doubts[0]!.text}${doubts.length > 1 ? ` (and ${plural(doubts.length - 1, 'rule')} more)` : ''} Under --strict a rule that matches nothing needs evidence.`,
    );
  }
  // Under --format github the report marks a rule that matched nothing itself (::warning on its line).
  const said = doubts.filter((d) => format !== 'github' || d.typo);
  for (const d of said.slice(0, RULE_WARNINGS_SHOWN)) {
    const text = `${d.text} --strict makes this an error.`;
    io.stderr(
      format === 'github'
        ? githubAnnotation('warning', oneLine(text), 'rule matches nothing', messageLocation(text), io.env.GITHUB_WORKSPACE)
        : `kprof: warning: ${oneLine(text)}\n`,
    );
  }
  io.stderr(moreWarnings(said.length, 'rules that match nothing, without evidence'));

  const ctx = {
    profile: relPath(profile),
    base: flags.base !== undefined ? relPath(flags.base) : null,
    rules: relPath(flags.rules),
    read: readCounts(data),
    baseRead: base ? readCounts(base) : null,
    workspace: io.env.GITHUB_WORKSPACE,
  };
  const fit = format === 'text' ? terminalFit(io, flags.out, flags.wide) : undefined;
  const rc = { color: flags.out === undefined && format === 'text' && colorEnabled(io, io.stdoutIsTTY), ...(fit ? { fit } : {}) };
  const reporter = await CHECK_REPORTERS[format]();
  const text = reporter(verdict, ctx, rc);
  outputsNotInputs([
    ['-o', flags.out],
    ['--markdown-out', flags.markdownOut],
    ['--html-out', flags.htmlOut],
  ]);
  const went = await emit(io, flags.out, text);
  io.stderr(fitHint(fit));
  if (flags.markdownOut !== undefined)
    await emit(io, flags.markdownOut, (await CHECK_REPORTERS.markdown())(verdict, ctx, { color: false }), '--markdown-out');
  if (flags.htmlOut !== undefined) await emit(io, flags.htmlOut, (await CHECK_REPORTERS.html())(verdict, ctx, { color: false }), '--html-out');
  // -o /dev/stdout, or a link to it (-o so), writes to stdout itself: say so rather than name the link.
  if (flags.out !== undefined)
    io.stderr(`kprof: ${verdictLine(verdict)} Report written to ${went === 'file' ? escaped(relPath(flags.out)) : went}.\n`);
  return exitCodeOf(verdict);
}
