// `kprof audit <profile...>`: for each fusion of the catalogue, where its fused kernel ran and where the unfused chain
// ran instead, per rank, layer and step, with the measured time of each. `--list` shows the catalogue.

import { CATALOGUE_FILES } from '../analysis/audit/catalogueData.js';
import { joinCatalogues, parseCatalogue, type CatalogueEntry } from '../analysis/audit/catalogue.js';
import { auditProfile, unauditable, type AuditPart, type AuditSite, type ProfileAudit } from '../analysis/audit/audit.js';
import { citeRows, type Wanted } from '../analysis/audit/rows.js';
import { relPath } from '../util/paths.js';
import { stagePhases } from '../analysis/audit/structure.js';
import { readText } from '../aggregate/userGroups.js';
import type { RecordedRank } from '../analysis/rewrites/recorderSink.js';
import { SEQUENCE_RECORDER } from '../analysis/rewrites/recorderSink.js';
import { readProfile } from '../input/read.js';
import { orderedWithStepsText, passKernelTable } from '../input/formats/registry.js';
import { noTypesWhy } from '../analysis/rewrites/noTypes.js';
import type { Progress } from '../model/progress.js';
import { auditJson, auditMarkdown, auditTable, catalogueListing, headline, structureLine, type AuditFormat } from '../report/audit/audit.js';
import { inputError, listItems, usageError } from '../util/errors.js';
import { diskIdentity } from '../util/files.js';
import { shellWord, shown, inQuotes } from '../util/inputText.js';
import { NO_RANK_ID, rankOption, ranksNamed } from '../util/format.js';
import { colorEnabled, emit, type Io } from '../util/io.js';
import { parseRanks, unreadNote } from './options.js';
import { warningLines } from '../report/warnings.js';
import { skippedRowsOf } from '../model/model.js';
import { nearest } from '../util/nearName.js';
import { strictCheck } from './summary.js';

export interface AuditFlags {
  format: AuditFormat;
  list?: boolean;
  catalogue?: string[];
  only?: string;
  all?: boolean;
  matrix?: boolean;
  rank?: string;
  out?: string;
  /** Rows that could not be read are an error (exit 2), as for the other commands. */
  strict?: boolean;
}

/** The shipped catalogue, then the user's files (--catalogue), ids unique across all; `empty` is told of a user file of no entry. */
export function loadCatalogue(userFiles: string[], empty: (file: string) => void = () => {}): CatalogueEntry[] {
  const parts = CATALOGUE_FILES.map((f) => parseCatalogue(f.file, f.text));
  for (const f of userFiles) {
    const entries = parseCatalogue(f, readText(f, 'catalogue'));
    if (entries.length === 0) empty(f);
    parts.push(entries);
  }
  return joinCatalogues(parts);
}

/** --only a,b: the entries named, each of which must exist. */
function selected(entries: CatalogueEntry[], only: string | undefined): CatalogueEntry[] {
  if (only === undefined) return entries;
  // An empty value is most often an unset variable (`--only "$IDS"`); an empty id in a list, a stray comma.
  if (only.trim() === '')
    throw usageError(
      '--only: expected catalogue entry ids (comma-separated); found an empty value (an unset variable?). Leave --only out for every entry.',
    );
  const ids = listItems('--only', only, 'catalogue entry ids (mla-prolog,rope)');
  for (const id of ids) {
    if (!entries.some((e) => e.id === id)) {
      // A fused kernel type names its entry in a fused: rule: said so here, with the id to pass; else the nearest id.
      const of = entries.filter((e) => e.fused.includes(id)).map((e) => e.id);
      const near = nearest(
        id,
        entries.map((e) => e.id),
      );
      const hint =
        of.length > 0
          ? ` ${shown(id)} is the fused kernel of ${of.join(', ')}: pass --only ${of.join(',')}.`
          : near !== undefined
            ? ` Did you mean "${near}"?`
            : '';
      throw usageError(`--only: no catalogue entry ${inQuotes(shown(id))}; kprof audit --list shows the ids.${hint}`);
    }
  }
  return entries.filter((e) => ids.includes(e.id));
}

/**
 * --matrix compares configurations, one column each: a profile named twice (`run` and `run/`, a link to it) would
 * be two columns of one configuration, which say nothing of each other. A usage error, before anything is read.
 */
function sameProfileTwice(profiles: string[]): void {
  const seen = new Map<string, number>();
  profiles.forEach((p, i) => {
    const id = diskIdentity(p);
    if (id === null) return; // not there: the read says so
    const first = seen.get(id);
    if (first !== undefined) {
      throw usageError(
        `--matrix: [${i + 1}] ${shown(p)} names the same profile as [${first + 1}] ${shown(profiles[first]!)}; expected one profile per configuration, a column each. Name each profile once.`,
      );
    }
    seen.set(id, i);
  });
}

export async function auditCommand(profiles: string[], flags: AuditFlags, io: Io, progress: Progress): Promise<number> {
  // A file of no entry (`entries: []`, as --save-fusions writes when the diff found no rewrite) is said: it adds nothing.
  const none = (f: string): void =>
    io.stderr(`kprof: warning: --catalogue ${shown(f)}: it has no entries, so it adds nothing to the shipped catalogue.\n`);
  const entries = selected(loadCatalogue(flags.catalogue ?? [], none), flags.only);
  const ctx = { color: flags.out === undefined && colorEnabled(io, io.stdoutIsTTY) };
  if (flags.list) {
    if (flags.format === 'html') throw usageError('--list: the catalogue is shown as table, markdown or json; --format html is for an audit.');
    // What only an audit reads would be left out unsaid: the profiles given, --matrix, --all.
    const unused = [
      ...(profiles.length > 0 ? [`the profile ${shown(profiles[0]!)}`] : []),
      ...(flags.matrix ? ['--matrix'] : []),
      ...(flags.all ? ['--all'] : []),
    ];
    if (unused.length > 0) {
      const what = unused.join(' and ');
      throw usageError(`--list shows the catalogue and audits nothing: ${what} would be ignored. Leave --list out to audit, or leave out ${what}.`);
    }
    await emit(io, flags.out, catalogueListing(entries, flags.format));
    return 0;
  }
  if (profiles.length === 0) throw usageError('kprof audit: expected at least one profile (or --list to show the catalogue).');
  if (flags.matrix && profiles.length < 2) throw usageError('--matrix: expected two profiles or more (one per configuration).');
  if (flags.matrix) sameProfileTwice(profiles);
  const ranks = parseRanks(flags.rank);
  const audits: ProfileAudit[] = [];
  for (const input of profiles) {
    const profile = await readProfile(input, {
      withShapes: false,
      ranks,
      rawNames: null,
      shortNames: false,
      onBytes: progress.tracker(input),
      beside: { kind: SEQUENCE_RECORDER, options: { by: 'type' } },
      prefer: null,
      stepTime: false,
    });
    io.stderr(
      warningLines(
        profile.ranks.flatMap((r) => r.warnings),
        profile.ranks.reduce((n, r) => n + r.warningCount, 0),
        skippedRowsOf(profile.ranks),
        profiles.length > 1 ? { side: shown(input) } : {},
      ),
    );
    unreadNote([profile], io);
    strictCheck(flags.strict, skippedRowsOf(profile.ranks));
    const why = unauditable(profile.ranks);
    if (why !== null)
      throw inputError(
        `${shown(input)}: cannot be audited: ${why}. kprof audit needs the kernels in the order they ran, with a Step Id (${orderedWithStepsText()}).`,
      );
    // The catalogue names kernel types: a profile without them (a trace, a Level0 export) would show no fusion at all.
    const untyped = profile.ranks.map((r) => ({ rank: r.rank, why: noTypesWhy(r) }));
    const first = untyped.find((u) => u.why !== null);
    if (first !== undefined) {
      const table = first.why!.level0
        ? 'an export with types (profiler_level Level1 or above)'
        : `a kernel table with op types (${passKernelTable()})`;
      // A folder of ranks, some of them with types: the --rank that audits those.
      const typed = untyped.filter((u) => u.why === null && u.rank !== NO_RANK_ID).map((u) => u.rank);
      const option = typed.length > 0 ? rankOption(typed) : null;
      const others =
        option === null
          ? ''
          : ` (${ranksNamed([first.rank], shown)}; --rank ${shellWord(option)} audits the ${typed.length === 1 ? 'rank' : 'ranks'} with types)`;
      throw inputError(
        `${shown(input)}: cannot be audited: ${first.why!.text}${others}. The catalogue names kernel types, so no entry would be found whatever ran: audit ${table}.`,
      );
    }
    const parts: AuditPart[] = [];
    for (const r of profile.ranks) {
      const stage = stagePhases(r.files);
      for (const b of r.beside as RecordedRank[]) parts.push({ rank: r.rank, seq: b.seq, stage });
    }
    if (parts.every((p) => p.seq.steps.length === 0)) {
      throw inputError(`${shown(input)}: cannot be audited: no compute kernel with a Step Id. kprof audit needs the kernels of steps.`);
    }
    const audit = auditProfile(input, parts, entries);
    // Rows that could not be read hold kernels no site counts: said on stderr, and counted in the report.
    audit.skippedRows = skippedRowsOf(profile.ranks);
    // Each unfused site's first kernel, cited by its row where the rank's kernel table is a CSV of one device.
    for (const r of profile.ranks) {
      if ((r.beside as RecordedRank[]).length !== 1) continue;
      const wanted: { w: Wanted; s: AuditSite }[] = [];
      for (const e of audit.entries)
        for (const s of e.unfusedSites)
          if (s.rank === r.rank && s.types !== null)
            wanted.push({ w: { step: s.at.step, stream: s.at.stream, index: s.at.index, type: s.types[0]!, file: null, line: null }, s });
      citeRows(
        r.files.map((f) => ({ path: f.path, shown: relPath(f.path), format: f.format })),
        wanted.map((x) => x.w),
      );
      for (const { w, s } of wanted) if (w.file !== null) s.at = { ...s.at, file: w.file, line: w.line };
    }
    audits.push(audit);
  }
  progress.done();
  const view = { all: flags.all === true, matrix: flags.matrix === true };
  const report =
    flags.format === 'json'
      ? auditJson(audits)
      : flags.format === 'markdown'
        ? auditMarkdown(audits, view)
        : flags.format === 'html'
          ? (await import('../report/audit/html.js')).auditHtml(audits, view, (a) => [headline(a, (x) => x), structureLine(a, (x) => x)])
          : auditTable(audits, view, ctx);
  await emit(io, flags.out, report);
  return 0;
}
