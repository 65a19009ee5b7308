// User-defined groups (`--groups FILE`, and the `groups:` section of a rules file): a YAML or JSON mapping
// of a group name to a list of kernel types or names (exact) and regular expressions (written /like this/).
//
//   rope-chain: [InterleaveRope, RotaryMul]
//   quant: ["/Quant/"]

import {
  firstAliasOrMerge,
  firstTagged,
  isMap,
  isScalar,
  isSeq,
  newLineCounter,
  parseDocument,
  scalarText,
  type LineCounter,
  type Node,
} from '../util/yamlLib.js';
import { inputError } from '../util/errors.js';
import { readRegularFile, textEncoding } from '../util/files.js';
import { noteInput } from '../util/io.js';
import { compilePattern, quotePattern } from '../util/regex.js';
import { excerpt, inQuotes, shown } from '../util/inputText.js';
import type { UserGroup } from '../model/model.js';

/**
 * The most /regular expressions/ one groups or rules file holds. Each is tested against every distinct kernel (a
 * name of a million-name profile, a type), and in the read against each raw name a selection tells apart: the
 * cost is patterns × distinct kernels, and 6,000 patterns (a 242 KB file) against 50,000 names ran past 5 minutes.
 * Exact names and types cost nothing (a Set), and one pattern of alternatives (/a|b/) is one test.
 */
export const MAX_PATTERNS = 256;

/** A file's patterns counted as they are read: the first past MAX_PATTERNS is refused, at its place in the file. */
export class PatternCount {
  private n = 0;

  add(member: RegExp | string, at: string): void {
    if (typeof member === 'string' || ++this.n <= MAX_PATTERNS) return;
    throw inputError(
      `${at}: more than ${MAX_PATTERNS} /regular expressions/ in this file: each is tested against every distinct kernel, ` +
        'so thousands take minutes on a large profile. List exact kernel types or names (they cost nothing), or join ' +
        'patterns into one (/Rope|Rotary/ is one test).',
    );
  }
}

/** What `read` makes of a member's `text`, counted; a bad pattern is said at `at`, after `what`. */
export function countedMember<T extends RegExp | string>(patterns: PatternCount, at: string, text: string, what: string, read: () => T): T {
  let m: T;
  try {
    m = read();
  } catch (e) {
    throw inputError(`${at}: ${what}: bad regular expression ${quotePattern(text)}: ${e instanceof Error ? e.message : String(e)}.`);
  }
  patterns.add(m, at);
  return m;
}

/**
 * `/…/` or `/…/flags` → RegExp; anything else is an exact name. Throws a message on a bad expression, and on a
 * JavaScript flag kprof does not take (`/rope/g`): read as a name, it would match no kernel.
 */
export function parseMember(text: string): RegExp | string {
  const m = /^\/(.*)\/([imsu]*)$/s.exec(text);
  // JavaScript's other flags (d, g, v, y): each name is tested once and whole, so they would change nothing.
  const js = m ? null : /^\/.*\/([dgimsuvy]*)$/s.exec(text);
  const other = js === null ? null : /[dgvy]/.exec(js[1]!);
  if (other) throw new Error(`the flag ${other[0]} is not one kprof takes (it takes i, m, s and u); remove it`);
  if (!m) return text;
  return compilePattern(m[1]!, m[2]);
}

export interface Located {
  line: number;
  col: number;
}

/** Position of a YAML node, 1-based. */
export function positionOf(node: Node | null | undefined, lc: LineCounter): Located {
  const off = node?.range?.[0] ?? 0;
  const p = lc.linePos(off);
  return { line: p.line, col: p.col };
}

/** Build user groups from a parsed YAML mapping node; errors name file:line:col. */
export function groupsFromNode(path: string, node: Node | null | undefined, lc: LineCounter, patterns = new PatternCount()): UserGroup[] {
  const at = (n: Node | null | undefined): string => {
    const p = positionOf(n, lc);
    return `${path}:${p.line}:${p.col}`;
  };
  if (!isMap(node)) {
    throw inputError(
      `${at(node)}: expected a mapping of group name to a list of kernel types, names or /regular expressions/; found ${describe(node)}.`,
    );
  }
  const out: UserGroup[] = [];
  for (const pair of node.items) {
    const keyNode = pair.key as Node;
    const name = isScalar(keyNode) ? scalarText(keyNode) : '';
    if (!name) throw inputError(`${at(keyNode)}: a group needs a name.`);
    const value = pair.value as Node | null;
    const blank = isScalar(value) && (value.value === null || value.value === '');
    const items: Node[] = isSeq(value) ? (value.items as Node[]) : isScalar(value) && !blank ? [value] : [];
    if (value !== null && !isSeq(value) && !isScalar(value)) {
      throw inputError(
        `${at(value ?? keyNode)}: group ${inQuotes(shown(name))} should list kernel types, names or /regular expressions/; found ${describe(value)}.`,
      );
    }
    const g: UserGroup = { name, exact: new Set(), patterns: [], at: at(keyNode) };
    if (items.length === 0) {
      throw inputError(
        `${at(value ?? keyNode)}: group ${inQuotes(shown(name))} is empty; list at least one kernel type, name or /regular expression/, or remove the group.`,
      );
    }
    for (const item of items) {
      if (!isScalar(item) || typeof item.value !== 'string' || item.value === '') {
        throw inputError(
          `${at(item)}: group ${inQuotes(shown(name))}: expected a kernel type, name or /regular expression/ (a string); found ${describe(item)}.`,
        );
      }
      let member: RegExp | string;
      try {
        member = parseMember(item.value);
      } catch (e) {
        throw inputError(
          `${at(item)}: group ${inQuotes(shown(name))}: bad regular expression ${quotePattern(item.value)}: ${e instanceof Error ? e.message : String(e)}.`,
        );
      }
      patterns.add(member, at(item));
      if (typeof member === 'string') g.exact.add(member);
      else g.patterns.push(member);
    }
    if (out.some((o) => o.name === name)) throw inputError(`${at(keyNode)}: group ${inQuotes(shown(name))} is defined twice.`);
    out.push(g);
  }
  return out;
}

export function describe(node: unknown): string {
  if (node === null || node === undefined) return 'nothing';
  if (isMap(node)) return 'a mapping';
  if (isSeq(node)) return 'a list';
  // `type:` with nothing after it: YAML reads null, written as nothing.
  if (isScalar(node) && node.value === null && (node.source ?? '') === '') return 'nothing (an empty value)';
  // A text is quoted as a message quotes input: escaped, its first 40 characters (a rules file may be one long text).
  // Another scalar as the file writes it (`1e400`, not the `Infinity` it parses to; `0x10`, not `16`).
  if (isScalar(node)) return typeof node.value === 'string' ? `${inQuotes(excerpt(node.value))}` : excerpt(node.source ?? String(node.value));
  return typeof node;
}

/** What YAML 1.1 read a text as (`yes`, `on`, `y`: true; `no`, `off`, `n`: false), else null. YAML 1.2, which kprof reads, reads them as texts. */
export function yaml11Boolean(node: unknown): boolean | null {
  if (!isScalar(node) || typeof node.value !== 'string') return null;
  return /^(?:y|yes|on)$/i.test(node.value) ? true : /^(?:n|no|off)$/i.test(node.value) ? false : null;
}

/** After "found …" of a key that takes true or false: what a YAML 1.1 boolean is to kprof, and what to write; else ''. */
export function yaml11Hint(node: unknown): string {
  const b = yaml11Boolean(node);
  return b === null ? '' : ` (YAML 1.1 read it as ${b}; kprof reads YAML 1.2, where it is a text: write ${b})`;
}

/** Parse YAML (JSON is YAML) text, turning syntax errors into file:line:col messages. */
export function parseYaml(path: string, text: string): { doc: ReturnType<typeof parseDocument>; lc: LineCounter } {
  const lc = newLineCounter();
  const doc = parseDocument(text, lc);
  const err = doc.errors[0];
  if (err) {
    const p = lc.linePos(err.pos[0]);
    const msg = err.message.split('\n')[0]!;
    // The parser's own recursion, on lists or mappings nested hundreds deep: said as what it is, not as a stack.
    if (/Maximum call stack size exceeded/.test(msg)) {
      throw inputError(
        `${path}:${p.line}:${p.col}: lists or mappings nested too deeply to read (hundreds of levels; a rules or groups file needs a few). ` +
          'Flatten the file there.',
      );
    }
    // The library's words for a second document name its own API: said in the file's terms.
    if (err.code === 'MULTIPLE_DOCS') {
      throw inputError(
        `${path}:${p.line}:${p.col}: a second YAML document (a --- line, or what follows a ... line); kprof reads one document a file. ` +
          'Remove it, or move what it holds into the first.',
      );
    }
    if (err.code === 'TAB_AS_INDENT') {
      throw inputError(
        `${path}:${p.line}:${p.col}: a tab indents this line; YAML indents with spaces only. Replace the tabs at the start of the line with spaces.`,
      );
    }
    if (err.code === 'BLOCK_AS_IMPLICIT_KEY') {
      throw inputError(
        `${path}:${p.line}:${p.col}: a value holds ": " (a key: value inside a value, which YAML does not take); expected a text there. ` +
          'Quote the value, as in why: "fused: into MlaPrologV3".',
      );
    }
    if (err.code === 'DUPLICATE_KEY') {
      // The key named when it is a plain word as written (quoted or not); another is pointed at by line and column.
      const key = /^(["']?)([\w.-]{1,80})\1\s*:/.exec(text.slice(err.pos[0]))?.[2];
      throw inputError(
        `${path}:${p.line}:${p.col}: ${key === undefined ? 'a key' : `the key ${inQuotes(shown(key))}`} is given twice in one mapping; expected each key once. ` +
          'Keep one, or start another rule with "- " where a second rule was meant.',
      );
    }
    throw inputError(`${path}:${p.line}:${p.col}: not valid YAML or JSON: ${msg.replace(/\.$/, '')}. Fix the file there (YAML or JSON).`);
  }
  // `%YAML 1.1` would make the library read the file as YAML 1.1 (yes and on true, 010 eight, 1:30 ninety): kprof's
  // files are YAML 1.2 (docs/check.md), so they mean one thing whatever a directive says.
  if (doc.directives?.yaml.explicit === true && doc.directives.yaml.version !== '1.2') {
    const at = /^%YAML\b/m.exec(text);
    const line = at === null ? 1 : text.slice(0, at.index).split('\n').length;
    throw inputError(
      `${path}:${line}:1: %YAML ${doc.directives.yaml.version}: kprof reads YAML 1.2 only, where yes, no, on and off are texts and 010 is ten, ` +
        'not the booleans and octal numbers of YAML 1.1. Remove the %YAML line, and write true or false where you meant them.',
    );
  }
  // A tag written on a value (the first in the file): one the library knows (`!!binary`, `!!int`) changes what the
  // value is read as, one it does not (`!custom`) is dropped with a warning, the value read as a text.
  const tagged = firstTagged(doc);
  if (tagged !== null) {
    // At the tag, as the library's own warnings point (the node starts at its value).
    const start = tagged.range?.[0] ?? 0;
    let bang = text.lastIndexOf('!', start);
    while (bang > 0 && text[bang - 1] === '!') bang--;
    const p = lc.linePos(bang >= 0 && !text.slice(bang, start).includes('\n') ? bang : start);
    const name = ((tagged as { tag?: string }).tag ?? '').replace(/^tag:yaml\.org,2002:/, '!!');
    throw inputError(
      `${path}:${p.line}:${p.col}: the YAML tag ${inQuotes(shown(name))} is not one kprof reads (it reads plain YAML 1.2 values). Remove the tag and write the value alone.`,
    );
  }
  // A tag the library does not know (`!custom Cast`) is dropped with a warning, the value read as a text: the file
  // meant something by it that kprof would not do.
  const tag = doc.warnings.find((w) => w.code === 'TAG_RESOLVE_FAILED');
  if (tag !== undefined) {
    const p = lc.linePos(tag.pos[0]);
    const name = (/^Unresolved tag: (\S+)/.exec(tag.message)?.[1] ?? 'a tag').replace(/^tag:yaml\.org,2002:/, '!!');
    throw inputError(
      `${path}:${p.line}:${p.col}: the YAML tag ${inQuotes(shown(name))} is not one kprof reads (it reads plain YAML 1.2 values). Remove the tag and write the value alone.`,
    );
  }
  const alias = firstAliasOrMerge(doc);
  if (alias !== null) {
    const p = positionOf(alias.node, lc);
    throw inputError(
      alias.what === 'alias'
        ? `${path}:${p.line}:${p.col}: a YAML alias (*name); kprof does not expand anchors and aliases in its files. Write the value out in full here.`
        : alias.what === 'merge'
          ? `${path}:${p.line}:${p.col}: a YAML merge key (<<); kprof does not merge mappings in its files. Write the keys out in full here.`
          : `${path}:${p.line}:${p.col}: a key that is ${describe(alias.node)}; kprof's files take a name as a key. Write the key as a word or a quoted text.`,
    );
  }
  return { doc, lc };
}

/**
 * The largest rules or groups file read. The YAML library parses some 0.3–0.5 MB a second (deep nesting costs
 * more), so this bounds what a hostile file costs to about a second; `kprof rules` writes some 50 KB (56 rules
 * with their comments) for a pair of 239 MB profiles by name, and a bare rule takes some 50 bytes.
 */
export const MAX_TEXT_FILE_BYTES = 256 << 10;

/** Read a rules or groups file as text: a regular file of at most 256 KiB. */
/** What a text file read by readText is, for its messages: its name, and what to do when it is too large. */
const TEXT_FILES = {
  rules: {
    what: 'a rules or groups file',
    fix:
      'Is this the right file? If it is: select many kernels in one rule (a groups: entry, match:, or a type: list) rather than ' +
      'one rule each, drop comments, or split the rules into several files and run kprof check once for each.',
  },
  catalogue: {
    what: 'a catalogue file',
    fix: 'Is this the right file? If it is: split its entries into several files (--catalogue takes several), or keep the entries you audit.',
  },
} as const;

/** A rules, groups or catalogue file's text (UTF-8, at most MAX_TEXT_FILE_BYTES); errors say which kind of file it is. */
export function readText(path: string, kind: keyof typeof TEXT_FILES = 'rules'): string {
  noteInput(path);
  const { what, fix } = TEXT_FILES[kind];
  const buf = readRegularFile(path, MAX_TEXT_FILE_BYTES, what, fix);
  const encoding = textEncoding(buf);
  if (encoding !== null) {
    throw inputError(
      `${path}: the file is ${encoding} text, expected UTF-8 (YAML or JSON). Convert it: iconv -f ${encoding} -t UTF-8 FILE > NEW, and pass the new file.`,
    );
  }
  if (buf.includes(0)) throw inputError(`${path}: binary data, expected a YAML or JSON text file.`);
  return buf.toString('utf8').replace(/^\uFEFF/, '');
}

/** Read a `--groups` file. */
export function readGroupsFile(path: string): UserGroup[] {
  const text = readText(path);
  const { doc, lc } = parseYaml(path, text);
  return groupsFromNode(path, doc.contents as Node | null, lc);
}
