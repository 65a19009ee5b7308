// The YAML library, loaded on first use: only --groups and check read YAML, and loading it costs every other
// run some 30 ms. The same functions as 'yaml', with their type guards.

import { createRequire } from 'node:module';
import type { LineCounter, Node, Scalar, YAMLMap, YAMLSeq } from 'yaml';

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

export function newLineCounter(): LineCounter {
  return new (yaml().LineCounter)();
}

export function parseDocument(text: string, lineCounter: LineCounter): ReturnType<Yaml['parseDocument']> {
  return yaml().parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
}

export type { LineCounter, Node };
