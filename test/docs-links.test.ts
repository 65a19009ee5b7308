// The docs hold together: every relative link of the README and of docs/*.md leads to a file of the repo, and every
// #anchor to a heading of the page it names (GitHub's anchors: lower case, punctuation dropped, spaces as '-').

import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, expect, it } from 'vitest';
import { docFiles, ROOT } from './helpers.js';

/** GitHub's anchor of a heading. */
function slug(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/[`*_]/g, '')
    .replace(/[^\p{L}\p{N}\s-]/gu, '')
    .trim()
    .replace(/\s/g, '-');
}

/** The anchors of a page: one per heading outside code fences (a repeated heading gets -1, -2, …). */
function anchors(text: string): Set<string> {
  const out = new Set<string>();
  const seen = new Map<string, number>();
  let fence = false;
  for (const line of text.split('\n')) {
    if (line.startsWith('```')) fence = !fence;
    const m = fence ? null : /^#+ (.*)$/.exec(line);
    if (!m) continue;
    const s = slug(m[1]!);
    const n = seen.get(s) ?? 0;
    seen.set(s, n + 1);
    out.add(n === 0 ? s : `${s}-${n}`);
  }
  return out;
}

/** The links of a page outside code fences and inline code: [label](target), images included. */
function links(text: string): string[] {
  const prose = text.replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');
  return [...prose.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!);
}

describe('the links of the README and docs/', () => {
  const pages = docFiles();

  it('has the front page and the reference pages', () => {
    expect(pages.map(([p]) => p)).toEqual(expect.arrayContaining(['README.md', 'docs/diff.md', 'docs/check.md', 'docs/ci.md']));
  });

  for (const [page, text] of pages) {
    it(`${page}: every relative link and anchor leads somewhere`, () => {
      const broken: string[] = [];
      for (const target of links(text)) {
        if (/^(https?:|mailto:)/.test(target)) continue;
        const [path, anchor] = target.split('#') as [string, string | undefined];
        const file = path === '' ? join(ROOT, page) : normalize(join(ROOT, dirname(page), path));
        if (!existsSync(file)) {
          broken.push(`${target}: no such file`);
          continue;
        }
        if (anchor !== undefined && file.endsWith('.md') && !anchors(readFileSync(file, 'utf8')).has(anchor)) {
          broken.push(`${target}: no such heading`);
        }
      }
      expect(broken).toEqual([]);
    });
  }

  it('offers no install of kprof by name from the registry, where the package is not published', () => {
    const offers = pages.flatMap(([page, text]) =>
      [...text.matchAll(/(npm (?:install|i)(?: -[DgS]| --save-dev)* kprof(?:@[^\s`)]*)?(?![\w./-])|npx kprof@)/gm)].map((m) => `${page}: ${m[0]}`),
    );
    expect(offers).toEqual([]);
  });
});
