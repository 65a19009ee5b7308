// Types of scripts/bundle.mjs for the tests that import it.
import type { BuildOptions } from 'esbuild';

export function packageVersion(): string;
export function bundleOptions(o?: { entries?: string[]; outdir?: string; version?: string }): BuildOptions;
export function fingerprint(): string;
export function bundle(): Promise<void>;
export function ensureBundle(): Promise<boolean>;
