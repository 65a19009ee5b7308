// Types of scripts/wasm-json.mjs for the tests that import it.
/** The TypeScript module (src/input/json/eventsWasm.ts) that the assembly of src/input/json/events.wat gives. */
export function assemble(): Promise<string>;
