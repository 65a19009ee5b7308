// The YAML library, loaded on first use: only --groups and check read YAML, and loading it costs every other
// run some 30 ms. The same functions as 'yaml', with their type guards.

import { createRequire } from 'node:module';
import type { Alias, LineCounter, Node, Scalar, YAMLMap, YAMLSeq } from 'yaml';

type Yaml = typeof import('yaml');

let lib: Yaml | null = null;

function yaml(): Yaml {
  lib ??= createRequire(import.meta.url)('yaml') as Yaml;
  return lib;
}

export function isMap(n: unknown): n is YAMLMap<unknown, unknown> {
  return yaml().isMap(n);
}

export function isSeq(n: unknown): n is YAMLSeq<unknown> {
  return yaml().isSeq(n);
}

export function isScalar(n: unknown): n is Scalar<unknown> {
  return yaml().isScalar(n);
}

/** A scalar's text: a number as the file writes it (1.10, 0x10, 007), not the number YAML read; else its value as text. */
export function scalarText(n: Scalar<unknown>): string {
  return typeof n.value === 'number' ? (n.source ?? String(n.value)) : String(n.value);
}

/**
 * An id's text: a string as is, an exact whole number as its value (01 is 1), another number as written
 * (99999999999999999999, not the 100000000000000000000 it parses to); '' for anything else.
 */
export function idText(n: Scalar<unknown>): string {
  if (typeof n.value === 'string') return n.value;
  if (typeof n.value !== 'number') return '';
  return Number.isSafeInteger(n.value) ? String(n.value) : scalarText(n);
}

export function isAlias(n: unknown): n is Alias {
  return yaml().isAlias(n);
}

/**
 * The first alias (`*name`) or merge key (`<<`) in a document, or null. kprof's files are read node by node,
 * without expanding aliases, so a "billion laughs" document costs nothing; but an alias would be read as
 * something it is not, so it is refused, with its position, rather than half understood.
 */
export function firstAliasOrMerge(doc: ReturnType<Yaml['parseDocument']>): { node: Node; what: 'alias' | 'merge' | 'key' } | null {
  let found: { node: Node; what: 'alias' | 'merge' | 'key' } | null = null;
  yaml().visit(doc, {
    Alias(_, node) {
      found = { node: node as Node, what: 'alias' };
      return yaml().visit.BREAK;
    },
    Pair(_, pair) {
      const key = pair.key;
      if (yaml().isScalar(key) && key.value === '<<') {
        found = { node: key as Node, what: 'merge' };
        return yaml().visit.BREAK;
      }
      // A key that is a list or a mapping (`? [a, b]`), or nothing (`? ` alone): no name a file of kprof's takes
      // (the library would make a text of it, with a warning of its own on stderr, or read "null").
      const empty = yaml().isScalar(key) && key.value === null && (key.source ?? '') === '';
      if (key === null || empty || yaml().isCollection(key)) {
        found = { node: (key ?? pair.value) as Node, what: 'key' };
        return yaml().visit.BREAK;
      }
      return undefined;
    },
  });
  return found;
}

/**
 * The first node with a tag written on it other than `!!str` (`!!binary Q2FzdA==`, `!!int 5`), or null: the library
 * reads those it knows (a !!binary value becomes bytes, shown as their base64), where kprof's files hold plain values.
 */
export function firstTagged(doc: ReturnType<Yaml['parseDocument']>): Node | null {
  let found: Node | null = null;
  yaml().visit(doc, {
    Node(_, node) {
      const tag = (node as { tag?: string }).tag;
      if (tag === undefined || tag === 'tag:yaml.org,2002:str') return undefined;
      found = node as Node;
      return yaml().visit.BREAK;
    },
  });
  return found;
}

export function newLineCounter(): LineCounter {
  return new (yaml().LineCounter)();
}

export function parseDocument(text: string, lineCounter: LineCounter): ReturnType<Yaml['parseDocument']> {
  return yaml().parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
}

export type { LineCounter, Node };
