// Paths → which files to read, per rank. The layouts are those of FORMATS.md §1: torch_npu/MindSpore
// `*_ascend_pt`/`*_ascend_ms` folders, msprof `PROF_*` folders (new and old layouts), and a parent folder
// holding one such folder per rank.

import { closeSync, existsSync, readdirSync, realpathSync, statSync, type Stats } from 'node:fs';
import { basename, join, relative, resolve, sep } from 'node:path';
import { inputError } from '../../util/errors.js';
import { noteInput } from '../../util/io.js';
import type { RowWarning } from '../../model/model.js';
import { fsError, missingPathError, openRegular, readRegularFile } from '../../util/files.js';

export type PlanKind = 'table' | 'statistic' | 'snapshot';

/** The files of one rank. */
export interface RankPlan {
  rank: string;
  kind: PlanKind;
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
}

const KERNEL_DETAILS = /^kernel_details\.csv(\.gz)?$/;
const OP_SUMMARY = /^op_summary_.*\.csv(\.gz)?$/;
const OP_STATISTIC = /^op_statistic(_.*)?\.csv(\.gz)?$/;
const SLICE = /^(op_summary|op_statistic)_slice_(\d+)_(.*)$/;

function listDir(dir: string): string[] {
  try {
    return readdirSync(dir).sort();
  } catch (e) {
    throw fsError(dir, e);
  }
}

function isDir(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

/** Order slices by their number, other files by name. */
function sortFiles(files: string[]): string[] {
  return [...files].sort((a, b) => {
    const ma = SLICE.exec(basename(a));
    const mb = SLICE.exec(basename(b));
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
    entries = readdirSync(folder);
  } catch {
    /* not a folder */
  }
  const warnings: RowWarning[] = [];
  const info = entries.filter((f) => /^profiler_info(_\d+)?\.json$/.test(f)).sort();
  for (const f of info) {
    const path = join(folder, f);
    noteInput(path);
    // A FIFO, a device or an oversized file here is refused (the error propagates); JSON that does not parse
    // falls back to the file name.
    const bytes = readRegularFile(path, MAX_INFO_BYTES, 'a profiler_info file');
    let id: unknown;
    try {
      id = (JSON.parse(bytes.toString('utf8')) as { rank_id?: unknown } | null)?.rank_id;
    } catch {
      id = undefined;
    }
    if (typeof id === 'number' && Number.isInteger(id) && id >= 0) return { rank: String(id), source: `${f} rank_id`, warnings };
    if (typeof id === 'string' && /^\d+$/.test(id)) {
      const rank = id.replace(/^0+(?=\d)/, '');
      if (rank !== id) warnings.push({ file: path, line: 1, message: `rank_id is "${id}", read as rank ${rank}` });
      return { rank, source: `${f} rank_id`, warnings };
    }
    const m = /^profiler_info_(\d+)\.json$/.exec(f);
    if (id !== undefined && id !== null && id !== -1) {
      const shown = clipId(JSON.stringify(id) ?? String(id));
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

/** At most 40 characters of a value from a file, control characters blanked. */
function clipId(s: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this pattern finds
  const t = s.replace(/[\u0000-\u001f\u007f-\u009f]/g, ' ');
  return t.length > 40 ? `${t.slice(0, 40)}…` : t;
}

/** msprof output folder (`mindstudio_profiler_output` or old `device_N/summary`) → table or statistic files. */
function msprofFiles(dir: string): { kind: PlanKind; files: string[] } | null {
  const entries = listDir(dir);
  const summary = entries.filter((f) => OP_SUMMARY.test(f)).map((f) => join(dir, f));
  if (summary.length > 0) return { kind: 'table', files: sortFiles(summary) };
  const stat = entries.filter((f) => OP_STATISTIC.test(f)).map((f) => join(dir, f));
  if (stat.length > 0) return { kind: 'statistic', files: sortFiles(stat) };
  return null;
}

/** A `PROF_*` folder → one plan per device (old layout) or one plan (new layout). */
function resolveProf(dir: string, rankHint: RankId | null): RankPlan[] {
  const out = join(dir, 'mindstudio_profiler_output');
  if (isDir(out)) {
    const f = msprofFiles(out);
    if (f) {
      const r = rankHint ?? rankOf(dir);
      return [{ rank: r.rank, rankSource: r.source, warnings: r.warnings, kind: f.kind, files: f.files, root: dir }];
    }
  }
  const plans: RankPlan[] = [];
  for (const d of listDir(dir).filter((n) => /^device_\d+$/.test(n))) {
    const summaryDir = join(dir, d, 'summary');
    if (!isDir(summaryDir)) continue;
    const f = msprofFiles(summaryDir);
    if (!f) continue;
    plans.push({ rank: d.slice('device_'.length), rankSource: `folder name ${d}`, kind: f.kind, files: f.files, root: join(dir, d) });
  }
  // One device under a framework folder that knows its rank: that rank.
  if (plans.length === 1 && rankHint && rankHint.rank !== '-') {
    plans[0]!.rank = rankHint.rank;
    plans[0]!.rankSource = rankHint.source;
    plans[0]!.warnings = rankHint.warnings;
  }
  return plans;
}

/** A torch_npu/MindSpore profile folder (or its ASCEND_PROFILER_OUTPUT) → one plan, or null. */
function resolveFrameworkFolder(dir: string, notes: string[]): RankPlan[] | null {
  const out = join(dir, 'ASCEND_PROFILER_OUTPUT');
  const hasOut = isDir(out);
  const prof = listDir(dir).filter((n) => n.startsWith('PROF_') && isDir(join(dir, n)));
  if (!hasOut && prof.length === 0) return null;
  const r = rankOf(dir);
  if (hasOut) {
    const entries = listDir(out);
    const kd = entries.filter((f) => KERNEL_DETAILS.test(f));
    if (kd.length > 0) {
      return [{ rank: r.rank, rankSource: r.source, warnings: r.warnings, kind: 'table', files: [join(out, kd[0]!)], root: dir }];
    }
  }
  for (const p of prof) {
    const plans = resolveProf(join(dir, p), r);
    if (plans.length > 0) return plans;
  }
  if (hasOut) {
    const stat = listDir(out).filter((f) => OP_STATISTIC.test(f));
    if (stat.length > 0) {
      notes.push(`${dir}: no kernel_details.csv; using op_statistic (per-type totals only)`);
      return [{ rank: r.rank, rankSource: r.source, warnings: r.warnings, kind: 'statistic', files: sortFiles(stat.map((f) => join(out, f))), root: dir }];
    }
  }
  notes.push(`${dir}: no kernel data (no kernel_details.csv, op_summary or op_statistic); rank ${r.rank} left out`);
  return [];
}

/** Resolve one folder; returns null when it is not a profile folder itself. */
function resolveFolder(dir: string, notes: string[]): RankPlan[] | null {
  const name = basename(dir);
  if (name === 'ASCEND_PROFILER_OUTPUT') {
    const entries = listDir(dir);
    const kd = entries.find((f) => KERNEL_DETAILS.test(f));
    const parent = join(dir, '..');
    const r = rankOf(parent);
    if (kd) return [{ rank: r.rank, rankSource: r.source, warnings: r.warnings, kind: 'table', files: [join(dir, kd)], root: parent }];
    const stat = entries.filter((f) => OP_STATISTIC.test(f));
    if (stat.length > 0) return [{ rank: r.rank, rankSource: r.source, warnings: r.warnings, kind: 'statistic', files: sortFiles(stat.map((f) => join(dir, f))), root: parent }];
    return null;
  }
  if (name === 'mindstudio_profiler_output' || name === 'summary') {
    const f = msprofFiles(dir);
    if (!f) return null;
    const r = rankOf(join(dir, '..'));
    return [{ rank: r.rank, rankSource: r.source, warnings: r.warnings, kind: f.kind, files: f.files, root: dir }];
  }
  if (name.startsWith('PROF_')) {
    const plans = resolveProf(dir, null);
    return plans.length > 0 ? plans : null;
  }
  const framework = resolveFrameworkFolder(dir, notes);
  if (framework !== null) return framework;
  return loosefiles(dir);
}

/** A plain folder that holds export files itself (copied out of a profile): one rank. */
function loosefiles(dir: string): RankPlan[] | null {
  const entries = listDir(dir);
  const r = rankOf(dir);
  const kd = entries.filter((f) => KERNEL_DETAILS.test(f));
  if (kd.length > 0) return [{ rank: r.rank, rankSource: r.source, warnings: r.warnings, kind: 'table', files: [join(dir, kd[0]!)], root: dir }];
  const f = msprofFiles(dir);
  if (f) return [{ rank: r.rank, rankSource: r.source, warnings: r.warnings, kind: f.kind, files: f.files, root: dir }];
  return null;
}

/** The real path of a folder (symbolic links resolved), or the path itself when it cannot be resolved. */
function realPath(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return resolve(p);
  }
}

/** A path with no symbolic link in it: the one to keep when a folder is reached by two paths. */
function isDirect(p: string): boolean {
  return realPath(p) === resolve(p);
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

/** Find profile folders below a parent folder (at most `depth` levels down). */
function findRankFolders(dir: string, depth: number, walk: Walk): void {
  for (const entry of listDir(dir)) {
    const p = join(dir, entry);
    if (!isDir(p)) continue;
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

/** Resolve a `<profile>` argument into the files to read per rank. */
export function resolveInput(input: string): ResolvedInput {
  if (!existsSync(input)) throw missingPathError(input);
  const notes: string[] = [];
  let st: Stats;
  try {
    st = statSync(input);
  } catch (e) {
    throw fsError(input, e);
  }
  // A FIFO, a device or a socket: refused with what it is (openRegular says it) instead of read as a folder.
  if (!st.isFile() && !st.isDirectory()) closeSync(openRegular(input).fd);
  if (st.isFile()) {
    const plan = resolveFile(input, notes);
    finishPlan(plan);
    return { input, ranks: [plan], notes };
  }
  let ranks = resolveFolder(input, notes);
  // A profile folder itself (even one with no kernel data) holds the profiler's own JSON files, not snapshots.
  const profileFolder = ranks !== null;
  if (ranks === null || ranks.length === 0) {
    const walk: Walk = { notes, seen: new Map(), slots: [], stack: [realPath(input)] };
    findRankFolders(input, 3, walk);
    ranks = walk.slots.flat();
  }
  const snapshots = profileFolder ? [] : snapshotFiles(input);
  if (ranks.length === 0) {
    ranks = snapshots.map((f) => ({ rank: '-', rankSource: FOLDER_OF_SNAPSHOTS, kind: 'snapshot' as const, files: [f], root: input }));
  } else {
    for (const f of snapshots) notes.push(`${f}: not read (this folder holds profile folders; a folder of summary JSONs is read when it holds no profile folder)`);
  }
  ranks = readOnce(ranks, notes);
  if (ranks.length === 0) {
    const entries = listDir(input);
    const listing = entries.slice(0, 10).join(', ') + (entries.length > 10 ? ` … (${entries.length} entries)` : '');
    throw inputError(
      `${input}: no profile found in this folder (looked for ASCEND_PROFILER_OUTPUT/kernel_details.csv, ` +
        `PROF_*/mindstudio_profiler_output/op_summary_*.csv, PROF_*/device_*/summary/op_summary_*.csv and ` +
        `op_statistic*.csv, up to 3 levels down, and for summary JSONs (*.json) in the folder itself); found: ${entries.length ? listing : '(empty folder)'}` +
        `${notes.length ? `; ${summarizeNotes(notes)}` : ''}. Pass a *_ascend_pt folder, a PROF_* folder, a folder of ranks, a folder of summary JSONs, or a file.`,
    );
  }
  checkDistinctRanks(input, ranks);
  for (const r of ranks) finishPlan(r);
  return { input, ranks, notes };
}

/** Note a plan's files as inputs, and warn of slices missing from a sliced export. */
function finishPlan(plan: RankPlan): void {
  for (const f of plan.files) noteInput(f);
  const gaps = sliceGaps(plan.files);
  if (gaps.length > 0) plan.warnings = [...(plan.warnings ?? []), ...gaps];
}

/**
 * msprof numbers the slices of one export 0, 1, 2 …: a number missing (0, 1, 3) is a slice that was not copied,
 * and its rows are not in the figures.
 */
export function sliceGaps(files: string[]): RowWarning[] {
  const byExport = new Map<string, { file: string; n: number }[]>();
  for (const f of files) {
    const m = SLICE.exec(basename(f));
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

const SNAPSHOT_FILE = /\.json(\.gz)?$/i;

/**
 * The summary JSONs a folder holds itself (`*.json`, `*.json.gz`, by name; hidden files such as a report being
 * written are left out): a folder of per-rank or per-node snapshots is one multi-rank profile.
 */
function snapshotFiles(dir: string): string[] {
  return listDir(dir)
    .filter((f) => SNAPSHOT_FILE.test(f) && !f.startsWith('.'))
    .map((f) => join(dir, f))
    .filter((p) => !isDir(p));
}

function resolveFile(path: string, notes: string[]): RankPlan {
  const name = basename(path);
  const lower = name.toLowerCase();
  const dir = join(path, '..');
  // A file inside ASCEND_PROFILER_OUTPUT takes its rank from the profile folder above.
  const rankFolder = basename(dir) === 'ASCEND_PROFILER_OUTPUT' ? join(dir, '..') : dir;
  const r = rankOf(rankFolder);
  if (lower.endsWith('.json') || lower.endsWith('.json.gz')) {
    return { rank: '-', rankSource: 'summary JSON', kind: 'snapshot', files: [path], root: dir };
  }
  const slice = SLICE.exec(name);
  if (slice) {
    // One slice of a sliced msprof export: read all slices of the same export as one.
    const siblings = listDir(dir).filter((f) => {
      const m = SLICE.exec(f);
      return m !== null && m[1] === slice[1] && m[3] === slice[3];
    });
    if (siblings.length > 1) notes.push(`${path}: one of ${siblings.length} slices; all of them are read as one file`);
    const kind: PlanKind = slice[1] === 'op_statistic' ? 'statistic' : 'table';
    return { rank: r.rank, rankSource: r.source, warnings: r.warnings, kind, files: sortFiles(siblings.map((f) => join(dir, f))), root: dir };
  }
  const kind: PlanKind = OP_STATISTIC.test(name) ? 'statistic' : 'table';
  return { rank: r.rank, rankSource: r.source, warnings: r.warnings, kind, files: [path], root: dir };
}

function checkDistinctRanks(input: string, ranks: RankPlan[]): void {
  const seen = new Map<string, RankPlan>();
  let unknown = 0;
  for (const p of ranks) {
    if (p.kind === 'snapshot') continue; // its ranks are known once read (read.ts checks them)
    if (p.rank === '-') {
      unknown++;
      continue;
    }
    const prev = seen.get(p.rank);
    if (prev) {
      throw inputError(
        `${input}: rank ${p.rank} found twice: ${rel(prev.root)} and ${rel(p.root)}. ` +
          `Expected one profile folder per rank; pass the folder of one run.`,
      );
    }
    seen.set(p.rank, p);
  }
  if (unknown > 1) {
    // Several folders with no rank id: name each by its folder below the input rather than invent a number.
    for (const p of ranks) {
      if (p.rank === '-' && p.kind !== 'snapshot') {
        let label = relative(input, p.root).split(sep).join('/') || basename(p.root);
        while (seen.has(label)) label += "'";
        p.rank = label;
        p.rankSource = 'folder path (no profiler_info or rank in the folder name)';
        seen.set(p.rank, p);
      }
    }
  }
}

function rel(p: string): string {
  const r = relative(process.cwd(), p);
  return r === '' ? '.' : r;
}
