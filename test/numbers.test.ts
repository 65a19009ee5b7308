import { describe, expect, it } from 'vitest';
import { parseFloatCell, parseIntCell, parseTicks } from '../src/input/csv/numbers.js';
import { normaliseName } from '../src/input/formats/names.js';
import { fmtCount, fmtSignedPct, fmtUs, fmtUsShort } from '../src/util/format.js';

const b = (s: string): [Buffer, number, number] => {
  const buf = Buffer.from(`xx${s}yy`, 'latin1');
  return [buf, 2, 2 + Buffer.byteLength(s, 'latin1')];
};

describe('parseTicks (µs → integer tenths of a ns)', () => {
  const cases: [string, number][] = [
    ['496.8508', 4968508],
    ['120.512', 1205120],
    ['0', 0],
    ['7', 70000],
    ['  8.25\t', 82500],
    ['1881.080000', 18810800],
    ['0.00005', 1],
    ['0.00004', 0],
    ['1.5e3', 15000000],
    ['-3.2', -32000],
    ['+2', 20000],
  ];
  for (const [text, want] of cases) it(`"${text}" → ${want}`, () => expect(parseTicks(...b(text))).toBe(want));
  for (const bad of ['N/A', '', '  ', 'abc', '1.2.3', '12x', '.', '-']) {
    it(`"${bad}" is not a number`, () => expect(parseTicks(...b(bad))).toBeNaN());
  }
});

describe('parseFloatCell / parseIntCell', () => {
  it('keeps 16-digit start times to well under a µs', () => {
    expect(Math.abs(parseFloatCell(...b('1736408883704643.212\t')) - 1736408883704643.212)).toBeLessThan(0.5);
    expect(parseFloatCell(...b('1.69512E+15'))).toBe(1.69512e15);
    expect(parseFloatCell(...b('N/A'))).toBeNaN();
  });
  it('reads integers, null for empty, NaN for text', () => {
    expect(parseIntCell(...b('13'))).toBe(13);
    expect(parseIntCell(...b(' 7\t'))).toBe(7);
    expect(parseIntCell(...b(''))).toBeNull();
    expect(parseIntCell(...b('1.5'))).toBeNaN();
    expect(parseIntCell(...b('abc'))).toBeNaN();
  });
});

describe('normaliseName', () => {
  it('folds the counters of communication kernels into one *', () => {
    expect(normaliseName('hcom_allReduce__586_0_1')).toBe('hcom_allReduce__*');
    expect(normaliseName('hcom_broadcast__483_1')).toBe('hcom_broadcast__*');
    expect(normaliseName('hcom_batchSendRecv__128_5_1')).toBe('hcom_batchSendRecv__*');
    expect(normaliseName('hcom_reduceScatter__483_18')).toBe('hcom_reduceScatter__*');
    // Text after the counters stays; a name that is not counters after the double underscore is left alone.
    expect(normaliseName('hcom_x__5_1_tail')).toBe('hcom_x__*_tail');
    expect(normaliseName('hcom_x__5a')).toBe('hcom_x__5a');
  });
  it('leaves every other name alone', () => {
    expect(normaliseName('aclnnMatmul_MatMulV3Common_MatMulV3')).toBe('aclnnMatmul_MatMulV3Common_MatMulV3');
    expect(normaliseName('atomic_memset-1_18_186609_1')).toBe('atomic_memset-1_18_186609_1');
    expect(normaliseName('hcom_allReduce_')).toBe('hcom_allReduce_');
  });
});

describe('number formatting', () => {
  it('formats counts, times and percentages one way', () => {
    expect(fmtCount(711070)).toBe('711,070');
    expect(fmtCount(2.5)).toBe('2.50');
    expect(fmtUs(812.3)).toBe('812.30 µs');
    expect(fmtUs(629402.1)).toBe('629.40 ms');
    expect(fmtUs(1629402.1)).toBe('1.63 s');
    expect(fmtUsShort(1629402.1)).toBe('1.63 s');
    expect(fmtUsShort(1234)).toBe('1.23 ms');
    expect(fmtUsShort(830)).toBe('830 µs');
    expect(fmtSignedPct(-32.63)).toBe('-32.6%');
    expect(fmtSignedPct(0.01)).toBe('0.0%');
  });
});
