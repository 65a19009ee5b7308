// A summary JSON written by `kprof summary --format json` read back as a profile, so CI can keep a small
// snapshot instead of a 300 MB export. Groups come back exactly as saved, one fine group per saved group key (user
// groups have no type or name to tell them apart): a snapshot can be compared only with the grouping and filters
// it was made with.
//
// Over 400 lines: the whole summary JSON read back and checked field by field (every figure is the profile's: a
// value out of range is refused naming its path); one schema, one module.

import { Accumulator, MAX_EXACT_TEXT, MAX_EXACT_TICKS } from '../../accumulator.js';
import { inputError } from '../../../util/errors.js';
import { excerpt, shellWord, shown, inQuotes } from '../../../util/inputText.js';
import {
  emptyCell,
  GROUP_BY_FIELDS,
  GROUP_BYS,
  groupKey,
  PackedSteps,
  MAX_STEP_TRACE_US,
  pastMean,
  TICKS_PER_US,
  type FineGroup,
  type GroupBy,
  type RankData,
  type SourceFile,
} from '../../../model/model.js';
import { chromeTraceFormats, chromeTraceNames, chromeTraceWriters, passTextExport, type FormatId } from '../registry.js';
import {
  SCHEMA_VERSION,
  type StepJson,
  type StepTimeRankJson,
  type SummaryGroupJson,
  type SummaryJson,
  type SummaryRankJson,
} from '../../../model/schema.js';
import { usToTicks } from '../../csv/numbers.js';
import { quotedUnlessLink, textEncoding } from '../../../util/files.js';
import { sniffBytes } from '../../bytes/sniff.js';
import { readWhole } from '../../bytes/whole.js';
import { duplicateKey, keyNames } from '../../json/duplicateKeys.js';
import { savedOptions } from '../../../util/savedOptions.js';

const REGENERATE = 'Expected the output of `kprof summary <profile> --format json`; regenerate it, or pass the profile itself.';

export function fail(path: string, what: string, todo = REGENERATE): never {
  throw inputError(`${path}: not a kprof summary JSON: ${what}. ${todo}`);
}

/** What to do with a trace given as a summary JSON (the trace formats named as the registry names them). */
function traceTodo(): string {
  return (
    'It is not read as a trace either: kprof reads a trace whose first 64 KiB show it (a JSON array of event objects, or a "traceEvents" member), ' +
    `as ${chromeTraceWriters()} write them (${chromeTraceNames()}); pass the file the profiler wrote, or the kernel table beside it (${passTextExport()}).`
  );
}

/** Text quoted from a file in a message: in double quotes, at most 40 characters, escaped (see excerpt). */
export function quoteText(s: string): string {
  return `${inQuotes(excerpt(s))}`;
}

/** 1-based line and column of a character offset. */
function lineCol(text: string, offset: number): string {
  let line = 1;
  let start = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      start = i + 1;
    }
  }
  return `${line}:${offset - start + 1}`;
}

/**
 * The largest summary JSON read (unpacked): it is parsed as one string, and half the longest string JavaScript
 * can hold (2^29 - 24 characters) leaves room for the file, its text and what is read from it at once.
 */
export const MAX_SNAPSHOT_BYTES = 256 << 20;

/**
 * A summary JSON too large to read back: kprof writes one that large for a long run (hundreds of thousands of
 * per-step cells), so the message says how to make smaller ones that read back, together, as the same profile.
 */
function tooLarge(path: string, limit: number, packed: boolean): never {
  throw inputError(
    `${path}: ${packed ? 'unpacks to' : 'is'} more than ${sizeText(limit)}, the largest summary JSON kprof reads back (it is parsed whole, as one string). ` +
      'Summarise fewer steps (--steps 100-109) or fewer ranks per file (--rank), and put the files in one folder: a folder of summary JSONs is read as one profile.',
  );
}

/** A size limit in words: `256 MiB`, `1 KiB`. */
export function sizeText(limit: number): string {
  return limit >= 1 << 20 ? `${limit / (1 << 20)} MiB` : `${limit / 1024} KiB`;
}

/**
 * The most different key names a summary JSON is read with. kprof writes a few dozen (the names of its fields,
 * whatever the profile's size: its groups, ranks and steps are lists), and JSON.parse pays for each name it meets
 * (a string interned, a shape of object): a file of millions of names, in one object or many, ran for minutes in
 * gigabytes before this bound.
 */
export const MAX_KEY_NAMES = 1024;

/** How deep kprof nests a summary JSON's lists and objects (test/snapshot-names.test.ts checks it of one it writes). */
export const WRITTEN_DEPTH = 8;

/**
 * The deepest nesting a summary JSON is read with: JSON.parse holds each level open (some 100 bytes a level), so
 * a file of 256 MiB of `[` would take it over 20 GB; kprof writes WRITTEN_DEPTH levels at most.
 */
export const MAX_DEPTH = 64;

/**
 * Read a summary JSON into one RankData per rank it holds; `limit`: the largest file read, in bytes (unpacked);
 * `mostNames`: the most different key names read (MAX_KEY_NAMES).
 */
export function readSnapshot(path: string, limit = MAX_SNAPSHOT_BYTES, mostNames = MAX_KEY_NAMES): RankData[] {
  // The byte layer opens it (a FIFO or a device is refused), says it is too large before reading it when its
  // size says so, and unpacks it when gzip.
  const { bytes, gzip } = readWhole(path, limit, (packed) => tooLarge(path, limit, packed), 'Copy the file again or regenerate it.');
  if (bytes.length === 0) {
    // Nothing in it tells a summary JSON from a kineto trace (`*.pt.trace.json`, both read as JSON): both are named.
    // A gzip of no data is not a file of 0 bytes: it says what it unpacks to.
    throw inputError(
      `${path}: ${gzip ? 'the file unpacks to nothing (gzip of 0 bytes of data)' : 'the file is empty (0 bytes)'}; expected a summary JSON (the output of \`kprof summary <profile> --format json\`) or a trace ` +
        `(${chromeTraceNames()}). Was it cut short? Copy it again or regenerate it, or pass the profile itself.`,
    );
  }
  const kind = sniffBytes(bytes.subarray(0, 65536));
  if (kind === 'zip') fail(path, 'this is a ZIP archive or an XLSX workbook');
  const encoding = textEncoding(bytes.subarray(0, 64));
  if (kind === 'binary' || encoding !== null) {
    if (encoding !== null) {
      // A summary JSON or a trace saved again by an editor or a Windows tool: both are read as UTF-8 only.
      throw inputError(
        `${path}: the file is ${encoding} text, not UTF-8; a summary JSON and a trace (${chromeTraceNames()}) are read as UTF-8 only. ` +
          `Convert it: iconv -f ${encoding} -t UTF-8 FILE > NEW.json, and pass the new file.`,
      );
    }
    fail(path, 'the file holds binary data', 'Is the file damaged? Copy it again or regenerate it.');
  }
  const text = bytes.toString('utf8').replace(/^\uFEFF/, '');
  if (kind !== 'json') {
    fail(
      path,
      `the file does not start with { (it starts with ${quotedUnlessLink(path, () => quoteText(text.split('\n', 1)[0] ?? ''))})`,
      `${REGENERATE} A CSV export must be named *.csv.`,
    );
  }
  // Counted before JSON.parse, which would take minutes over a file of millions of names, and gigabytes over one
  // nested millions of levels deep.
  const { keys, pastMost, tooDeep } = keyNames(text, mostNames, MAX_DEPTH);
  if (tooDeep !== undefined) {
    fail(
      `${path}:${lineCol(text, tooDeep)}`,
      `a ${text[tooDeep] === '[' ? 'list' : 'object'} here is nested more than ${MAX_DEPTH} levels deep, the most kprof reads (a summary JSON is ${WRITTEN_DEPTH} levels deep at most)`,
      'Was the file made by another tool, or edited? Regenerate it with `kprof summary <profile> --format json`.',
    );
  }
  if (pastMost !== null) {
    fail(
      `${path}:${lineCol(text, pastMost.at)}`,
      `the file names more than ${mostNames.toLocaleString('en-US')} different keys, the most kprof reads, from the key ${quoteText(pastMost.key)} here on ` +
        "(a summary JSON names only its fields, a few dozen whatever the profile's size: its ranks, groups and steps are lists)",
      'Was the file made by another tool, or edited? Regenerate it with `kprof summary <profile> --format json`.',
    );
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    // V8 says "… at position N", "Unexpected end of JSON input" or "Unexpected token 'x', "…" is not valid JSON"
    // (quoting raw bytes, so its text is not shown as is).
    const msg = e instanceof Error ? e.message : String(e);
    const m = /position (\d+)/.exec(msg);
    const token = /^Unexpected token '(.)'/u.exec(msg);
    const end = text.trimEnd().length;
    const at = m ? Math.min(Number(m[1]), end) : end;
    const where = m || !token ? `${path}:${lineCol(text, at)}` : path;
    const found = token
      ? `unexpected ${quoteText(token[1]!)}`
      : at >= end
        ? 'the file ends too early'
        : `found ${quoteText(text.slice(at, at + 20))}`;
    throw inputError(
      `${where}: invalid JSON (${found}). ` +
        `Expected a kprof summary JSON; was the file cut short or edited? Regenerate it with \`kprof summary <profile> --format json\`.`,
    );
  }
  // A key written twice in one object is read by JSON.parse as its last value, by other readers as its first: the
  // file says two things, and neither is chosen.
  const twice = duplicateKey(text, json, keys);
  if (twice !== null) {
    fail(
      `${path}:${lineCol(text, twice.second)}`,
      `the key ${quoteText(twice.key)} is written twice in one object (first at ${lineCol(text, twice.first)}); JSON readers differ on which one counts, and kprof writes each key once`,
      'Was the file edited or joined with another? Remove one of the two, or regenerate it with `kprof summary <profile> --format json`.',
    );
  }
  return parseSnapshot(path, json, bytes.length);
}

/** The step cells of a group with none. */
const NO_STEPS = new PackedSteps(new Float64Array(0), 0, 0);

/** A count kprof could have written: a whole number that is exact in a double (at most 2^53 - 1). */
function isCount(x: unknown): x is number {
  return typeof x === 'number' && Number.isSafeInteger(x) && x >= 0;
}

/** µs as kprof writes them: a whole number of ticks below MAX_EXACT_TICKS, written as ticks / 10^4. */
function exactTicks(x: unknown): number | null {
  if (typeof x !== 'number' || !Number.isFinite(x) || x < 0) return null;
  const t = usToTicks(x);
  return t < MAX_EXACT_TICKS && t / TICKS_PER_US === x ? t : null;
}

function isOptionalText(x: unknown): boolean {
  return x === undefined || typeof x === 'string';
}

const US_RULE = `a number of µs of at most 4 decimals (whole ticks of 0.1 ns) below ${MAX_EXACT_TEXT}`;

/** The figures of one saved cell, checked: a whole count and exact µs. */
function readCell(path: string, where: string, c: unknown, what: string): { count: number; ticks: number } {
  if (typeof c !== 'object' || c === null) fail(path, `${where} has no ${what}`);
  const o = c as Record<string, unknown>;
  if (!isCount(o.count)) fail(path, `${where} has a "count" of ${quoteJson(o.count)}, expected a whole number from 0 to 2^53 - 1`);
  const ticks = exactTicks(o.totalUs);
  if (ticks === null) fail(path, `${where} has a "totalUs" of ${quoteJson(o.totalUs)}, expected ${US_RULE}`);
  return { count: o.count, ticks };
}

/** A JSON value quoted in a message (short, one line). */
export function quoteJson(x: unknown): string {
  if (x === undefined) return 'nothing';
  if (typeof x === 'string') return quoteText(x);
  if (typeof x === 'number') return Number.isFinite(x) ? String(x) : 'a number too large to read (past 1.8e308)';
  if (Array.isArray(x)) return 'a list';
  return typeof x === 'object' && x !== null ? 'an object' : String(x);
}

/** An optional saved figure (older snapshots lack the per-rank ones). */
function optionalCount(path: string, where: string, o: Record<string, unknown>, field: string): number | null {
  const x = o[field];
  if (x === undefined) return null;
  if (!isCount(x)) fail(path, `${where} has a "${field}" of ${quoteJson(x)}, expected a whole number from 0 to 2^53 - 1`);
  return x;
}

/**
 * What a summary JSON holds is checked as strictly as kprof writes it, so that what reads back is exactly what
 * was saved: whole counts and exact µs, no duplicate rank or group, per-step cells and totals that add up to
 * what they are parts of. A file that fails any check is refused, naming what is wrong.
 */
export function parseSnapshot(path: string, json: unknown, size: number): RankData[] {
  if (Array.isArray(json))
    fail(path, `found a JSON array (the trace events of a timeline such as ${chromeTraceFormats()[0]?.naming.brief ?? 'a trace'}?)`, traceTodo());
  if (typeof json !== 'object' || json === null) fail(path, `the top level is ${json === null ? 'null' : typeof json}, expected an object`);
  const o = json as Partial<SummaryJson> & Record<string, unknown>;
  if ('traceEvents' in o) fail(path, 'found "traceEvents" (a Chrome/kineto timeline)', traceTodo());
  if (o.kind !== 'summary') {
    fail(path, o.kind === undefined ? 'no "kind" field' : `"kind" is ${JSON.stringify(o.kind)}; only "summary" files are profiles`);
  }
  if (o.schemaVersion !== SCHEMA_VERSION) {
    throw inputError(
      `${path}: summary JSON schemaVersion ${JSON.stringify(o.schemaVersion)} is not supported; this kprof reads ` +
        `schemaVersion ${SCHEMA_VERSION}. Regenerate it with this kprof (\`kprof summary <profile> --format json\`).`,
    );
  }
  if (typeof o.groupBy !== 'string' || !(GROUP_BYS as readonly string[]).includes(o.groupBy)) {
    fail(path, `"groupBy" is ${JSON.stringify(o.groupBy)}`);
  }
  if (!Array.isArray(o.perRank)) fail(path, 'no "perRank" array');
  if (o.perRank.length > MAX_SNAPSHOT_RANKS) tooManyRanks(path, o.perRank.length);
  const groupBy = o.groupBy as GroupBy;
  const selection = typeof o.selection === 'string' ? o.selection : '';
  const hasSteps = typeof o.steps === 'number';
  if (o.inputs !== undefined && !(Array.isArray(o.inputs) && o.inputs.every((x) => typeof x === 'string')))
    fail(path, '"inputs" is not a list of text');
  const inputs = [...new Set((o.inputs ?? []) as string[])].sort();
  const out: RankData[] = [];
  const seenRanks = new Set<string>();
  const sum = { count: 0, ticks: 0, rowsRead: 0, skippedRows: 0, filteredKernels: 0 };
  // The step cells of every group of the file, as `step, count, ticks` triples, packed once all are read.
  const cells: number[] = [];
  const packed: { fg: FineGroup; from: number; size: number }[] = [];
  let perRankFigures = 0;
  for (const r of o.perRank as unknown[]) {
    if (typeof r !== 'object' || r === null || !Array.isArray((r as SummaryRankJson).groups)) fail(path, 'a "perRank" entry has no "groups"');
    const rj = r as SummaryRankJson & Record<string, unknown>;
    if (typeof rj.rank !== 'string' || rj.rank === '') {
      fail(
        path,
        `a "perRank" entry has a "rank" of ${quoteJson(rj.rank)}, expected a rank id as text (kprof writes "0", or "-" for a profile with no rank id)`,
      );
    }
    const rankId = String(rj.rank);
    const inRank = `rank ${quoteText(rankId)}`;
    // kprof writes a rank number as the number (`rank_007` is rank 7): "007" beside "7" would be one rank twice.
    if (/^\s*\d+\s*$/.test(rankId) && !/^(0|[1-9]\d*)$/.test(rankId)) {
      fail(
        path,
        `${inRank} is not a rank id as kprof writes it (a whole number without leading zeros or spaces: "${String(BigInt(rankId.trim()))}")`,
      );
    }
    if (seenRanks.has(rankId)) fail(path, `${inRank} is in "perRank" twice`);
    seenRanks.add(rankId);
    const rankSteps = readSteps(path, inRank, rj.steps);
    const stepSet = new Set(rankSteps);
    const acc = new Accumulator({ name: true, type: true, core: true, shapes: true, steps: hasSteps });
    const rankTotals = { count: 0, ticks: 0 };
    let withoutStep = 0;
    for (const gu of rj.groups as unknown[]) {
      if (typeof gu !== 'object' || gu === null || typeof (gu as SummaryGroupJson).key !== 'string') fail(path, `a group in ${inRank} has no "key"`);
      const g = gu as SummaryGroupJson & Record<string, unknown>;
      const where = `group ${quoteText(g.key)} in ${inRank}`;
      const { count, ticks } = readCell(path, where, g, 'count');
      if (![g.name, g.type, g.core, g.shapes, g.userGroup].every(isOptionalText)) {
        fail(path, `${where} has a name, type, core, shapes or userGroup that is not text`);
      }
      // kprof writes both, null where the source gives none (an op_statistic or Nsight CSV without the column, a
      // group of no kernel): a group without one would read as a rank whose minimum is unknown, and the profile's
      // minimum would be taken from the other ranks alone.
      for (const f of ['minUs', 'maxUs'] as const) {
        if (g[f] === undefined) fail(path, `${where} has a "${f}" of nothing, expected ${US_RULE}, or null where its source gives none`);
      }
      const minTicks = g.minUs === undefined || g.minUs === null ? null : exactTicks(g.minUs);
      const maxTicks = g.maxUs === undefined || g.maxUs === null ? null : exactTicks(g.maxUs);
      if (
        (minTicks === null) !== (g.minUs === undefined || g.minUs === null) ||
        (maxTicks === null) !== (g.maxUs === undefined || g.maxUs === null)
      ) {
        fail(path, `${where} has a "minUs" or "maxUs" that is not ${US_RULE}`);
      }
      if (minTicks !== null && maxTicks !== null && minTicks > maxTicks) fail(path, `${where} has "minUs" ${g.minUs} above "maxUs" ${g.maxUs}`);
      if (count === 0 && (ticks > 0 || minTicks !== null || maxTicks !== null)) fail(path, `${where} has a "count" of 0 but a time`);
      if (minTicks !== null && minTicks > ticks) fail(path, `${where} has "minUs" ${g.minUs} above its "totalUs" ${g.totalUs}`);
      if (maxTicks !== null && maxTicks > ticks) fail(path, `${where} has "maxUs" ${g.maxUs} above its "totalUs" ${g.totalUs}`);
      // The mean lies between them: a "minUs" above totalUs ÷ count, or a "maxUs" below it, no kernels have (within
      // the slack of pastMean, the rounding of a statistic row, whose figures kprof keeps as read).
      const past = pastMean(count, ticks, minTicks ?? Number.NaN, maxTicks ?? Number.NaN);
      if (past === 'min') fail(path, `${where} has "minUs" ${g.minUs} above its mean (totalUs ${g.totalUs} ÷ count ${g.count})`);
      if (past === 'max') fail(path, `${where} has "maxUs" ${g.maxUs} below its mean (totalUs ${g.totalUs} ÷ count ${g.count})`);
      checkKeyFits(path, where, groupBy, g);
      const internal = `\u001e${g.key}`;
      if (acc.groups.has(internal)) fail(path, `${where} is in that rank twice`);
      const fg: FineGroup = {
        name: g.name ?? null,
        type: g.type ?? null,
        core: g.core ?? null,
        shapes: g.shapes ?? null,
        total: emptyCell(),
        steps: NO_STEPS,
        savedKey: g.key,
      };
      if (g.userGroup !== undefined) fg.savedUserGroup = g.userGroup;
      acc.groups.set(internal, fg);
      acc.addCell(fg, {
        count,
        ticks,
        minTicks: minTicks ?? Number.POSITIVE_INFINITY,
        maxTicks: maxTicks ?? Number.NEGATIVE_INFINITY,
      });
      const bySteps: unknown = g.byStep ?? [];
      if (!Array.isArray(bySteps)) fail(path, `${where} has a "byStep" that is not a list`);
      let stepped = 0;
      let steppedTicks = 0;
      const from = cells.length / 3;
      const seenSteps = new Set<number>();
      for (const su of bySteps as unknown[]) {
        const step = typeof su === 'object' && su !== null ? (su as StepJson).step : undefined;
        if (!isStepNumber(step))
          fail(path, `a "byStep" entry of ${where} has a "step" of ${quoteJson(step)}, expected a step number (a whole number, 0 or more)`);
        const at = `step ${step} of ${where}`;
        const cell = readCell(path, at, su, 'count');
        if (seenSteps.has(step!)) fail(path, `${at} is in its "byStep" twice`);
        if (rj.steps !== undefined && !stepSet.has(step!)) fail(path, `${at} is not one of the rank's "steps"`);
        seenSteps.add(step!);
        cells.push(step!, cell.count, cell.ticks);
        stepped += cell.count;
        steppedTicks += cell.ticks;
      }
      if (seenSteps.size > 0) packed.push({ fg, from, size: seenSteps.size });
      // Rows with an empty Step Id are in the total only: the steps hold at most the total, and all of it when
      // they hold every kernel.
      if (stepped > count || steppedTicks > ticks || (stepped === count && steppedTicks !== ticks)) {
        fail(
          path,
          `the "byStep" cells of ${where} add up to ${stepped} kernels and ${steppedTicks / TICKS_PER_US} µs, which contradicts its "count" ${count} and "totalUs" ${g.totalUs}`,
        );
      }
      if (hasSteps) withoutStep += count - stepped;
      rankTotals.count += count;
      rankTotals.ticks += ticks;
    }
    if (rankTotals.ticks >= MAX_EXACT_TICKS || !Number.isSafeInteger(rankTotals.count)) {
      fail(path, `the groups of ${inRank} add up to more than kprof sums exactly (${MAX_EXACT_TEXT}, or 2^53 kernels)`);
    }
    if (rj.totals !== undefined) {
      const t = readCell(path, `the "totals" of ${inRank}`, rj.totals, 'count');
      if (t.count !== rankTotals.count || t.ticks !== rankTotals.ticks) {
        fail(
          path,
          `the "totals" of ${inRank} (${t.count} kernels, ${t.ticks / TICKS_PER_US} µs) are not the sum of its groups (${rankTotals.count} kernels, ${rankTotals.ticks / TICKS_PER_US} µs)`,
        );
      }
    }
    const rowsRead = optionalCount(path, inRank, rj, 'rowsRead');
    const skippedRows = optionalCount(path, inRank, rj, 'skippedRows');
    const filteredKernels = optionalCount(path, inRank, rj, 'filteredKernels');
    if (rowsRead !== null || skippedRows !== null || filteredKernels !== null) perRankFigures++;
    const file: SourceFile = {
      path,
      format: 'summary_json' satisfies FormatId,
      traits: [`summary JSON grouped by ${groupBy}`],
      columns: [],
      missing: [],
      bytes: size,
      rowsRead: (rj.groups as unknown[]).length,
      rowsSkipped: 0,
    };
    acc.rowsRead = rowsRead ?? (rj.groups as unknown[]).length;
    acc.rowsSkipped = skippedRows ?? 0;
    acc.rowsWithoutStep = withoutStep;
    const rank = acc.toRankData(rankId, [file], { path, groupBy, selection, filteredKernels: filteredKernels ?? 0, inputs });
    // Steps with no data in any kept group still count as steps of the run.
    rank.stepIds = rankSteps;
    if (rj.stepTime !== undefined) readStepTime(path, inRank, rj.stepTime, rank);
    out.push(rank);
    sum.count += rankTotals.count;
    sum.ticks += rankTotals.ticks;
    sum.rowsRead += rank.rowsRead;
    sum.skippedRows += rank.rowsSkipped;
    sum.filteredKernels += filteredKernels ?? 0;
  }
  const buf = Float64Array.from(cells);
  for (const { fg, from, size } of packed) fg.steps = new PackedSteps(buf, from, size);
  if (out.length === 0) fail(path, '"perRank" is empty');
  if (perRankFigures > 0 && perRankFigures < out.length)
    fail(path, 'some "perRank" entries have "rowsRead", "skippedRows" and "filteredKernels" and others do not');
  if (o.totals !== undefined) {
    const t = readCell(path, 'the top level', o.totals, '"totals"');
    if (t.count !== sum.count || t.ticks !== sum.ticks) {
      fail(
        path,
        `the top-level "totals" (${t.count} kernels, ${t.ticks / TICKS_PER_US} µs) are not the sum of the ranks' groups (${sum.count} kernels, ${sum.ticks / TICKS_PER_US} µs)`,
      );
    }
  }
  const top = o as Record<string, unknown>;
  // Rows on no rank (a db of several devices): in the top-level rows read and skipped, in no rank's.
  const onNoRank = optionalCount(path, 'the top level', top, 'rowsOnNoRank') ?? 0;
  if (perRankFigures > 0) {
    // Each rank's file is the snapshot: a file counted once however many ranks it holds (rowsOnNoRank()).
    if (onNoRank > 0) for (const r of out) r.files[0]!.rowsOnNoRank = onNoRank;
    for (const f of ['rowsRead', 'skippedRows', 'filteredKernels'] as const) {
      const v = optionalCount(path, 'the top level', top, f);
      const expected = sum[f] + (f === 'filteredKernels' ? 0 : onNoRank);
      if (v !== null && v !== expected) {
        fail(
          path,
          `the top-level "${f}" ${v} is not the sum of the ranks' (${sum[f]})${f === 'filteredKernels' || onNoRank === 0 ? '' : ` and "rowsOnNoRank" (${onNoRank})`}`,
        );
      }
    }
  } else {
    // An older snapshot keeps these figures for the whole profile only: each other rank is taken to have read its
    // kernels, and the first rank the rest, so that the profile's figures are the saved ones.
    const [first, ...others] = out;
    for (const r of others) r.rowsRead = r.kernels;
    const rowsRead = optionalCount(path, 'the top level', top, 'rowsRead');
    const rest = rowsRead === null ? null : rowsRead - others.reduce((k, r) => k + r.rowsRead, 0);
    first!.rowsRead = rest !== null && rest >= 0 ? rest : (rowsRead ?? first!.kernels);
    first!.rowsSkipped = optionalCount(path, 'the top level', top, 'skippedRows') ?? 0;
    first!.snapshot!.filteredKernels = optionalCount(path, 'the top level', top, 'filteredKernels') ?? 0;
  }
  savedFigures(path, o, out, groupBy);
  return out;
}

/** The most step_trace_time.csv columns a rank's step time may hold (the reader keeps at most 32). */
const MAX_TRACE_COLUMNS = 32;

/** A step as kprof reads one: a whole number, 0 or more (a kernel table's negative Step Id is a skipped row). */
function isStepNumber(step: unknown): step is number {
  return Number.isSafeInteger(step) && (step as number) >= 0;
}

/** Whole numbers, distinct and ascending, of a list of objects' `step`. */
function ascendingSteps(path: string, where: string, items: { step?: unknown }[]): void {
  let last = Number.NEGATIVE_INFINITY;
  for (const it of items) {
    if (!isStepNumber(it.step)) fail(path, `${where} has a "step" of ${quoteJson(it.step)}, expected a step number (a whole number, 0 or more)`);
    if (!((it.step as number) > last)) fail(path, `${where} has steps that are not distinct and in order (${last} then ${it.step})`);
    last = it.step as number;
  }
}

/**
 * A rank's saved step time (summary --step-time) back into its step spans and step_trace rows: spans as exact
 * µs (ticks), each of a step of the rank; trace values numbers or null. What is derived from them (median, min,
 * max, the gap) is checked with the other saved figures (savedSummary.ts).
 */
function readStepTime(path: string, inRank: string, x: unknown, rank: RankData): void {
  const where = `the "stepTime" of ${inRank}`;
  if (typeof x !== 'object' || x === null || Array.isArray(x)) fail(path, `${where} is not an object`);
  const o = x as Partial<StepTimeRankJson> & Record<string, unknown>;
  const gaps: unknown[] = [null, 'no-starts', 'no-steps', 'not-saved'];
  if (!gaps.includes(o.gap)) fail(path, `${where} has a "gap" of ${quoteJson(o.gap)}, expected null, "no-starts", "no-steps" or "not-saved"`);
  if (!Array.isArray(o.steps)) fail(path, `${where} has no "steps" list`);
  if (!isCount(o.withoutStart)) fail(path, `${where} has a "withoutStart" of ${quoteJson(o.withoutStart)}, expected a whole number`);
  const steps = o.steps as unknown[];
  if (!steps.every((s) => typeof s === 'object' && s !== null)) fail(path, `${where} has a step that is not an object`);
  ascendingSteps(path, `${where}`, steps as { step?: unknown }[]);
  const known = new Set(rank.stepIds);
  const spans = (steps as Record<string, unknown>[]).map((s) => {
    const ticks = exactTicks(s.spanUs);
    if (ticks === null) fail(path, `step ${s.step} of ${where} has a "spanUs" of ${quoteJson(s.spanUs)}, expected ${US_RULE}`);
    if (!isCount(s.kernels) || s.kernels === 0)
      fail(path, `step ${s.step} of ${where} has "kernels" ${quoteJson(s.kernels)}, expected a whole number above 0`);
    if (!known.has(s.step as number)) fail(path, `step ${s.step} of ${where} is not one of the rank's "steps"`);
    return { step: s.step as number, startTicks: 0, endTicks: ticks, kernels: s.kernels };
  });
  if (o.gap !== 'not-saved') {
    rank.stepSpans = { originUs: null, steps: spans, withoutStart: o.withoutStart as number, available: o.gap !== 'no-starts' };
  } else if (spans.length > 0) fail(path, `${where} says "not-saved" but holds steps`);
  if (o.trace === undefined || o.trace === null) return;
  const t = o.trace as Record<string, unknown>;
  const tw = `the "trace" of ${where}`;
  if (typeof t !== 'object' || Array.isArray(t)) fail(path, `${tw} is not an object`);
  if (typeof t.file !== 'string') fail(path, `${tw} has no "file"`);
  if (!Array.isArray(t.columns) || !t.columns.every((c) => typeof c === 'string') || t.columns.length > MAX_TRACE_COLUMNS) {
    fail(path, `${tw} has "columns" that are not a list of at most ${MAX_TRACE_COLUMNS} texts`);
  }
  if (!isCount(t.rowsSkipped)) fail(path, `${tw} has a "rowsSkipped" of ${quoteJson(t.rowsSkipped)}, expected a whole number`);
  if (!Array.isArray(t.rows) || !t.rows.every((r) => typeof r === 'object' && r !== null)) fail(path, `${tw} has no "rows" list of objects`);
  const columns = t.columns as string[];
  ascendingSteps(path, tw, t.rows as { step?: unknown }[]);
  const rows = (t.rows as Record<string, unknown>[]).map((r) => {
    const v = r.values;
    const time = (n: unknown): boolean => n === null || (typeof n === 'number' && n >= 0 && n < MAX_STEP_TRACE_US);
    if (!Array.isArray(v) || v.length !== columns.length || !v.every(time)) {
      fail(
        path,
        `step ${r.step} of ${tw} has "values" that are not ${columns.length} numbers of µs (0 or more, below ${MAX_EXACT_TEXT}) or nulls (one per column)`,
      );
    }
    return { step: r.step as number, values: v as (number | null)[] };
  });
  rank.stepTrace = { file: t.file, columns, rows, rowsSkipped: t.rowsSkipped };
}

export const GROUP_TEXT_FIELDS = ['type', 'name', 'core', 'shapes'] as const;

/**
 * A group's key is made of its fields under the grouping (groupKey), or is the name of the user group it holds;
 * a field the grouping does not keep is never written. A group that says otherwise (key A with type Z under
 * --by type) would be one group to summary and another to check's selectors.
 */
function checkKeyFits(path: string, where: string, groupBy: GroupBy, g: SummaryGroupJson): void {
  const kept: readonly string[] = GROUP_BY_FIELDS[groupBy];
  for (const f of GROUP_TEXT_FIELDS) {
    if (g[f] !== undefined && !kept.includes(f)) fail(path, `${where} has a "${f}", which a summary grouped by ${groupBy} does not keep`);
  }
  const present = kept.some((f) => g[f as (typeof GROUP_TEXT_FIELDS)[number]] !== undefined);
  if (g.userGroup !== undefined && g.key !== g.userGroup)
    fail(path, `${where} holds the user group ${quoteText(g.userGroup)}, whose key is its name`);
  if (g.userGroup !== undefined && !present) return;
  const want = groupKey(groupBy, { type: g.type ?? null, name: g.name ?? null, core: g.core ?? null, shapes: g.shapes ?? null });
  if (g.key !== want) fail(path, `${where} has the fields of the group ${quoteText(want)} under --by ${groupBy}; its "key" and its fields disagree`);
}

/**
 * The check that a summary JSON's top level (ranks, steps, stepIds, groups) and derived figures (avgUs, sharePct,
 * countPerStep …) are what kprof computes from its "perRank" entries. Computing them is the summary's and its
 * JSON report's work (later stages), so the check is given to this reader (report/savedSummary.ts, by the CLI)
 * rather than imported; a summary JSON is never read without it.
 */
export type SavedFiguresCheck = (path: string, o: Record<string, unknown>, ranks: RankData[], groupBy: GroupBy) => void;

let savedFiguresCheck: SavedFiguresCheck | null = null;

/** Set the check of a summary JSON's derived figures (see SavedFiguresCheck). */
export function checkSavedFiguresWith(check: SavedFiguresCheck): void {
  savedFiguresCheck = check;
}

function savedFigures(path: string, o: Record<string, unknown>, ranks: RankData[], groupBy: GroupBy): void {
  if (savedFiguresCheck === null)
    throw new Error('a summary JSON was read with no check of its saved figures (checkSavedFiguresWith was not called)');
  savedFiguresCheck(path, o, ranks, groupBy);
}

/** A rank's "steps": distinct whole numbers, in order (as kprof writes them); [] when there are none. */
function readSteps(path: string, inRank: string, steps: unknown): number[] {
  if (steps === undefined || steps === null) return [];
  if (!Array.isArray(steps) || !steps.every(isStepNumber))
    fail(path, `the "steps" of ${inRank} are not a list of step numbers (whole numbers, 0 or more)`);
  for (let i = 1; i < steps.length; i++) {
    if (!((steps[i] as number) > (steps[i - 1] as number)))
      fail(path, `the "steps" of ${inRank} are not distinct and in order (${steps[i - 1]} then ${steps[i]})`);
  }
  return steps as number[];
}

/**
 * The most ranks read from summary JSONs, a file or a folder of them (readers.ts `most`: counted as each file is
 * read). A rank held costs kilobytes (its tables and figures, ~5 KB for a rank of one group), so a file of a million
 * one-group ranks, within the size kprof reads, would exhaust memory; a folder of such files, more so. A cluster of
 * more ranks is summarised, and compared, in parts (--rank).
 */
export const MAX_SNAPSHOT_RANKS = 1 << 16;

export function tooManyRanks(where: string, n: number): never {
  throw inputError(
    `${where}: holds ${n.toLocaleString('en-US')} ranks; kprof reads at most ${MAX_SNAPSHOT_RANKS.toLocaleString('en-US')} ranks of summary JSONs ` +
      '(each rank held costs kilobytes of memory). Summarise and compare the cluster in parts of fewer ranks (--rank 0-32767, …).',
  );
}

/** Snapshots combined into one profile must have been made with one grouping and the same filters. */
export function sameMaking(read: RankData[]): void {
  const first = read.find((r) => r.snapshot !== null)?.snapshot;
  if (!first) return;
  for (const r of read) {
    const s = r.snapshot;
    if (s === null || (s.groupBy === first.groupBy && s.selection === first.selection)) continue;
    const made = (x: { groupBy: string; selection: string }): string => `--by ${x.groupBy}${x.selection ? ` and ${shown(x.selection)}` : ''}`;
    throw inputError(
      `${s.path}: made with ${made(s)}, but ${first.path} was made with ${made(first)}; summary JSONs are combined only when made with ` +
        `the same grouping and filters. Regenerate it with the options of the other: kprof summary <profile> ${savedOptions(first.groupBy, first.selection)} --format json -o ${shellWord(s.path)}`,
    );
  }
}
