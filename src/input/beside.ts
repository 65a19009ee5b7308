// Sinks read beside each rank's accumulator (a recorder of each step's kernel sequence), in whichever thread reads
// the rank. The input stage knows only this interface: a kind is defined by a later stage (analysis) and found by
// its name, in this thread from the read options and in a read worker from the kinds its entry registered
// (src/cli/readWorker.ts), so a worker makes the same sink the main thread would.
//
// Each accumulator of a rank (one per Device_id) gets a sink of its own; after the rank's files, its result goes
// into the RankData (`beside`), packed into transferable buffers when it crosses from a worker.

import type { KernelSink } from './sink.js';
import type { RankData } from '../model/model.js';
import { FineGroupTable } from '../model/fineGroups.js';

/** A sink beside the accumulator, and what it gives back after the last file of its rank. */
export interface BesideSink<R> extends KernelSink {
  finish(): R;
}

/** A kind of beside sink: how to make one from options (structured-cloneable), and how its result crosses threads. */
export interface BesideKind<O = unknown, R = unknown> {
  /** Unique: a worker finds the kind by it. */
  readonly name: string;
  make(options: O): BesideSink<R>;
  /**
   * The result as a structured-cloneable value, and the buffers to transfer rather than copy. `names`: the texts the
   * rank's message carries already (rankNames), which the value may name by position rather than carry again.
   */
  pack(result: R, names: RankNames): { value: unknown; transfer: ArrayBuffer[] };
  /** The result again, with the same rank's `names` as it was packed with. */
  unpack(value: unknown, names: RankNames): R;
}

/**
 * The names of a rank's fine groups, in the order its message carries them (null: none it carries as a list). A
 * text crossing from a worker is copied, once into the message and once out of it, each time it is in it: a
 * recorder's tokens by name are those names (a million names, some 40 MB more a side each way).
 */
export type RankNames = readonly (string | null)[] | null;

export function rankNames(r: RankData): RankNames {
  return r.groups instanceof FineGroupTable ? r.groups.columnNames() : null;
}

/** What a read asks for: a kind and its options. */
export interface BesideRequest<O = unknown, R = unknown> {
  kind: BesideKind<O, R>;
  options: O;
}

/** The same request as it crosses to a worker: the kind by name. */
export interface BesideTask {
  name: string;
  options: unknown;
}

const KINDS = new Map<string, BesideKind>();

/** Make a kind known in this thread (again: the same object, or an internal error). */
export function registerBeside(kind: BesideKind<never, unknown>): void {
  const k = kind as unknown as BesideKind;
  const had = KINDS.get(k.name);
  if (had !== undefined && had !== k) throw new Error(`two beside-sink kinds are named ${k.name}`);
  KINDS.set(k.name, k);
}

/** A kind by name: one registered in this thread, or an internal error (a worker entry that lacks it). */
export function besideKind(name: string): BesideKind {
  const k = KINDS.get(name);
  if (k === undefined) throw new Error(`no beside-sink kind named ${name} in this thread`);
  return k;
}

/** The request as a worker task. */
export function besideTask(r: BesideRequest | null | undefined): BesideTask | null {
  return r === null || r === undefined ? null : { name: r.kind.name, options: r.options };
}
