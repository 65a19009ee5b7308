// Every regular expression a user gives kprof (--match, --exclude, /…/ members of --groups and rules files) is
// compiled here, by RE2 (the re2js port, pure JavaScript): it matches in time linear in the name, so no pattern
// can hang on an untrusted kernel name the way `^(a+)+$` hangs V8's backtracking engine on 40 characters.
//
// Why re2js: on 10,000 distinct kernel names of ~80 characters, V8 takes 0.4–3 ms per pattern, re2js's test()
// 3–15 ms, re2-wasm 40–85 ms (every string is copied into WebAssembly memory), and the `re2` addon would have to
// compile C++ in CI. A pattern runs once per distinct kernel group, never per row, so 15 ms at 10,000 groups is
// well within a run. The price is RE2's syntax: no lookaround and no backreferences, which are refused with the
// reason.
//
// The compiled pattern is a RegExp whose test() and exec() are RE2's, so the stages that hold patterns (the
// selection, user groups, rules) keep their RegExp types and read `source` and `flags` as before.

import { createRequire } from 'node:module';
import type { RE2JS as RE2JSClass } from 're2js';
import { excerpt, escaped } from './inputText.js';

/** The longest pattern accepted, in characters: a kernel name pattern is a few dozen; longer ones are refused unread. */
export const MAX_PATTERN_LENGTH = 4096;

type Re2Module = typeof import('re2js');

let lib: Re2Module | null = null;

/** Loaded on first use, like yaml: most runs compile no pattern. */
function re2(): Re2Module {
  lib ??= createRequire(import.meta.url)('re2js') as Re2Module;
  return lib;
}

/** Why a pattern is refused, for the caller to put in its message (which names the flag or file:line:col). */
export class PatternError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PatternError';
  }
}

/** A RegExp that matches with RE2. Only test() and exec() are used on user patterns; both are linear-time. */
class LinearRegExp extends RegExp {
  readonly #re2: RE2JSClass;
  readonly #source: string;
  readonly #flags: string;

  constructor(compiled: RE2JSClass, source: string, flags: string) {
    // The engine underneath is never run: the pattern it would backtrack on is kept out of it.
    super('(?!)');
    this.#re2 = compiled;
    this.#source = source;
    this.#flags = flags;
  }

  override get source(): string {
    return this.#source;
  }

  override get flags(): string {
    return this.#flags;
  }

  override get ignoreCase(): boolean {
    return this.#flags.includes('i');
  }

  override get multiline(): boolean {
    return this.#flags.includes('m');
  }

  override get dotAll(): boolean {
    return this.#flags.includes('s');
  }

  override test(s: string): boolean {
    return this.#re2.test(String(s));
  }

  override exec(s: string): RegExpExecArray | null {
    const text = String(s);
    const m = this.#re2.matcher(text);
    if (!m.find()) return null;
    const groups: string[] = [];
    for (let i = 0; i <= m.groupCount(); i++) groups.push(m.group(i) ?? (undefined as unknown as string));
    return Object.assign(groups, { index: m.start(), input: text, groups: undefined }) as RegExpExecArray;
  }

  override toString(): string {
    return `/${this.#source}/${this.#flags}`;
  }
}

/** JavaScript syntax RE2 does not have, with what to write instead. */
const UNSUPPORTED: { re: RegExp; what: string }[] = [
  { re: /\(\?<?[=!]/, what: 'lookaround ((?=, (?!, (?<=, (?<!)' },
  { re: /\\[1-9]|\\k</, what: 'backreferences (\\1, \\k<name>)' },
];

/**
 * Compile a user's pattern with the flags of `/…/flags` (i, m, s; u is accepted and changes nothing: RE2 reads
 * Unicode). Throws a PatternError that says why; it never quotes the whole of a long pattern.
 */
export function compilePattern(source: string, flags = ''): RegExp {
  if (source.length > MAX_PATTERN_LENGTH) {
    throw new PatternError(
      `the regular expression is ${source.length} characters long; at most ${MAX_PATTERN_LENGTH} are accepted. Match on a shorter part of the names`,
    );
  }
  for (const f of flags) {
    if (!'imsu'.includes(f)) throw new PatternError(`unknown flag "${f}"; expected any of i, m, s, u`);
  }
  const { RE2JS } = re2();
  let bits = 0;
  if (flags.includes('i')) bits |= RE2JS.CASE_INSENSITIVE;
  if (flags.includes('m')) bits |= RE2JS.MULTILINE;
  if (flags.includes('s')) bits |= RE2JS.DOTALL;
  // JavaScript's named groups (?<name>…) are RE2's (?P<name>…); lookbehind (?<= / (?<! is left for the check below.
  const re2Source = source.replace(/(^|[^\\])\(\?<(?![=!])/g, '$1(?P<');
  let compiled: RE2JSClass;
  try {
    compiled = RE2JS.compile(re2Source, bits);
  } catch (e) {
    const unsupported = UNSUPPORTED.find((u) => u.re.test(source));
    if (unsupported) {
      throw new PatternError(
        `${unsupported.what} cannot be used: kprof matches with RE2, which runs in time linear in the name and has no ${unsupported.what.split(' (')[0]}. Rewrite the expression without them`,
      );
    }
    const msg = e instanceof Error ? e.message.replace(/^error parsing regexp: /, '') : String(e);
    throw new PatternError(excerpt(msg, 120));
  }
  return new LinearRegExp(compiled, source, flags);
}

/**
 * A pattern as quoted in a message (between `quote`s): the first 40 characters, escaped as all input text is. A
 * pattern over MAX_PATTERN_LENGTH is refused unread, so none of it is quoted: only its length is given.
 */
export function quotePattern(source: string, quote = ''): string {
  if (source.length > MAX_PATTERN_LENGTH) return `of ${source.length} characters (not quoted)`;
  const text = source.length > 40 ? `${escaped(source.slice(0, 40))}… (${source.length} characters)` : escaped(source);
  return `${quote}${text}${quote}`;
}
