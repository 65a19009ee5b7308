// Kernel names of CUDA/ROCm traces are demangled C++ signatures that reach kilobytes:
//   void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, …>(int, …)
// With the shortening option a name keeps its qualified name only: template arguments (`<…>`), parameter lists
// (`(…)`) and the return type are stripped, as HTA's shorten_name does for its summaries:
//   at::native::vectorized_elementwise_kernel
// `(anonymous namespace)` is part of a qualified name and stays. A name whose brackets do not balance, or that
// would become empty, is kept as it is: shortening never merges a name into nothing.

const ANON = '(anonymous namespace)';

export function shortenName(name: string): string {
  if (name.indexOf('<') < 0 && name.indexOf('(') < 0) return name;
  let out = '';
  let angle = 0;
  let paren = 0;
  for (let i = 0; i < name.length; i++) {
    const c = name[i]!;
    if (angle === 0 && paren === 0) {
      if (c === '(' && name.startsWith(ANON, i)) {
        out += ANON;
        i += ANON.length - 1;
        continue;
      }
      // `operator()`, `operator<` and the like name a function: keep them.
      if ((c === '(' || c === '<') && out.endsWith('operator')) {
        if (name.startsWith('()', i)) {
          out += '()';
          i++;
          continue;
        }
        out += c;
        continue;
      }
      if (c === '<') angle++;
      else if (c === '(') paren++;
      else if (c === '>' || c === ')') return name;
      else out += c;
      continue;
    }
    if (c === '<') angle++;
    else if (c === '>') {
      // `->` inside a lambda's signature is not a closing bracket.
      if (name[i - 1] !== '-') angle--;
    } else if (c === '(') paren++;
    else if (c === ')') paren--;
    if (angle < 0 || paren < 0) return name;
  }
  if (angle !== 0 || paren !== 0) return name;
  // The return type and qualifiers: the last word that is not inside `(anonymous namespace)`.
  const words = out.trim().replaceAll(ANON, '\u0000').split(/\s+/);
  const last = (words[words.length - 1] ?? '').replaceAll('\u0000', ANON);
  const kept = last === 'const' && words.length > 1 ? (words[words.length - 2] ?? '').replaceAll('\u0000', ANON) : last;
  return kept === '' ? name : kept;
}

/** Full names kept per short name, to say which kernels one short name stands for: enough to count them. */
export const SHORT_NAMES_KEPT = 1_000;

/** Shortened names a reader remembers before it starts again (memory stays bounded on traces of unique names). */
const CACHE_LIMIT = 100_000;

/**
 * --short-names for one file: shortenName() with a bounded cache, and which short names stand for more than one
 * full name (kernels that differ in their template arguments), so that the report can say what it grouped
 * together. The full names of such a short name are kept up to SHORT_NAMES_KEPT.
 */
export class Shortener {
  private readonly cache = new Map<string, string>();
  /** Full names seen, per short name that differs from them. */
  private readonly fulls = new Map<string, Set<string>>();
  private tracked = 0;

  name(full: string): string {
    let s = this.cache.get(full);
    if (s === undefined) {
      s = shortenName(full);
      if (this.cache.size >= CACHE_LIMIT) this.cache.clear();
      this.cache.set(full, s);
      if (s !== full) {
        const set = this.fulls.get(s) ?? new Set<string>();
        if (set.size < SHORT_NAMES_KEPT && this.tracked < CACHE_LIMIT && !set.has(full)) {
          set.add(full);
          this.tracked++;
        }
        this.fulls.set(s, set);
      }
    }
    return s;
  }

  /** The short names that stand for more than one full name, with those full names (sorted), by short name. */
  merged(): { name: string; names: string[] }[] {
    const out: { name: string; names: string[] }[] = [];
    for (const [name, set] of this.fulls) if (set.size > 1) out.push({ name, names: [...set].sort() });
    return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }
}
