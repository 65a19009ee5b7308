// The `kprof summary` options a saved selection text stands for (the inverse of aggregate/group.ts selectionText), for
// messages that say how to regenerate a summary JSON: below both the reader of summary JSONs and the grouping.

import { shellWord } from './inputText.js';

const SAVED_PART = /; (?=steps=|core=|match=\/|exclude=\/|group |short-names$)/;

/**
 * The `kprof summary` options that make a snapshot with this grouping and selection text (as group.ts writes it:
 * `steps=…; core=…; match=/…/; exclude=/…/; group NAME=[…]`, and `short-names` last with --short-names), for messages that say how to regenerate one.
 */
export function savedOptions(groupBy: string, selection: string): string {
  const out = [`--by ${groupBy}`];
  let groups = false;
  for (const part of selection === '' ? [] : selection.split(SAVED_PART)) {
    const m = /^(steps|core)=(.*)$/s.exec(part) ?? /^(match|exclude)=\/(.*)\/$/s.exec(part);
    if (m) out.push(`--${m[1]} ${shellWord(m[2]!)}`);
    else if (part === 'short-names') out.push('--short-names');
    else if (part.startsWith('group ')) groups = true;
    else out.push(shellWord(part));
  }
  if (groups) out.push('--groups <the groups file it was made with>');
  return out.join(' ');
}
