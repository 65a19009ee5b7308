// `fused: ENTRY` (with `phase:`): the fusion catalogue's entry ENTRY (its id, or one of its fused kernel types) is
// fused wherever it runs in the phase: no step runs its unfused chain there, no step of the phase has fewer of its
// sites (fused kernels and chains) than the most any step of the phase has (a layer that ran neither the fused kernel
// nor a chain the catalogue knows), and its fused kernel runs there at least once (a gate that saw neither does not
// pass). A step's value is its unfused chains plus its missing sites, held to 0. Phases: `decoder` (the default: the decoder layers of every
// prefill, decode or unphased step), `prefill`, `decode`, `mtp` (the MTP layer), `all`. Evaluated by kprof audit's
// matcher (analysis/audit/audit.ts) on the kernel sequence recorded while the profile was read, so sites are named
// as the audit names them: rank, phase, decoder layer, steps, and the first kernel's row.

import { isScalar, type Node } from '../../util/yamlLib.js';
import { describe } from '../../aggregate/userGroups.js';
import { auditProfile, type AuditPart } from '../../analysis/audit/audit.js';
import { shippedCatalogue, type CatalogueEntry } from '../../analysis/audit/catalogue.js';
import type { Phase } from '../../analysis/audit/structure.js';
import { citeRows, type Wanted } from '../../analysis/audit/rows.js';
import { relPath } from '../../util/paths.js';
import type { RecordedRank } from '../../analysis/rewrites/recorderSink.js';
import { TICKS_PER_US } from '../../model/model.js';
import { FUSED_PHASES, type FusedFallback, type FusedPhase, type FusedShortStep } from '../model.js';
import { inRange } from '../slice.js';
import { nearest } from '../../util/nearName.js';
import type { CheckReader, ProfileKind, Sample } from './kind.js';
import { requireSequence } from './sequence.js';

const KEYS = ['entry', 'phase'] as const;

/** The phases of steps and layers a fused rule's phase covers. */
export function phasesOf(phase: FusedPhase): Phase[] {
  switch (phase) {
    case 'decoder':
      return ['prefill', 'decode', 'step'];
    case 'all':
      return ['prefill', 'decode', 'step', 'mtp'];
    default:
      return [phase];
  }
}

/** The catalogue entry a rule names: by id, or by one of its fused kernel types. */
export function entryNamed(name: string): CatalogueEntry | undefined {
  const all = shippedCatalogue();
  return all.find((e) => e.id === name) ?? all.find((e) => e.fused.includes(name));
}

function entryOf(id: string): CatalogueEntry {
  const e = shippedCatalogue().find((x) => x.id === id);
  if (e === undefined) throw new Error(`fused: no catalogue entry ${id} (a bug in kprof)`);
  return e;
}

/** `rank 0 MTP layer steps 21-24 (kernel_details.csv:311)`: a fallback in a report. */
export function fallbackText(f: FusedFallback, q: (x: string) => string): string {
  // As the audit names a site: a rank of no id is `rank (no id)`, and a layer that is not known is not named.
  const rank = `rank ${f.rank === '-' ? '(no id)' : q(f.rank)} `;
  const where = f.phase === 'mtp' ? ['MTP layer'] : [f.phase === 'step' ? '' : f.phase, f.layer !== null ? `layer ${f.layer}` : ''];
  const layer = where
    .filter((w) => w !== '')
    .map((w) => `${w} `)
    .join('');
  const steps = f.steps.length <= 4 ? f.steps.join(',') : `${f.steps[0]}…${f.steps[f.steps.length - 1]} (${f.steps.length})`;
  const at =
    f.first.file !== null && f.first.line !== null
      ? `${q(f.first.file.slice(f.first.file.lastIndexOf('/') + 1))}:${f.first.line}`
      : `step ${f.first.step} stream ${q(f.first.stream)} #${f.first.index}`;
  return `${rank}${layer}step${f.steps.length === 1 ? '' : 's'} ${steps} (${at})`;
}

export const fused: ProfileKind<'fused'> = {
  needsBase: false,
  unit: 'chains',
  measure: 'kernels',
  parse(node, reader) {
    let nameNode = node;
    let phase: FusedPhase = 'decoder';
    if (!isScalar(node)) {
      const e = reader.entries(node, KEYS, 'fused (an entry id, or a mapping with entry: and phase:)');
      const en = e.get('entry');
      if (!en) return reader.fail(node, 'fused: expected entry: (a catalogue entry id, e.g. mla-prolog; kprof audit --list shows them).');
      nameNode = en.value ?? en.key;
      const ph = e.get('phase');
      if (ph) phase = fusedPhase(ph.value ?? ph.key, reader);
    }
    const v = isScalar(nameNode) ? nameNode.value : null;
    if (typeof v !== 'string' || v === '') {
      return reader.fail(
        nameNode,
        `fused: expected a catalogue entry id such as mla-prolog (kprof audit --list shows them); found ${describe(nameNode)}.`,
      );
    }
    const entry = entryNamed(v);
    if (entry === undefined) {
      const name = v;
      const best = nearest(
        name,
        shippedCatalogue().map((e) => e.id),
      );
      return reader.fail(
        nameNode,
        `fused: no catalogue entry ${describe(nameNode)} (by id or fused kernel type); kprof audit --list shows the entries.${best !== undefined ? ` Did you mean "${best}"?` : ''}`,
      );
    }
    if (entry.chains.length === 0) {
      return reader.fail(
        nameNode,
        `fused: the entry ${entry.id} has no unfused chain in the catalogue, so a fallback could not be seen; use present: on its fused type.`,
      );
    }
    return { kind: 'fused', entry: entry.id, phase };
  },
  evaluate(check, { rule, rank }) {
    requireSequence(rule, rank);
    const parts: AuditPart[] = (rank.beside as RecordedRank[]).map((b) => ({ rank: rank.rank, seq: b.seq }));
    const entry = entryOf(check.entry);
    const profileAudit = auditProfile(rank.files[0]?.path ?? rank.rank, parts, [entry]);
    const audit = profileAudit.entries[0]!;
    const phases = phasesOf(check.phase);
    // The rank's steps (as --steps left them) in the rule's range.
    const steps = rank.stepIds.filter((s) => inRange(rule, s));
    const inScope = new Set(steps);
    // Per step in the rule's range: the unfused chains in the phases (0 where none ran).
    const unfused = new Map<number, number>();
    let fusedCount = 0;
    for (const p of phases) {
      for (const [step, c] of audit.byStep.get(p) ?? []) {
        if (!inScope.has(step)) continue;
        fusedCount += c.fused;
        if (c.unfused > 0) unfused.set(step, (unfused.get(step) ?? 0) + c.unfused);
      }
    }
    // Per phase: the steps of the phase whose sites (fused kernels and unfused chains) are fewer than the most any of
    // its steps has: a layer there ran neither the fused kernel nor a chain the catalogue knows.
    const short: FusedShortStep[] = [];
    const missing = new Map<number, number>();
    for (const p of phases) {
      const of = (profileAudit.phaseSteps.find((x) => x.phase === p)?.steps ?? []).filter((x) => inScope.has(x));
      const by = audit.byStep.get(p);
      const sitesIn = (step: number): number => {
        const c = by?.get(step);
        return c === undefined ? 0 : c.fused + c.unfused;
      };
      let most = 0;
      for (const step of of) most = Math.max(most, sitesIn(step));
      if (most === 0) continue;
      for (const step of of) {
        const n = sitesIn(step);
        if (n >= most) continue;
        short.push({ rank: rank.rank, phase: p, step, sites: n, most });
        missing.set(step, (missing.get(step) ?? 0) + most - n);
      }
    }
    const samples: Sample[] = steps.map((s) => {
      const v = (unfused.get(s) ?? 0) + (missing.get(s) ?? 0);
      return { rank: rank.rank, step: s, value: v, bound: { op: '<=', value: 0 }, slack: -v, compared: null };
    });
    // A gate that saw the entry nowhere does not pass: the fused kernel must have run in the phases.
    if (unfused.size === 0 && missing.size === 0)
      samples.push({ rank: rank.rank, step: null, value: fusedCount, bound: { op: '>=', value: 1 }, slack: fusedCount - 1, compared: null });
    // Each site where it first ran in the rule's steps: the first of them, in the place its step shape has it.
    const sites = audit.unfusedSites
      .filter((s) => phases.includes(s.phase))
      .map((s) => ({ s, steps: s.steps.filter((x) => inScope.has(x)) }))
      .filter((x) => x.steps.length > 0)
      .map(({ s, steps: kept }) => {
        const from = s.shapes.find((x) => x.steps.includes(kept[0]!));
        const first = { ...(from?.at ?? s.at), step: kept[0]!, file: null, line: null };
        const fallback: FusedFallback = {
          rank: rank.rank,
          phase: s.phase,
          layer: s.layer,
          steps: kept,
          // Sums over the site's steps: a site partly outside the rule's steps has no exact figure for the rest.
          chains: kept.length === s.steps.length ? s.count : null,
          timeUs: kept.length === s.steps.length ? s.ticks / TICKS_PER_US : null,
          first,
        };
        return { fallback, types: from?.types ?? s.types };
      });
    const fallbacks = sites.map((x) => x.fallback);
    // The first kernel of each, by its row in a CSV kernel table of one device.
    if (parts.length === 1) {
      const wanted = sites
        .filter((x) => x.types !== null)
        .map((x) => ({ f: x.fallback, w: { ...x.fallback.first, type: x.types![0]!, file: null, line: null } as Wanted }));
      citeRows(
        rank.files.map((f) => ({ path: f.path, shown: relPath(f.path), format: f.format })),
        wanted.map((x) => x.w),
      );
      for (const { f, w } of wanted) if (w.file !== null) f.first = { ...f.first, file: w.file, line: w.line };
    }
    return { samples, steps: steps.length, newTypes: [], mismatch: null, fallbacks, short };
  },
  describe: (check) => {
    const where: Record<FusedPhase, string> = {
      decoder: 'every decoder layer of every step',
      prefill: 'every decoder layer of every prefill step',
      decode: 'every decoder layer of every decode step',
      mtp: 'the MTP layer of every step',
      all: 'every layer (the MTP layer too) of every step',
    };
    return `fused in ${where[check.phase]}: no unfused chain, the fused kernel at least once`;
  },
  held: () => null,
};

/** A fused rule's phase: (inside fused: or beside it). */
export function fusedPhase(node: Node, reader: CheckReader): FusedPhase {
  const v = isScalar(node) ? node.value : null;
  if (typeof v !== 'string' || !(FUSED_PHASES as readonly string[]).includes(v)) {
    reader.fail(node, `fused: phase: expected ${FUSED_PHASES.join(', ')}; found ${describe(node)}.`);
  }
  return v as FusedPhase;
}
