// The JUnit error report's guard: a run that stopped before it read its inputs (a usage error, a rules file that is
// not there) still replaces none of them, nor makes a file that the next run would read as the profile's.

import { closeSync, openSync, readSync, realpathSync, statSync, type Stats } from 'node:fs';
import { basename, dirname, join, sep } from 'node:path';
import { inputError } from './errors.js';
import { onDisk } from './files.js';
import { noteInput } from './io.js';

/**
 * Before an error report is written to `out`: the run may have stopped before it read its inputs (a usage
 * error, a rules file that is not there), so every path the command line names counts as one: a file is noted
 * (see noteInput), and an `out` that exists inside a named folder is refused, as it may be a file of that profile,
 * unless it is an XML file (the report of an earlier run). So is a new file there named as a profile's export is
 * (`exportName`: `kernel_details.csv`, `op_summary_*.csv`): the next run would read it as one of the profile's.
 */
export function noteNamedInputs(paths: string[], out: string, exportName: (name: string) => boolean = () => false): void {
  let target: string | null = null;
  let fresh: string | null = null;
  try {
    target = realpathSync(onDisk(out));
    if (!statSync(onDisk(target)).isFile() || startsWithXml(target)) target = null;
  } catch {
    // not there (or not reachable): nothing to replace, but a file of the profile may be made
    const folder = dirname(out);
    try {
      if (exportName(basename(out))) fresh = join(realpathSync(onDisk(folder)), basename(out));
    } catch {
      // its folder is not there either: the write says so
    }
  }
  for (const p of paths) {
    let st: Stats;
    try {
      st = statSync(onDisk(p));
    } catch {
      continue;
    }
    if (st.isFile()) noteInput(p);
    else if (st.isDirectory() && (target !== null || fresh !== null)) {
      const dir = realpathSync(onDisk(p));
      const inside = (x: string | null): boolean => x?.startsWith(dir.endsWith(sep) ? dir : dir + sep) === true;
      const [what, why] = inside(target)
        ? ['which stopped before reading it', 'it may be a file of the profile']
        : ["and named as a profile's export is", 'the next run would read it as a file of the profile'];
      if (inside(target) || inside(fresh))
        throw inputError(
          `${out}: inside ${p}, an input folder of this run, ${what}; the error report was not written there, as ${why}. ` +
            'Pass --out a path outside the input folders.',
        );
    }
  }
}

function startsWithXml(path: string): boolean {
  const fd = openSync(onDisk(path), 'r');
  try {
    const head = Buffer.alloc(5);
    return readSync(fd, head, 0, 5, 0) === 5 && head.toString('latin1') === '<?xml';
  } finally {
    closeSync(fd);
  }
}
