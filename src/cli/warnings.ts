// Node's warnings that say nothing to a kprof user: `ExperimentalWarning: SQLite is an experimental feature`, which
// Node prints once when a db export is read with its built-in node:sqlite (library.ts). kprof's SQLite figures are
// checked against better-sqlite3's in its tests, on every Node it supports. Every other warning is left as it is.

/** Filters the SQLite ExperimentalWarning out of `proc`'s warnings (the main thread's, or a worker's). */
export function quietSqliteWarning(proc: NodeJS.Process): void {
  const emit = proc.emitWarning.bind(proc) as (...args: unknown[]) => void;
  proc.emitWarning = ((warning: unknown, ...rest: unknown[]) => {
    const text = warning instanceof Error ? warning.message : String(warning);
    const type = warning instanceof Error ? warning.name : typeof rest[0] === 'string' ? rest[0] : (rest[0] as { type?: unknown } | undefined)?.type;
    if (type === 'ExperimentalWarning' && /^SQLite is an experimental feature/.test(text)) return;
    emit(warning, ...rest);
  }) as NodeJS.Process['emitWarning'];
}
