// Screenshot of a `jobio report --html` page in headless Chromium, for docs/img/ (docs/report.md):
//   node bin/jobio.js report io.jsonl --html /tmp/report.html
//   node scripts/screenshot-report.mjs /tmp/report.html docs/img/report-html.png
// Needs `npm ci --prefix grafana-plugin` (playwright-core) and Debian's chromium (CHROMIUM_PATH).
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const [page, out] = process.argv.slice(2);
if (page === undefined || out === undefined) {
  process.stderr.write('usage: node scripts/screenshot-report.mjs REPORT.html OUT.png\n');
  process.exit(2);
}
const require = createRequire(new URL('../grafana-plugin/package.json', import.meta.url));
const { chromium } = require('playwright-core');
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu'] });
const view = await browser.newPage({ viewport: { width: 960, height: 900 }, deviceScaleFactor: 1 });
await view.goto(pathToFileURL(resolve(page)).toString());
await view.screenshot({ path: out, fullPage: true });
await browser.close();
