// Paths as shown to the user: relative to the working directory, with forward slashes, so output is the same
// on every machine.

import { isAbsolute, relative, sep } from 'node:path';

export function relPath(p: string): string {
  const r = isAbsolute(p) ? relative(process.cwd(), p) : p;
  const shown = r === '' ? '.' : r.startsWith('..' + sep + '..' + sep + '..') ? p : r;
  return shown.split(sep).join('/');
}
