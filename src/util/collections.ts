// Folders whose every file of a name is read as a rank (a folder of summary JSONs, of kineto traces): a report
// written there under such a name would be read with them by the next run, so `-o` refuses it.

import { realpathSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { inputError } from './errors.js';
import { onDisk } from './files.js';

/**
 * Folders this run reads every file of a name of (a folder of summary JSONs, of kineto traces: `what` says which),
 * by real path: a report written there under such a name would be read as one more of them by the next run; or a
 * folder of profile folders, which a kernel table written there would make one profile of it (`after` says so).
 */
const collections = new Map<string, { names: readonly RegExp[]; what: string; after?: string }[]>();

/** Note a folder whose files named like `names` (not hidden) are each read as a rank (see collections). */
export function noteCollectionFolder(dir: string, names: readonly RegExp[], what: string, after?: string): void {
  try {
    const real = realpathSync(onDisk(dir));
    const had = collections.get(real);
    if (had === undefined) collections.set(real, [{ names, what, after }]);
    else had.push({ names, what, after });
  } catch {
    // unreadable: the read reports it
  }
}

/** A report about to be written to `target` (`path` as given), in a folder noted by noteCollectionFolder: refused. */
export function refuseInCollection(path: string, target: string, flag: string): void {
  const name = basename(target);
  if (name.startsWith('.') || collections.size === 0) return;
  // `target` is on disk already (writeFileAtomic's onDisk(path), or the link's target).
  const folder = dirname(target);
  let dir: string;
  try {
    dir = realpathSync(onDisk(folder));
  } catch {
    return;
  }
  const c = collections.get(dir)?.find((x) => x.names.some((re) => re.test(name)));
  if (c === undefined) return;
  const then =
    c.after === undefined
      ? 'where every file named like this one is read as a rank; written there, the report would be read with them by the next run (its ranks twice, or a file that is not one of them)'
      : `where a file named like this one would be ${c.after}`;
  throw inputError(
    `${flag === '--out' ? '' : `${flag} `}${path}: in ${dirname(path)}, ${c.what} this run reads, ${then}, ` +
      `so nothing was written. Expected a path outside that folder: pass ${flag} another path.`,
  );
}

/** Forget the folders of the last run (run() starts each run with none). */
export function clearCollections(): void {
  collections.clear();
}
