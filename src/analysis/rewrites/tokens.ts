// The tokens of a kernel sequence (sequence.ts): a kernel's token is its grouping key under `--by`, communication
// kernels have none (kept out of the sequence), and a recorder's tokens are small integer ids of their texts.

import { groupKey } from '../../aggregate/group.js';
import type { GroupBy } from '../../model/model.js';
import { TextIndex } from '../../model/textIndex.js';

/** The fields of one kernel that a token is made from. */
export interface KernelFields {
  name: string | null;
  type: string | null;
  core: string | null;
  shapes: string | null;
}

/** A communication kernel: on the COMMUNICATION / HCCL core, or of an `hcom_*` / `lccl*` type or name. */
export function isCommunicationKernel(k: KernelFields): boolean {
  if (k.core === 'COMMUNICATION' || k.core === 'HCCL') return true;
  for (const v of [k.type, k.name]) {
    if (v === null) continue;
    const lower = v.toLowerCase();
    if (lower.startsWith('hcom_') || lower.startsWith('lccl')) return true;
  }
  return false;
}

/** The token text of a kernel under `--by`, or null for a communication kernel (kept out of the sequence). */
export function tokenKey(by: GroupBy, k: KernelFields): string | null {
  if (isCommunicationKernel(k)) return null;
  return groupKey(by, k);
}

/** Token texts ↔ small integer ids, in order of first appearance (an index over the texts: a million names by name). */
export class TokenTable {
  readonly texts: string[] = [];
  private readonly ids = new TextIndex((id) => this.texts[id]!);

  intern(text: string): number {
    let id = this.ids.get(text);
    if (id === undefined) {
      id = this.texts.length;
      this.texts.push(text);
      this.ids.set(text, id);
    }
    return id;
  }

  get(text: string): number | undefined {
    return this.ids.get(text);
  }
}
