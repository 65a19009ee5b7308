// Worker thread: reads one rank plan and posts its RankData back (a structured clone: Maps survive). Errors are
// posted as kind + message, so the main thread throws the same KprofError the in-thread read would have.

import { parentPort } from 'node:worker_threads';
import type { RawNameTests } from '../../model/model.js';
import { isKprofError } from '../../util/errors.js';
import type { RankPlan } from '../formats/resolve.js';
import type { WorkerReply } from '../pool.js';
import { readRank } from '../read.js';
import { packRanks } from './pack.js';

export interface ReadTask {
  plan: RankPlan;
  withShapes: boolean;
  withSpan: boolean;
  rawNames: RawNameTests | null;
}

/** Progress is posted in steps of this many bytes (a message per 4 MiB read buffer is cheap, fewer is fine). */
const PROGRESS_STEP = 1 << 22;

const port = parentPort;
if (port) {
  port.on('message', (m: { id: number; payload: ReadTask; progress: boolean }) => {
    const post = (r: WorkerReply): void => port.postMessage(r);
    let pending = 0;
    const onBytes = m.progress
      ? (n: number): void => {
          pending += n;
          if (pending >= PROGRESS_STEP) {
            post({ id: m.id, type: 'bytes', n: pending });
            pending = 0;
          }
        }
      : undefined;
    readRank(m.payload.plan, { withShapes: m.payload.withShapes, withSpan: m.payload.withSpan, rawNames: m.payload.rawNames, onBytes }).then(
      (ranks) => {
        if (pending > 0) post({ id: m.id, type: 'bytes', n: pending });
        const packed = packRanks(ranks);
        port.postMessage({ id: m.id, type: 'done', result: packed } satisfies WorkerReply, [packed.sizes.buffer, packed.cells.buffer]);
      },
      (e: unknown) => {
        const err = e instanceof Error ? e : new Error(String(e));
        post({ id: m.id, type: 'error', kind: isKprofError(e) ? e.kind : null, message: err.message, stack: err.stack });
      },
    );
  });
}
