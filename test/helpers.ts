// Shared test helpers: run the CLI in-process, write transcripts, find the real exports.

import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { run } from '../src/cli/run.js';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
/** Real exports, read at run time from ../shared (never copied into this repo). */
export const REAL = resolve(ROOT, '../shared/data/real');
export const HAS_REAL = existsSync(REAL);
/** The same folder as the CLI sees it from the repo root (transcripts show this path). */
export const REAL_REL = '../shared/data/real';

export interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Run kprof in-process with NO_COLOR and no TTY, in the repo root (`cwd`, which transcripts' paths are relative
 * to) or the folder given.
 */
export async function kprof(args: string[], env: Record<string, string | undefined> = {}, cwd: string = ROOT): Promise<Result> {
  let stdout = '';
  let stderr = '';
  const code = await run(args, {
    stdout: (s) => {
      stdout += s;
    },
    stderr: (s) => {
      stderr += s;
    },
    env: { NO_COLOR: '1', ...env },
    stdoutIsTTY: false,
    stderrIsTTY: false,
    cwd,
  });
  return { code, stdout, stderr };
}

/** A Markdown transcript of one CLI run: the command, stdout, stderr and exit code. */
export function transcript(args: string[], r: Result): string {
  const fence = (s: string): string => '```\n' + s + (s.endsWith('\n') || s === '' ? '' : '\n') + '```';
  const parts = [
    `$ kprof ${args.map(quote).join(' ')}`,
    '',
    '## stdout',
    fence(r.stdout),
    '',
    '## stderr',
    fence(r.stderr),
    '',
    `Exit code: ${r.code}`,
    '',
  ];
  return parts.join('\n');
}

function quote(a: string): string {
  return /^[\w./@:=,+-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`;
}

/** Run and compare with a golden transcript file under test/transcripts/. */
export async function expectTranscript(name: string, args: string[], env?: Record<string, string | undefined>): Promise<Result> {
  const r = await kprof(args, env);
  const { expect } = await import('vitest');
  await expect(transcript(args, r)).toMatchFileSnapshot(resolve(ROOT, 'test/transcripts', `${name}.md`));
  return r;
}

/** Every file below `dir`, in sorted order (folders followed, depth first). */
export function walk(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((e) => {
      const p = join(dir, e);
      return statSync(p).isDirectory() ? walk(p) : [p];
    });
}
