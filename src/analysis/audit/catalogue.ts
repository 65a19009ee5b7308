// The fusion catalogue of `kprof audit`: entries read from YAML files (catalogue/*.yaml, shipped in the bundle
// through catalogueData.ts, and the user's own with --catalogue), checked against the schema below. Each entry names
// the fused kernel type(s), the chain of device kernel types that runs instead when the fusion does not happen, and
// where each fact comes from. catalogue/README.md describes the format.

import { describe, parseYaml, positionOf, yaml11Hint } from '../../aggregate/userGroups.js';
import { CATALOGUE_FILES } from './catalogueData.js';
import { inputError } from '../../util/errors.js';
import { shown, inQuotes } from '../../util/inputText.js';

/** One element of a chain: any of these types; optional elements may be missing. */
export interface ChainElement {
  types: string[];
  optional: boolean;
}

/** Where a fact comes from: a URL, or a file of a repository (at a commit when known). */
export interface Source {
  url?: string;
  /** A profile the fact was measured in (entries written by kprof diff --save-fusions). */
  profile?: string;
  repo?: string;
  path?: string;
  commit?: string;
  says: string;
}

export interface CatalogueEntry {
  id: string;
  /** The file the entry was read from (as given, or catalogue/<name>.yaml for the shipped ones). */
  file: string;
  fused: string[];
  api: string;
  versions: string;
  perLayer: boolean;
  /** The unfused chains: the main one first, then the variants. Empty: the entry counts the fused kernel only. */
  chains: ChainElement[][];
  maxGap: number | null;
  chainSource: string;
  typeSource: string;
  sources: Source[];
}

/** The keys an entry may have, and which it must. */
const ENTRY_KEYS = ['id', 'fused', 'api', 'versions', 'per_layer', 'chain', 'variants', 'max_gap', 'chain_source', 'type_source', 'sources'];
const REQUIRED = ['id', 'fused', 'api', 'versions', 'chain_source', 'type_source', 'sources'];
const SOURCE_KEYS = ['url', 'repo', 'path', 'commit', 'profile', 'says'];
/** A kernel type as an element names it: what a Type cell holds (no `|` or `?`, which the element syntax uses). */
export const TYPE_RE_SOURCE = '^[A-Za-z0-9_.:\\-/]{1,120}$';
const TYPE_RE = new RegExp(TYPE_RE_SOURCE);
const ID_RE = /^[a-z0-9][a-z0-9-]{0,63}$/;
/** The longest chain an entry may have (a chain is matched kernel by kernel; a longer one is a mistake). */
export const MAX_CHAIN = 64;
export const MAX_GAP = 16;

/** A chain element from its text: `A|B` any of these types, a trailing `?` optional. */
export function parseElement(text: string): ChainElement | null {
  const optional = text.endsWith('?');
  const types = (optional ? text.slice(0, -1) : text).split('|');
  if (types.length === 0 || !types.every((t) => TYPE_RE.test(t))) return null;
  return { types, optional };
}

/** The entries of one catalogue file; errors name the file, line and what is wrong. */
export function parseCatalogue(file: string, text: string): CatalogueEntry[] {
  const { doc, lc } = parseYaml(shown(file), text);
  const nodeAt = (path: (string | number)[]): Parameters<typeof positionOf>[0] => doc.getIn(path, true) as Parameters<typeof positionOf>[0];
  const where = (path: (string | number)[]): string => {
    const p = positionOf(nodeAt(path), lc);
    return `${shown(file)}:${p.line}:${p.col}`;
  };
  const root = doc.toJS({ maxAliasCount: 0 }) as unknown;
  if (root === null || typeof root !== 'object' || Array.isArray(root) || !Array.isArray((root as { entries?: unknown }).entries)) {
    throw inputError(`${shown(file)}: expected a mapping with an "entries" list of fusion entries (see catalogue/README.md).`);
  }
  const out: CatalogueEntry[] = [];
  (root as { entries: unknown[] }).entries.forEach((raw, i) => {
    // An error names the line of the value it is about (`path` below the entry; the entry itself without one) and,
    // where a value is wrong, what the file holds there, as the file writes it.
    const bad = (what: string, path: (string | number)[] = []): never => {
      throw inputError(`${where(['entries', i, ...path])}: entry ${i + 1}: ${what} (see catalogue/README.md).`);
    };
    const found = (path: (string | number)[]): string => `; found ${describe(nodeAt(['entries', i, ...path]))}`;
    if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) bad(`expected a mapping${found([])}`);
    const e = raw as Record<string, unknown>;
    for (const k of Object.keys(e))
      if (!ENTRY_KEYS.includes(k)) bad(`unknown key ${inQuotes(shown(k))}; expected one of ${ENTRY_KEYS.join(', ')}`, [k]);
    for (const k of REQUIRED) if (e[k] === undefined) bad(`"${k}" is missing`);
    const text = (k: string): string => {
      const v = e[k];
      if (typeof v !== 'string' || v.trim() === '') bad(`"${k}": expected a text${found([k])}`, [k]);
      return (v as string).trim();
    };
    const id = text('id');
    if (!ID_RE.test(id)) bad(`"id": expected lower-case letters, digits and -; found ${inQuotes(shown(id))}`, ['id']);
    const twin = out.findIndex((o) => o.id === id);
    if (twin >= 0) bad(`"id": "${id}" is the id of entry ${twin + 1} already; give each entry an id of its own`, ['id']);
    const fused = e.fused;
    if (!Array.isArray(fused) || fused.length === 0) bad(`"fused": expected a list of kernel types${found(['fused'])}`, ['fused']);
    (fused as unknown[]).forEach((t, k) => {
      if (typeof t !== 'string' || !TYPE_RE.test(t)) bad(`"fused": expected a kernel type${found(['fused', k])}`, ['fused', k]);
    });
    const chainOf = (v: unknown, path: (string | number)[]): ChainElement[] => {
      const key = path[0] as string;
      if (!Array.isArray(v) || v.length === 0 || v.length > MAX_CHAIN) {
        const n = Array.isArray(v) ? `; found a list of ${v.length}` : found(path);
        bad(`"${key}": expected a list of 1 to ${MAX_CHAIN} kernel types${n}`, path);
      }
      const chain = (v as unknown[]).map((x, k): ChainElement => {
        const el = typeof x === 'string' ? parseElement(x) : null;
        return el ?? bad(`"${key}": each element is a kernel type, A|B (either) or A? (optional)${found([...path, k])}`, [...path, k]);
      });
      if (chain[0]!.optional) bad(`"${key}": the first element may not be optional${found([...path, 0])}`, [...path, 0]);
      chain.forEach((el, k) => {
        for (const t of el.types) if ((fused as string[]).includes(t)) bad(`"${key}": the fused type ${shown(t)} is in its own chain`, [...path, k]);
      });
      return chain;
    };
    const chains: ChainElement[][] = [];
    if (e.chain !== undefined) chains.push(chainOf(e.chain, ['chain']));
    if (e.variants !== undefined) {
      if (e.chain === undefined) bad('"variants" without a "chain"', ['variants']);
      if (!Array.isArray(e.variants)) bad(`"variants": expected a list of chains${found(['variants'])}`, ['variants']);
      for (const [k, v] of (e.variants as unknown[]).entries()) chains.push(chainOf(v, ['variants', k]));
    }
    let maxGap: number | null = null;
    if (e.max_gap !== undefined) {
      if (typeof e.max_gap !== 'number' || !Number.isInteger(e.max_gap) || e.max_gap < 0 || e.max_gap > MAX_GAP)
        bad(`"max_gap": expected a whole number 0 to ${MAX_GAP}${found(['max_gap'])}`, ['max_gap']);
      maxGap = e.max_gap as number;
    }
    if (e.per_layer !== undefined && typeof e.per_layer !== 'boolean')
      bad(`"per_layer": expected true or false${found(['per_layer'])}${yaml11Hint(nodeAt(['entries', i, 'per_layer']))}`, ['per_layer']);
    const sources = e.sources;
    if (!Array.isArray(sources) || sources.length === 0) bad(`"sources": expected a list of at least one source${found(['sources'])}`, ['sources']);
    const srcs = (sources as unknown[]).map((s, j) => {
      const at = ['sources', j];
      if (s === null || typeof s !== 'object' || Array.isArray(s)) bad(`source ${j + 1}: expected a mapping${found(at)}`, at);
      const r = s as Record<string, unknown>;
      for (const k of Object.keys(r))
        if (!SOURCE_KEYS.includes(k))
          bad(`source ${j + 1}: unknown key ${inQuotes(shown(k))}; expected one of ${SOURCE_KEYS.join(', ')}`, [...at, k]);
      for (const k of SOURCE_KEYS)
        if (r[k] !== undefined && typeof r[k] !== 'string') bad(`source ${j + 1}: "${k}": expected a text${found([...at, k])}`, [...at, k]);
      if (typeof r.says !== 'string' || r.says.trim() === '') bad(`source ${j + 1}: "says" is missing: what the source says`, at);
      const hasUrl = typeof r.url === 'string' && /^https:\/\/\S+$/.test(r.url);
      const hasRepo = typeof r.repo === 'string' && /^[\w.-]+\/[\w.-]+$/.test(r.repo) && typeof r.path === 'string' && r.path !== '';
      const hasProfile = typeof r.profile === 'string' && r.profile !== '';
      if (!hasUrl && !hasRepo && !hasProfile)
        bad(`source ${j + 1}: expected a "url" (https://…), a "repo" (owner/name) with a "path", or the "profile" it was measured in`, at);
      if (r.commit !== undefined && !/^[0-9a-f]{40}$/.test(r.commit as string))
        bad(`source ${j + 1}: "commit": expected 40 hex digits${found([...at, 'commit'])}`, [...at, 'commit']);
      return r as unknown as Source;
    });
    out.push({
      id,
      file,
      fused: fused as string[],
      api: text('api'),
      versions: text('versions'),
      perLayer: e.per_layer === true,
      chains,
      maxGap,
      chainSource: text('chain_source'),
      typeSource: text('type_source'),
      sources: srcs,
    });
  });
  return out;
}

/** Entries of several files, ids unique across them (a later file may not redefine an id). */
export function joinCatalogues(parts: CatalogueEntry[][]): CatalogueEntry[] {
  const seen = new Map<string, string>();
  const all: CatalogueEntry[] = [];
  for (const part of parts) {
    for (const e of part) {
      const before = seen.get(e.id);
      if (before !== undefined)
        throw inputError(`${shown(e.file)}: the id ${inQuotes(shown(e.id))} is in ${shown(before)} already; give the entry another id.`);
      seen.set(e.id, e.file);
      all.push(e);
    }
  }
  return all;
}

/** The gap an entry's chains allow between two elements (see catalogue/README.md). */
export function gapOf(e: CatalogueEntry, chain: ChainElement[]): number {
  return e.maxGap ?? (chain.length >= 4 ? 2 : 0);
}

/** A chain as the catalogue writes it. */
export function chainText(chain: ChainElement[]): string {
  return chain.map((el) => `${el.types.join('|')}${el.optional ? '?' : ''}`).join(' ');
}

/** The catalogue shipped with kprof (catalogue/*.yaml), read once. */
let shipped: CatalogueEntry[] | null = null;
export function shippedCatalogue(): CatalogueEntry[] {
  shipped ??= joinCatalogues(CATALOGUE_FILES.map((f) => parseCatalogue(f.file, f.text)));
  return shipped;
}
