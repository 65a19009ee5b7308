// kprof audit --format html: one self-contained page with the HTML reports' Content-Security-Policy, the audit's
// figures and sites, the JSON it carries equal to --format json, and input text (a folder name) never markup.

import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { CSP } from '../src/report/html/page.js';
import { kprof } from './helpers.js';

const tmp = mkdtempSync(join(tmpdir(), 'kprof-audit-html-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function carried(html: string): unknown {
  const m = /<script type="application\/json" id="kprof-audit">([\s\S]*?)<\/script>/.exec(html);
  expect(m).not.toBeNull();
  return JSON.parse(m![1]!);
}

describe('kprof audit --format html', () => {
  test('the README example: the MTP layer site with its row, the page CSP, the JSON it carries', async () => {
    const args = ['audit', 'fixtures/fusion-example/pr', '--only', 'mla-prolog'];
    const res = await kprof([...args, '--format', 'html']);
    expect(res.code).toBe(0);
    const html = res.stdout;
    expect(html.startsWith('<!DOCTYPE html>')).toBe(true);
    expect(html).toContain(`<meta http-equiv="Content-Security-Policy" content="${CSP}">`);
    expect(html).toContain('rank 0 MTP layer steps 21-24');
    expect(html).toContain('<code>kernel_details.csv:49</code>');
    expect(html).toContain('<strong>FALLBACK</strong>');
    expect(html).not.toMatch(/<(link|img|iframe)\b|https?:\/\//);
    const json = JSON.parse((await kprof([...args, '--format', 'json'])).stdout);
    expect(carried(html)).toEqual(json);
  });

  test('--matrix: one table of statuses, then each profile', async () => {
    const res = await kprof([
      'audit',
      'fixtures/fusion-example/base',
      'fixtures/fusion-example/pr',
      '--matrix',
      '--only',
      'mla-prolog',
      '--format',
      'html',
    ]);
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(
      /<table id="audit-matrix">[\s\S]*<code>mla-prolog<\/code><\/th><td class="l">not fused<\/td><td class="l"><strong>FALLBACK<\/strong><\/td>/,
    );
  });

  test('a folder name that holds markup is text', async () => {
    const dir = join(tmp, 'x<img src=y onerror=alert(1)>');
    cpSync('fixtures/fusion-example/pr', dir, { recursive: true });
    const res = await kprof(['audit', dir, '--only', 'mla-prolog', '--format', 'html']);
    expect(res.code).toBe(0);
    expect(res.stdout).not.toContain('<img');
    expect(res.stdout).toContain('x&lt;img src=y onerror=alert(1)&gt;');
  });

  test('--list takes no html', async () => {
    const res = await kprof(['audit', '--list', '--format', 'html']);
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(/--format html is for an audit/);
  });
});
