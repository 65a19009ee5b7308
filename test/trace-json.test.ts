// The streaming Chrome-trace scanner: the same events whatever the chunk boundaries, and hostile input (deep
// nesting, huge strings, bytes that are not UTF-8, cut files, JSON that is not a trace) refused with the byte
// offset, in bounded memory.

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EventScanner, JsonTraceError, type EventView } from '../src/input/json/eventScanner.js';
import { ChromeTraceReader, readChromeTrace } from '../src/input/formats/trace/chromeTrace.js';
import { traceChunks } from '../src/input/bytes/chunks.js';
import type { TraceRecord } from '../src/input/formats/trace/record.js';
import { isKprofError } from '../src/util/errors.js';

const KEYS = { eventKeys: ['ph', 'name', 'ts', 'dur', 'args'], argKeys: ['stream'] };

/** Scan `text` cut at `cuts`: each event as [ph, name, ts text, dur text, stream text]. */
function scan(text: string | Buffer, cuts: number[] = [], options = KEYS): (string | null)[][] {
  const out: (string | null)[][] = [];
  const s = new EventScanner(options, {
    event(v: EventView) {
      out.push([v.str(0), v.str(1), v.scalar(2), v.scalar(3), v.scalar(5)]);
    },
  });
  const bytes = typeof text === 'string' ? Buffer.from(text) : text;
  let from = 0;
  for (const c of [...cuts].sort((a, b) => a - b)) {
    if (c <= from || c >= bytes.length) continue;
    s.push(Buffer.from(bytes.subarray(from, c)));
    from = c;
  }
  s.push(Buffer.from(bytes.subarray(from)));
  s.finish();
  return out;
}

function scanError(text: string | Buffer, cuts: number[] = [], maxItemBytes?: number): JsonTraceError {
  try {
    const bytes = typeof text === 'string' ? Buffer.from(text) : text;
    const s = new EventScanner({ ...KEYS, maxItemBytes }, { event() {} });
    let from = 0;
    for (const c of cuts) {
      s.push(Buffer.from(bytes.subarray(from, c)));
      from = c;
    }
    s.push(Buffer.from(bytes.subarray(from)));
    s.finish();
  } catch (e) {
    if (e instanceof JsonTraceError) return e;
    throw e;
  }
  throw new Error('no error');
}

const SAMPLE =
  '{"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "A100 \\"SXM\\"", "x": [1, [2, {"y": null}]]}],\n' +
  ' "traceEvents": [\n' +
  '  {"ph": "X", "cat": "kernel", "name": "k\\u00e9rnel<\\"a\\">", "ts": 1.5e3, "dur": 12.25, "args": {"stream": 7, "grid": [1, 2, 3], "nested": {"a": {"b": []}}}},\n' +
  '  {"name": "名前", "ph": "X", "ts": "1736405443876953.510", "dur": 0, "args": {}},\n' +
  '  {},\n' +
  '  {"ph": "M", "args": {"stream": "s\\\\"}, "name": "thread_name", "extra": true, "more": false}\n' +
  ' ], "traceName": "x"}\n';

describe('EventScanner', () => {
  it('locates the fields asked for, decoding escapes, in both forms', () => {
    expect(scan(SAMPLE)).toEqual([
      ['X', 'kérnel<"a">', '1.5e3', '12.25', '7'],
      ['X', '名前', '1736405443876953.510', '0', null],
      [null, null, null, null, null],
      ['M', 'thread_name', null, null, 's\\'],
    ]);
    expect(scan('[{"ph": "X", "name": "a"}, {"ph": "X", "name": "b"}]')).toEqual([
      ['X', 'a', null, null, null],
      ['X', 'b', null, null, null],
    ]);
    expect(scan('[]')).toEqual([]);
    expect(scan('{"traceEvents": []}')).toEqual([]);
  });

  it('gives the same events wherever the chunks are cut (every byte, and random cuts)', () => {
    const whole = scan(SAMPLE);
    for (let c = 1; c < Buffer.byteLength(SAMPLE); c++) expect(scan(SAMPLE, [c])).toEqual(whole);
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: Buffer.byteLength(SAMPLE) - 1 }), { maxLength: 40 }), (cuts) => {
        expect(scan(SAMPLE, cuts)).toEqual(whole);
      }),
      { numRuns: 300 },
    );
  });

  it('refuses nesting deeper than 512 levels at the byte where it goes too deep, without recursion', () => {
    const deep = `[{"ph": "X", "args": ${'['.repeat(100_000)}${']'.repeat(100_000)}}]`;
    const e = scanError(deep);
    expect(e.what).toMatch(/nested deeper than 512 levels/);
    expect(e.offset).toBe(21 + 512);
    // 511 levels inside args are fine.
    expect(scan(`[{"ph": "X", "args": {"x": ${'['.repeat(510)}${']'.repeat(510)}}}]`)).toHaveLength(1);
  });

  it('refuses an event over the size limit once the window holds that much, not the whole string', () => {
    // A 1 MiB limit and a string that goes on for 8 MiB, fed in 64 KiB chunks: refused after about 2 MiB.
    const s = new EventScanner({ ...KEYS, maxItemBytes: 1 << 20 }, { event() {} });
    s.push(Buffer.from('[{"ph": "X", "name": "ok"}, {"ph": "X", "name": "'));
    let fed = 0;
    let error: unknown = null;
    try {
      for (; fed < 8 << 20; fed += 1 << 16) s.push(Buffer.alloc(1 << 16, 0x61));
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(JsonTraceError);
    expect((error as JsonTraceError).what).toMatch(/trace event 1 is longer than 1 MiB/);
    expect((error as JsonTraceError).offset).toBe(28);
    expect(fed).toBeLessThan(3 << 20);
  });

  it('white space between events, up to its limit (MAX_BLANK), is passed over in the memory of a chunk (not kept as an item)', () => {
    // 8 MiB of white space between two events, with a 1 MiB item limit, fed in 64 KiB chunks: a window that
    // kept the white space would grow to the limit and refuse an item that is not there.
    for (const form of ['array', 'object'] as const) {
      const names: (string | null)[] = [];
      const s = new EventScanner({ ...KEYS, maxItemBytes: 1 << 20 }, { event: (v) => names.push(v.str(1)) });
      s.push(Buffer.from(form === 'array' ? '[{"ph": "X", "name": "a"},' : '{"traceEvents": [{"ph": "X", "name": "a"}'));
      for (let fed = 0; fed < 8 << 20; fed += 1 << 16) s.push(Buffer.alloc(1 << 16, form === 'array' ? 0x20 : 0x0a));
      s.push(Buffer.from(form === 'array' ? '{"ph": "X", "name": "b"}]' : ', {"ph": "X", "name": "b"}]}'));
      s.finish();
      expect(names).toEqual(['a', 'b']);
    }
    // A file of white space only: the message of an empty file.
    expect(scanError(Buffer.alloc(3 << 20, 0x20), [1 << 20, 2 << 20], 1 << 20).what).toMatch(/holds no JSON \(empty or only white space\)/);
  });

  it('refuses bytes that are not UTF-8 at their offset, also when a chunk boundary cuts the character', () => {
    const bad = Buffer.concat([Buffer.from('[{"ph": "X", "name": "caf'), Buffer.from([0xc3]), Buffer.from('"}]')]);
    expect(scanError(bad)).toMatchObject({ offset: 25 });
    expect(scanError(bad).what).toMatch(/not UTF-8/);
    const lone = Buffer.concat([Buffer.from('[{"ph": "X", "name": "'), Buffer.from([0x85]), Buffer.from('"}]')]);
    expect(scanError(lone)).toMatchObject({ offset: 22 });
    // A valid 3-byte character cut after each of its bytes reads back whole.
    const ok = Buffer.from('[{"ph": "X", "name": "€"}]');
    for (let c = 23; c <= 25; c++) expect(scan(ok, [c])).toEqual([['X', '€', null, null, null]]);
    // Cut inside a character at the very end of the input.
    expect(scanError(Buffer.from('[{"ph": "X", "name": "€').subarray(0, 24), [23]).what).toMatch(/ends inside a UTF-8 character/);
  });

  it('refuses a cut file with the offset where it ends and what it was in', () => {
    const full = '[{"ph": "X", "name": "a", "dur": 1}, {"ph": "X", "name": "b", "dur": 2}]';
    expect(scanError(full.slice(0, 50))).toMatchObject({ offset: 50 });
    expect(scanError(full.slice(0, 50)).what).toMatch(/ends inside trace event 1 \(which starts at byte 37\)/);
    expect(scanError(full.slice(0, 36)).what).toMatch(/after 1 event, without its closing '\]'/);
    expect(scanError('{"traceEvents": [], "x": 1').what).toMatch(/without its closing '\}'/);
    expect(scanError('').what).toMatch(/holds no JSON/);
    expect(scanError('  \n').what).toMatch(/holds no JSON/);
  });

  it('refuses what JSON does not allow, at its offset', () => {
    expect(scanError('[{"ph": "X",}]')).toMatchObject({ offset: 12 });
    expect(scanError('[{"ph": 01}]').what).toMatch(/expected ',' or '\}'/);
    expect(scanError('[{"ph": 1.}]').what).toMatch(/no digit after the decimal point/);
    expect(scanError('[{"ph": [1 2]}]').what).toMatch(/expected ',' or '\]'/);
    expect(scanError('[{"ph": tru}]').what).toMatch(/expected a value/);
    // Escapes are checked in the strings that are decoded (names, labels); others are only skipped.
    expect(() => scan('[{"ph": "X", "name": "a\\x"}]')).toThrow(/invalid escape/);
    expect(scanError('[{"ph": "X"}] x')).toMatchObject({ offset: 14 });
    expect(scanError('[1, 2]').what).toMatch(/expected trace event 0 to be an object; found '1'/);
    expect(scanError('"trace"').what).toMatch(/expected a JSON array of trace events or an object with "traceEvents"/);
    expect(scanError('{"traceEvents": {"a": 1}}').what).toMatch(/"traceEvents" to be an array/);
  });
});

function readText(
  text: string | Buffer,
  file = 'x.json',
): { records: TraceRecord[]; info: ReturnType<ChromeTraceReader['finish']>; warnings: string[]; notes: string[] } {
  const records: TraceRecord[] = [];
  const warnings: string[] = [];
  const notes: string[] = [];
  const r = new ChromeTraceReader(file, {
    kernel: (k) => records.push({ ...k }),
    warn: (w, m) => warnings.push(`${w}: ${m}`),
    note: (w, m) => notes.push(`${w}: ${m}`),
  });
  r.push(typeof text === 'string' ? Buffer.from(text) : text);
  return { info: r.finish(), records, warnings, notes };
}

function readError(text: string | Buffer, file = 'dir/x.json'): string {
  try {
    readText(text, file);
  } catch (e) {
    if (isKprofError(e)) return e.message;
    throw e;
  }
  throw new Error('no error');
}

describe('ChromeTraceReader: input that is not a trace', () => {
  it('names the file and the byte, and says what was expected (an input error: exit 2)', () => {
    expect(readError('{"model": "resnet50", "events": [1]}')).toBe(
      'dir/x.json: a JSON object without a "traceEvents" array: not a Chrome trace. Expected a PyTorch profiler trace (*.pt.trace.json) or torch_npu trace_view.json.',
    );
    expect(readError('[{"a": 1}, {"b": 2}]')).toMatch(/^dir\/x\.json: 2 JSON objects, none with a "ph" \(phase\) member: not trace events\./);
    expect(readError('[{"ph": "X", "name": "a"')).toMatch(
      /^dir\/x\.json: byte 24: the file ends inside trace event 0 \(which starts at byte 1\): the file is cut short\. Expected a complete Chrome-trace JSON file/,
    );
    expect(readError('name,dur\nk,1\n')).toMatch(
      /^dir\/x\.json: byte 0: expected a JSON array of trace events or an object with "traceEvents"; found 'n'/,
    );
    expect(readError(Buffer.from([0x50, 0x4b, 0x03, 0x04]))).toMatch(/byte 0: expected a JSON array/);
  });

  it('a trace with events but no kernels reads, and says so', () => {
    const { info, records } = readText('{"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "aten::add", "ts": 1, "dur": 2}]}');
    expect(records).toEqual([]);
    expect(info.kernels).toBe(0);
    expect(info.notes).toEqual(['no kernel events (cat "kernel"): a CPU-only trace?']);
  });

  it('skips a kernel without a readable duration with a warning naming its byte, and counts it', () => {
    const { info, records, warnings } = readText(
      '{"traceEvents": [{"ph": "X", "cat": "kernel", "name": "a", "ts": 1, "dur": "n/a"}, {"ph": "X", "cat": "kernel", "name": "b", "ts": 2, "dur": -1}, {"ph": "X", "cat": "kernel", "name": "c", "ts": 3, "dur": 1e-4}]}',
    );
    expect(records.map((r) => [r.name, r.ticks])).toEqual([['c', 1]]);
    expect(info.skipped).toBe(2);
    expect(warnings).toEqual([
      'byte 17: kernel event 0 has dur "n/a", expected a duration in µs; skipped',
      'byte 83: kernel event 1 has dur "-1", expected a duration in µs; skipped',
    ]);
  });

  it('counts a kernel without a readable start time (its duration read), with a warning naming its byte', () => {
    const { info, records, warnings, notes } = readText(
      '{"traceEvents": [{"ph": "X", "cat": "kernel", "name": "a", "ts": "abc", "dur": 2}, {"ph": "X", "cat": "kernel", "name": "b", "dur": 3}, {"ph": "X", "cat": "kernel", "name": "c", "ts": 3, "dur": 1}, ' +
        '{"ph": "X", "cat": "kernel", "name": "d", "ts": 1e400, "dur": 1}, {"ph": "X", "cat": "kernel", "name": "e", "ts": -5, "dur": 1}, ' +
        '{"ph": "X", "cat": "kernel", "name": "f", "ts": 9223372036854775808, "dur": 1}]}',
    );
    expect(records.map((r) => [r.name, r.ticks, r.startUs])).toEqual([
      ['a', 20_000, Number.NaN],
      ['b', 30_000, Number.NaN],
      ['c', 10_000, 3],
      ['d', 10_000, Number.NaN],
      // A start before the trace's time 0 is not a start either: not kept as one (it would come before every other).
      ['e', 10_000, Number.NaN],
      // Nor one past 2^53 µs (2^63 here): a double holds it to no whole µs.
      ['f', 10_000, Number.NaN],
    ]);
    expect([info.skipped, warnings]).toEqual([0, []]);
    expect(notes).toEqual([
      'byte 17: kernel event 0 has ts "abc", expected a start time in µs; counted without one',
      'byte 83: kernel event 1 has ts missing, expected a start time in µs; counted without one',
      'byte 198: kernel event 3 has ts "1e400", expected a start time in µs; counted without one',
      'byte 264: kernel event 4 has ts "-5", expected a start time in µs; counted without one',
      'byte 327: kernel event 5 has ts "9223372036854775808", expected a start time in µs; counted without one',
    ]);
  });

  it('skips a device event of no name, or of a name that is not a string, with a warning, and counts it', () => {
    const { info, records, warnings } = readText(
      '{"traceEvents": [{"ph": "X", "cat": "kernel", "ts": 1, "dur": 2}, {"ph": "X", "cat": "gpu_memcpy", "name": 7, "ts": 2, "dur": 2}, ' +
        '{"ph": "X", "cat": "cpu_op", "ts": 2, "dur": 2}, {"ph": "X", "cat": "kernel", "name": "c", "ts": 3, "dur": 1}]}',
    );
    expect(records.map((r) => r.name)).toEqual(['c']);
    expect(info.skipped).toBe(2);
    expect(warnings).toEqual(['byte 17: kernel event 0 has no name; skipped', 'byte 66: memcpy event 1 has a name that is not a string; skipped']);
  });

  it('skips a torch_npu device task of no name with a warning, and counts it (by its Task Type, or its process)', () => {
    const { info, records, warnings } = readText(
      '[{"name": "process_name", "pid": 9, "tid": 0, "args": {"name": "Ascend Hardware"}, "ph": "M"},' +
        '{"pid": 9, "tid": 1, "ts": "10.0", "dur": 2.5, "args": {"Task Type": "AI_CORE"}, "ph": "X"},' +
        '{"name": null, "pid": 9, "tid": 1, "ts": "11.0", "dur": 1, "ph": "X"},' +
        '{"pid": 3, "tid": 1, "ts": "11.0", "dur": 1, "ph": "X"},' +
        '{"name": "Add", "pid": 9, "tid": 1, "ts": "12.0", "dur": 1, "args": {"Task Type": "AI_VECTOR_CORE"}, "ph": "X"}]',
    );
    expect(records.map((r) => r.name)).toEqual(['Add']);
    expect(info.skipped).toBe(2);
    expect(warnings).toEqual([
      expect.stringMatching(/^byte \d+: device event 1 has no name; skipped$/),
      expect.stringMatching(/^byte \d+: device event 2 has a name that is not a string; skipped$/),
    ]);
  });

  it('skips a kernel whose duration is past what kprof sums exactly (1e400, 2^51 ticks), as the CSV readers do', () => {
    const { info, records, warnings } = readText(
      '[{"ph": "X", "cat": "kernel", "name": "a", "ts": 1, "dur": 1e400}, {"ph": "X", "cat": "kernel", "name": "b", "ts": 2, "dur": 225179981368.5248}, ' +
        '{"ph": "X", "cat": "kernel", "name": "c", "ts": 3, "dur": 225179981368.5247}]',
    );
    expect(records.map((r) => [r.name, r.ticks])).toEqual([['c', 2 ** 51 - 1]]);
    expect(info.skipped).toBe(2);
    expect(warnings).toEqual([
      'byte 1: kernel event 0 has dur 1e400, more than kprof sums exactly (2^51 ticks of 0.1 ns (225,179,981,368 µs, about 62 hours)); skipped',
      'byte 67: kernel event 1 has dur 225179981368.5248, more than kprof sums exactly (2^51 ticks of 0.1 ns (225,179,981,368 µs, about 62 hours)); skipped',
    ]);
  });

  it('durations are exact ticks of 0.1 ns from the digits written (no float rounding)', () => {
    const { records } = readText(
      '[{"ph": "X", "cat": "kernel", "name": "a", "ts": 1, "dur": 2489.52971875}, {"ph": "X", "cat": "kernel", "name": "a", "ts": 2, "dur": 0.30000000000000004}, {"ph": "X", "cat": "kernel", "name": "a", "ts": 3, "dur": 72994.43845}]',
    );
    expect(records.map((r) => r.ticks)).toEqual([24895297, 3000, 729944385]);
  });
});

describe('odd but readable input', () => {
  it('a UTF-8 byte-order mark before the JSON is skipped', () => {
    expect(scan(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('[{"ph": "X", "name": "a"}]')]), [1, 2])).toEqual([
      ['X', 'a', null, null, null],
    ]);
  });

  it('device events before their process metadata, and pids written as strings, are read', () => {
    const { records, info } = readText(
      '[{"name": "MatMul", "pid": "9", "tid": 1, "ts": "10.0", "dur": 2.5, "args": {"Task Type": "AI_CORE", "Stream Id": 5}, "ph": "X"},' +
        '{"name": "Notify Wait", "pid": "9", "tid": 1, "ts": "11.0", "dur": 1, "args": {"Task Type": "Notify Wait"}, "ph": "X"},' +
        '{"name": "process_name", "pid": "9", "tid": 0, "args": {"name": "Ascend Hardware"}, "ph": "M"},' +
        '{"name": "Add", "pid": 9, "tid": 1, "ts": "12.0", "dur": 1, "args": {"Task Type": "AI_VECTOR_CORE"}, "ph": "X"}]',
    );
    expect(records.map((r) => [r.name, r.category, r.stream, r.ticks])).toEqual([
      ['MatMul', 'AI_CORE', '5', 25000],
      ['Add', 'AI_VECTOR_CORE', '1', 10000],
    ]);
    expect(info.format).toBe('trace_view');
    expect([...info.apart]).toEqual([['Notify Wait', { count: 1, ticks: 10000 }]]);
  });
});

describe('kineto kernels handed on in file order', () => {
  it('kernels that wait behind a late launch keep their order and steps, through the queue being compacted', () => {
    const ev = (o: object): string => JSON.stringify(o);
    const kernel = (name: string, ts: number, corr: number): string =>
      ev({ ph: 'X', cat: 'kernel', name, ts, dur: 1, args: { stream: 7, correlation: corr } });
    const launch = (ts: number, corr: number): string =>
      ev({ ph: 'X', cat: 'cuda_runtime', name: 'launch', ts, dur: 1, args: { correlation: corr } });
    const parts = [
      ev({ ph: 'X', cat: 'user_annotation', name: 'ProfilerStep#1', ts: 0, dur: 100 }),
      ev({ ph: 'X', cat: 'user_annotation', name: 'ProfilerStep#2', ts: 100, dur: 100 }),
      // w1 waits for its launch (in step 2); 2000 kernels launched before them (step 1) wait behind it, then w2.
      kernel('w1', 10, 1),
    ];
    for (let i = 0; i < 2000; i++) parts.push(launch(50, 10 + i), kernel(`a${i % 3}`, 11 + i, 10 + i));
    parts.push(kernel('w2', 3000, 2));
    for (let i = 0; i < 100; i++) parts.push(launch(60, 5000 + i), kernel(`b${i % 2}`, 3001 + i, 5000 + i));
    // w1's launch lets 2001 kernels go: the queue then starts past 1024 with w2 first (it is compacted).
    parts.push(launch(150, 1), kernel('c', 4000, 9000), launch(40, 9000), launch(60, 2));
    const { records, info } = readText(`{"traceEvents": [${parts.join(',\n')}]}`);
    const expected = [
      ['w1', 2],
      ...Array.from({ length: 2000 }, (_, i) => [`a${i % 3}`, 1]),
      ['w2', 1],
      ...Array.from({ length: 100 }, (_, i) => [`b${i % 2}`, 1]),
      ['c', 1],
    ];
    expect(records.map((r) => [r.name, r.step])).toEqual(expected);
    expect(info.kernels).toBe(2103);
    expect(info.notes).toEqual([]);
  });

  it('starts out of order are counted per stream when the streams of kernels interleave', () => {
    const k = (stream: number, ts: number): string => JSON.stringify({ ph: 'X', cat: 'kernel', name: 'k', ts, dur: 1, args: { stream } });
    // Stream 7: 10, 20, 30, 5 (one out of order); stream 8: 25, 15 (one); stream 9: 1 (none).
    const { info } = readText(`[${[k(7, 10), k(8, 25), k(7, 20), k(8, 15), k(9, 1), k(7, 30), k(7, 5)].join(',')}]`);
    expect(info.notes).toEqual(["device events that start before the one written before them on the same stream: 2 (the order kept is the file's)"]);
  });
});

describe('memory stays bounded on hostile traces', () => {
  it('a kernel whose launch never comes does not hold back every later kernel', () => {
    // A step window, one kernel with no launch, then 40,000 kernels each launched before it is written.
    const parts = ['{"traceEvents": [{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "ts": 0, "dur": 1000000}'];
    parts.push('{"ph": "X", "cat": "kernel", "name": "lost", "ts": 5, "dur": 1, "args": {"stream": 7, "correlation": 1}}');
    for (let i = 2; i < 40_002; i++) {
      parts.push(`{"ph": "X", "cat": "cuda_runtime", "name": "launch", "ts": ${i}, "dur": 1, "args": {"correlation": ${i}}}`);
      parts.push(`{"ph": "X", "cat": "kernel", "name": "k", "ts": ${i + 10}, "dur": 1, "args": {"stream": 7, "correlation": ${i}}}`);
    }
    let emitted = 0;
    let maxBehind = 0;
    const r = new ChromeTraceReader('x.json', {
      kernel: () => {
        emitted++;
      },
      warn: () => {},
    });
    const text = Buffer.from(`${parts.join(',\n')}]}`);
    const at: number[] = [];
    for (let p = text.indexOf('"cat": "kernel"'); p >= 0; p = text.indexOf('"cat": "kernel"', p + 1)) at.push(p);
    let fed = 0;
    for (let i = 0; i < text.length; i += 1 << 16) {
      r.push(text.subarray(i, i + (1 << 16)));
      while (fed < at.length && at[fed]! < i + (1 << 16)) fed++;
      maxBehind = Math.max(maxBehind, fed - emitted);
    }
    const info = r.finish();
    expect(emitted).toBe(40_001);
    expect(info.steps).toEqual([1]);
    expect(maxBehind).toBeLessThan(20_000);
    expect(info.notes).toEqual([
      '1 of 40001 device events (kernels, memcpy, memset) were placed in a step by their own start time: no launch event of their args.correlation is in the file, or it is too far from them for the reader to wait for it',
    ]);
  });
});

describe('traceChunks with reuse (the Chrome-trace reader reads a plain file so)', () => {
  it('gives the file in chunks of two buffers used in turn, and the reader the same records as fresh chunks', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kprof-chunks-'));
    try {
      const file = join(dir, 'big.pt.trace.json');
      const events: string[] = [];
      for (let i = 0; i < 20_000; i++) {
        events.push(
          `{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "ts": ${i * 10}, "dur": 3, "args": {"Input Dims": [[2048], [512, 1024]]}}`,
          `{"ph": "X", "cat": "kernel", "name": "k${i % 7}_${'x'.repeat(i % 300)}", "ts": ${i * 10 + 1}, "dur": ${i % 13}.5, "args": {"stream": 7}}`,
        );
      }
      writeFileSync(file, `{"traceEvents": [${events.join(',\n')}]}`);
      const bytes = readFileSync(file);
      const seen = new Set<ArrayBufferLike>();
      const copies: Buffer[] = [];
      for await (const c of traceChunks(file, undefined, { reuse: true })) {
        expect(c.length).toBeLessThanOrEqual(1 << 20);
        seen.add(c.buffer);
        copies.push(Buffer.from(c));
      }
      expect(Buffer.concat(copies).equals(bytes)).toBe(true);
      expect(copies.length).toBeGreaterThan(3);
      expect(seen.size).toBe(2);
      const records = async (reuse: boolean): Promise<TraceRecord[]> => {
        const out: TraceRecord[] = [];
        await readChromeTrace(file, traceChunks(file, undefined, { reuse }), { kernel: (r) => out.push({ ...r }), warn() {} });
        return out;
      };
      const reused = await records(true);
      expect(reused).toHaveLength(20_000);
      expect(reused).toEqual(await records(false));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
