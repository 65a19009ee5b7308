// kprof's sentences (headline, warnings, what was compared) in HTML: the sentence builders of the text formats
// take a function that shows text from input; here it marks that text (clipped as everywhere), and html() then
// escapes the whole sentence and turns the marks into <code> elements. The marks are control characters, which
// clipped() never lets through from input, so no input text can open or close a <code> of its own.

import { clipped } from '../../util/inputText.js';
import { esc } from './markup.js';

const OPEN = '\u0001';
const CLOSE = '\u0002';

export const sentence = {
  /** Text from input in a sentence. */
  code: (s: string, max?: number): string => `${OPEN}${clipped(s, max)}${CLOSE}`,
  /** A sentence made with `code`, as HTML. */
  html: (s: string): string => esc(s).replaceAll(OPEN, '<code>').replaceAll(CLOSE, '</code>'),
};
