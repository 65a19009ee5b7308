// Jobs a later stage runs in a read worker still there after the reads (WorkerPool.hold): that worker's core is
// otherwise idle while the main thread goes on grouping and diffing. As with the sinks read beside an accumulator
// (../beside.ts), the input stage knows only this interface: a job is defined by a later stage and found by its
// name, in a worker from the jobs its entry registered (src/cli/readWorker.ts). Its input and its result cross
// threads as structured clones, so a job gives the same result wherever it runs.

/** A job: its unique name, and the work (pure: its result depends on its input only). */
export interface WorkerJob<I = unknown, R = unknown> {
  readonly name: string;
  run(input: I): R;
  /**
   * Buffers of the input that go to a worker moved, not copied (each whole, once): the caller gives them up, and
   * reads none of them after (where the job runs in this thread, nothing is moved).
   */
  transfer?(input: I): ArrayBuffer[];
}

const JOBS = new Map<string, WorkerJob>();

/** Make a job known in this thread (again: the same object, or an internal error). */
export function registerJob(job: WorkerJob<never, unknown>): void {
  const j = job as unknown as WorkerJob;
  const had = JOBS.get(j.name);
  if (had !== undefined && had !== j) throw new Error(`two worker jobs are named ${j.name}`);
  JOBS.set(j.name, j);
}

/** A job by name: one registered in this thread, or an internal error (a worker entry that lacks it). */
export function jobNamed(name: string): WorkerJob {
  const j = JOBS.get(name);
  if (j === undefined) throw new Error(`no worker job named ${name} in this thread`);
  return j;
}
