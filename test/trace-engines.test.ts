// The trace scanner's two engines (the WebAssembly fast path, events.wat, and the JavaScript scanner) against
// JSON.parse: on random traces (escapes and unicode in names and member names, numbers in every JSON form, white
// space anywhere, nested args, cut at random) both locate exactly what JSON.parse reads; on damaged traces both
// fail at the same byte with the same message; on every real sample both give JSON.parse's events, and the
// reader the same records.

import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Engine } from '../src/input/engine.js';
import { ChromeTraceReader } from '../src/input/formats/trace/chromeTrace.js';
import type { TraceRecord } from '../src/input/formats/trace/record.js';
import { ARRAY, EventScanner, type EventView, FALSE, JsonTraceError, NULL, NUMBER, OBJECT, STRING, TRUE } from '../src/input/json/eventScanner.js';
import { REAL, ROOT, realData } from './helpers.js';

const HAS_REAL = realData(import.meta.url);

const EVENT_KEYS = ['ph', 'name', 'cat', 'pid', 'tid', 'ts', 'dur', 'args'];
const ARG_KEYS = ['name', 'Task Type', 'stream', 'correlation', 'Physic Stream Id', 'Stream Id'];
const ENGINES: Engine[] = ['simd', 'js'];

/** Each event as JSON.parse would give its asked-for fields: [key, value] in field order (absent left out). */
type Fields = [string, unknown][];

function viewValue(v: EventView, i: number): unknown {
  const k = v.kind(i);
  const [s, e] = v.span(i);
  if (k === STRING) return v.str(i);
  if (k === NUMBER) return Number(v.buf.toString('latin1', s, e));
  if (k === TRUE) return true;
  if (k === FALSE) return false;
  if (k === NULL) return null;
  if (k === OBJECT || k === ARRAY) {
    // A skipped string's escapes are not checked (damaged input): then the text as written.
    const raw = v.buf.toString('utf8', s, e);
    try {
      return JSON.parse(raw) as unknown;
    } catch {
      return { raw };
    }
  }
  throw new Error(`kind ${k}`);
}

/**
 * Whether an event is of use, by the values of its ph, cat and name (as JSON.parse reads them): a pure function of
 * them, of use for about two in three spellings. Traces repeat their spellings, so answers are kept and reused.
 */
function useOf(values: unknown[]): boolean {
  const t = JSON.stringify(values);
  let h = 2166136261;
  for (let i = 0; i < t.length; i++) h = Math.imul(h ^ t.charCodeAt(i), 16777619);
  return (h >>> 0) % 3 !== 0;
}
const DECIDE = ['ph', 'cat', 'name'];

/**
 * Scan `bytes` (cut at `cuts`) with one engine: the fields of each event, or the error. `filter`: with a wantRest
 * on ph, cat and name (useOf), the events of use, then the counts [events, skipped].
 */
function scan(bytes: Buffer, engine: Engine, cuts: number[] = [], filter = false, reuse = false): Fields[] | { offset: number; what: string } {
  const out: Fields[] = [];
  const wantRest = (v: EventView): boolean => {
    try {
      return useOf(DECIDE.map((k) => viewValue(v, EVENT_KEYS.indexOf(k))));
    } catch {
      // A damaged escape: of use (the error comes when the event is read).
      return true;
    }
  };
  const s = new EventScanner(
    { eventKeys: EVENT_KEYS, argKeys: ARG_KEYS, engine, ...(filter ? { wantRest, decideOn: DECIDE, intern: 'name' } : {}) },
    {
      event(v) {
        const f: Fields = [];
        for (let i = 0; i < EVENT_KEYS.length + ARG_KEYS.length; i++) {
          if (v.kind(i) === 0) continue;
          f.push([i < EVENT_KEYS.length ? EVENT_KEYS[i]! : `args.${ARG_KEYS[i - EVENT_KEYS.length]}`, viewValue(v, i)]);
        }
        out.push(f);
      },
    },
  );
  // `reuse`: every chunk in the same memory, overwritten as soon as push returns (as traceChunks reuses it).
  const shared = Buffer.alloc(bytes.length);
  const push = (piece: Buffer): void => {
    if (!reuse) {
      s.push(Buffer.from(piece));
      return;
    }
    piece.copy(shared);
    s.push(shared.subarray(0, piece.length));
    shared.fill('{"x":');
  };
  try {
    let from = 0;
    for (const c of [...cuts].sort((a, b) => a - b)) {
      if (c <= from || c >= bytes.length) continue;
      push(bytes.subarray(from, c));
      from = c;
    }
    push(bytes.subarray(from));
    s.finish();
  } catch (e) {
    if (e instanceof JsonTraceError) return { offset: e.offset, what: e.what };
    throw e;
  }
  if (filter)
    out.push([
      ['events', s.events],
      ['skipped', s.skipped],
    ]);
  return out;
}

/** What JSON.parse reads of the same trace, in the scanner's terms (`filter`: as scan filters). */
function expected(text: string, filter = false): Fields[] {
  const doc = JSON.parse(text) as unknown;
  const all = (Array.isArray(doc) ? doc : (doc as { traceEvents: unknown[] }).traceEvents) as Record<string, unknown>[];
  const events = filter ? all.filter((e) => !DECIDE.every((k) => Object.hasOwn(e, k)) || useOf(DECIDE.map((k) => e[k]))) : all;
  const out = events.map((e) => {
    const f: Fields = [];
    for (const k of EVENT_KEYS) if (Object.hasOwn(e, k)) f.push([k, e[k]]);
    const args = e.args;
    if (args !== null && typeof args === 'object' && !Array.isArray(args)) {
      for (const k of ARG_KEYS) if (Object.hasOwn(args, k)) f.push([`args.${k}`, (args as Record<string, unknown>)[k]]);
    }
    return f;
  });
  if (filter)
    out.push([
      ['events', all.length],
      ['skipped', all.length - events.length],
    ]);
  return out;
}

// ----- random traces, written with random white space and escapes -----

type Value =
  | { t: 'num'; raw: string }
  | { t: 'str'; s: string; esc: number[] }
  | { t: 'lit'; v: true | false | null }
  | { t: 'arr'; items: Value[] }
  | { t: 'obj'; members: [Key, Value][] };
type Key = { s: string; esc: number[] };

const ws = fc.constantFrom('', '', '', ' ', '\n', '\t', ' \r\n  ');
const numberText = fc
  .tuple(
    fc.boolean(),
    fc.oneof(fc.constant('0'), fc.stringMatching(/^[1-9][0-9]{0,17}$/)),
    fc.option(fc.stringMatching(/^[0-9]{1,12}$/)),
    fc.option(fc.tuple(fc.constantFrom('e', 'E'), fc.constantFrom('', '+', '-'), fc.stringMatching(/^[0-9]{1,3}$/))),
  )
  .map(([neg, int, frac, exp]) => `${neg ? '-' : ''}${int}${frac === null ? '' : `.${frac}`}${exp === null ? '' : exp.join('')}`);
// Names like the real ones, and text with quotes, backslashes, control characters, non-ASCII and astral characters.
const text = fc.oneof(
  fc.constantFrom('X', 'M', 'kernel', 'cpu_op', 'ProfilerStep#3', 'void at::native::k<float, 4>(int)', 'AI_CORE', 'Stream 7'),
  fc.string({ unit: 'grapheme', maxLength: 12 }),
  fc.string({ unit: fc.constantFrom('"', '\\', '/', '\n', '\u0001', 'é', '名', '😀', 'a', ' '), maxLength: 10 }),
);
/** Which characters of a string to write as \uXXXX (or \/, \", \\ where they are). */
const escapes = fc.array(fc.nat(20), { maxLength: 3 });
const str = fc.record({ t: fc.constant('str' as const), s: text, esc: escapes });
const key = (names: string[]): fc.Arbitrary<Key> =>
  fc.record({
    s: fc.oneof(fc.constantFrom(...names), fc.constantFrom('External id', 'grid', 'x', ''), text),
    esc: fc.oneof(fc.constant<number[]>([]), escapes),
  });

const { value } = fc.letrec<{ value: Value }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.record({ t: fc.constant('num' as const), raw: numberText }),
    str,
    fc.record({ t: fc.constant('lit' as const), v: fc.constantFrom(true, false, null) }),
    fc.record({ t: fc.constant('arr' as const), items: fc.array(tie('value'), { maxLength: 4 }) }),
    fc.record({
      t: fc.constant('obj' as const),
      members: fc.uniqueArray(fc.tuple(key(['a', 'name']), tie('value')), { maxLength: 4, selector: ([k]) => k.s }),
    }),
  ),
}));
const argsValue = fc.oneof(
  fc.record({ t: fc.constant('obj' as const), members: fc.uniqueArray(fc.tuple(key(ARG_KEYS), value), { maxLength: 6, selector: ([k]) => k.s }) }),
  value,
);
const event = fc
  .uniqueArray(
    fc.oneof(fc.tuple(key(EVENT_KEYS.filter((k) => k !== 'args')), value), fc.tuple(fc.constant({ s: 'args', esc: [] } as Key), argsValue)),
    { maxLength: 9, selector: ([k]) => k.s },
  )
  .map((members): Value => ({ t: 'obj', members }));

function writeString(s: string, esc: number[]): string {
  const chars = [...s];
  return `"${chars
    .map((c, i) => {
      if (!esc.includes(i)) return JSON.stringify(c).slice(1, -1);
      if (c === '/') return '\\/';
      return [...c].map((u) => `\\u${u.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');
    })
    .join('')}"`;
}

function write(v: Value, w: () => string): string {
  switch (v.t) {
    case 'num':
      return v.raw;
    case 'str':
      return writeString(v.s, v.esc);
    case 'lit':
      return String(v.v);
    case 'arr':
      return `[${w()}${v.items.map((x) => write(x, w)).join(`${w()},${w()}`)}${w()}]`;
    case 'obj':
      return `{${w()}${v.members.map(([k, x]) => `${writeString(k.s, k.esc)}${w()}:${w()}${write(x, w)}`).join(`${w()},${w()}`)}${w()}}`;
  }
}

const trace = fc
  .tuple(fc.array(event, { maxLength: 8 }), fc.boolean(), fc.array(ws, { minLength: 1, maxLength: 40 }))
  .map(([events, object, spaces]) => {
    let i = 0;
    const w = (): string => spaces[i++ % spaces.length]!;
    const body = `[${w()}${events.map((e) => write(e, w)).join(`${w()},${w()}`)}${w()}]`;
    return object ? `{${w()}"schemaVersion": 1,${w()}"traceEvents":${w()}${body},${w()}"traceName": "t"}` : `${w()}${body}${w()}`;
  });

/** Up to three damages to a trace: at a position, a byte of JSON's syntax (or a letter) put in, or one taken out. */
const EDITS = fc.array(
  fc.tuple(fc.nat(), fc.option(fc.constantFrom('{', '}', '[', ']', '"', ',', ':', ' ', '0', '-', '.', 'e', 'x', '\\', 't', 'n', '\u00e9'))),
  { minLength: 1, maxLength: 3 },
);

/** The trace with those damages made, one after another. */
function damaged(t: string, edits: [number, string | null][]): Buffer {
  let b = Buffer.from(t);
  for (const [at, c] of edits) {
    const p = at % (b.length + 1);
    b = Buffer.concat([b.subarray(0, p), c === null ? Buffer.alloc(0) : Buffer.from(c), b.subarray(c === null ? p + 1 : p)]);
  }
  return b;
}

describe('both engines read what JSON.parse reads', () => {
  it('on random traces, whole and cut anywhere', () => {
    fc.assert(
      fc.property(trace, fc.array(fc.nat(), { maxLength: 6 }), (t, cuts) => {
        const bytes = Buffer.from(t);
        const want = expected(t);
        for (const engine of ENGINES) {
          expect(scan(bytes, engine)).toEqual(want);
          expect(
            scan(
              bytes,
              engine,
              cuts.map((c) => c % (bytes.length + 1)),
            ),
          ).toEqual(want);
        }
      }),
      { numRuns: 400 },
    );
  });

  it('with a reader that passes over events by their ph, cat and name: the same events, and the same counts', () => {
    fc.assert(
      fc.property(trace, fc.array(fc.nat(), { maxLength: 6 }), (t, cuts) => {
        const bytes = Buffer.from(t);
        const want = expected(t, true);
        for (const engine of ENGINES) {
          expect(scan(bytes, engine, [], true)).toEqual(want);
          expect(
            scan(
              bytes,
              engine,
              cuts.map((c) => c % (bytes.length + 1)),
              true,
            ),
          ).toEqual(want);
        }
      }),
      { numRuns: 400 },
    );
  });

  it('chunks read into the same memory (overwritten once pushed): the same events', () => {
    fc.assert(
      fc.property(trace, fc.array(fc.nat(), { minLength: 1, maxLength: 8 }), fc.boolean(), (t, cuts, filter) => {
        const bytes = Buffer.from(t);
        const want = expected(t, filter);
        const at = cuts.map((c) => c % (bytes.length + 1));
        for (const engine of ENGINES) expect(scan(bytes, engine, at, filter, true)).toEqual(want);
      }),
      { numRuns: 300 },
    );
    // An event longer than the scanner's bridge (16 KiB), cut by many chunks.
    const long = `[{"ph": "X", "cat": "kernel", "name": "${'k'.repeat(100_000)}", "args": {"stream": 7}}, {"ph": "X", "name": "b"}]`;
    const cuts = Array.from({ length: 60 }, (_, i) => 1 + i * 1999);
    for (const engine of ENGINES) expect(scan(Buffer.from(long), engine, cuts, false, true)).toEqual(expected(long));
  });

  it('with such a reader, on damaged traces, the same events or the same error', () => {
    fc.assert(
      fc.property(trace, EDITS, (t, edits) => {
        const b = damaged(t, edits);
        expect(scan(b, 'simd', [], true)).toEqual(scan(b, 'js', [], true));
      }),
      { numRuns: 400 },
    );
  });

  it('on damaged traces, the same events or the same error (byte and message)', () => {
    fc.assert(
      fc.property(trace, EDITS, (t, edits) => {
        const b = damaged(t, edits);
        expect(scan(b, 'simd')).toEqual(scan(b, 'js'));
      }),
      { numRuns: 600 },
    );
  });

  it('every grammar error, in every place a value can be, at the same byte with the same message', () => {
    const wrong = [
      '01',
      '-',
      '-a',
      '1.',
      '.5',
      '1e',
      '1e+',
      '+1',
      'tru',
      'nul',
      'fals',
      'truex',
      '[1,]',
      '[,1]',
      '[1 2]',
      '{"a":1,}',
      '{"a" 1}',
      '{1:2}',
      '{"a":}',
      '"\\x"',
      '"a\\u00"',
      '"a\u0001b"',
      '}',
      ']',
      '',
      '"a',
    ];
    const right = ['0', '-0', '0.5e-3', '1E+2', '-12.75', 'true', 'false', 'null', '[]', '{}', '[[{}]]', '"\\\\"', '"\\u00e9\\/\\u0001\\t"', '""'];
    for (const x of [...wrong, ...right]) {
      const places = [
        `[{"ph": ${x}}]`,
        `[{"ph": "X", "other": ${x}, "name": "k"}]`,
        `[{"ph": "X", "args": {"stream": ${x}}}]`,
        `[{"ph": "X", "args": {"grid": [1, ${x}], "stream": 7}}]`,
        `[{"ph": "X", "args": ${x}}]`,
        `{"traceEvents": [{"ph": "X", "args": {"x": {"y": [${x}]}}}], "z": ${x}}`,
      ];
      for (const t of places) {
        const b = Buffer.from(t);
        const js = scan(b, 'js');
        expect({ t, got: scan(b, 'simd') }).toEqual({ t, got: js });
        if (right.includes(x)) expect({ t, got: js }).toEqual({ t, got: expected(t) });
      }
    }
  });

  it('events nested past 512 levels, member names with escapes and keys alike in length and first byte', () => {
    const deep = Buffer.from(`[{"ph": "X", "args": {"stream": 1, "x": ${'['.repeat(600)}${']'.repeat(600)}}}]`);
    const at = deep.indexOf('[[') + 512;
    for (const engine of ENGINES) expect(scan(deep, engine)).toMatchObject({ offset: at, what: expect.stringMatching(/nested deeper than 512/) });
    const escaped = Buffer.from('[{"n\\u0061me": "k", "\\u0070h": "X", "args": {"str\\u0065am": 7}}]');
    for (const engine of ENGINES) expect(scan(escaped, engine)).toEqual(expected(escaped.toString()));
    // Keys the fast path cannot tell apart by length and first byte: the JavaScript scanner reads them.
    const s = new EventScanner({ eventKeys: ['ab', 'ac'], argKeys: [] }, { event: (v) => got.push([v.str(0), v.str(1)]) });
    const got: (string | null)[][] = [];
    s.push(Buffer.from('[{"ab": "1", "ac": "2"}]'));
    s.finish();
    expect(got).toEqual([['1', '2']]);
  });

  it('keys of 1 to 32 bytes are told from names that differ from them in one byte only', () => {
    // The fast path compares a key sixteen bytes at a time under a mask of its length: each byte of it counts,
    // and no byte past it.
    const keys = [1, 2, 15, 16, 17, 31, 32].map((n) => Array.from({ length: n }, (_, i) => String.fromCharCode(97 + ((n + i) % 26))).join(''));
    // Each key first, then the names like it (a false match would overwrite its value).
    const members = keys.flatMap((k, i) => [
      `"${k}": ${i}`,
      ...Array.from(k, (_, j) => `"${k.slice(0, j)}${k[j] === 'z' ? 'y' : 'z'}${k.slice(j + 1)}": -${i}`),
      `"${k}x": "long"`,
      `"${k.slice(0, -1)}": "short"`,
    ]);
    const bytes = Buffer.from(`[{${members.join(', ')}}]`);
    for (const engine of ENGINES) {
      const got: unknown[] = [];
      const s = new EventScanner(
        { eventKeys: keys, argKeys: [], engine },
        {
          event: (v) => keys.forEach((_, i) => got.push(v.kind(i) === NUMBER ? v.buf.toString('latin1', ...v.span(i)) : v.kind(i))),
        },
      );
      s.push(bytes);
      s.finish();
      expect(got).toEqual(keys.map((_, i) => String(i)));
      if (engine === 'simd') expect(s.fastEvents).toBe(1);
    }
  });
});

// ----- real samples -----

function samples(): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const n of readdirSync(d).sort()) {
      const p = join(d, n);
      if (statSync(p).isDirectory()) walk(p);
      else if (/\.json(\.gz)?$/.test(n) && !/^profiler_info/.test(n)) out.push(p);
    }
  };
  for (const d of ['hta-kineto', 'msinsight-torchnpu-trace']) walk(join(REAL, d));
  return out;
}

function readRecords(bytes: Buffer, engine: Engine): { records: TraceRecord[]; info: unknown } {
  const records: TraceRecord[] = [];
  const r = new ChromeTraceReader('x.json', { kernel: (k) => records.push({ ...k }), warn: () => {} }, { engine });
  for (let i = 0; i < bytes.length; i += 1 << 16) r.push(bytes.subarray(i, i + (1 << 16)));
  return { info: r.finish(), records };
}

describe.skipIf(!HAS_REAL)('real samples', () => {
  it('are all there', () => {
    expect(samples().length).toBeGreaterThanOrEqual(10);
  });
  for (const file of HAS_REAL ? samples() : []) {
    it(file.slice(REAL.length + 1), () => {
      const raw = readFileSync(file);
      const bytes = file.endsWith('.gz') ? gunzipSync(raw) : raw;
      const want = expected(bytes.toString('utf8'));
      expect(want.length).toBeGreaterThan(0);
      for (const engine of ENGINES) expect(scan(bytes, engine, [1 << 16, 1 << 17, (1 << 17) + 7])).toEqual(want);
      // The fast path reads every event of a real trace (none is left to the JavaScript scanner).
      const s = new EventScanner({ eventKeys: EVENT_KEYS, argKeys: ARG_KEYS, engine: 'simd' }, { event() {} });
      s.push(bytes);
      s.finish();
      expect(s.fastEvents).toBe(want.length);
      const simd = readRecords(bytes, 'simd');
      expect(simd.records.length).toBeGreaterThan(0);
      expect(simd).toEqual(readRecords(bytes, 'js'));
    });
  }
});

describe('the fast path', () => {
  it('interns names by their bytes, and starts again when its table is full (more names than it holds)', () => {
    // 40,000 distinct names (the table holds 32,768), each written twice, and names with escapes.
    const parts: string[] = [];
    for (let i = 0; i < 40_000; i++) {
      const name = i % 1000 === 0 ? `k\\u00e9${i}` : `kernel_${i}`;
      parts.push(
        `{"ph": "X", "cat": "kernel", "name": "${name}", "ts": ${i}, "dur": 1}`,
        `{"ph": "X", "cat": "kernel", "name": "${name}", "ts": ${i}, "dur": 2}`,
      );
    }
    const bytes = Buffer.from(`[${parts.join(',')}]`);
    const simd = readRecords(bytes, 'simd').records.map((r) => r.name);
    expect(simd).toEqual(readRecords(bytes, 'js').records.map((r) => r.name));
    expect(simd.length).toBe(80_000);
    expect(simd[79_999]).toBe('kernel_39999');
    expect(simd[2000]).toBe('ké1000');
  });

  it('asks wantRest once per spelling of the decide strings, and hands on only the events of use (both engines)', () => {
    const parts: string[] = [];
    for (let i = 0; i < 3000; i++) {
      parts.push(
        `{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "ts": ${i}, "args": {"Input Dims": [[1, 2], []], "stream": 7}}`,
        `{"ph": "X", "cat": "kernel", "name": "k${i % 3}", "ts": ${i}, "dur": 1}`,
        `{"ph": "s", "cat": "ac2g", "name": "ac2g", "id": ${i}}`,
      );
    }
    // A decide field written twice before the others: the last one written decides, as JSON.parse reads it.
    parts.push('{"ph": "X", "cat": "cpu_op", "cat": "kernel", "name": "aten::mm"}');
    const bytes = Buffer.from(`[${parts.join(',\n')}]`);
    for (const engine of ENGINES) {
      let asked = 0;
      const names: string[] = [];
      const s = new EventScanner(
        {
          eventKeys: EVENT_KEYS,
          argKeys: ARG_KEYS,
          engine,
          intern: 'name',
          decideOn: ['ph', 'cat', 'name'],
          wantRest: (v) => {
            asked++;
            return v.str(2) === 'kernel';
          },
        },
        { event: (v) => names.push(v.str(1)!) },
      );
      for (let i = 0; i < bytes.length; i += 4096) s.push(bytes.subarray(i, i + 4096));
      s.finish();
      expect({ engine, n: names.length, events: s.events, skipped: s.skipped }).toEqual({ engine, n: 3001, events: 9001, skipped: 6000 });
      expect(names.slice(0, 3)).toEqual(['k0', 'k1', 'k2']);
      expect(names[3000]).toBe('aten::mm');
      // The fast path: five spellings, and the event with the field written twice (the JavaScript scanner reads
      // it). The JavaScript scanner: every event (again for an event cut by a chunk's end).
      if (engine === 'js') expect(asked).toBeGreaterThanOrEqual(9001);
      else expect(asked).toBe(6);
    }
  });

  it('src/input/json/eventsWasm.ts is the assembly of src/input/json/events.wat', async () => {
    const { assemble } = (await import('../scripts/wasm-json.mjs')) as { assemble: () => Promise<string> };
    expect(await assemble()).toBe(readFileSync(join(ROOT, 'src/input/json/eventsWasm.ts'), 'utf8'));
  });
});
