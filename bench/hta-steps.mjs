// Compare kprof's step of each kernel of a kineto trace with HTA's, name by name and step by step.
//
//   python3 bench/hta-steps.py HTA_CHECKOUT TRACE.json HTA.csv   (HTA's own code: each GPU event's step)
//   npm run build && node bench/hta-steps.mjs TRACE.json HTA.csv
//
// For every step HTA gives, the kernels (`cat: kernel`) of each name in that step, from HTA's CSV and from
// `kprof summary --by name --steps N`; then whether kprof's surplus over HTA, name by name, is exactly the kernels HTA
// gives no step (those whose launch is not in the file: kprof keeps them, in the window of their own start).
// Reads only the two files named; fetches nothing.

import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const [trace, csv] = process.argv.slice(2);
if (trace === undefined || csv === undefined) {
  console.error('usage: node bench/hta-steps.mjs TRACE.json HTA.csv');
  process.exit(2);
}
const kprof = join(dirname(fileURLToPath(import.meta.url)), '..', 'bin', 'kprof.js');

/** One CSV line's cells (pandas quotes a cell with a comma). */
function cells(line) {
  const out = [];
  let cur = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i];
    if (ch === '"') {
      if (quoted && line[i + 1] === '"') {
        cur += '"';
        i++;
      } else quoted = !quoted;
    } else if (ch === ',' && !quoted) {
      out.push(cur);
      cur = '';
    } else cur += ch;
  }
  out.push(cur);
  return out;
}

const lines = readFileSync(csv, 'utf8').trim().split('\n');
const head = cells(lines[0]);
const col = (name) => head.indexOf(name);
const [iCat, iName, iStep] = [col('cat'), col('name'), col('iteration')];
/** HTA: step → name → kernels (step -1: none). */
const hta = new Map();
for (const line of lines.slice(1)) {
  const c = cells(line);
  if (c[iCat] !== 'kernel') continue;
  const step = Number(c[iStep]);
  if (!hta.has(step)) hta.set(step, new Map());
  const m = hta.get(step);
  m.set(c[iName], (m.get(c[iName]) ?? 0) + 1);
}
const sum = (m) => [...m.values()].reduce((a, b) => a + b, 0);
const none = hta.get(-1) ?? new Map();
const surplus = new Map();
let exact = true;
for (const step of [...hta.keys()].filter((s) => s >= 0).sort((a, b) => a - b)) {
  const r = spawnSync(process.execPath, [kprof, 'summary', trace, '--by', 'name', '--steps', String(step), '--format', 'json'], {
    encoding: 'utf8',
    maxBuffer: 1 << 28,
  });
  const k = new Map(JSON.parse(r.stdout).groups.map((g) => [g.key, g.count]));
  const h = hta.get(step);
  let agree = 0;
  let differ = 0;
  for (const name of new Set([...k.keys(), ...h.keys()])) {
    const d = (k.get(name) ?? 0) - (h.get(name) ?? 0);
    if (d === 0) agree++;
    else {
      differ++;
      if (d < 0) exact = false;
      surplus.set(name, (surplus.get(name) ?? 0) + d);
    }
  }
  console.log(`step ${step}: kernels kprof ${sum(k)}, HTA ${sum(h)}; names alike ${agree}, differing ${differ}`);
}
const same = surplus.size === none.size && [...none].every(([n, c]) => surplus.get(n) === c);
console.log(`HTA gives no step to ${sum(none)} kernels (${none.size} names); kprof's surplus: ${sum(surplus)} kernels (${surplus.size} names)`);
console.log(exact && same ? 'agree: kprof = HTA + the kernels HTA gives no step, name by name' : 'DIFFER: see above');
process.exit(exact && same ? 0 : 1);
