// Type tests, checked by `npm run typecheck` (tsconfig.test.json): each `@ts-expect-error` line must be an error,
// or tsc reports the directive as unused.

import { CHECKS, type CheckRegistry } from '../../src/rules/checks/registry.js';
import type { ProfileKind } from '../../src/rules/checks/kind.js';

const { absent: _absent, ...withoutAbsent } = CHECKS;

// @ts-expect-error a rule kind missing from the registry does not compile
export const missingKind: CheckRegistry = withoutAbsent;

// @ts-expect-error the module of another kind does not pass for a kind's own
export const wrongModule: CheckRegistry = { ...CHECKS, absent: CHECKS.present };

// @ts-expect-error a kind's parser returns a check of its own kind
export const wrongParse: ProfileKind<'count'> = { ...CHECKS.count, parse: () => ({ kind: 'absent' }) };

// The complete registry compiles.
export const complete: CheckRegistry = { ...CHECKS };
