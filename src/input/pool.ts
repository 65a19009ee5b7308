// A small pool of worker threads: one thread per core at most, started on demand, reused while tasks are queued
// and stopped when there is none left (or, held, kept for a job that follows: hold, runOnIdle). A worker is ref'd
// only while it runs a task, so it never keeps the process alive by itself.
//
// The main thread is one of the pool's threads when a task allows it (no progress bar to draw): the last task
// that would need a new worker runs here instead, so a single input starts no worker at all and the two inputs
// of a diff use one worker and this thread. Tasks submitted together are dispatched together (on the next turn
// of the event loop), so the pool sees them all before it chooses.

import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { isKprofError } from '../util/errors.js';
import { READ_WORKER_OPTIONS, takePrestarted } from './workers/prestart.js';
import type { TaskMessage, TidyTask, WorkerReply } from './workers/protocol.js';

interface Task {
  id: number;
  payload: unknown;
  /** May run in the main thread. */
  inline: boolean;
  /** A job after the reads (runOnIdle), not a read. */
  job: boolean;
  onBytes: ((n: number) => void) | undefined;
  /** Buffers of the payload moved to the worker rather than copied (the caller gives them up). */
  transfer?: ArrayBuffer[];
  resolve: (value: unknown) => void;
  reject: (reason: WorkerFailure) => void;
}

/** A task that failed in its worker: the error as the worker saw it (kind is set for KprofError). */
export interface WorkerFailure {
  kind: string | null;
  message: string;
  stack: string | undefined;
}

interface Slot {
  worker: Worker;
  task: Task | null;
}

export class WorkerPool {
  private readonly slots: Slot[] = [];
  private readonly queue: Task[] = [];
  private nextId = 1;
  /** Tasks finished (done or failed) in a worker: tests check that work really went to a worker. */
  completed = 0;
  /** Tidy messages posted (to a worker kept for a job after its read): tests check they are. */
  tidies = 0;
  /** A task is running in the main thread. */
  private inlineBusy = false;
  private scheduled = false;

  constructor(
    private readonly script: URL,
    readonly size: number = Math.max(1, availableParallelism()),
    /** Runs a task's payload in the main thread (the same work a worker does), or null: workers only. */
    private readonly inline: ((payload: unknown) => Promise<unknown>) | null = null,
  ) {}

  /**
   * Run one task; `onBytes` receives the worker's progress messages. With `inline`, the task may run in the main
   * thread (which then does not answer the event loop while it reads: no progress bar can be drawn).
   */
  run<T>(payload: unknown, onBytes?: (n: number) => void, inline = false): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({
        id: this.nextId++,
        payload,
        inline: inline && this.inline !== null,
        job: false,
        onBytes,
        resolve: resolve as (v: unknown) => void,
        reject,
      });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => {
          this.scheduled = false;
          this.dispatch();
        });
      }
    });
  }

  /** Holds (hold()) not yet released: while there is one, a worker with nothing left to do is kept. */
  private holds = 0;

  /**
   * Keep the workers that finish their tasks (instead of stopping them) until the returned function is called:
   * for a job (runOnIdle) that follows the reads. Released, the idle ones are stopped.
   */
  hold(): () => void {
    this.holds++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      if (--this.holds === 0) for (const slot of this.slots.filter((s) => s.task === null)) this.retire(slot);
    };
  }

  /** Is a worker running a task now, with none queued (the main thread, done with its own, would wait)? */
  onlyWorkersBusy(): boolean {
    return this.queue.length === 0 && this.slots.some((s) => s.task !== null);
  }

  /** Is a worker there and idle now (runOnIdle would post to it)? */
  hasIdle(): boolean {
    return this.queue.length === 0 && this.slots.some((s) => s.task === null);
  }

  /**
   * Run a task in a worker that is there and idle now (a held one), posted at once; null when there is none.
   * `transfer`: buffers of the payload to move there rather than copy (the caller gives them up).
   */
  runOnIdle<T>(payload: unknown, transfer: ArrayBuffer[] = []): Promise<T> | null {
    if (!this.hasIdle()) return null;
    return new Promise<T>((resolve, reject) => {
      this.queue.push({
        id: this.nextId++,
        payload,
        inline: false,
        job: true,
        onBytes: undefined,
        transfer,
        resolve: resolve as (v: unknown) => void,
        reject,
      });
      // Now, not on the next turn of the event loop: the caller goes on with work of its own meanwhile.
      this.dispatch();
    });
  }

  /** Stop every worker now (the pool also stops each one as soon as there is no task left for it). */
  async close(): Promise<void> {
    const workers = this.slots.splice(0).map((s) => s.worker);
    await Promise.all(workers.map((w) => w.terminate()));
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      let slot = this.slots.find((s) => s.task === null);
      if (!slot) {
        const threads = this.slots.length + (this.inlineBusy ? 1 : 0);
        if (threads >= this.size) return;
        // The last thread the pool may use, or the only task: the main thread, when the task allows it.
        if (!this.inlineBusy && this.queue[0]!.inline && (threads === this.size - 1 || this.queue.length === 1)) {
          this.runInline(this.queue.shift()!);
          continue;
        }
        slot = this.start();
      }
      const task = this.queue.shift()!;
      slot.task = task;
      slot.worker.ref();
      slot.worker.postMessage(
        { id: task.id, payload: task.payload, progress: task.onBytes !== undefined } satisfies TaskMessage<unknown>,
        task.transfer ?? [],
      );
    }
  }

  /** Run a task in the main thread, after the workers were given theirs (they start while this one reads). */
  private runInline(task: Task): void {
    this.inlineBusy = true;
    setImmediate(() => {
      this.inline!(task.payload).then(
        (result) => {
          this.inlineBusy = false;
          task.resolve(result);
          this.dispatch();
        },
        (e: unknown) => {
          this.inlineBusy = false;
          const err = e instanceof Error ? e : new Error(String(e));
          task.reject({ kind: isKprofError(e) ? e.kind : null, message: err.message, stack: err.stack });
          this.dispatch();
        },
      );
    });
  }

  /**
   * A worker with nothing left to do is stopped at once: its heap (the garbage of reading hundreds of MB) is
   * given back before the main thread goes on to group and render, which keeps the peak memory down. Starting
   * a worker again costs a few tens of milliseconds, and a command reads its inputs in one batch.
   */
  private retire(slot: Slot): void {
    const i = this.slots.indexOf(slot);
    if (i >= 0) this.slots.splice(i, 1);
    void slot.worker.terminate();
  }

  private start(): Slot {
    // The worker bin/kprof.js started before the CLI loaded, if any (workers/prestart.ts), is the first one.
    const worker = takePrestarted(this.script) ?? new Worker(this.script, READ_WORKER_OPTIONS);
    const slot: Slot = { worker, task: null };
    worker.on('message', (m: WorkerReply<unknown>) => {
      const task = slot.task;
      if (!task || task.id !== m.id) return;
      if (m.type === 'bytes') {
        task.onBytes?.(m.n);
        return;
      }
      slot.task = null;
      worker.unref();
      this.completed++;
      if (m.type === 'done') task.resolve(m.result);
      else task.reject({ kind: m.kind, message: m.message, stack: m.stack });
      this.dispatch();
      if (slot.task === null) {
        if (this.holds === 0) this.retire(slot);
        // Kept for a job: it lets go of its reads' memory while this thread makes the job's input.
        else if (m.type === 'done' && !task.job) {
          this.tidies++;
          worker.postMessage({ id: 0, payload: { tidy: true }, progress: false } satisfies TaskMessage<TidyTask>);
        }
      }
    });
    const fail = (message: string, stack?: string): void => {
      const i = this.slots.indexOf(slot);
      if (i >= 0) this.slots.splice(i, 1);
      const task = slot.task;
      slot.task = null;
      task?.reject({ kind: null, message, stack });
      this.dispatch();
    };
    worker.on('error', (e) => fail(`worker thread failed: ${e.message}`, e.stack));
    worker.on('exit', (code) => {
      if (slot.task) fail(`worker thread exited with code ${code}`);
      else {
        const i = this.slots.indexOf(slot);
        if (i >= 0) this.slots.splice(i, 1);
      }
    });
    this.slots.push(slot);
    return slot;
  }
}
