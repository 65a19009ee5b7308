// Progress on stderr while large inputs are read. A no-op unless stderr is a TTY (and not --quiet).

export interface Progress {
  /** A byte counter for one input. */
  tracker(label: string): ((n: number) => void) | undefined;
  /** Clear the bar. */
  done(): void;
}

export const noProgress: Progress = {
  tracker: () => undefined,
  done: () => {},
};
