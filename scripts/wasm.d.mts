// Types of scripts/wasm.mjs for the tests that import it.
/** The TypeScript module (src/input/csv/simdWasm.ts) that the assembly of src/input/csv/simd.wat gives. */
export function assemble(): Promise<string>;
/** The .wat with its inlined fragments (`;; @inline $name $a ...` to `;; @end`, used as `{{$name $x ...}}`) expanded. */
export function expand(wat: string): string;
