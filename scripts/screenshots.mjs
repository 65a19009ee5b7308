// `npm run screenshots`: the README example's HTML report (kprof diff of fixtures/fusion-example) in Debian's
// Chromium, light and dark, written to docs/images/. Run after `npm run build`; look at the pictures before
// they land. Needs /usr/bin/chromium (apt-get install -y chromium); nothing is downloaded.

import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const CHROMIUM = '/usr/bin/chromium';
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

const tmp = mkdtempSync(join(tmpdir(), 'kprof-shots-'));
try {
  const report = join(tmp, 'report.html');
  execFileSync(
    process.execPath,
    [join(ROOT, 'bin/kprof.js'), 'diff', 'fixtures/fusion-example/base', 'fixtures/fusion-example/pr', '--format', 'html', '-o', report, '-q'],
    {
      cwd: ROOT,
      env: { ...process.env, NO_COLOR: '1' },
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  try {
    for (const scheme of ['light', 'dark']) {
      const page = await browser.newPage({ viewport: { width: 1100, height: 900 }, colorScheme: scheme, deviceScaleFactor: 1 });
      await page.goto(pathToFileURL(report).href);
      const out = join(ROOT, 'docs/images', `diff-report-${scheme}.png`);
      await page.screenshot({ path: out, fullPage: true });
      await page.close();
      console.log(`wrote ${out.slice(ROOT.length + 1)}`);
    }
  } finally {
    await browser.close();
  }
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
