// Worker thread: reads one rank plan (readRank, the per-rank job) and posts its RankData back, packed (pack.ts).
// Errors are posted as kind + message, so the main thread throws the same KprofError the in-thread read would
// have. The messages are those of protocol.ts.

import { parentPort } from 'node:worker_threads';
import { isKprofError } from '../../util/errors.js';
import { readRank } from '../readRank.js';
import { packRanks } from './pack.js';
import { PROGRESS_STEP, type TaskMessage, type WorkerReply } from './protocol.js';

export type { ReadTask } from './protocol.js';

const port = parentPort;
if (port) {
  port.on('message', (m: TaskMessage) => {
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
    readRank(m.payload.plan, {
      withShapes: m.payload.withShapes,
      withSpan: m.payload.withSpan,
      engine: m.payload.engine,
      rawNames: m.payload.rawNames,
      onBytes,
    }).then(
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
