// Types of scripts/wasm.mjs for the tests that import it.
/** The TypeScript module (src/input/csv/simdWasm.ts) that the assembly of src/input/csv/simd.wat gives. */
export function assemble(): Promise<string>;
