// `jobio report --html FILE` viewed in headless Chromium: one self-contained page (it fetches nothing:
// every request the page makes is counted), the verdict, each finding and the plots (inline SVG).
// Needs `npm ci --prefix grafana-plugin` (playwright-core) and Debian's chromium.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { repoRoot, runJobio } from '../helpers/exporter.js';

const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

interface Page {
  on(event: 'request', f: (r: { url(): string }) => void): void;
  goto(url: string): Promise<unknown>;
  locator(sel: string): { count(): Promise<number>; first(): { textContent(): Promise<string | null> }; allTextContents(): Promise<string[]> };
  screenshot(o: { path: string; fullPage: boolean }): Promise<unknown>;
}

test('jobio report --html: a self-contained page with the verdict, the findings and inline SVG plots', async () => {
  assert.ok(existsSync(chromiumPath), `Chromium not found at ${chromiumPath}: apt-get install -y chromium (CI installs it)`);
  const dir = mkdtempSync(join(tmpdir(), 'jobio-report-html-'));
  try {
    mkdirSync(join(dir, 'small'));
    const log = join(dir, 'run.jsonl');
    const run = await runJobio(['run', '-o', log, '--', 'sh', '-c', 'i=0; while [ $i -lt 500 ]; do echo x > "$1/small/f$i"; i=$((i+1)); done', 'sh', dir], { timeoutMs: 60_000 });
    assert.equal(run.code, 0, run.stderr);
    const page = join(dir, 'report.html');
    const r = await runJobio(['report', log, '--json', '--html', page]);
    assert.equal(r.code, 0, r.stderr);
    const report = JSON.parse(r.stdout) as { verdict: { text: string }; findings: { reason: string }[] };
    assert.ok(report.findings.length >= 1, 'the shell writing 500 small files has findings');
    const html = readFileSync(page, 'utf8');
    assert.doesNotMatch(html, /<script|<link|src=|https?:\/\//, 'no script, stylesheet link or outside address');

    const require = createRequire(join(repoRoot, 'grafana-plugin/package.json'));
    const { chromium } = require('playwright-core') as { chromium: { launch(o: object): Promise<{ newPage(o: object): Promise<Page>; close(): Promise<void> }> } };
    const browser = await chromium.launch({ executablePath: chromiumPath, args: ['--headless', '--no-sandbox', '--disable-gpu'] });
    try {
      const view = await browser.newPage({ viewport: { width: 960, height: 900 } });
      const requests: string[] = [];
      view.on('request', (req) => requests.push(req.url()));
      await view.goto(pathToFileURL(page).toString());
      assert.deepEqual(requests, [pathToFileURL(page).toString()], 'the page fetches nothing');
      assert.equal(await view.locator('.verdict').first().textContent(), `verdict: ${report.verdict.text}`);
      assert.equal(await view.locator('.finding').count(), report.findings.length);
      assert.equal(await view.locator('svg').count(), 2, 'the red/yellow/green bar and the calls per reason');
      assert.equal((await view.locator('svg rect').count()) >= 4, true);
      await view.screenshot({ path: join(dir, 'report.png'), fullPage: true });
      assert.ok(readFileSync(join(dir, 'report.png')).length > 1000);
    } finally {
      await browser.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
