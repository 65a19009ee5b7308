// Progress on stderr while large inputs are read. A no-op unless stderr is a TTY (and not --quiet).

/**
 * Counts the bytes read of one input. The reader calls it with the bytes read since the last call; it may also
 * tell the input's total size first (`total`), and that it has finished, whether it succeeded or not (`end`).
 */
export interface ByteCounter {
  (n: number): void;
  total?: (bytes: number) => void;
  end?: () => void;
}

export interface Progress {
  /** A byte counter for one input. */
  tracker(label: string): ByteCounter | undefined;
  /** Clear the bar. */
  done(): void;
}

export const noProgress: Progress = {
  tracker: () => undefined,
  done: () => {},
};
