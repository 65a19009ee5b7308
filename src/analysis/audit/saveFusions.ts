// `kprof diff --save-fusions FILE`: the rewrites a diff found, written as catalogue entries (catalogue/README.md),
// so that a fusion proven once by a diff is audited everywhere after (`kprof audit --catalogue FILE`). Each rewrite
// that removed a chain and added kernels of other types becomes one entry: the added types are the fused kernel,
// the removed chain the unfused one, and the source is the two profiles. The file is YAML in JSON's flow style
// (each value JSON-quoted, with jsonSafe's escapes: a folder name's bidi override or line separator is `\u202e`,
// not the character, in a file others open), so no kernel type or path can break its structure; it reads back
// through parseCatalogue.

import type { Rewrite } from '../rewrites/rewrites.js';
import { TYPE_RE_SOURCE } from './catalogue.js';
import { jsonSafe, shellWord } from '../../util/inputText.js';

const TYPE_RE = new RegExp(TYPE_RE_SOURCE);

/** The entries' text, and how many rewrites were left out (a type the catalogue cannot name, or nothing fused). */
export function fusionsFile(rewrites: Rewrite[], base: string, pr: string): { text: string; written: number; skipped: number } {
  const lines = [
    `# Fusions found by kprof diff ${shellWord(base)} ${shellWord(pr)}: each the chain the base ran and the`,
    '# kernel(s) the PR ran instead. Audit other profiles with: kprof audit --catalogue THIS_FILE <profile>',
    'entries:',
  ];
  const ids = new Set<string>();
  let skipped = 0;
  let written = 0;
  for (const r of rewrites) {
    const fused = [...new Set(r.added.filter((t) => !r.removed.includes(t)))];
    const chain = r.removed;
    if (fused.length === 0 || chain.length === 0 || chain.length > 64 || ![...fused, ...chain].every((t) => TYPE_RE.test(t))) {
      skipped++;
      continue;
    }
    const slug = `diff-${
      fused[0]!
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, '-')
        .replace(/^-+|-+$/g, '')
        .slice(0, 40) || 'fusion'
    }`;
    let id = slug;
    for (let n = 2; ids.has(id); n++) id = `${slug}-${n}`;
    ids.add(id);
    written++;
    const q = (s: string) => jsonSafe(JSON.stringify(s));
    const list = (ts: string[]) => `[${ts.map(q).join(', ')}]`;
    // What the PR still ran unfused near the chain (the section's "not fused" sites): variants of the chain, so that
    // an audit with this entry finds them as the diff did.
    const variants = [...new Map(r.notFused.filter((n) => n.edits > 0).map((n) => [list(n.tokens), n.tokens])).values()].filter(
      (ts) => ts.length > 0 && ts.length <= 64 && ts.every((t) => TYPE_RE.test(t)),
    );
    lines.push(
      `  - id: ${q(id)}`,
      `    fused: ${list(fused)}`,
      `    api: ${q('unknown: found by kprof diff')}`,
      `    versions: ${q(`as in ${pr}`)}`,
      `    chain: ${list(chain)}`,
      ...(variants.length > 0 ? [`    variants: [${variants.map(list).join(', ')}]`] : []),
      `    chain_source: ${q(`kprof diff: the base ran this chain where the PR ran ${fused.join(', ')} (${r.chains} ${r.chains === 1 ? 'chain' : 'chains'}, ${r.ranks.length === 1 ? 'rank' : 'ranks'} ${r.ranks.join(', ')})`)}`,
      `    type_source: ${q('the Type column of both profiles')}`,
      '    sources:',
      `      - profile: ${q(base)}`,
      `        says: ${q('runs the unfused chain')}`,
      `      - profile: ${q(pr)}`,
      `        says: ${q(`runs ${fused.join(', ')} instead`)}`,
    );
  }
  if (written === 0) lines[2] = 'entries: []';
  return { text: `${lines.join('\n')}\n`, written, skipped };
}
