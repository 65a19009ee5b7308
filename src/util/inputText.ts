// Text from input (kernel names and types, core names, patterns, folder and file names, rank ids, rules files,
// summary JSON strings) is untrusted: CI runners and terminals read kprof's output. Every report, warning and
// message shows it through the one scheme here (docs/safety.md).

/**
 * What a CI runner reads as a workflow command anywhere in a line: `##[` (GitHub, Azure), and the `##` of `##vso[`
 * (Azure Pipelines) and `##teamcity[` (TeamCity), any case. Every escaping of text and JSON below matches it.
 */
const CI_COMMAND = '##\\[|##(?=(?:[vV][sS][oO]|[tT][eE][aA][mM][cC][iI][tT][yY])\\[)';

/**
 * Characters that show as nothing, so that a name holding one looks like another name (`Cast\u200b` like `Cast`):
 * the soft hyphen U+00AD, U+180E, the zero-width space, non-joiner and joiner U+200B–U+200D, the word joiner and
 * invisible operators U+2060–U+2064, the deprecated format characters U+206A–U+206F and U+FEFF (a zero-width
 * no-break space inside a name). A character class's contents, in every pattern below.
 */
const INVISIBLE = '\\u00ad\\u180e\\u200b-\\u200d\\u2060-\\u2064\\u206a-\\u206f\\ufeff';

/**
 * The spaces that are not U+0020 but show as one (no-break U+00A0, U+1680, U+2000–U+200A, U+202F, U+205F, U+3000):
 * a name is read with them (only ASCII white space is a cell's padding), so `Cast\u00a0` is not `Cast`, and must not
 * look like it. A character class's contents.
 */
const LOOKALIKE_SPACES = '\\u00a0\\u1680\\u2000-\\u200a\\u202f\\u205f\\u3000';

/**
 * The unsafe characters that JSON.stringify leaves raw (all but the C0 controls), a character class's contents:
 * what jsonSafe escapes, and with the C0 controls what escaped() escapes.
 */
const RAW_IN_JSON = `${INVISIBLE}${LOOKALIKE_SPACES}\\u007f-\\u009f\\u061c\\u200e\\u200f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069\\ufffe\\uffff`;

/** The unsafe characters (see UNSAFE_SOURCE), a character class's contents. */
const UNSAFE_CLASS = `\\u0000-\\u001f${RAW_IN_JSON}`;

/**
 * Characters that never reach output raw: C0 controls (TAB, LF and CR included), DEL, C1 controls, the line and
 * paragraph separators U+2028/U+2029, the bidirectional controls (U+061C, U+200E, U+200F, U+202A–U+202E,
 * U+2066–U+2069), the invisible characters (INVISIBLE), the spaces that look like U+0020 (LOOKALIKE_SPACES), the noncharacters U+FFFE/U+FFFF and lone surrogates (XML
 * cannot hold them). Also `##[`, `##vso[` and `##teamcity[` (any case) anywhere, and `::` at the start (after any
 * white space, which a GitHub runner trims): runners read those as workflow commands (an Azure Pipelines agent acts
 * on the first `##vso[` anywhere in a line, TeamCity on every `##teamcity[`).
 */
const UNSAFE_SOURCE = `[${UNSAFE_CLASS}]|[\\ud800-\\udbff](?![\\udc00-\\udfff])|(?<![\\ud800-\\udbff])[\\udc00-\\udfff]|${CI_COMMAND}|^\\s*::`;
const UNSAFE = new RegExp(UNSAFE_SOURCE, 'g');

/**
 * What escaped() writes besides: a backslash that would read as the start of an escape (`\xHH` or `\uHHHH`,
 * either case), so that a name's own text `\x1b` never reads as ESC.
 */
const ESCAPE_LIKE = '\\\\(?=x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4})';
const INPUT_UNSAFE = new RegExp(`${UNSAFE_SOURCE}|${ESCAPE_LIKE}`, 'g');

/** `\xHH` below U+0080, else `\uHHHH` (so a C1 control, `\u0085`, is never read as the byte 0x85, `\x85`). */
export function hexEscape(c: number): string {
  return c < 0x80 ? `\\x${c.toString(16).padStart(2, '0')}` : `\\u${c.toString(16).padStart(4, '0')}`;
}

/** One unsafe character (the first alternatives of UNSAFE). */
const UNSAFE_CHAR = new RegExp(`[${UNSAFE_CLASS}]`, 'g');

function escapeUnsafe(m: string): string {
  if (m === '##[') return `${hexEscape(0x23)}#[`;
  if (m === '##') return `${hexEscape(0x23)}#`;
  if (m === '\\') return hexEscape(0x5c);
  // A byte that was not UTF-8, kept by the readers as U+DC80–U+DCFF (csv/scan.ts decodeKeepingBytes): `\xNN`
  // with upper-case digits, as the byte it was (a character from U+0080 up is `\uHHHH`, so the two never meet).
  const c = m.charCodeAt(0);
  if (m.length === 1 && c >= 0xdc80 && c <= 0xdcff) return `\\x${(c - 0xdc00).toString(16).toUpperCase()}`;
  // White space then `::`: the white space kept (escaped where it is unsafe itself), the first colon escaped.
  if (m.endsWith('::')) return `${m.slice(0, -2).replace(UNSAFE_CHAR, (c) => hexEscape(c.charCodeAt(0)))}${hexEscape(0x3a)}:`;
  return hexEscape(c);
}

/**
 * Text from input as every text format shows it, one text at a time: each unsafe character (see UNSAFE) is
 * written as `\xHH` (below U+0080) or `\uHHHH`, so a line break becomes `\x0a`, ESC `\x1b` and the C1 control
 * U+009B `\u009b`; `##[` becomes `\x23#[`, `##vso[` `\x23#vso[` (`##teamcity[` alike) and a leading `::` becomes
 * `\x3a:`. A byte of a file that was not UTF-8 (kept as U+DC80–U+DCFF) is written `\xNN` with upper-case digits
 * (`\x85`, `\xC3`): only bytes from 0x80 up are written so. A backslash that starts what reads as an escape (`\x` and two hex digits, `\u` and four)
 * is written `\x5c`; other backslashes, and all other text, are unchanged. So the escaped text reads back to
 * one text only: `\x5cx1b` is the four characters `\x1b`, `\x1b` is ESC. JSON keeps the exact text (see
 * jsonSafe below). Not idempotent, by necessity: a message that holds escaped text goes through oneLine().
 */
export function escaped(s: string): string {
  INPUT_UNSAFE.lastIndex = 0;
  return INPUT_UNSAFE.test(s) ? s.replace(INPUT_UNSAFE, escapeUnsafe) : s;
}

/** The most characters of one text from input (a name, a rank) that a table cell, a headline or a message shows. */
export const CELL_WIDTH = 120;

/** The width that shows a text whole: for paths, which the file system keeps short. */
export const WHOLE = Number.POSITIVE_INFINITY;

/**
 * escaped(s), cut to at most `max` characters (code points) with `…` as the last one. Only the start of a long
 * text is looked at, so a name of any size costs what its first characters cost.
 */
export function clipped(s: string, max = CELL_WIDTH): string {
  return cut(s, max, max - 1);
}

/** escaped(s) whole when it has at most `max` characters, else its first `keep` and `…`. */
function cut(s: string, max: number, keep: number): string {
  // A code point is at most 2 code units: a longer text has more than max + 1 characters, and is cut.
  // A few more code units than that, so that a backslash near the cut is escaped as it is in the whole text.
  const head = s.length > 2 * max + 8 ? s.slice(0, 2 * max + 8) : s;
  const text = escaped(head);
  if (text.length <= max) return text;
  const points = Array.from(text);
  if (points.length <= max) return text;
  // An escape cut in the middle (`\x1…`) would read as a name's own backslash: it is left out whole (and so is
  // a backslash of the name's own just before the cut, which costs nothing).
  return `${points
    .slice(0, keep)
    .join('')
    .replace(/\\(?:x[0-9a-fA-F]?|u[0-9a-fA-F]{0,3})?$/, '')}…`;
}

/**
 * A word of a command line that a message suggests (a path, an option's value), as a POSIX shell reads it back:
 * escaped() as all input text, bare when it holds only characters no shell treats specially (letters, digits and
 * `_ . , : @ % + = / -`), else in single quotes, each of its own single quotes written `'\''`. So `gunzip -k
 * 'my run/x.db.gz'` pastes as it reads. A word escaped() changed (a control character, a byte that is not UTF-8) is
 * in ANSI-C quotes instead, `$'a\x0ab'`, which bash, zsh and ksh read back to the very name (the escapes are the
 * shell's own; its other backslashes doubled, its quotes `\'`); the line still holds no control character. Never
 * clipped.
 */
export function shellWord(s: string): string {
  const t = escaped(s);
  if (t !== s) return `$'${t.replace(/\\(?!x[0-9A-Fa-f]{2}|u[0-9A-Fa-f]{4})/g, '\\\\').replace(/'/g, "\\'")}'`;
  return /^[\w.,:@%+=/-]+$/.test(t) ? t : `'${t.replace(/'/g, `'\\''`)}'`;
}

/**
 * Input text, already escaped (shown(), clipped(), excerpt()), in the double quotes of a message, its own double
 * quotes written `\x22`: so a name `a"` reads `"a\x22"`, never `"a""`. (A backslash of the name that starts what
 * reads as an escape is `\x5c` already: the text reads back to one name only.)
 */
export function inQuotes(text: string): string {
  return `"${text.includes('"') ? text.replaceAll('"', '\\x22') : text}"`;
}

/** A flag's value found empty (or white space only), as messages say it: most often `--flag "$VAR"` with VAR unset. */
export const EMPTY_VALUE = 'an empty value (an unset variable?)';

/** A flag's value as a message quotes it: `"x"` (shown()), or EMPTY_VALUE for an empty one. */
export function given(text: string): string {
  return text.trim() === '' ? EMPTY_VALUE : inQuotes(shown(text));
}

/** Input text shown in a message: escaped, at most 60 characters. */
export function shown(s: string): string {
  return clipped(s, 60);
}

/**
 * A message on one line, as stderr, an annotation or a report shows it: kprof's words with text from input in
 * them already escaped (shown(), clipped(), excerpt()), or an error of the system. Its unsafe characters (see
 * UNSAFE) are escaped as escaped() does; its backslashes are left alone, so that input text escaped in it is not
 * escaped twice (oneLine(oneLine(s)) is oneLine(s)). Not clipped.
 */
export function oneLine(s: string): string {
  UNSAFE.lastIndex = 0;
  return UNSAFE.test(s) ? s.replace(UNSAFE, escapeUnsafe) : s;
}

/**
 * A value from a file as a reader quotes it in a warning or an error: escaped() as all input text, and cut after
 * `max` characters with `…`, so that a damaged or binary-looking file can neither garble nor flood the terminal.
 */
export function excerpt(s: string, max = 40): string {
  return cut(s, max, max);
}

/**
 * JSON text made safe for a terminal or CI log without changing what it parses to: the unsafe characters that
 * JSON.stringify leaves raw (DEL, C1 controls, U+2028/U+2029, bidirectional controls, the invisible characters,
 * U+FFFE/U+FFFF) are
 * written as `\uHHHH` escapes, and `##[` as `\u0023#[` (`##vso[` as `\u0023#vso[`, `##teamcity[` alike).
 * JSON.stringify already escapes C0 controls and lone surrogates; outside strings JSON is plain ASCII, so the whole text can be passed through.
 */
export function jsonSafe(json: string): string {
  // Text of ASCII alone (its UTF-8 as long as itself) holds nothing to escape but DEL and a CI command's `##`: two
  // scans as fast as memchr, not the pattern's, over all but a few chunks of a large report.
  if (Buffer.byteLength(json) === json.length && !json.includes('\u007f') && !json.includes('##')) return json;
  return json.replace(JSON_UNSAFE, jsonEscape);
}

/**
 * jsonSafe that escapes the characters `extra` (a character class's contents) too, alike (`\\uHHHH`): made once,
 * used for each text.
 */
export function jsonSafeWith(extra: string): (json: string) => string {
  const unsafe = new RegExp(`[${extra}]|${JSON_UNSAFE.source}`, 'g');
  return (json) => json.replace(unsafe, jsonEscape);
}

/** A match of JSON_UNSAFE as a JSON escape: a CI command's `##` as `\\u0023#`, a character as `\\uHHHH`. */
function jsonEscape(m: string): string {
  return m.startsWith('##') ? `\\u0023${m.slice(1)}` : `\\u${m.charCodeAt(0).toString(16).padStart(4, '0')}`;
}

const JSON_UNSAFE = new RegExp(`[${RAW_IN_JSON}]|${CI_COMMAND}`, 'g');
