// The exit-code table and the one error type that carries a user-facing message.

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

export function inputError(message: string): KprofError {
  return new KprofError('input', message);
}

export function isKprofError(e: unknown): e is KprofError {
  return e instanceof KprofError;
}
