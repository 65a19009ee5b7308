// The read worker's entry (bundled as dist/bundle/workers/readWorker.js): the worker of the input stage
// (input/workers/readWorker.ts) with the kinds of sink a task may ask to read beside each accumulator, which
// later stages define (input/beside.ts).

import { SEQUENCE_RECORDER } from '../analysis/rewrites/recorderSink.js';
import { registerBeside } from '../input/beside.js';
import { serveReads } from '../input/workers/readWorker.js';
import { quietSqliteWarning } from './warnings.js';

quietSqliteWarning(process);
registerBeside(SEQUENCE_RECORDER);
serveReads();
