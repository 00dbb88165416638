// Headless Debian Chromium through playwright-core (no browser download).
import { existsSync } from 'node:fs';
import { chromium } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];

export async function launch() {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`Chromium not found at ${CHROMIUM}: install it with "apt-get install -y chromium" (or set CHROMIUM_PATH)`);
  }
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, timeout: 60000 });
}

/** Opens the harness page and waits until the panel rendered; collects page errors. */
export async function openHarness(browser, baseUrl, query, viewport = { width: 1060, height: 480 }) {
  const page = await browser.newPage({ viewport });
  const problems = [];
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    // Fonts are not in the npm packages (404 → system font), which is expected outside Grafana.
    if (m.type() === 'error' && !/Failed to load resource/.test(m.text())) {
      problems.push(`console.error: ${m.text()}`);
    }
  });
  page.on('requestfailed', (r) => {
    if (!/\.(woff2?|ttf)$/.test(r.url())) {
      problems.push(`requestfailed: ${r.url()}`);
    }
  });
  // The page loads a 10 MB bundle: on a loaded 2-core machine that has taken longer than the default 30 s.
  await page.goto(`${baseUrl}/test-output/harness/index.html?${new URLSearchParams(query)}`, { timeout: 120000 });
  await page.waitForFunction(() => window.__harnessReady || window.__harnessError, null, { timeout: 60000 });
  const error = await page.evaluate(() => window.__harnessError);
  if (error) {
    throw new Error(`harness failed: ${error}`);
  }
  return { page, problems };
}
