// `npm run screenshots`: the README example's HTML report (kprof diff of fixtures/fusion-example) in Debian's
// Chromium, light, 1280 CSS px wide, its first screens (headline, totals, the count and time charts), written to
// docs/images/diff-report.png (the README's front-page picture; kept under 200 KB). Run after `npm run build`;
// look at the picture before it lands. Needs /usr/bin/chromium (apt-get install -y chromium); nothing is
// downloaded. `--all` also writes the whole page at 390 and 1280 px, light and dark, to a temp folder it names.

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
  '--disable-quic',
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
    const page = await browser.newPage({ viewport: { width: 1280, height: 1000 }, colorScheme: 'light', deviceScaleFactor: 1 });
    await page.goto(pathToFileURL(report).href);
    const out = join(ROOT, 'docs/images/diff-report.png');
    await page.screenshot({ path: out, fullPage: false });
    await page.close();
    console.log(`wrote ${out.slice(ROOT.length + 1)}`);
    if (process.argv.includes('--all')) {
      const dir = mkdtempSync(join(tmpdir(), 'kprof-shots-all-'));
      for (const width of [390, 1280])
        for (const scheme of ['light', 'dark']) {
          const p = await browser.newPage({ viewport: { width, height: 900 }, colorScheme: scheme, deviceScaleFactor: 1 });
          await p.goto(pathToFileURL(report).href);
          await p.evaluate(() =>
            document.querySelectorAll('details').forEach((d) => {
              d.open = true;
            }),
          );
          const file = join(dir, `diff-${width}-${scheme}.png`);
          await p.screenshot({ path: file, fullPage: true });
          await p.close();
          console.log(`wrote ${file}`);
        }
    }
  } finally {
    await browser.close();
  }
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
