// Vitest's global setup: a folder for notices said once in a run, whichever test file says them first (each file
// runs in a worker of its own). helpers.ts realData() says there that the real exports are absent: one line for
// the run, not one for every file that reads them.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A folder of this run where a notice said once leaves a file of its name. */
    noticeDir: string;
  }
}

export default function setup(project: TestProject): () => void {
  const dir = mkdtempSync(join(tmpdir(), 'kprof-notices-'));
  project.provide('noticeDir', dir);
  return () => rmSync(dir, { recursive: true, force: true });
}
