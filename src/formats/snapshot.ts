// A summary JSON written by `kprof summary --format json` read back as a profile, so CI can keep a small
// snapshot instead of a 300 MB export. Groups come back exactly as saved: a snapshot can be compared only
// with the grouping and filters it was made with.

import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { Accumulator } from '../aggregate.js';
import { inputError } from '../errors.js';
import { GROUP_BYS, type GroupBy, type RankData, type SourceFile } from '../model.js';
import { SCHEMA_VERSION, type SummaryGroupJson, type SummaryJson } from '../schema.js';
import { usToTicks } from '../csv/numbers.js';
import { fsError, sniffBytes } from './readTable.js';

const REGENERATE = 'Expected the output of `kprof summary <profile> --format json`; regenerate it, or pass the profile itself.';

function fail(path: string, what: string, todo = REGENERATE): never {
  throw inputError(`${path}: not a kprof summary JSON: ${what}. ${todo}`);
}

const TRACE_TODO =
  'kprof reads kernel exports, not timelines: pass the kernel_details.csv beside it (ASCEND_PROFILER_OUTPUT/kernel_details.csv) or the profile folder.';

/** Text quoted from a file in a message: one line, at most 40 characters, no control characters. */
function quoteText(s: string): string {
  // eslint-disable-next-line no-control-regex
  const t = s.replace(/[\u0000-\u001f\u007f]/g, ' ').trim();
  return JSON.stringify(t.length > 40 ? `${t.slice(0, 40)}…` : t);
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

/** Read a summary JSON into one RankData per rank it holds. */
export function readSnapshot(path: string): RankData[] {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (e) {
    throw fsError(path, e);
  }
  if (bytes[0] === 0x1f && bytes[1] === 0x8b) {
    try {
      bytes = gunzipSync(bytes);
    } catch (e) {
      throw inputError(
        `${path}: the gzip data is damaged or cut short (${e instanceof Error ? e.message : String(e)}); expected a gzipped kprof summary JSON. ` +
          'Copy the file again or regenerate it.',
      );
    }
  }
  if (bytes.length === 0) throw inputError(`${path}: the file is empty (0 bytes). ${REGENERATE}`);
  const kind = sniffBytes(bytes.subarray(0, 65536));
  if (kind === 'zip') fail(path, 'this is a ZIP archive or an XLSX workbook');
  if (kind === 'binary') fail(path, 'the file holds binary data', 'Is the file damaged? Copy it again or regenerate it.');
  const text = bytes.toString('utf8').replace(/^\uFEFF/, '');
  if (kind !== 'json') {
    fail(path, `the file does not start with { (it starts with ${quoteText(text.split('\n', 1)[0] ?? '')})`, `${REGENERATE} A CSV export must be named *.csv.`);
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
    const found = token ? `unexpected ${quoteText(token[1]!)}` : at >= end ? 'the file ends too early' : `found ${quoteText(text.slice(at, at + 20))}`;
    throw inputError(
      `${where}: invalid JSON (${found}). ` +
        `Expected a kprof summary JSON; was the file cut short or edited? Regenerate it with \`kprof summary <profile> --format json\`.`,
    );
  }
  return parseSnapshot(path, json, bytes.length);
}

function isCount(x: unknown): x is number {
  return typeof x === 'number' && Number.isInteger(x) && x >= 0;
}

function isUs(x: unknown): x is number {
  return typeof x === 'number' && Number.isFinite(x) && x >= 0;
}

function isOptionalUs(x: unknown): boolean {
  return x === undefined || x === null || isUs(x);
}

function isOptionalText(x: unknown): boolean {
  return x === undefined || typeof x === 'string';
}

export function parseSnapshot(path: string, json: unknown, size: number): RankData[] {
  if (Array.isArray(json)) fail(path, 'found a JSON array (the trace events of a timeline such as trace_view.json?)', TRACE_TODO);
  if (typeof json !== 'object' || json === null) fail(path, `the top level is ${json === null ? 'null' : typeof json}, expected an object`);
  const o = json as Partial<SummaryJson> & Record<string, unknown>;
  if ('traceEvents' in o) fail(path, 'found "traceEvents" (a Chrome/kineto timeline)', TRACE_TODO);
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
  const groupBy = o.groupBy as GroupBy;
  const selection = typeof o.selection === 'string' ? o.selection : '';
  const out: RankData[] = [];
  for (const r of o.perRank) {
    if (typeof r !== 'object' || r === null || !Array.isArray(r.groups)) fail(path, 'a "perRank" entry has no "groups"');
    if (typeof r.rank !== 'string' && typeof r.rank !== 'number') fail(path, 'a "perRank" entry has no "rank"');
    const hasSteps = typeof o.steps === 'number';
    const acc = new Accumulator({ name: true, type: true, core: true, shapes: true, steps: hasSteps });
    for (const g of r.groups as SummaryGroupJson[]) {
      if (typeof g !== 'object' || g === null || typeof g.key !== 'string' || !isCount(g.count) || !isUs(g.totalUs)) {
        fail(path, `a group in rank ${String(r.rank)} lacks "key", a whole "count" or a "totalUs" of at least 0`);
      }
      if (!isOptionalUs(g.minUs) || !isOptionalUs(g.maxUs)) fail(path, `group ${quoteText(g.key)} in rank ${String(r.rank)} has a bad "minUs" or "maxUs"`);
      if (![g.name, g.type, g.core, g.shapes, g.userGroup].every(isOptionalText)) {
        fail(path, `group ${quoteText(g.key)} in rank ${String(r.rank)} has a name, type, core, shapes or userGroup that is not text`);
      }
      const bySteps: unknown = g.byStep;
      if (bySteps !== undefined && (!Array.isArray(bySteps) || !bySteps.every((s) => typeof s === 'object' && s !== null && Number.isInteger(s.step) && isCount(s.count) && isUs(s.totalUs)))) {
        fail(path, `group ${quoteText(g.key)} in rank ${String(r.rank)} has a "byStep" entry without a whole "step", "count" and a "totalUs"`);
      }
      const fg = acc.group(g.name ?? null, g.type ?? null, g.core ?? null, g.shapes ?? null);
      fg.savedKey = g.key;
      if (g.userGroup !== undefined) fg.savedUserGroup = g.userGroup;
      acc.addCell(fg, {
        count: g.count,
        ticks: usToTicks(g.totalUs),
        minTicks: typeof g.minUs === 'number' ? usToTicks(g.minUs) : Number.POSITIVE_INFINITY,
        maxTicks: typeof g.maxUs === 'number' ? usToTicks(g.maxUs) : Number.NEGATIVE_INFINITY,
      });
      for (const s of Array.isArray(g.byStep) ? g.byStep : []) {
        fg.steps.set(s.step, {
          count: s.count,
          ticks: usToTicks(s.totalUs),
          minTicks: Number.POSITIVE_INFINITY,
          maxTicks: Number.NEGATIVE_INFINITY,
        });
      }
    }
    acc.rowsRead = (r.groups as unknown[]).length;
    const file: SourceFile = {
      path,
      format: 'summary_json',
      traits: [`summary JSON grouped by ${groupBy}`],
      columns: [],
      missing: [],
      bytes: size,
      rowsRead: acc.rowsRead,
      rowsSkipped: 0,
    };
    const rank = acc.toRankData(String(r.rank ?? '-'), [file], { path, groupBy, selection });
    // Steps with no data in any kept group still count as steps of the run.
    rank.stepIds = Array.isArray(r.steps) ? r.steps.filter((s): s is number => typeof s === 'number') : [];
    out.push(rank);
  }
  if (out.length === 0) fail(path, '"perRank" is empty');
  return out;
}
