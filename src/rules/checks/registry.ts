// Every rule kind, by the key that writes it in a rules file (`count:`, `no-new-types:`), in the order messages
// list them. The registry is typed exhaustive over CheckKind (model.ts): a kind of Check without a module here,
// or a module of the wrong kind, does not compile. Adding a kind is its variant of Check, its module in this
// folder and one line here.

import type { Check, CheckKind } from '../model.js';
import { absent } from './absent.js';
import { count } from './count.js';
import { countVsBase } from './countVsBase.js';
import type { CheckKindModule, Quote } from './kind.js';
import { fused } from './fused.js';
import { noNewTypes } from './noNewTypes.js';
import { present } from './present.js';
import { sequence } from './sequence.js';
import { time } from './time.js';
import { timeVsBase } from './timeVsBase.js';

export type CheckRegistry = { readonly [K in CheckKind]: CheckKindModule<K> };

export const CHECKS: CheckRegistry = {
  absent,
  present,
  count,
  time,
  'count-vs-base': countVsBase,
  'time-vs-base': timeVsBase,
  'no-new-types': noNewTypes,
  sequence,
  fused,
};

/** The keys of the kinds, as a rule writes them. */
export const CHECK_KEYS = Object.keys(CHECKS) as CheckKind[];

/** The module of a check's kind. */
export function kindOf<K extends CheckKind>(check: { kind: K }): CheckKindModule<K> {
  return CHECKS[check.kind];
}

/** The bound of a check in words, without the rule's steps and ranks. */
export function describeCheck(check: Check, q: Quote): string {
  return describeOf(check, q);
}

function describeOf<K extends CheckKind>(check: Extract<Check, { kind: K }>, q: Quote): string {
  return kindOf<K>(check).describe(check, q);
}
