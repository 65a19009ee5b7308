// Header sniffing: which export a CSV header belongs to (one of the registry's CSV formats), and where its
// columns are. The synonym table follows ../shared/FORMATS.md §10.

import { inputError } from '../../../util/errors.js';
import { excerpt } from '../../../util/inputText.js';
import { quotedUnlessLink } from '../../../util/files.js';
import { expectedCsvFormat, passCsvFormat, type FormatId } from '../registry.js';

export const SYNONYMS = {
  name: ['Name', 'Op Name'],
  type: ['Type', 'OP Type'],
  core: ['Accelerator Core', 'Task Type'],
  start: ['Start Time(us)', 'Task Start Time(us)', 'Task Start Time'],
  duration: ['Duration(us)', 'Task Duration(us)', 'Task Duration'],
  step: ['Step Id', 'Step ID'],
  shapes: ['Input Shapes'],
  device: ['Device_id'],
  stream: ['Stream ID'],
} as const;

export type KernelColumn = keyof typeof SYNONYMS;

/** Column positions of a kernel table (kernel_details / op_summary); -1 where absent. */
export type KernelColumns = Record<KernelColumn, number>;

export interface KernelTableHeader {
  format: FormatId & ('kernel_details' | 'op_summary');
  columns: KernelColumns;
  header: string[];
  traits: string[];
  /** Optional columns this header lacks (for inspect). */
  missing: string[];
}

export interface StatisticHeader {
  format: FormatId & 'op_statistic';
  header: string[];
  type: number;
  core: number;
  count: number;
  total: number;
  min: number;
  max: number;
  traits: string[];
  missing: string[];
}

export type DetectedHeader = KernelTableHeader | StatisticHeader;

/** Files that are Ascend exports but hold no per-kernel rows, with what to pass instead. */
const NOT_KERNEL_TABLES: { test: (h: Set<string>) => boolean; what: string }[] = [
  { test: (h) => h.has('Step') && h.has('Computing'), what: 'a step_trace_time.csv (time per step, no kernels)' },
  { test: (h) => h.has('API Name'), what: 'an api_statistic.csv (host API calls, no kernels)' },
  { test: (h) => h.has('kernel_name') && h.has('task_time(us)'), what: 'a task_time_*.csv (raw tasks with compiled kernel ids)' },
  { test: (h) => h.has('Hit Rate') && h.has('Victim Rate'), what: 'an l2_cache.csv (cache hit rates, no durations)' },
  { test: (h) => h.has('Graph ID') && h.has('Size(KB)'), what: 'a static_op_mem.csv (static memory, no kernels)' },
  { test: (h) => h.has('Call Stack'), what: 'an operator_details.csv (framework operators, not kernels)' },
  { test: (h) => h.has('Total Allocated(MB)') || h.has('Total Reserved(MB)') || h.has('Size(KB)'), what: 'a memory export' },
];

function indexOfAny(header: string[], names: readonly string[]): number {
  for (const n of names) {
    const i = header.indexOf(n);
    if (i >= 0) return i;
  }
  return -1;
}

/** Trim cells the way producers wrote them (BOM is already dropped by the scanner; stray spaces are not). */
export function cleanHeader(cells: string[]): string[] {
  return cells.map((c) => c.trim());
}

/**
 * A header read as one column that another separator splits into a kernel export's (a spreadsheet's `;` CSV, or
 * TAB-separated text): that separator, named, so that the message says what is wrong rather than listing one column.
 */
function otherSeparator(header: string[]): { name: string; why: string } | undefined {
  if (header.length !== 1) return undefined;
  for (const [sep, name, why] of [
    [';', '";"', 'A spreadsheet saves CSV so in a locale that writes decimal commas.'],
    ['\t', 'TABs', 'A spreadsheet saves tab-delimited text so.'],
  ] as const) {
    const cells = cleanHeader(header[0]!.split(sep));
    if (cells.length >= 3 && Object.values(SYNONYMS).some((names) => names.some((n) => cells.includes(n)))) return { name, why };
  }
  return undefined;
}

/**
 * Detect the format of a CSV from its header. Throws an input error that names the file, what was found and
 * what was expected when the header is not a kernel export.
 */
export function detectHeader(file: string, rawHeader: string[]): DetectedHeader {
  const header = cleanHeader(rawHeader);
  const set = new Set(header);

  if (set.has('OP Type') && set.has('Count') && set.has('Total Time(us)')) {
    const idx = (n: string): number => header.indexOf(n);
    const missing = ['Core Type', 'Min Time(us)', 'Max Time(us)'].filter((n) => !set.has(n));
    if (!set.has('Core Type')) {
      throw inputError(
        `${file}: op_statistic header has no "Core Type" column; found: ${quotedUnlessLink(file, () => shownColumns(header))}. ` +
          `Expected "OP Type,Core Type,Count,Total Time(us),…" as msprof and torch_npu write it.`,
      );
    }
    return {
      format: 'op_statistic',
      header,
      type: idx('OP Type'),
      core: idx('Core Type'),
      count: idx('Count'),
      total: idx('Total Time(us)'),
      min: idx('Min Time(us)'),
      max: idx('Max Time(us)'),
      traits: [set.has('Device_id') ? 'with Device_id' : 'no Device_id (torch_npu before mid-2025)'],
      missing: missing.filter((n) => n !== 'Core Type'),
    };
  }

  const columns = {} as KernelColumns;
  for (const k of Object.keys(SYNONYMS) as KernelColumn[]) columns[k] = indexOfAny(header, SYNONYMS[k]);

  const complete = columns.name >= 0 && columns.type >= 0 && columns.duration >= 0;
  const known = complete ? undefined : NOT_KERNEL_TABLES.find((k) => k.test(set));
  // A lone "Name" column is too common to call a file a kernel export with columns missing.
  const looksKernel = columns.duration >= 0 || (columns.name >= 0 && columns.type >= 0) || (columns.type >= 0 && columns.core >= 0);
  if (!looksKernel || known) {
    const found = quotedUnlessLink(file, () => shownColumns(header));
    if (known) {
      throw inputError(
        `${file}: this is ${known.what}, not a kernel export; found columns: ${found}. ` +
          `Pass ${passCsvFormat()}, or the profile folder that holds them.`,
      );
    }
    const separator = otherSeparator(header);
    if (separator !== undefined) {
      throw inputError(
        `${file}: the columns are separated by ${separator.name}, not by commas; found the header ${found}. ${separator.why} ` +
          "Expected a CSV export separated by commas, as the profiler writes it: pass the profiler's own file, or save the sheet " +
          'again as CSV with commas.',
      );
    }
    throw inputError(
      `${file}: unknown CSV format; found columns: ${found || '(none)'}. ` +
        `Expected ${expectedCsvFormat()}; pass one of those, or the profile folder that holds them.`,
    );
  }
  const need: [KernelColumn, string][] = [
    ['name', '"Name" (torch_npu) or "Op Name" (msprof)'],
    ['type', '"Type" (torch_npu) or "OP Type" (msprof)'],
    ['duration', '"Duration(us)" (torch_npu) or "Task Duration(us)" (msprof)'],
  ];
  for (const [col, expected] of need) {
    if (columns[col] < 0) {
      throw inputError(
        `${file}: no ${col} column; found: ${quotedUnlessLink(file, () => shownColumns(header))}. Expected ${expected}. ` +
          `Is the file cut or edited? Re-export it from the profiler.`,
      );
    }
  }

  const traits: string[] = [];
  const torch = header[columns.name] === 'Name';
  const format: FormatId & ('kernel_details' | 'op_summary') = torch ? 'kernel_details' : 'op_summary';
  if (torch) {
    if (header[columns.step] === 'Step ID') traits.push('MindSpore kernel_details (Step ID)');
    else traits.push('torch_npu kernel_details');
    if (columns.start >= 0 && header[columns.start] !== 'Start Time(us)') traits.push(`"${header[columns.start]}" start column`);
    if (header[columns.core] === 'Task Type' || header[columns.duration] !== 'Duration(us)') {
      traits.push('mixed torch_npu/msprof header (not written by a profiler)');
    }
  } else {
    traits.push('msprof op_summary');
    if (header[columns.duration] === 'Task Duration') traits.push('unit-less time columns (CANN 5.x)');
    if (header[columns.start] === 'Start Time(us)' || header[columns.core] === 'Accelerator Core') {
      traits.push('mixed torch_npu/msprof header (not written by a profiler)');
    }
  }
  if (set.has('Block Num')) traits.push('Block Num');
  else if (set.has('Block Dim')) traits.push('Block Dim');
  const reduced = !set.has('Task ID') && !set.has('Model ID');
  if (reduced) traits.push('reduced (Level0) header');
  if (columns.step >= 0) traits.push('with steps');
  if (columns.device >= 0) traits.push('with Device_id');
  const metric = metricSet(set);
  if (metric) traits.push(`aic_metrics ${metric}`);

  const missing: string[] = [];
  if (columns.core < 0) missing.push('Accelerator Core');
  if (columns.step < 0) missing.push('Step Id');
  if (columns.shapes < 0) missing.push('Input Shapes');
  if (columns.start < 0) missing.push('Start Time(us)');
  if (columns.device < 0) missing.push('Device_id');

  return { format, columns, header, traits, missing };
}

/**
 * Header cells as quoted in an error message: the first 12, each cut to 40 characters and escaped (excerpt: a
 * damaged or binary-looking header must not flood or garble the terminal).
 */
export function shownColumns(header: string[]): string {
  const shown = header
    .slice(0, 12)
    .map((c) => excerpt(c))
    .join(', ');
  return header.length > 12 ? `${shown}, … (${header.length} columns)` : shown;
}

/** Name the aic_metrics set from its distinctive columns (FORMATS.md §3.3). */
function metricSet(h: Set<string>): string | null {
  if (h.has('aic_mac_ratio') || h.has('aiv_vec_ratio')) return 'PipeUtilization';
  if (h.has('aic_mac_fp16_ratio') || h.has('aiv_vec_fp32_ratio')) return 'ArithmeticUtilization';
  if (h.has('aic_l0a_read_bw(GB/s)')) return 'MemoryL0';
  if (h.has('aic_ub_read_bw_scalar(GB/s)') || h.has('aiv_ub_read_bw_vector(GB/s)')) return 'MemoryUB';
  if (h.has('aic_l1_read_bw(GB/s)') || h.has('aiv_ub_read_bw(GB/s)')) return 'Memory';
  if (h.has('aic_write_cache_hit') || h.has('aiv_write_cache_hit')) return 'L2Cache';
  if (h.has('aiv_vec_bank_cflt_ratio')) return 'ResourceConflictRatio';
  if (h.has('aicore_time(us)')) return 'other';
  return null;
}
