// Text from the input (kernel names, core names, patterns) as a message shows it.

/** Input text shown in a message: one line, no control characters, at most 60 characters. */
export function shown(s: string): string {
  // eslint-disable-next-line no-control-regex
  const t = s.replace(/[\u0000-\u001f\u007f-\u009f]/g, '?');
  return t.length > 60 ? `${t.slice(0, 60)}…` : t;
}

/** A message from elsewhere (an error, a warning) on one line, with no control characters; not clipped. */
export function oneLine(s: string): string {
  // eslint-disable-next-line no-control-regex
  return s.replace(/[\u0000-\u001f\u007f-\u009f]/g, '?');
}
