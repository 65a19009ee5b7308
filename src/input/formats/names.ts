// Kernel-name normalisation.
//
// Communication kernels carry a per-run instance counter right after the double underscore:
// `hcom_allReduce__586_0_1` in one run is `hcom_allReduce__271_0_1` in the next run of the same script
// (FORMATS.md §11). kprof replaces that counter with `*` so that two runs of one workload group alike:
// `hcom_allReduce__586_0_1` → `hcom_allReduce__*_0_1`, `hcom_broadcast__483_1` → `hcom_broadcast__*_1`.
// Only names that start with `hcom_` are touched.

const HCOM = /^(hcom_[A-Za-z0-9]+_)_\d+(?=_|$)/;

export function normaliseName(name: string): string {
  if (!name.startsWith('hcom_')) return name;
  return name.replace(HCOM, '$1_*');
}
