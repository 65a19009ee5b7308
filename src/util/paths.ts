// Paths as shown to the user: relative to the working directory (the run's, Io.cwd), with forward slashes, so
// output is the same on every machine.

import { isAbsolute, relative, sep } from 'node:path';
import { onDisk } from './files.js';

export function relPath(p: string): string {
  const r = isAbsolute(p) ? relative(onDisk('.'), p) : p;
  const shown = r === '' ? '.' : r.startsWith('..' + sep + '..' + sep + '..') ? p : r;
  return shown.split(sep).join('/');
}

/** A path as GitHub annotations want it: relative to GITHUB_WORKSPACE when that is set and holds the file. */
export function workspacePath(file: string, workspace: string | undefined): string {
  if (workspace === undefined || workspace === '') return file;
  const r = relative(onDisk(workspace), onDisk(file));
  return r !== '' && !r.startsWith('..') && !isAbsolute(r) ? r.split(sep).join('/') : file;
}
