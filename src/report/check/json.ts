// `kprof check --format json`: the declared check schema (see schema.ts). Pure: Verdict in, chunks out.

import type { Verdict } from '../../rules/model.js';
import { SCHEMA_VERSION, type CheckJson, type CheckResultJson } from '../../model/schema.js';
import { round4 } from '../../util/format.js';
import { jsonSafe } from '../../util/inputText.js';
import { arrays, jsonChunks, lazyLists, mapped, type ListOf } from '../json.js';
import { exact, resultMessage, ruleTitle, type CheckContext } from './shared.js';

export function checkJsonObject(v: Verdict, ctx: CheckContext): CheckJson {
  return checkJsonWith(v, ctx, arrays);
}

/** The check's JSON, its results made by `list` (see ListOf). */
function checkJsonWith(v: Verdict, ctx: CheckContext, list: ListOf): CheckJson {
  const results: CheckResultJson[] = list(
    mapped(v.results, (r) => ({
      rule: ruleTitle(r.rule, exact),
      file: r.rule.file,
      line: r.rule.line,
      severity: r.rule.severity,
      passed: r.passed,
      observed: r.observed === null ? null : round4(r.observed),
      bound: { op: r.bound.op, value: round4(r.bound.value) },
      unit: r.unit,
      per: r.per,
      rank: r.rank,
      step: r.step,
      ranksBroken: r.ranksBroken,
      stepsBroken: r.brokenSteps,
      site: r.site ?? null,
      ...(r.fallbacks !== undefined ? { fallbacks: r.fallbacks } : {}),
      ...(r.short !== undefined ? { short: r.short } : {}),
      message: resultMessage(r, ctx.base !== null, exact),
      why: r.rule.why,
      unmatched: r.unmatched,
      evidence: r.rule.evidence ?? null,
    })),
  );
  return {
    schemaVersion: SCHEMA_VERSION,
    kind: 'check',
    passed: v.passed,
    profile: ctx.profile,
    base: ctx.base,
    rules: ctx.rules,
    read: ctx.read,
    baseRead: ctx.baseRead,
    results,
  };
}

/** The JSON report, in chunks: each result is made as it is written (see json.ts). */
export function checkJson(v: Verdict, ctx: CheckContext): Iterable<string> {
  return mapped(jsonChunks(checkJsonWith(v, ctx, lazyLists)), jsonSafe);
}
