// The read worker's entry (bundled as dist/bundle/workers/readWorker.cjs): the worker of the input stage
// (input/workers/readWorker.ts) with the kinds of sink a task may ask to read beside each accumulator, which
// later stages define (input/beside.ts), and the jobs a command may run in it after its reads (input/workers/jobs.ts).

import { SEQUENCE_RECORDER } from '../analysis/rewrites/recorderSink.js';
import { REWRITES_SECTION_JOB } from '../analysis/rewrites/sectionJob.js';
import { registerBeside } from '../input/beside.js';
import { registerJob } from '../input/workers/jobs.js';
import { serveReads } from '../input/workers/readWorker.js';
import { quietSqliteWarning } from './warnings.js';

quietSqliteWarning(process);
registerBeside(SEQUENCE_RECORDER);
registerJob(REWRITES_SECTION_JOB);
serveReads();
