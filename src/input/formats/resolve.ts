// Paths → which files to read, per rank, and as which format. The layouts are those of FORMATS.md §1:
// torch_npu/MindSpore `*_ascend_pt`/`*_ascend_ms` folders, msprof `PROF_*` folders (new and old layouts), a parent
// folder holding one such folder per rank, a plain folder of export files, and a folder of summary JSONs. This
// module knows the layouts; which files in a folder are which format is the registry's (registry.ts).
//
// Over 400 lines: the layouts of FORMATS.md §1 and the walk that finds them, with the notes of what is not read:
// one decision per folder, whose rules are read side by side.

import { existsSync, readdirSync, realpathSync, statSync, type Stats } from 'node:fs';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { inputError } from '../../util/errors.js';
import { excerpt } from '../../util/inputText.js';
import { duplicateKey } from '../json/duplicateKeys.js';
import { noteInput } from '../../util/io.js';
import { noteCollectionFolder } from '../../util/collections.js';
import { relPath } from '../../util/paths.js';
import { ranksNamed } from '../../util/format.js';
import type { RowWarning } from '../../model/model.js';
import { fsError, missingPathError, onDisk, specialKindOf } from '../../util/files.js';
import { checkRegular, readSmall } from '../bytes/whole.js';
import { decodeKeepingBytes } from '../csv/scan.js';
import { readHead } from '../bytes/gzip.js';
import {
  allFormats,
  dbExportIn,
  exportKindOf,
  fallbackFormat,
  formatOf,
  isDbExport,
  formatsIn,
  formatsNamed,
  lookedForText,
  namedAs,
  otherExportKind,
  passAnyFolder,
  ranksInFile,
  type ExportKind,
  type FormatFacts,
  type RankClaim,
  type Holds,
  type Place,
} from './registry.js';

/** The files of one rank. */
export interface RankPlan {
  rank: string;
  /**
   * The registry id of the format its files are read as. A CSV export's header still says which of the CSV
   * formats it is (a file named by no format is read as the fallback CSV format, and its header decides).
   */
  format: string;
  files: string[];
  /** Where the rank id came from, for inspect. */
  rankSource: string;
  /** The folder this rank was found in (or the file). */
  root: string;
  /** Said while resolving (a rank_id that is not a plain id, a missing slice): given to the rank's warnings. */
  warnings?: RowWarning[];
}

export interface ResolvedInput {
  input: string;
  ranks: RankPlan[];
  /** Things found and not used, for inspect (e.g. a rank folder with no kernel data). */
  notes: string[];
  /** Of the notes, those of a folder or file that looks like a profile and is not read (said on stderr too). */
  unread: string[];
  /** The rank folders left out for holding no kernel data (a note says each): a gate cannot pass them by. */
  emptyRanks?: EmptyRank[];
}

/** A rank folder that holds no kernel data: its rank (NO_RANK_ID when it has no id) and its folder. */
export interface EmptyRank {
  rank: string;
  dir: string;
}

/** A slice of an export (`<export>_slice_<n>_<rest>`), of a format that declares slices (Recognition.slices). */
const SLICE = /^(.+?)_slice_(\d+)_(.*)$/;

/** The slice a file name is, for a format whose files may be slices; else null. */
function sliceOf(format: FormatFacts, name: string): RegExpExecArray | null {
  return format.recognise.slices === true ? SLICE.exec(name) : null;
}

/**
 * The names in a folder, sorted. A name whose bytes are not UTF-8 (a folder unpacked from an archive made where file
 * names are GBK or Latin-1) cannot be opened by the text Node.js makes of it (each such byte is U+FFFD there), so it
 * is left out of the list and said in a note of what is not read: passed over, it was a rank left out unsaid.
 */
function listDir(dir: string): string[] {
  let raw: Buffer[];
  try {
    raw = readdirSync(onDisk(dir), { encoding: 'buffer' });
  } catch (e) {
    throw fsError(dir, e);
  }
  const names: string[] = [];
  for (const b of raw) {
    const name = b.toString('utf8');
    if (Buffer.from(name, 'utf8').equals(b)) names.push(name);
    else notUtf8Name(join(dir, decodeKeepingBytes(b, 0, b.length)));
  }
  return names.sort();
}

/** The note of a name in a folder that is not UTF-8, once per resolveInput. */
function notUtf8Name(path: string): void {
  const text = `${path}: its name is not UTF-8 (GBK? Latin-1?), so it cannot be opened by name; not read. Rename it (convmv -f gbk -t utf-8)`;
  if (!pickNotes.includes(text)) unread(pickNotes, text);
}

function isDir(p: string): boolean {
  try {
    return statSync(onDisk(p)).isDirectory();
  } catch {
    return false;
  }
}

/** Order slices by their number, other files by name. */
function sortFiles(format: FormatFacts, files: string[]): string[] {
  return [...files].sort((a, b) => {
    const ma = sliceOf(format, basename(a));
    const mb = sliceOf(format, basename(b));
    if (ma && mb && ma[3] === mb[3]) return Number(ma[2]) - Number(mb[2]);
    return a < b ? -1 : a > b ? 1 : 0;
  });
}

/** profiler_info_*.json is a few KB; anything larger is not one. */
const MAX_INFO_BYTES = 1 << 20;

/** A rank id and where it came from, with a warning when the id in the file was not a plain one. */
export interface RankId {
  rank: string;
  source: string;
  warnings: RowWarning[];
}

/**
 * The rank id from `profiler_info_{rank}.json` (its `rank_id`), else from the folder name. A rank_id must be a
 * whole number (or a string of digits, read as that number: "00" is rank 0, so it collides with a "0" beside it
 * instead of passing for another rank); anything else (true, 1.5, "a") is said in a warning and the rank is
 * taken from the file or folder name. -1 is the profiler's "no rank" and is passed over silently.
 */
export function rankOf(folder: string): RankId {
  let entries: string[] = [];
  try {
    entries = readdirSync(onDisk(folder));
  } catch {
    /* not a folder */
  }
  const warnings: RowWarning[] = [];
  const info = entries.filter((f) => /^profiler_info(_\d+)?\.json$/.test(f)).sort();
  for (const f of info) {
    const path = join(folder, f);
    noteInput(path);
    // A FIFO, a device or an oversized file here is refused (the error propagates); JSON that does not parse
    // falls back to the file name, said in a warning (a rank_id it held would have named another rank). A UTF-8
    // byte order mark, which JSON.parse refuses, is passed over, as in every CSV.
    const bytes = readSmall(path, MAX_INFO_BYTES, 'a profiler_info file');
    const m = /^profiler_info_(\d+)\.json$/.exec(f);
    let id: unknown;
    try {
      const text = bytes.toString('utf8').replace(/^\uFEFF/, '');
      const value = JSON.parse(text) as { rank_id?: unknown } | null;
      id = value?.rank_id;
      // JSON.parse keeps the last of a key written twice: said, as the file means two ranks.
      const twice = duplicateKey(text, value);
      if (twice !== null && twice.key === 'rank_id')
        warnings.push({ file: path, line: 1, message: `rank_id is written twice; the last (${excerpt(JSON.stringify(id) ?? String(id))}) is read` });
    } catch {
      id = undefined;
      warnings.push({
        file: path,
        line: 1,
        message: `${bytes.length === 0 ? 'the file is empty' : 'not valid JSON (cut short?)'}, expected the profiler's JSON with its rank_id; the rank is taken from the ${m ? 'file name' : 'folder name'} instead`,
      });
    }
    if (typeof id === 'number' && Number.isSafeInteger(id) && id >= 0) return { rank: String(id), source: `${f} rank_id`, warnings };
    if (typeof id === 'number' && Number.isInteger(id) && id >= 0) {
      // 99999999999999999999 parses as 1e20: that rank id would be one the file does not name (and collide with others).
      const written = writtenNumber(bytes) ?? String(id);
      warnings.push({
        file: path,
        line: 1,
        message: `rank_id is ${excerpt(written)}, more than a rank id kprof reads exactly (2^53 - 1); the rank is taken from the ${m ? 'file name' : 'folder name'} instead`,
      });
      id = undefined;
    }
    if (typeof id === 'string' && /^\d+$/.test(id)) {
      const rank = id.replace(/^0+(?=\d)/, '');
      if (rank !== id) warnings.push({ file: path, line: 1, message: `rank_id is "${id}", read as rank ${rank}` });
      return { rank, source: `${f} rank_id`, warnings };
    }
    if (id !== undefined && id !== null && id !== -1) {
      // A number past a double's range (1e400) parses as Infinity, which JSON.stringify writes as null: as written.
      const written = typeof id === 'number' ? writtenNumber(bytes) : undefined;
      const shown = excerpt(written ?? JSON.stringify(id) ?? String(id));
      warnings.push({
        file: path,
        line: 1,
        message: `rank_id is ${shown}, not a whole number; the rank is taken from the ${m ? 'file name' : 'folder name'} instead`,
      });
    }
    if (m) return { rank: m[1]!, source: `${f} file name`, warnings };
  }
  const name = basename(folder);
  const m = /(?:^|[_-])rank[_-]?(\d+)(?:$|[_-])/i.exec(name) ?? /^(\d+)$/.exec(name);
  if (m) return { rank: m[1]!, source: `folder name ${name}`, warnings };
  const dev = /^device_(\d+)$/.exec(name);
  if (dev) return { rank: dev[1]!, source: `folder name ${name}`, warnings };
  return { rank: '-', source: 'not found', warnings };
}

/** The files of one format in a folder's entries: the first by name, or all in order (see Recognition.takes). */
function filesOf(f: FormatFacts, dir: string, entries: string[]): string[] {
  const mine = entries.filter((e) => f.recognise.names.some((re) => re.test(e)));
  if (mine.length === 0) return [];
  return f.recognise.takes === 'first'
    ? [join(dir, mine[0]!)]
    : sortFiles(
        f,
        mine.map((e) => join(dir, e)),
      );
}

/** What a place holds, in order of preference: a format of kernels before one of totals, then registry order. */
const PREFERENCE: Holds[] = ['kernels', 'totals'];

/** Which export to read where a folder holds both the text and the db export of one run (`--prefer`). */
export type Prefer = ExportKind;

/** The run's --prefer (null: registry order, which reads the text export), set by resolveInput while it runs. */
let prefer: Prefer | null = null;
/** The notes of the resolveInput running. */
let pickNotes: string[] = [];
/** The notes of the resolveInput running that say a profile folder or file is not read. */
let unreadTexts = new Set<string>();

/** The notes of the resolveInput running that say a rank folder holds no kernel data, with its rank. */
let emptyRanks = new Map<string, EmptyRank>();

/** The end of a note of a rank folder not read: `rank 3 left out`, `rank (no id) left out` (no `rank -`). */
function rankLeftOut(rank: string): string {
  return `${ranksNamed([rank])} left out`;
}

/**
 * A note of rank folder `dir` left out for holding no kernel data (`text` ends in rankLeftOut): kept with its rank
 * for the gate, once the note is among the input's (a folder looked at for another's sake notes into a list of its own).
 */
function unreadRank(notes: string[], text: string, rank: string, dir: string): void {
  unread(notes, text);
  emptyRanks.set(text, { rank, dir });
  // A kernel table written into it (-o rank_1/ASCEND_PROFILER_OUTPUT/kernel_details.csv) would be that rank's for the
  // next run: a report read as a profile.
  // (Of a folder with an ASCEND_PROFILER_OUTPUT, only that folder is read.)
  const after = "read by the next run as that rank's kernels";
  const out = join(dir, 'ASCEND_PROFILER_OUTPUT');
  if (isDir(out)) {
    const names = formatsIn('framework').flatMap((f) => f.recognise.names);
    noteCollectionFolder(out, names, 'the output folder of a rank with no kernel data in the profile', after);
  } else
    noteCollectionFolder(
      dir,
      formatsIn('loose').flatMap((f) => f.recognise.names),
      'a rank folder with no kernel data in the profile',
      after,
    );
  // So would an msprof export written into its msprof folders (an empty PROF_*, device_N/summary).
  const msprof = formatsIn('msprof').flatMap((f) => f.recognise.names);
  for (const folder of msprofFolders(dir))
    noteCollectionFolder(folder, msprof, 'an msprof folder of a rank with no kernel data in the profile', after);
}

/**
 * The folders under a rank folder (itself, a PROF_* or a device_N) that msprof writes its exports into: PROF_*,
 * mindstudio_profiler_output, device_N/summary (those there).
 */
function msprofFolders(dir: string): string[] {
  const out: string[] = [];
  const within = (d: string): void => {
    for (const sub of ['mindstudio_profiler_output', 'summary']) if (isDir(join(d, sub))) out.push(join(d, sub));
    for (const n of listDir(d)) if (/^device_\d+$/.test(n) && isDir(join(d, n, 'summary'))) out.push(join(d, n, 'summary'));
  };
  within(dir);
  for (const n of listDir(dir))
    if (n.startsWith('PROF_') && isDir(join(dir, n))) {
      out.push(join(dir, n));
      within(join(dir, n));
    }
  return out;
}

/** A note of a profile folder or file that is not read. */
function unread(notes: string[], text: string): void {
  notes.push(text);
  unreadTexts.add(text);
}

/** Formats in order of preference: registry order, with the --prefer'd kind of export first. */
function preferred(formats: FormatFacts[]): FormatFacts[] {
  if (prefer === null) return formats;
  const first = (f: FormatFacts): boolean => exportKindOf(f) === prefer;
  return [...formats.filter(first), ...formats.filter((f) => !first(f))];
}

/**
 * The first format (by PREFERENCE, then formats with op types, then registry order and --prefer) with files among a
 * folder's entries in this place, and those files; `holds` narrows the formats looked for. Where a text and a db
 * export of kernels are both there, a note says which is read.
 */
function pick(place: Place, dir: string, entries: string[], holds: readonly Holds[] = PREFERENCE): { format: string; files: string[] } | null {
  for (const h of holds) {
    // A format with op types before one of kernel names only (a trace_view.json beside a kernel table is not read).
    const found = preferred(formatsIn(place, h))
      .sort((a, b) => Number(a.answers.types === 'no') - Number(b.answers.types === 'no'))
      .map((f) => ({ f, files: filesOf(f, dir, entries) }))
      .filter((x) => x.files.length > 0);
    if (found.length === 0) continue;
    const chosen = found[0]!;
    // The rival export is a kernel table too (with op types, as the chosen one): a trace_view.json is not one.
    const other = found.find((x) => exportKindOf(x.f) !== exportKindOf(chosen.f) && x.f.answers.types === chosen.f.answers.types);
    if (other !== undefined) bothExports(dir, chosen.f, chosen.files, other.files);
    if (h === 'kernels') otherTables(dir, entries, chosen.f, chosen.files, other?.f);
    sameFormatLeft(dir, entries, chosen.f, chosen.files);
    return { format: chosen.f.id, files: chosen.files };
  }
  return null;
}

/**
 * The note of a folder whose kernels are read from one table and that holds another kernel table with op types
 * (an op_summary beside a kernel_details, which torch_npu writes from the op_summary; one in a place its format is
 * not read from): the other is not read, and said. A trace_view.json (kernel names only) is not such a table.
 */
function otherTables(dir: string, entries: string[], chosen: FormatFacts, files: string[], rival: FormatFacts | undefined): void {
  for (const f of allFormats()) {
    if (f.holds !== 'kernels' || f.answers.types === 'no' || f.id === chosen.id || f.id === rival?.id) continue;
    if (!f.recognise.places.some((p) => p !== 'collection')) continue;
    const theirs = filesOf(f, dir, entries).filter((x) => !files.includes(x));
    if (theirs.length === 0) continue;
    const more = theirs.length > 1 ? ` and ${theirs.length - 1} more` : '';
    unread(
      pickNotes,
      `${dir}: holds ${basename(theirs[0]!)}${more} (${f.naming.brief}) beside ${basename(files[0]!)}; not read ` +
        `(one kernel table is read per rank; pass ${basename(theirs[0]!)} by itself to read it)`,
    );
  }
}

/**
 * The note of a folder that holds more files of the chosen format than it takes (`takes: 'first'`: one export a
 * folder, as `*cuda_gpu_trace.csv` is): the others are not read, and said, never left out in silence.
 */
function sameFormatLeft(dir: string, entries: string[], chosen: FormatFacts, files: string[]): void {
  const left = entries.filter((e) => chosen.recognise.names.some((re) => re.test(e)) && !files.includes(join(dir, e)));
  if (left.length === 0) return;
  const more = left.length > 1 ? ` and ${left.length - 1} more` : '';
  unread(
    pickNotes,
    `${dir}: holds ${left[0]}${more} (${chosen.naming.brief}) beside ${basename(files[0]!)}; not read ` +
      `(one ${chosen.naming.brief} is read per rank, the first by name; pass ${left[0]} by itself to read it)`,
  );
}

/** The note of a folder (or PROF_ folder) that holds the text and the db export of one run. */
function bothExports(dir: string, chosen: FormatFacts, files: string[], others: string[]): void {
  const why = prefer === null ? 'the default, registry order' : `--prefer ${prefer}`;
  pickNotes.push(
    `${dir}: holds both the text and the db export of the run (${basename(files[0]!)} and ${basename(others[0]!)}); ` +
      `reading ${basename(files[0]!)} (${why}; --prefer ${otherExportKind(exportKindOf(chosen))} reads the other)`,
  );
}

/** Of the db export at a PROF_ folder's root and the text export below it, the preferred one (with a note). */
function pickOf(
  dir: string,
  db: { format: string; files: string[] },
  text: { format: string; files: string[] },
): { format: string; files: string[] } {
  if (formatOf(text.format).holds !== 'kernels') return db;
  const order = preferred([formatOf(text.format), formatOf(db.format)]);
  const [chosen, other] = order[0]!.id === db.format ? [db, text] : [text, db];
  bothExports(dir, formatOf(chosen.format), chosen.files, other.files);
  return chosen;
}

/** msprof output folder (`mindstudio_profiler_output` or old `device_N/summary`) → the files of one format. */
function msprofFiles(dir: string): { format: string; files: string[] } | null {
  return pick('msprof', dir, listDir(dir));
}

/** The files looked for in an msprof output folder, for a note. */
function msprofLooked(): string {
  return listed(
    formatsIn('msprof')
      .filter((f) => f.holds !== 'nothing' && !isDbExport(f))
      .map((f) => f.naming.brief),
    'or',
  );
}

/** A `PROF_*` folder → one plan per device (old layout) or one plan (new layout). */
function resolveProf(dir: string, rankHint: RankId | null, notes: string[]): RankPlan[] {
  const out = join(dir, 'mindstudio_profiler_output');
  // msprof --type=db writes its msprof_*.db into the PROF_ folder itself, beside mindstudio_profiler_output.
  const rootDb = pick('msprof', dir, listDir(dir), ['kernels']);
  const text = isDir(out) ? msprofFiles(out) : null;
  const f = rootDb !== null && text !== null ? pickOf(dir, rootDb, text) : (text ?? rootDb);
  if (f) {
    const r = rankHint ?? rankOf(dir);
    return [{ rank: r.rank, rankSource: r.source, warnings: r.warnings, format: f.format, files: f.files, root: dir }];
  }
  const plans: RankPlan[] = [];
  const devices = listDir(dir).filter((n) => /^device_\d+$/.test(n) && isDir(join(dir, n)));
  for (const d of devices) {
    const summaryDir = join(dir, d, 'summary');
    const f = isDir(summaryDir) ? msprofFiles(summaryDir) : null;
    if (!f) {
      const what = isDir(summaryDir) ? `no ${msprofLooked()} in ${d}/summary` : `no ${d}/summary folder`;
      const device = d.slice('device_'.length);
      unreadRank(notes, `${join(dir, d)}: ${what}; device ${device} left out`, device, join(dir, d));
      continue;
    }
    plans.push({ rank: d.slice('device_'.length), rankSource: `folder name ${d}`, format: f.format, files: f.files, root: join(dir, d) });
  }
  if (devices.length === 0) {
    const out = isDir(join(dir, 'mindstudio_profiler_output'))
      ? `no ${msprofLooked()} in mindstudio_profiler_output`
      : 'no mindstudio_profiler_output folder';
    unreadRank(notes, `${dir}: ${out}, no ${dbExportIn('msprof', 'PROF_*/')} and no device_* folder; left out`, (rankHint ?? rankOf(dir)).rank, dir);
  }
  // One device under a framework folder that knows its rank: that rank.
  if (plans.length === 1 && rankHint && rankHint.rank !== '-') {
    plans[0]!.rank = rankHint.rank;
    plans[0]!.rankSource = rankHint.source;
    plans[0]!.warnings = rankHint.warnings;
  }
  return plans;
}

/** A folder name torch_npu or MindSpore gives a profile folder (`{worker}_{timestamp}_ascend_pt`). */
const FRAMEWORK_NAME = /_ascend_(pt|ms)$/i;

/** Whether a folder is a torch_npu/MindSpore profile folder by its own files (its name, a profiler_info). */
function frameworkMarked(dir: string, entries: string[]): boolean {
  return FRAMEWORK_NAME.test(basename(dir)) || entries.some((e) => /^profiler_(info(_\d+)?|metadata)\.json$/.test(e));
}

/** A sub-folder that is a profile folder of its own (not a framework folder's ASCEND_PROFILER_OUTPUT or PROF_*). */
function rankFolderLike(p: string): boolean {
  if (!isDir(p)) return false;
  const name = basename(p);
  if (name === 'ASCEND_PROFILER_OUTPUT' || name.startsWith('PROF_')) return false;
  if (FRAMEWORK_NAME.test(name)) return true;
  let entries: string[];
  try {
    entries = readdirSync(onDisk(p));
  } catch {
    return false;
  }
  return entries.some((e) => (e === 'ASCEND_PROFILER_OUTPUT' || e.startsWith('PROF_')) && isDir(join(p, e)));
}

/**
 * A torch_npu/MindSpore profile folder (or its ASCEND_PROFILER_OUTPUT) → one plan, or null. A folder with PROF_*
 * folders and no ASCEND_PROFILER_OUTPUT is one profile folder only when it is marked as one (its name, a
 * profiler_info) or holds one PROF_* folder and no other profile folder; else (several msprof runs, or msprof runs
 * beside torch_npu rank folders) it is a folder of ranks, and null lets the walk read each of them.
 */
function resolveFrameworkFolder(dir: string, notes: string[]): RankPlan[] | null {
  const out = join(dir, 'ASCEND_PROFILER_OUTPUT');
  const hasOut = isDir(out);
  const entries = listDir(dir);
  const prof = entries.filter((n) => n.startsWith('PROF_') && isDir(join(dir, n)));
  if (!hasOut && prof.length === 0) return null;
  const others = entries.map((e) => join(dir, e)).filter(rankFolderLike);
  if (!hasOut && !frameworkMarked(dir, entries) && (prof.length > 1 || others.length > 0)) return null;
  // Its one PROF_ folder named by hand, holding the profile folders (vllm-ascend's PROF_GROUP_…/PROF_L2Cache/PROF_…):
  // a folder of ranks, walked into, as that PROF_ folder is when given itself (it was said to hold no kernel data,
  // and the folder a rank "left out", beside the ranks the walk then read).
  if (!hasOut && !frameworkMarked(dir, entries) && prof.length === 1 && groupsProfiles(join(dir, prof[0]!))) return null;
  // Profile folders inside this one are not read with it: said, not skipped in silence.
  for (const o of others) unread(notes, `${o}: a profile folder inside the profile folder ${dir}; not read (pass it by itself)`);
  const r = rankOf(dir);
  // The kernels of ASCEND_PROFILER_OUTPUT, else those of its PROF_* folders, else its totals.
  if (hasOut) {
    const k = pick('framework', out, listDir(out), ['kernels']);
    if (k) return [{ rank: r.rank, rankSource: r.source, warnings: r.warnings, format: k.format, files: k.files, root: dir }];
  }
  for (const [i, p] of prof.entries()) {
    const plans = resolveProf(join(dir, p), r, notes);
    if (plans.length === 0) continue;
    for (const q of prof.slice(i + 1)) {
      if (resolveProf(join(dir, q), r, []).length > 0) {
        unread(notes, `${join(dir, q)}: kernel data not read (the profile folder ${dir} is read from ${p}, its first PROF_ folder with kernel data)`);
      }
    }
    return plans;
  }
  if (hasOut) {
    const t = pick('framework', out, listDir(out), ['totals']);
    if (t) {
      const kernels = formatsIn('framework', 'kernels').map((f) => f.naming.brief);
      notes.push(`${dir}: no ${listed(kernels, 'or')}; using ${formatOf(t.format).naming.brief} (per-type totals only)`);
      return [{ rank: r.rank, rankSource: r.source, warnings: r.warnings, format: t.format, files: t.files, root: dir }];
    }
  }
  unreadRank(notes, `${dir}: no kernel data (${noKernelData(out, hasOut, prof.length > 0)}); ${rankLeftOut(r.rank)}`, r.rank, dir);
  return [];
}

/**
 * What a framework folder with no kernel data lacks, where: the exports read in its ASCEND_PROFILER_OUTPUT, and a
 * PROF_* folder with kernel data; or the msprof export found in its ASCEND_PROFILER_OUTPUT (an op_summary copied
 * there), with how it is read.
 */
function noKernelData(out: string, hasOut: boolean, hasProf: boolean): string {
  const reads = allFormats().filter((f) => f.holds !== 'nothing');
  const inOut = reads.filter((f) => f.recognise.places.includes('framework'));
  const inProf = reads.filter((f) => f.recognise.places.includes('msprof') && !inOut.includes(f));
  const briefs = (fs: FormatFacts[]): string =>
    listed(
      fs.map((f) => f.naming.brief),
      'or',
    );
  const misplaced = hasOut ? listDir(out).filter((n) => inProf.some((f) => f.recognise.names.some((re) => re.test(n)))) : [];
  if (misplaced.length > 0) return `its ASCEND_PROFILER_OUTPUT/${misplaced[0]} is read in a PROF_* folder or by itself, not there`;
  return [
    hasOut ? `no ${briefs(inOut)} in ASCEND_PROFILER_OUTPUT` : 'no ASCEND_PROFILER_OUTPUT',
    hasProf ? 'none in its PROF_* folders' : 'no PROF_* folder',
  ].join(', ');
}

/** Does a folder hold PROF_ folders or profile folders (a folder named PROF_ by hand that groups msprof runs)? */
function holdsProfiles(dir: string): boolean {
  return listDir(dir)
    .map((e) => join(dir, e))
    .some((p) => (basename(p).startsWith('PROF_') && isDir(p)) || rankFolderLike(p));
}

/** A PROF_ folder with no kernel data of its own that holds profile folders: a group of msprof runs, not one. */
function groupsProfiles(dir: string): boolean {
  return resolveProf(dir, null, []).length === 0 && holdsProfiles(dir);
}

/** Resolve one folder; returns null when it is not a profile folder itself. */
function resolveFolder(dir: string, notes: string[]): RankPlan[] | null {
  const name = basename(dir);
  if (name === 'ASCEND_PROFILER_OUTPUT') {
    const parent = join(dir, '..');
    const r = rankOf(parent);
    const f = pick('framework', dir, listDir(dir));
    return f ? [{ rank: r.rank, rankSource: r.source, warnings: r.warnings, format: f.format, files: f.files, root: parent }] : null;
  }
  if (name === 'mindstudio_profiler_output' || name === 'summary') {
    const f = msprofFiles(dir);
    if (!f) return null;
    const r = rankOf(join(dir, '..'));
    return [{ rank: r.rank, rankSource: r.source, warnings: r.warnings, format: f.format, files: f.files, root: dir }];
  }
  if (name.startsWith('PROF_')) {
    const said: string[] = [];
    const plans = resolveProf(dir, null, said);
    if (plans.length > 0) {
      notes.push(...said);
      return plans;
    }
    // A folder named PROF_ by hand that holds the profile folders (PROF_MemoryL0/PROF_000001_…): walked into.
    if (holdsProfiles(dir)) return null;
    notes.push(...said);
    return [];
  }
  const framework = resolveFrameworkFolder(dir, notes);
  if (framework !== null) return framework;
  const loose = loosefiles(dir);
  if (loose !== null) return loose;
  // A torch_npu/MindSpore profile folder with nothing to read: said, not walked into in silence.
  const entries = listDir(dir);
  if (frameworkMarked(dir, entries)) {
    const what = entries.includes('ASCEND_PROFILER_OUTPUT') ? 'its ASCEND_PROFILER_OUTPUT is not a folder' : 'no ASCEND_PROFILER_OUTPUT folder';
    const rank = rankOf(dir).rank;
    unreadRank(notes, `${dir}: ${what} and no PROF_* folder; ${rankLeftOut(rank)}`, rank, dir);
    return [];
  }
  return null;
}

/** A plain folder that holds export files itself (copied out of a profile): one rank. */
function loosefiles(dir: string): RankPlan[] | null {
  const r = rankOf(dir);
  const f = pick('loose', dir, listDir(dir));
  if (f) return [{ rank: r.rank, rankSource: r.source, warnings: r.warnings, format: f.format, files: f.files, root: dir }];
  return null;
}

/** The real path of a folder (symbolic links resolved), or the path itself when it cannot be resolved. */
function realPath(p: string): string {
  try {
    return realpathSync(onDisk(p));
  } catch {
    return resolve(onDisk(p));
  }
}

/** A path with no symbolic link in it: the one to keep when a folder is reached by two paths. */
function isDirect(p: string): boolean {
  return realPath(p) === resolve(onDisk(p));
}

/**
 * The walk below a parent folder. A folder is visited once, by its real path: one reached again through a
 * symbolic link is not read twice (as two ranks), and a link back to a folder above it (a loop) is not followed.
 * Where a folder is reached both through a link and directly, the direct path is the one read (its name may
 * carry the rank id). Each folder's plans go in a slot of their own, so that the direct path can take over.
 */
interface Walk {
  notes: string[];
  /** Real path → the path it was first read by and its slot in `slots`. */
  seen: Map<string, { path: string; slot: number }>;
  slots: RankPlan[][];
  /** Real paths of the folders being walked (the input and the folders down to here). */
  stack: string[];
}

/** How many levels below a folder of ranks the walk looks for profile folders. */
const WALK_DEPTH = 3;

/** Find profile folders below a parent folder (at most `depth` levels down). */
function findRankFolders(dir: string, depth: number, walk: Walk): void {
  for (const entry of listDir(dir)) {
    const p = join(dir, entry);
    if (!isDir(p)) {
      // Named like a profile folder, but a FIFO, a device or a socket: said, not passed over in silence.
      const what = FRAMEWORK_NAME.test(entry) || /^PROF_/.test(entry) ? specialKindOf(p) : null;
      if (what !== null) unread(walk.notes, `${p}: named like a profile folder, but ${what}; not read`);
      continue;
    }
    const real = realPath(p);
    if (walk.stack.includes(real)) {
      walk.notes.push(`${p}: a symbolic link back to ${rel(real)}, a folder it is in (a loop); not followed`);
      continue;
    }
    const prev = walk.seen.get(real);
    let slot: number;
    if (prev === undefined) {
      slot = walk.slots.push([]) - 1;
      walk.seen.set(real, { path: p, slot });
    } else if (!isDirect(prev.path) && isDirect(p)) {
      walk.notes.push(`${prev.path}: the same folder as ${p} (a symbolic link); read once, as ${p}`);
      slot = prev.slot;
      walk.slots[slot] = [];
      prev.path = p;
    } else {
      walk.notes.push(`${p}: the same folder as ${prev.path} (a symbolic link); read once, as ${prev.path}`);
      continue;
    }
    const plans = resolveFolder(p, walk.notes);
    if (plans !== null) {
      walk.slots[slot] = plans;
      continue;
    }
    if (depth > 1) {
      walk.stack.push(real);
      findRankFolders(p, depth - 1, walk);
      walk.stack.pop();
    } else if (rankFolderLike(p)) {
      unread(walk.notes, `${p}: holds a profile folder below the ${WALK_DEPTH} levels looked into; not read (pass it by itself)`);
    }
  }
}

/** Plans that read the same files (through symbolic links): the first is kept. */
function readOnce(plans: RankPlan[], notes: string[]): RankPlan[] {
  const seen = new Map<string, RankPlan>();
  const out: RankPlan[] = [];
  for (const p of plans) {
    const key = p.files.map(realPath).join('\u0000');
    const prev = seen.get(key);
    if (prev) {
      notes.push(`${p.files[0]}: the same file as ${prev.files[0]} (a symbolic link); read once, as rank ${prev.rank}`);
      continue;
    }
    seen.set(key, p);
    out.push(p);
  }
  return out;
}

/** Is `input` a folder with nothing in it (no file, no folder)? False for a file, or a path that is not there. */
export function isEmptyFolder(input: string): boolean {
  // Names that are not UTF-8 count: listDir leaves them out.
  return isDir(input) && readdirSync(onDisk(input), { encoding: 'buffer' }).length === 0;
}

/**
 * Resolve a `<profile>` argument into the files to read per rank. `prefer`: which export to read where a folder
 * holds both the text and the db export of one run (default: registry order, the text).
 */
export function resolveInput(input: string, options: { prefer?: Prefer | null } = {}): ResolvedInput {
  const notes: string[] = [];
  prefer = options.prefer ?? null;
  pickNotes = notes;
  unreadTexts = new Set();
  emptyRanks = new Map();
  try {
    const r = resolveWith(input, notes);
    r.unread = notes.filter((n) => unreadTexts.has(n));
    const empty = notes.flatMap((n) => emptyRanks.get(n) ?? []);
    if (empty.length > 0) r.emptyRanks = empty;
    return r;
  } finally {
    prefer = null;
    pickNotes = [];
    unreadTexts = new Set();
    emptyRanks = new Map();
  }
}

function resolveWith(input: string, notes: string[]): ResolvedInput {
  if (!existsSync(onDisk(input))) throw missingPathError(input);
  let st: Stats;
  try {
    st = statSync(onDisk(input));
  } catch (e) {
    throw fsError(input, e);
  }
  // A FIFO, a device or a socket: refused with what it is (openRegular says it) instead of read as a folder.
  if (!st.isFile() && !st.isDirectory()) checkRegular(input);
  if (st.isFile()) {
    const plan = resolveFile(input, notes);
    rankFromFileName(plan);
    finishPlan(plan);
    return { input, ranks: [plan], notes, unread: [] };
  }
  let ranks = resolveFolder(input, notes);
  // A profile folder itself (even one with no kernel data) holds the profiler's own JSON files, not snapshots.
  const profileFolder = ranks !== null;
  if (ranks === null || ranks.length === 0) {
    const walk: Walk = { notes, seen: new Map(), slots: [], stack: [realPath(input)] };
    findRankFolders(input, WALK_DEPTH, walk);
    ranks = walk.slots.flat();
    // A folder of ranks: a kernel table written into it (-o run/kernel_details.csv) would make it one profile of
    // that file for the next run, its ranks unread.
    if (ranks.length > 0) {
      const names = formatsIn('loose').flatMap((f) => f.recognise.names);
      noteCollectionFolder(input, names, 'a folder of profile folders', 'read by the next run as one profile of that file, its ranks not read');
    }
  }
  const collected = profileFolder ? [] : collectionFiles(input, notes);
  if (ranks.length === 0) {
    for (const c of collected) noteCollectionFolder(input, c.format.recognise.names, `a folder of ${plural(c.format.naming.short)}`);
    // A kernel table written among them (-o run/kernel_details.csv) would make the folder one profile of that file.
    if (collected.length > 0) {
      const names = formatsIn('loose').flatMap((f) => f.recognise.names);
      noteCollectionFolder(
        input,
        names,
        `a folder of ${plural(collected[0]!.format.naming.short)}`,
        'read by the next run as one profile of that file, the others not read',
      );
    }
    ranks = collected.map((c) =>
      ranksInFile(c.format.id)
        ? { rank: '-', rankSource: FOLDER_OF_SNAPSHOTS, format: c.format.id, files: [c.file], root: input }
        : filePlan(c.file, c.format),
    );
  } else {
    for (const c of collected) {
      const folder = `a folder of ${plural(c.format.naming.short)}`;
      unread(notes, `${c.file}: not read (this folder holds profile folders; ${folder} is read when it holds no profile folder)`);
    }
  }
  ranks = readOnce(ranks, notes);
  if (ranks.length === 0) {
    const entries = listDir(input);
    const listing = entries.slice(0, 10).join(', ') + (entries.length > 10 ? ` … (${entries.length} entries)` : '');
    throw inputError(
      `${input}: no profile found in this folder (looked for ${lookedForText(WALK_DEPTH)}); found: ${entries.length ? listing : isEmptyFolder(input) ? '(empty folder)' : 'no name it can open'}` +
        // Nothing is read, so nothing is "left out" (a note's ending when the other ranks are read).
        `${notes.length ? `; ${summarizeNotes(notes.map((n) => n.replace(/;(?: (?:rank|device) [^;]*)? left out$/, '')))}` : ''}. Pass ${passAnyFolder()}.`,
    );
  }
  for (const r of ranks) rankFromFileName(r);
  checkDistinctRanks(input, ranks);
  for (const r of ranks) finishPlan(r);
  return { input, ranks, notes, unread: [] };
}

/** A file name that says its rank (Recognition.rankInName: torch_npu's db export): the rank when the folder says none. */
function rankFromFileName(plan: RankPlan): void {
  if (plan.rank !== '-' || plan.files.length !== 1) return;
  const m = formatOf(plan.format).recognise.rankInName?.exec(basename(plan.files[0]!)) ?? null;
  if (m === null) return;
  plan.rank = m[1]!.replace(/^0+(?=\d)/, '');
  plan.rankSource = `file name ${m[0]}`;
}

/** Note a plan's files as inputs, and warn of slices missing from a sliced export. */
function finishPlan(plan: RankPlan): void {
  for (const f of plan.files) noteInput(f);
  const gaps = sliceGaps(formatOf(plan.format), plan.files);
  if (gaps.length > 0) plan.warnings = [...(plan.warnings ?? []), ...gaps];
}

/**
 * msprof numbers the slices of one export 0, 1, 2 …: a number missing (0, 1, 3) is a slice that was not copied,
 * and its rows are not in the figures.
 */
export function sliceGaps(format: FormatFacts, files: string[]): RowWarning[] {
  const byExport = new Map<string, { file: string; n: number }[]>();
  for (const f of files) {
    const m = sliceOf(format, basename(f));
    if (!m) continue;
    const key = `${m[1]}\u0000${m[3]}`;
    const list = byExport.get(key) ?? [];
    list.push({ file: f, n: Number(m[2]) });
    byExport.set(key, list);
  }
  const out: RowWarning[] = [];
  for (const list of byExport.values()) {
    const have = new Set(list.map((s) => s.n));
    let last = Number.NEGATIVE_INFINITY;
    for (const n of have) last = Math.max(last, n);
    const missing: number[] = [];
    for (let n = 0; n <= last && missing.length <= 10; n++) if (!have.has(n)) missing.push(n);
    if (missing.length === 0) continue;
    const shown = missing.length > 10 ? `${missing.slice(0, 10).join(', ')} …` : missing.join(', ');
    out.push({
      file: list[0]!.file,
      line: 1,
      message:
        `slice${missing.length === 1 ? '' : 's'} ${shown} of this sliced export ${missing.length === 1 ? 'is' : 'are'} missing ` +
        `(found ${list.length} of ${last + 1}): ${missing.length === 1 ? 'its' : 'their'} rows are not in the figures. Copy the whole export folder`,
    });
  }
  return out;
}

/** The first notes and how many more: a folder of 10,000 empty rank folders gives one line, not a megabyte. */
const NOTES_SHOWN = 3;

function summarizeNotes(notes: string[]): string {
  const shown = notes.slice(0, NOTES_SHOWN).join('; ');
  return notes.length > NOTES_SHOWN ? `${shown}; and ${notes.length - NOTES_SHOWN} more folders like these` : shown;
}

/** The rankSource of a plan that is one file of a folder of summary JSONs. */
export const FOLDER_OF_SNAPSHOTS = 'summary JSON in a folder of them';

/**
 * The files a folder holds itself that a collection format reads each as its own ranks (summary JSONs: `*.json`,
 * `*.json.gz`, by name; hidden files such as a report being written are left out): a folder of per-rank or
 * per-node snapshots is one multi-rank profile.
 */
function collectionFiles(dir: string, notes: string[]): { file: string; format: FormatFacts }[] {
  const formats = formatsIn('collection');
  const out: { file: string; format: FormatFacts }[] = [];
  for (const e of listDir(dir)) {
    if (e.startsWith('.')) continue;
    const named = formats.filter((f) => f.recognise.names.some((re) => re.test(e)));
    if (named.length === 0 || isDir(join(dir, e))) continue;
    // A FIFO, a device or a socket among them: its rank and format cannot be known without reading it (a read
    // that could block), so it is said and the others are read, as one named like a profile folder in a folder of
    // ranks is (findRankFolders).
    const what = specialKindOf(join(dir, e));
    if (what !== null) {
      unread(notes, `${join(dir, e)}: named like ${listed([...new Set(named.map((f) => f.naming.short))], 'or')}, but ${what}; not read`);
      continue;
    }
    out.push({ file: join(dir, e), format: claim(join(dir, e), named) });
  }
  return out;
}

/** `a summary JSON` → `summary JSONs`. */
function plural(short: string): string {
  return `${short.replace(/^an? /, '')}s`;
}

/** `a, b and c` / `a, b or c`. */
function listed(items: readonly string[], last: 'and' | 'or'): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} ${last} ${items[items.length - 1]}`;
}

/**
 * One file that is one rank (a kineto trace of a folder of them): its rank from its first bytes or name
 * (Recognition.rank), else none; the file is the rank's root (several unnamed
 * ranks of one folder are told apart by their file names).
 */
function filePlan(path: string, format: FormatFacts): RankPlan {
  const own = format.recognise.rank?.(readHead(path), basename(path)) ?? null;
  const warnings = claimWarnings(path, own);
  if (own !== null && own.rank !== '-') return { rank: own.rank, rankSource: own.source, format: format.id, files: [path], root: path, ...warnings };
  return {
    rank: '-',
    rankSource: 'not found in the file (no distributedInfo.rank, no rank in its name)',
    format: format.id,
    files: [path],
    root: path,
    ...warnings,
  };
}

/** A file's word on its rank that was off (a distributedInfo.rank that is no rank id), as the plan's warnings. */
function claimWarnings(path: string, own: RankClaim | null): { warnings?: RowWarning[] } {
  return own?.warning === undefined ? {} : { warnings: [{ file: path, line: 0, message: own.warning }] };
}

function resolveFile(path: string, notes: string[]): RankPlan {
  const name = basename(path);
  const dir = join(path, '..');
  // A file inside ASCEND_PROFILER_OUTPUT takes its rank from the profile folder above.
  const rankFolder = basename(dir) === 'ASCEND_PROFILER_OUTPUT' ? join(dir, '..') : dir;
  const format = recognise(path, name);
  if (format.recognise.rank !== undefined) {
    const own = format.recognise.rank(readHead(path), name);
    if (own !== null) {
      // Its own rank; for one that is no rank id, the folder's (as for other formats), with the warning.
      const r = own.rank !== '-' ? { rank: own.rank, source: own.source, warnings: [] } : rankOf(rankFolder);
      const warnings = [...(r.warnings ?? []), ...(claimWarnings(path, own).warnings ?? [])];
      return { rank: r.rank, rankSource: r.source, warnings, format: format.id, files: [path], root: dir };
    }
  }
  const r = rankOf(rankFolder);
  if (ranksInFile(format.id)) {
    return { rank: '-', rankSource: format.naming.short.replace(/^an? /, ''), format: format.id, files: [path], root: dir };
  }
  const slice = sliceOf(format, name);
  if (slice) {
    // One slice of a sliced msprof export: read all slices of the same export as one.
    const siblings = listDir(dir).filter((f) => {
      const m = sliceOf(format, f);
      return m !== null && m[1] === slice[1] && m[3] === slice[3];
    });
    if (siblings.length > 1) notes.push(`${path}: one of ${siblings.length} slices; all of them are read as one file`);
    return {
      rank: r.rank,
      rankSource: r.source,
      warnings: r.warnings,
      format: format.id,
      files: sortFiles(
        format,
        siblings.map((f) => join(dir, f)),
      ),
      root: dir,
    };
  }
  return { rank: r.rank, rankSource: r.source, warnings: r.warnings, format: format.id, files: [path], root: dir };
}

/**
 * The format of a file given by itself: the one its name says; where the names of several formats match, the
 * first whose sniff claims its first bytes (else the first of them); a file no format names is read as the
 * fallback (a CSV export, whose header says which).
 */
function recognise(path: string, name: string): FormatFacts {
  const named = formatsNamed(name);
  if (named.length > 0) return claim(path, named);
  // A file no format names: the first format whose sniff claims its bytes (an SQLite export named run.db or
  // .sqlite, an nsys CSV saved as gpu.csv), else the fallback.
  const sniffers = allFormats().filter((f) => f.recognise.sniff !== undefined && f.holds !== 'nothing' && f.recognise.places.includes('loose'));
  const head = readHead(path);
  const sniffed = sniffers.find((f) => f.recognise.sniff!(head));
  if (sniffed !== undefined) return sniffed;
  // A *.db that is not SQLite is refused by the db reader (naming the file), not read as a CSV by its header.
  return /\.db$/i.test(name) ? allFormats().find((f) => isDbExport(f) && f.holds === 'kernels')! : fallbackFormat();
}

/** Of the formats whose names match a file, the first whose sniff claims its first bytes, else the first. */
function claim(path: string, named: FormatFacts[]): FormatFacts {
  if (named.length === 1) return named[0]!;
  const sniffers = named.filter((f) => f.recognise.sniff !== undefined);
  if (sniffers.length === 0) return named[0]!;
  const head = readHead(path);
  return sniffers.find((f) => f.recognise.sniff!(head)) ?? named[0]!;
}

function checkDistinctRanks(input: string, ranks: RankPlan[]): void {
  const seen = new Map<string, RankPlan>();
  let unknown = 0;
  for (const p of ranks) {
    if (ranksInFile(p.format)) continue; // its ranks are known once read (read.ts checks them)
    if (p.rank === '-') {
      unknown++;
      continue;
    }
    const prev = seen.get(p.rank);
    if (prev) {
      // Where each says so: two runs in one folder (the same source twice), or a rank id that is wrong in one.
      // Two files (traces) or folders: the message names what they are.
      const files = [prev.root, p.root].every((r) => statSync(onDisk(r), { throwIfNoEntry: false })?.isFile() === true);
      const one = files ? 'one trace per rank' : 'one profile folder per rank';
      const pass = files ? "a folder of one run's traces, or one trace itself" : "the folder of one run, or one rank's folder itself";
      throw inputError(
        `${input}: rank ${p.rank} found twice: ${rel(prev.root)} (rank from ${prev.rankSource}) and ${rel(p.root)} (rank from ${p.rankSource}). ` +
          `Expected ${one}, all of one run. If these are two runs, pass ${pass}; if they are ranks of one run, one of them ` +
          'names the wrong rank: correct it where it says so.',
      );
    }
    seen.set(p.rank, p);
  }
  if (unknown > 1) {
    // Several folders with no rank id: name each by its folder below the input rather than invent a number.
    for (const p of ranks) {
      if (p.rank === '-' && !ranksInFile(p.format)) {
        let label = relative(input, p.root).split(sep).join('/') || basename(p.root);
        while (seen.has(label)) label += "'";
        p.rank = label;
        p.rankSource = 'folder path (no profiler_info or rank in the folder name)';
        seen.set(p.rank, p);
      }
    }
  }
}

/** A folder as a message names it: as relPath() shows a path (relative to the working folder, unless that climbs 3 levels). */
function rel(p: string): string {
  return relPath(resolve(onDisk(p)));
}

/**
 * The totals beside a file of kernels that --witness cross-checks it against (its format's `witness`, registry):
 * that format's files in the file's own folder, sorted; null when its format declares none.
 */
export function witnessBeside(file: string, format: string): { format: string; files: string[] } | null {
  const id = formatOf(format).witness;
  if (id === undefined) return null;
  const dir = dirname(file);
  let entries: string[];
  try {
    entries = readdirSync(onDisk(dir));
  } catch {
    entries = [];
  }
  return {
    format: id,
    files: entries
      .filter((e) => namedAs(formatOf(id), e))
      .sort()
      .map((e) => join(dir, e)),
  };
}

/** A profiler_info's rank_id number as the file writes it (JSON.parse reads 1e400 as Infinity, 1e20 for 99999999999999999999). */
function writtenNumber(bytes: Buffer): string | undefined {
  return /"rank_id"\s*:\s*([-+.\deE]+)/.exec(bytes.toString('utf8'))?.[1];
}
