// The docs' examples are real: every ```console block of the README and of docs/*.md that starts with `$ kprof …`
// is run, and what it shows must be exactly what kprof prints (stdout, then stderr). A line that is only `…`
// stands for lines left out.

import { describe, expect, it } from 'vitest';
import { docFiles, kprof } from './helpers.js';

const blocks = docFiles().flatMap(([page, text]) =>
  [...text.matchAll(/```console\n\$ kprof ([^\n]*)\n([\s\S]*?)```/g)].map((m) => ({ page, command: m[1]!, shown: m[2]! })),
);

/** Split a shell command line the way the README writes them (no quoting needed there). */
function argv(command: string): string[] {
  return command.split(/\s+/).filter(Boolean);
}

describe('the examples of the README and docs/', () => {
  it('has console examples to check', () => {
    expect(blocks.length).toBeGreaterThanOrEqual(10);
  });
  for (const b of blocks) {
    it(`${b.page}: $ kprof ${b.command}`, async () => {
      const r = await kprof(argv(b.command));
      const printed = r.stdout + r.stderr;
      if (!/^\s*…\s*$/m.test(b.shown)) {
        expect(printed).toBe(b.shown);
        return;
      }
      const pattern = b.shown
        .split('\n')
        .map((line) => (/^\s*…\s*$/.test(line) ? '[\\s\\S]*?' : line.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
        .join('\n');
      expect(printed).toMatch(new RegExp(`^${pattern}$`));
    });
  }
});
