// Declared, versioned JSON output schemas. Reporters map the model onto these explicitly; the summary schema
// is also read back (formats/snapshot.ts) so a saved summary can stand in for a profile.

export const SCHEMA_VERSION = 1;

export interface CellJson {
  count: number;
  totalUs: number;
}

export interface StepJson extends CellJson {
  step: number;
}

export interface SummaryGroupJson {
  key: string;
  type?: string;
  name?: string;
  core?: string;
  shapes?: string;
  userGroup?: string;
  count: number;
  totalUs: number;
  avgUs: number | null;
  minUs: number | null;
  maxUs: number | null;
  /** Share of the total kernel time, in percent. */
  sharePct: number | null;
  countPerStep: number | null;
  byStep: StepJson[];
}

export interface SummaryRankJson {
  rank: string;
  steps: number[];
  totals: CellJson;
  groups: SummaryGroupJson[];
}

export interface SummaryJson {
  schemaVersion: 1;
  kind: 'summary';
  groupBy: string;
  /** Canonical text of the filters and user groups (compare before diffing two snapshots). */
  selection: string;
  inputs: string[];
  steps: number | null;
  stepIds: number[];
  ranks: string[];
  rowsRead: number;
  skippedRows: number;
  filteredKernels: number;
  totals: CellJson;
  groups: SummaryGroupJson[];
  perRank: SummaryRankJson[];
}
