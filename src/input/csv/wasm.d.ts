// The part of the WebAssembly JavaScript API that kprof uses. Node.js has it built in; TypeScript declares it
// only in the DOM library, which this project does not load.

declare namespace WebAssembly {
  class Module {
    constructor(bytes: Uint8Array);
  }
  class Instance {
    constructor(module: Module, imports?: object);
    readonly exports: Record<string, unknown>;
  }
  class Memory {
    readonly buffer: ArrayBuffer;
    grow(pages: number): number;
  }
}
