// Make a large kernel_details.csv by replicating the steps of a real (or fixture) export: each copy gets new
// Step Ids (after the last one so far) and start times shifted past the end of the previous copy, so the result
// reads like a long run of the same model. Used by bench/run.mjs; also runnable alone:
//   node bench/generate.mjs SOURCE.csv OUT.csv SIZE_MB

import { accessSync, closeSync, constants, existsSync, openSync, readFileSync, statSync, writeSync } from 'node:fs';
import { resolve } from 'node:path';
import { parse } from 'csv-parse/sync';

const CSV_OPTIONS = { bom: true, skip_empty_lines: true, relax_column_count: true, record_delimiter: ['\r\n', '\n'] };

/** Split the source into a header line and data lines kept byte-exact, with the step and start cells located. */
function template(source) {
  let text = readFileSync(source, 'utf8');
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const records = parse(text, { ...CSV_OPTIONS, info: true, raw: true });
  const header = records[0].record;
  const stepI = header.findIndex((h) => h.trim() === 'Step Id');
  const startI = header.findIndex((h) => /^(Task )?Start Time/.test(h.trim()));
  const rows = [];
  for (const r of records.slice(1)) {
    const raw = r.raw.replace(/\r?\n$/, '');
    // Rebuild the line from its cells only when they are plain (no quotes), else keep the raw text.
    const cells = splitRaw(raw);
    if (cells.length !== header.length) continue;
    rows.push({ cells, step: stepI >= 0 ? Number(cells[stepI]) : null, start: startI >= 0 ? cells[startI] : null });
  }
  return { headerLine: records[0].raw.replace(/\r?\n$/, ''), header, stepI, startI, rows };
}

/** Split one raw CSV line into raw cell texts (quotes kept), quote-aware. */
function splitRaw(line) {
  const out = [];
  let i = 0;
  let cur = '';
  let inQ = false;
  for (; i < line.length; i++) {
    const c = line[i];
    if (inQ) {
      if (c === '"') {
        if (line[i + 1] === '"') {
          cur += '""';
          i++;
        } else {
          inQ = false;
          cur += c;
        }
      } else cur += c;
    } else if (c === '"') {
      inQ = true;
      cur += c;
    } else if (c === ',') {
      out.push(cur);
      cur = '';
    } else cur += c;
  }
  out.push(cur);
  return out;
}

/** Add whole microseconds to a start-time cell, keeping its decimals and any trailing TAB. */
function shiftStart(cell, deltaUs) {
  const m = /^(\d+)(\.\d*)?(\s*)$/.exec(cell);
  if (!m) return cell;
  return `${BigInt(m[1]) + BigInt(deltaUs)}${m[2] ?? ''}${m[3]}`;
}

/**
 * Write `out` of about `sizeMb` MB; returns { bytes, rows }. With `options.steps`, the copies are spread over that
 * many steps (copy i goes into step i mod steps) instead of each getting steps of its own: a rank of the same size
 * and kernels, profiled over fewer steps.
 */
export function generate(source, out, sizeMb, options = {}) {
  const t = template(source);
  // Loops, not Math.min(...xs): a source of more than ~120k rows would overflow the stack.
  let minStep = Infinity;
  let maxStep = -Infinity;
  let minStart = Infinity;
  let maxStart = -Infinity;
  for (const r of t.rows) {
    if (Number.isFinite(r.step)) {
      minStep = Math.min(minStep, r.step);
      maxStep = Math.max(maxStep, r.step);
    }
    const start = r.start === null ? NaN : Number.parseFloat(r.start);
    if (start > 0) {
      minStart = Math.min(minStart, start);
      maxStart = Math.max(maxStart, start);
    }
  }
  if (minStep > maxStep) minStep = maxStep = 0;
  const span = minStart <= maxStart ? Math.ceil(maxStart - minStart) + 1_000_000 : 0;
  const target = sizeMb * 1e6;
  const fd = openSync(out, 'w');
  let bytes = 0;
  let rows = 0;
  try {
    const head = `${t.headerLine}\n`;
    writeSync(fd, head);
    bytes += Buffer.byteLength(head);
    for (let copy = 0; bytes < target; copy++) {
      const stepDelta = (options.steps > 0 ? copy % options.steps : copy) * (maxStep - minStep + 1);
      const startDelta = copy * span;
      const lines = [];
      for (const r of t.rows) {
        const cells = r.cells.slice();
        if (t.stepI >= 0 && r.step !== null && Number.isFinite(r.step)) cells[t.stepI] = String(r.step + stepDelta);
        if (t.startI >= 0 && r.start !== null) cells[t.startI] = shiftStart(r.start, startDelta);
        lines.push(cells.join(','));
      }
      const chunk = `${lines.join('\n')}\n`;
      writeSync(fd, chunk);
      bytes += Buffer.byteLength(chunk);
      rows += t.rows.length;
    }
  } finally {
    closeSync(fd);
  }
  return { bytes, rows };
}

/** Write `lines()`'s lines (each ending in a line break) to `out` in 1 MiB writes; returns { bytes, rows }. */
function writeLines(out, header, lines) {
  const fd = openSync(out, 'w');
  let bytes = 0;
  let rows = 0;
  let buf = header;
  try {
    for (const line of lines) {
      buf += line;
      rows++;
      if (buf.length >= 1 << 20) {
        bytes += writeSync(fd, buf);
        buf = '';
      }
    }
    bytes += writeSync(fd, buf);
  } finally {
    closeSync(fd);
  }
  return { bytes, rows };
}

const SMALL_HEADER = 'Step Id,Name,Type,Accelerator Core,Start Time(us),Duration(us)\n';

/**
 * A kernel table for the scale cases of bench/run.mjs --scale: `names` distinct kernel names (of 40 types),
 * each run once in each of `steps` steps (rows step by step, as a profiler writes them).
 */
export function generateGrid(out, names, steps) {
  function* lines() {
    let t = 1_764_246_877_000_000;
    for (let s = 1; s <= steps; s++) {
      for (let n = 0; n < names; n++) {
        const us = 1 + ((n * 7 + s) % 97) / 4;
        yield `${s},aclnnKernel${n}_Op${n % 40},Op${n % 40},${n % 3 ? 'AI_CORE' : 'AI_VECTOR_CORE'},${t.toFixed(3)},${us.toFixed(3)}\n`;
        t += us + 1;
      }
    }
  }
  return writeLines(out, SMALL_HEADER, lines());
}

const COLLECTIVES = ['allReduce', 'allGather', 'reduceScatter', 'broadcast'];

/**
 * A kernel table of `rows` rows, a step per 1,000, where every other row is a communication kernel named as a
 * decode run names them (FORMATS.md §11): the collective, the run's counter of its communicator (`run` and
 * `run + 1`: another run of the same script has other ones) and the call's own counter, which never repeats
 * (`hcom_allReduce__586_12345_1`); the others are one of 40 compute kernels.
 */
export function generateComm(out, rows, run = 586) {
  function* lines() {
    let t = 1_764_246_877_000_000;
    for (let i = 0; i < rows; i++) {
      const s = 1 + Math.floor(i / 1000);
      const us = 1 + (i % 89) / 4;
      if (i % 2 === 0) {
        const op = COLLECTIVES[(i >> 1) % 4];
        yield `${s},hcom_${op}__${run + ((i >> 3) % 2)}_${i >> 1}_1,hcom_${op}_,COMMUNICATION,${t.toFixed(3)},${us.toFixed(3)}\n`;
      } else yield `${s},aclnnKernel${i % 40}_Op${i % 40},Op${i % 40},AI_CORE,${t.toFixed(3)},${us.toFixed(3)}\n`;
      t += us + 1;
    }
  }
  return writeLines(out, SMALL_HEADER, lines());
}

function isWritable(path) {
  try {
    if ((statSync(path).mode & 0o222) === 0) return false;
    accessSync(path, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].replace(/^.*\//, ''))) {
  const [source, out, size] = process.argv.slice(2);
  if (!source || !out) {
    process.stderr.write('usage: node bench/generate.mjs SOURCE.csv OUT.csv [SIZE_MB]\n');
    process.exit(2);
  }
  const sizeMb = Number(size ?? 250);
  if (!(sizeMb > 0)) {
    process.stderr.write(`generate: SIZE_MB must be a positive number, found ${JSON.stringify(size)}; nothing was written\n`);
    process.exit(2);
  }
  // The output is overwritten: refuse a file that exists and is not writable (an export kept read-only),
  // or the source itself.
  if (resolve(out) === resolve(source) || (existsSync(out) && !isWritable(out))) {
    process.stderr.write(`generate: will not overwrite ${out} (it is the source or read-only); give a new path\n`);
    process.exit(2);
  }
  const r = generate(source, out, sizeMb);
  process.stdout.write(`${out}: ${r.bytes} bytes, ${r.rows} rows\n`);
}
