// `kprof check --format junit`: JUnit XML for CI dashboards. Pure: Verdict in, string out.

import type { Verdict } from '../../rules/model.js';
import { clipped, escaped } from '../../util/inputText.js';
import { xmlEscape } from '../render.js';
import { location, resultMessage, ruleTitle, whyText, type CheckContext } from './shared.js';

/**
 * JUnit XML: one test case per rule. A broken error-level rule is a <failure>; a broken warn-level rule passes
 * with its message in <system-out>, so that dashboards do not turn red for a warning.
 */
export function checkJunit(v: Verdict, ctx: CheckContext): string {
  const n = v.results.length;
  // The attributes of the common JUnit schema (Jenkins' junit-10.xsd, which CI dashboards read): testsuites has no
  // skipped, a testcase no file or line (the rule's file:line is in its text).
  const counts = `tests="${n}" failures="${v.failedErrors}" errors="0"`;
  const rules = xmlEscape(escaped(ctx.rules));
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="kprof check" ${counts}>`,
    `  <testsuite name="${rules}" ${counts} skipped="0">`,
  ];
  const props: [string, number][] = [
    ['kernels', ctx.read.kernels],
    ['skippedRows', ctx.read.skippedRows],
  ];
  if (ctx.baseRead !== null) props.push(['baseKernels', ctx.baseRead.kernels], ['baseSkippedRows', ctx.baseRead.skippedRows]);
  lines.push('    <properties>', ...props.map(([k, n]) => `      <property name="${k}" value="${n}" />`), '    </properties>');
  for (const r of v.results) {
    const head = `    <testcase name="${xmlEscape(ruleTitle(r.rule))}" classname="${rules}"`;
    const msg = resultMessage(r, ctx.base !== null);
    const body = `${msg}\n${location(r)}${r.rule.why !== null ? `\nwhy: ${whyText(r.rule.why, clipped)}` : ''}`;
    if (r.passed && r.unmatched.length > 0) {
      lines.push(`${head}>`, `      <system-out>${xmlEscape(`note: ${body}`)}</system-out>`, '    </testcase>');
    } else if (r.passed) {
      lines.push(`${head}>`, `      <system-out>${xmlEscape(location(r))}</system-out>`, '    </testcase>');
    } else if (r.rule.severity === 'warn') {
      lines.push(`${head}>`, `      <system-out>${xmlEscape(`warning: ${body}`)}</system-out>`, '    </testcase>');
    } else {
      lines.push(`${head}>`, `      <failure message="${xmlEscape(msg)}" type="kprof.rule">${xmlEscape(body)}</failure>`, '    </testcase>');
    }
  }
  lines.push('  </testsuite>', '</testsuites>');
  return `${lines.join('\n')}\n`;
}
