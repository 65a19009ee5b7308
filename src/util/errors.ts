// The exit-code table and the one error type that carries a user-facing message.

import { shown, inQuotes } from './inputText.js';

export const EXIT = {
  ok: 0,
  /** A check (rules gate) failed. */
  checkFailed: 1,
  /** Bad input or usage. */
  badInput: 2,
  /** An internal error: a bug of kprof (not of the input), to be reported. */
  internal: 3,
} as const;

export type ErrorKind = 'usage' | 'input';

/**
 * An error whose message is written for the user: it names the file (and line), what was expected, what
 * was found, and what to do. Thrown only for unusable input; row-level problems are warnings.
 */
export class KprofError extends Error {
  constructor(
    readonly kind: ErrorKind,
    message: string,
  ) {
    super(message);
    this.name = 'KprofError';
  }
}

export function usageError(message: string): KprofError {
  return new KprofError('usage', message);
}

/**
 * The items of a comma-separated option value (`--core AI_CORE,MIX_AIC`, `--rank 0,3`, `--steps 13,20-30`,
 * `audit --only a,b`), each trimmed. An empty item (`AI_CORE,`, `0,,3`: a stray comma, or a list joined from an
 * unset variable) is a usage error that names the option, the value found and the list to give, the same for
 * every list option: skipped, it would select other kernels than the list says. `items` says what the list
 * holds, with an example (`core types (AI_CORE,MIX_AIC)`). A value that is empty as a whole (an unset variable)
 * is each option's own message, said before this.
 */
export function listItems(flag: string, text: string, items: string): string[] {
  const list = text.split(',').map((s) => s.trim());
  if (list.includes('')) {
    throw usageError(
      `${flag}: expected ${items} separated by single commas; found an empty item in ${inQuotes(shown(text))}. Remove the stray comma.`,
    );
  }
  return list;
}

export function inputError(message: string): KprofError {
  return new KprofError('input', message);
}

export function isKprofError(e: unknown): e is KprofError {
  return e instanceof KprofError;
}
