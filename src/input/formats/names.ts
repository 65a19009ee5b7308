// Kernel-name folding: communication counters.
//
// A communication kernel's name is its collective, a double underscore, then counters (FORMATS.md §11):
// `hcom_allReduce__586_0_1`, `hcom_reduceScatter__483_18`, `hcom_batchSendRecv__128_5_1`. The first counter changes
// from run to run of the same script (`__586_` in one, `__271_` in the next) and the next one counts the calls, so a
// real decode run writes a name per communication call: grouped by name, every call would be a group of its own.
// kprof folds the whole run of counters into `*`: `hcom_allReduce__586_0_1` → `hcom_allReduce__*`, the kernel of
// Type `hcom_allReduce_`. Only names that start with `hcom_` are touched, and only the counters (`_` and digits)
// after the double underscore: two different collectives never fold into one name, and text after the counters
// stays (`hcom_x__5_1_tail` → `hcom_x__*_tail`). The name as the file wrote it is kept only where a selection of
// the run tells raw names apart (--match, --exclude, user groups, rules: see input/accumulator.ts).

/** `hcom_<collective>_`, then `_` and counters up to the end of the name or a `_` before other text. */
const HCOM = /^(hcom_[A-Za-z0-9]+_)(?:_\d+)+(?=_|$)/;

/** The name with its communication counters folded (see the top of this file); other names as they are. */
export function normaliseName(name: string): string {
  if (!name.startsWith('hcom_')) return name;
  return name.replace(HCOM, '$1_*');
}
