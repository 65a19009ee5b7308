// Types of scripts/wasm-json.mjs for the tests that import it.
/** The modules it assembles: their .wat, the TypeScript module written, and the name of its one export. */
export const MODULES: Record<'events' | 'search', { wat: string; out: string; name: string }>;
/** The TypeScript module that the assembly of module `which`'s .wat gives (default: events). */
export function assemble(which?: 'events' | 'search'): Promise<string>;
