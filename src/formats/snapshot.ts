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
import { fsError } from './readTable.js';

function fail(path: string, what: string): never {
  throw inputError(
    `${path}: not a kprof summary JSON: ${what}. Expected the output of \`kprof summary <profile> --format json\`.`,
  );
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
      throw inputError(`${path}: the gzip data is damaged (${e instanceof Error ? e.message : String(e)}).`);
    }
  }
  if (bytes.length === 0) throw inputError(`${path}: the file is empty (0 bytes). Expected a kprof summary JSON.`);
  let json: unknown;
  try {
    json = JSON.parse(bytes.toString('utf8'));
  } catch (e) {
    const msg = e instanceof Error ? e.message : String(e);
    throw inputError(`${path}: invalid JSON (${msg}). Expected a kprof summary JSON; was the file cut short?`);
  }
  return parseSnapshot(path, json, bytes.length);
}

export function parseSnapshot(path: string, json: unknown, size: number): RankData[] {
  if (Array.isArray(json)) {
    fail(path, 'found a JSON array (a Chrome trace such as trace_view.json?); kprof reads kernel exports, not timelines');
  }
  if (typeof json !== 'object' || json === null) fail(path, 'the top level is not an object');
  const o = json as Partial<SummaryJson> & Record<string, unknown>;
  if ('traceEvents' in o) fail(path, 'found "traceEvents" (a Chrome/kineto trace); kprof reads Ascend kernel exports');
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
    const hasSteps = typeof o.steps === 'number';
    const acc = new Accumulator({ name: true, type: true, core: true, shapes: true, steps: hasSteps });
    for (const g of r.groups as SummaryGroupJson[]) {
      if (typeof g?.key !== 'string' || typeof g.count !== 'number' || typeof g.totalUs !== 'number') {
        fail(path, `a group in rank ${String(r.rank)} lacks key, count or totalUs`);
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
