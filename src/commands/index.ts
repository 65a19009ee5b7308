// Commands registered beside summary and inspect: diff, check, rules.

import type { Command } from 'commander';
import type { Io } from '../io.js';
import type { Progress } from '../progress.js';
import type { RunHooks } from '../run.js';
import { registerDiff } from './diff.js';
import { registerCheck } from './check.js';
import { registerRules } from './rules.js';

export function registerExtraCommands(
  program: Command,
  io: Io,
  hooks: RunHooks,
  progressFor: (opts: { quiet?: boolean }) => Progress,
): void {
  registerDiff(program, io, hooks, progressFor);
  registerCheck(program, io, hooks, progressFor);
  registerRules(program, io, hooks, progressFor);
}
