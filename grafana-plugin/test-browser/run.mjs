#!/usr/bin/env node
// Chromium test of the *built* plugin: dist/*.js loaded through an AMD host with shared libraries,
// the built data source fed real Prometheus captures, both panel views in dark and light themes,
// a heatmap cell clicked and its drill-down list and variable checked, the drill-down at 1920 px with
// whole job ids, the status column's letters and colour-blind check, the cluster dashboard's population tables
// (rendered by @grafana/ui's Table) and its bar charts' frames against the committed panels. Screenshots go to
// test-output/*.png. Prints TAP-like lines and "N passed, N failed"; exits non-zero on any failure.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { launch, openHarness } from './browser.mjs';
import { buildHarness, outDir, root } from './build.mjs';
import { serveStatic } from './server.mjs';
import { MACHADO_2009, closestPair, deltaE, parseColour, simulate } from './colour-vision.mjs';

const shots = join(root, 'test-output');
let passed = 0;
let failed = 0;

// JOBIO_BROWSER_ONLY=<substring>: run only the checks whose name contains it (while working on one).
const only = process.env.JOBIO_BROWSER_ONLY ?? '';

async function check(name, fn) {
  if (!name.includes(only)) {
    return;
  }
  try {
    await fn();
    passed++;
    console.log(`ok - ${name}`);
  } catch (e) {
    failed++;
    console.log(
      `not ok - ${name}\n  ${String(e?.stack ?? e)
        .split('\n')
        .join('\n  ')}`,
    );
  }
}

function assert(cond, message) {
  if (!cond) {
    throw new Error(message);
  }
}

async function summary(browser, base, theme) {
  const { page, problems } = await openHarness(browser, base, { view: 'summary', theme, width: 1000, height: 300 });
  const rows = page.getByTestId('jobio-summary-row');
  await rows.first().waitFor();
  const groups = await rows.evaluateAll((els) => els.map((e) => [e.dataset.group, e.dataset.status]));
  assert(groups.length === 5, `expected 5 jobs, got ${JSON.stringify(groups)}`);
  const status = Object.fromEntries(groups);
  // Real programs under the profiler: dd bs=512 (7002) and python3 stats of files it never opens
  // (7004) red, python3 stat + forward seeks (7003) yellow, dd bs=1M (7001) and cp (7005) green.
  const expected = { 7001: 'green', 7002: 'red', 7003: 'yellow', 7004: 'red', 7005: 'green' };
  for (const [job, colour] of Object.entries(expected)) {
    assert(status[job] === colour, `job ${job} should be ${colour}: ${JSON.stringify(status)}`);
  }
  assert(['7002', '7004'].includes(groups[0][0]) && ['7002', '7004'].includes(groups[1][0]), `rows are sorted by red share: ${JSON.stringify(groups)}`);
  assert(await page.evaluate(() => window.__harness.app), 'the app module exposes a root page');
  await rows.filter({ has: page.locator('[data-group="7001"]') }).count();
  await page.locator('[data-group="7001"]').hover();
  const tip = page.getByTestId('jobio-summary-tooltip');
  await tip.waitFor({ timeout: 5000 });
  const text = await tip.innerText();
  assert(/7001/.test(text) && /total/.test(text) && /calls/.test(text), `tooltip shows absolute figures: ${text}`);
  // Columns: user, volume, job link with var-jobid; a header click sorts by volume.
  const row7002 = page.locator('[data-testid="jobio-summary-row"][data-group="7002"]');
  const user = await row7002.getByTestId('jobio-summary-user').innerText();
  assert(user === 'bob', `7002's user column: ${user}`);
  const href = await row7002.getByTestId('jobio-summary-job-link').getAttribute('href');
  assert(new URL(href, 'http://g').searchParams.get('var-jobid') === '7002', `job link sets var-jobid: ${href}`);
  await page.locator('[data-testid="jobio-summary-sort"][data-sort="volume"]').click();
  const byVolume = await page.getByTestId('jobio-summary-row').evaluateAll((els) => els.map((e) => e.dataset.group));
  assert(byVolume.join() === '7001,7005,7003,7002,7004', `sorted by volume: ${byVolume}`);
  // The top reasons of a red job in its tooltip (the data source returns the reason breakdown).
  await page.locator('[data-group="7004"]').hover();
  const reasons = page.getByTestId('jobio-summary-reasons');
  await reasons.waitFor({ timeout: 5000 });
  const reasonText = await reasons.innerText();
  assert(/stat unused \(red\)/.test(reasonText), `7004's tooltip lists its reasons: ${reasonText}`);
  await statusColumn(page, theme);
  await page.screenshot({ path: join(shots, `summary-${theme}.png`) });
  assert(problems.length === 0, problems.join('\n'));
  await page.close();
}

/** Minimum CIE76 difference between any two status colours as a deuteranope or a protanope sees them. */
const MIN_SIMULATED_DELTA_E = 20;

/**
 * The status column without colour vision: each badge carries its letter (R, Y, G), and the three
 * rendered colours stay apart when deuteranopia and protanopia are simulated (Machado et al. 2009).
 */
async function statusColumn(page, theme) {
  const badges = await page.getByTestId('jobio-summary-row').evaluateAll((rows) =>
    rows.map((r) => {
      const b = r.querySelector('[data-testid="jobio-summary-status"]');
      return { status: r.dataset.status, letter: b.innerText.trim(), colour: getComputedStyle(b).backgroundColor, visible: b.getBoundingClientRect().width > 0 };
    }),
  );
  const letters = { red: 'R', yellow: 'Y', green: 'G' };
  const colours = {};
  for (const b of badges) {
    assert(b.visible && b.letter === letters[b.status], `the ${b.status} badge shows "${letters[b.status]}": ${JSON.stringify(b)}`);
    assert(!colours[b.status] || colours[b.status] === b.colour, `one colour per status: ${JSON.stringify(badges)}`);
    colours[b.status] = b.colour;
  }
  assert(Object.keys(colours).sort().join() === 'green,red,yellow', `the capture has all three statuses: ${JSON.stringify(colours)}`);
  const rgb = Object.fromEntries(Object.entries(colours).map(([k, v]) => [k, parseColour(v)]));
  for (const deficiency of ['deuteranopia', 'protanopia']) {
    const { delta, pair } = closestPair(rgb, deficiency);
    console.log(`# ${theme}: status colours ${JSON.stringify(colours)}; closest under ${deficiency}: ${pair.join('/')} ΔE ${delta.toFixed(1)}`);
    assert(delta >= MIN_SIMULATED_DELTA_E, `${theme}, ${deficiency}: ${pair.join(' and ')} differ by ΔE ${delta.toFixed(1)} < ${MIN_SIMULATED_DELTA_E}`);
  }
}

/** The simulation itself: greys are unchanged (rows sum to 1), and Grafana's primary red and green, which the status used to use, collapse under deuteranopia. */
function colourVisionModel() {
  for (const matrix of Object.values(MACHADO_2009)) {
    const grey = simulate([128, 128, 128], matrix);
    assert(
      grey.every((c) => Math.abs(c - 128) < 0.5),
      `grey stays grey: ${grey}`,
    );
  }
  const before = deltaE(simulate(parseColour('#F2495C'), MACHADO_2009.deuteranopia), simulate(parseColour('#73BF69'), MACHADO_2009.deuteranopia));
  assert(before < 10, `primary red and green look alike to a deuteranope: ΔE ${before.toFixed(1)}`);
  assert(deltaE(parseColour('#F2495C'), parseColour('#73BF69')) > 50, 'but not to normal vision');
}

async function heatmap(browser, base, theme) {
  const { page, problems } = await openHarness(browser, base, { view: 'heatmap', theme, width: 1000, height: 380 });
  const canvas = page.getByTestId('jobio-heatmap-canvas');
  await canvas.waitFor();
  await page.waitForFunction(() => document.querySelector('[data-testid="jobio-heatmap-canvas"]')?.dataset.drawn);
  // The canvas really has coloured pixels.
  const coloured = await page.evaluate(() => {
    const c = document.querySelector('[data-testid="jobio-heatmap-canvas"]');
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    let n = 0;
    for (let i = 3; i < d.length; i += 4) {
      n += d[i] > 0 ? 1 : 0;
    }
    return n;
  });
  assert(coloured > 10000, `canvas should be painted, ${coloured} pixels`);
  const busiest = await page.evaluate(() => window.__harness.busiest);
  const box = await canvas.boundingBox();
  await page.mouse.move(box.x + busiest.x, box.y + busiest.y);
  await page.getByTestId('jobio-heatmap-hover').waitFor();
  await page.mouse.click(box.x + busiest.x, box.y + busiest.y);
  const list = page.getByTestId('jobio-drilldown');
  await list.waitFor();
  const rows = list.getByTestId('jobio-drilldown-row');
  const n = await rows.count();
  assert(n === busiest.count, `drill-down lists ${n} series, the cell holds ${busiest.count}`);
  const title = await list.innerText();
  assert(title.includes(`${busiest.count} series`), `title names the count: ${title.slice(0, 120)}`);
  const cells = await rows
    .first()
    .getByTestId('jobio-drilldown-cell')
    .evaluateAll((els) => Object.fromEntries(els.map((e) => [e.dataset.label, e.innerText])));
  assert(/^\S+$/.test(cells.user) && /^\d+$/.test(cells.jobid), `rows show user and job: ${JSON.stringify(cells)}`);
  const jobHref = await rows.first().getByTestId('jobio-drilldown-job-link').getAttribute('href');
  assert(new URL(jobHref, 'http://g').searchParams.get('var-jobid') === cells.jobid, `row links to its job: ${jobHref}`);
  const legend = await page.getByTestId('jobio-heatmap-legend').innerText();
  assert(/series per cell/.test(legend) && /^1$/m.test(legend.replace(/\s+/g, '\n')), `legend with counts: ${legend}`);
  await page.mouse.move(box.x + 5, box.y + 5);
  await page.screenshot({ path: join(shots, `heatmap-${theme}.png`) });
  const user = cells.user;
  await rows.first().click();
  const location = await page.evaluate(() => window.__harness.location());
  assert(location['var-user'] === user, `clicking a row sets $user=${user}: ${JSON.stringify(location)}`);
  assert(problems.length === 0, problems.join('\n'));
  await page.close();
}

/** The bench load (10,000 series × 720 steps): drawn, legend up to the busiest count, busiest cell listed. */
async function heatmapAtScale(browser, base, theme) {
  const { page, problems } = await openHarness(browser, base, { view: 'heatmap', theme, scenario: 'bench', series: 10000, steps: 720, width: 1200, height: 460 }, { width: 1260, height: 540 });
  await page.waitForFunction(() => document.querySelector('[data-testid="jobio-heatmap-canvas"]')?.dataset.drawn, undefined, { timeout: 60000 });
  const busiest = await page.evaluate(() => window.__harness.busiest);
  const legendMax = await page.getByTestId('jobio-heatmap-legend').getAttribute('data-max');
  const maxCount = await page.evaluate(() => window.__harness.maxCount);
  assert(Number(legendMax) === maxCount && maxCount >= busiest.count, `legend tops out at the largest count: ${legendMax} vs ${maxCount}`);
  const rowsTitle = await page.getByTestId('jobio-heatmap').getAttribute('data-steps');
  assert(rowsTitle === '720', `720 steps: ${rowsTitle}`);
  // The rarest colour (count 1) is the brightest on dark and the darkest on light: read it off the legend.
  const rare = await page.locator('[data-testid="jobio-heatmap-legend-tick"][data-count="1"]').getAttribute('data-color');
  assert(rare === (theme === 'dark' ? 'rgb(253, 231, 37)' : 'rgb(68, 1, 84)'), `count 1 colour on ${theme}: ${rare}`);
  await page.screenshot({ path: join(shots, `heatmap-10k-${theme}.png`) });
  const box = await page.getByTestId('jobio-heatmap-canvas').boundingBox();
  await page.mouse.click(box.x + busiest.x, box.y + busiest.y);
  const rows = page.getByTestId('jobio-drilldown').getByTestId('jobio-drilldown-row');
  await rows.first().waitFor();
  const title = await page.getByTestId('jobio-drilldown').innerText();
  assert(title.includes(`${busiest.count} series`), `drill-down names ${busiest.count} series: ${title.slice(0, 120)}`);
  await page.screenshot({ path: join(shots, `heatmap-10k-${theme}-drilldown.png`) });
  assert(problems.length === 0, problems.join('\n'));
  await page.close();
}

/**
 * A full-width panel on a 1920 px screen, jobs named as Slurm array tasks: the drill-down table is
 * 560 px wide and shows every job id whole (not cut, not hidden), equal to the id its link opens.
 */
async function heatmapAt1920(browser, base, theme) {
  const { page, problems } = await openHarness(
    browser,
    base,
    { view: 'heatmap', theme, scenario: 'bench', series: 3000, steps: 120, jobids: 'array', width: 1870, height: 560 },
    { width: 1920, height: 700 },
  );
  await page.waitForFunction(() => document.querySelector('[data-testid="jobio-heatmap-canvas"]')?.dataset.drawn, undefined, { timeout: 60000 });
  const busiest = await page.evaluate(() => window.__harness.busiest);
  const box = await page.getByTestId('jobio-heatmap-canvas').boundingBox();
  await page.mouse.click(box.x + busiest.x, box.y + busiest.y);
  const list = page.getByTestId('jobio-drilldown');
  await list.getByTestId('jobio-drilldown-row').first().waitFor();
  const rows = await list.evaluate((el) => {
    const listBox = el.getBoundingClientRect();
    return {
      width: Math.round(listBox.width),
      rows: [...el.querySelectorAll('[data-testid="jobio-drilldown-row"]')].map((r) => {
        const cell = r.querySelector('[data-testid="jobio-drilldown-cell"][data-label="jobid"]');
        const cellBox = cell.getBoundingClientRect();
        return {
          text: cell.innerText,
          href: r.querySelector('[data-testid="jobio-drilldown-job-link"]')?.getAttribute('href'),
          cut: cell.scrollWidth > cell.clientWidth,
          inside: cellBox.left >= listBox.left && cellBox.right <= listBox.right + 0.5,
        };
      }),
    };
  });
  assert(rows.width === 560, `the list grows with the panel: ${rows.width} px`);
  assert(rows.rows.length === Math.min(busiest.count, 200), `${rows.rows.length} rows for ${busiest.count} series`);
  for (const r of rows.rows) {
    const linked = new URL(r.href, 'http://g').searchParams.get('var-jobid');
    assert(/^\d{8}_\d{1,3}$/.test(r.text) && r.text === linked, `whole job id shown: "${r.text}", link opens ${linked}`);
    assert(!r.cut && r.inside, `job ${r.text} is not cut and lies inside the list: ${JSON.stringify(r)}`);
  }
  console.log(`# 1920 px (${theme}): ${rows.rows.length} rows, every job id whole (e.g. ${rows.rows[0].text}), list ${rows.width} px`);
  await page.screenshot({ path: join(shots, `heatmap-1920-${theme}-drilldown.png`) });
  assert(problems.length === 0, problems.join('\n'));
  await page.close();
}

/** The rendered cells of a Grafana Table, row by row (the header first). */
async function tableCells(page, testId) {
  const box = page.getByTestId(testId);
  await box.locator('[role="cell"]').first().waitFor({ timeout: 60000 });
  return box.evaluate((el) => [...el.querySelectorAll('[role="row"]')].map((r) => [...r.querySelectorAll('[role="columnheader"], [role="cell"]')].map((c) => c.innerText.trim())));
}

/** Every panel of a dashboard, rows' panels included. */
const panelsOf = (list) => list.flatMap((p) => [p, ...panelsOf(p.panels ?? [])]);

/**
 * The cluster dashboard's population panels, as committed: its tables rendered by @grafana/ui's Table (what Grafana's
 * table panel renders) from the built data source on the captures; its bar charts' frames checked against the
 * panels' options (Grafana's bar chart panel is not in @grafana/ui): the x field is a number field, every other field
 * is a number, the override hides exactly the cumulative fields, the x unit is the frame's.
 */
async function population(browser, base, theme) {
  const { page, problems } = await openHarness(browser, base, { view: 'population', theme, width: 1000 }, { width: 1060, height: 1300 });
  const frames = await page.evaluate(() => window.__harness.population);
  const dashboard = JSON.parse(readFileSync(join(root, '..', 'dashboards', 'cluster-filesystem.json'), 'utf8'));
  const panels = panelsOf(dashboard.panels).filter((p) => p.targets?.some((t) => t.queryType === 'population'));
  assert(
    panels.map((p) => `${p.type}:${p.targets[0].populationView}`).join(' ') === 'table:percentiles table:summary barchart:volume barchart:bandwidth',
    `population panels: ${panels.map((p) => p.type)}`,
  );
  const field = (f, name) => f.fields.find((x) => x.name === name);
  for (const p of panels) {
    const view = p.targets[0].populationView;
    const f = frames[view];
    const cells = await tableCells(page, `jobio-population-${view}`);
    // what a Table shows: one column per field, in order, named as the fields
    assert(JSON.stringify(cells[0]) === JSON.stringify(f.fields.map((x) => x.name)), `${view} header ${JSON.stringify(cells[0])}`);
    if (p.type === 'barchart') {
      const x = field(f, p.options.xField);
      assert(x?.type === 'number', `${view}: x field ${p.options.xField} is a number field`);
      assert(
        f.fields.every((y) => y.type === 'number'),
        `${view}: every field is a number`,
      );
      const hide = p.fieldConfig.overrides.find((o) => o.matcher.id === 'byRegexp');
      const hidden = f.fields.filter((y) => new RegExp(`^(?:${hide.matcher.options})$`).test(y.name)).map((y) => y.name);
      assert(JSON.stringify(hidden) === '["read cumulative","write cumulative"]' && hide.properties[0].value.viz === true, `${view}: hidden ${hidden}`);
      const unit = p.fieldConfig.overrides.find((o) => o.matcher.id === 'byName' && o.matcher.options === p.options.xField).properties[0].value;
      assert(unit === x.unit, `${view}: the x unit ${unit} is the frame's ${x.unit}`);
      // the bars count every job that moved data: 25 read, 29 wrote in the captures
      const sum = (name) => field(f, name).values.reduce((a, b) => a + b, 0);
      assert(sum('read jobs') === 25 && sum('write jobs') === 29, `${view}: ${sum('read jobs')} read, ${sum('write jobs')} write jobs`);
      // the table's first row is the first bin, its counts as the frame has them
      assert(cells[1][1] === String(field(f, 'read jobs').values[0]) && cells[1][3] === String(field(f, 'write jobs').values[0]), `${view} first row ${cells[1]}`);
    } else if (view === 'percentiles') {
      assert(JSON.stringify(cells.slice(1).map((r) => r[0])) === '["I/O intensity I","burstiness ρ","parallel intensity P","jobs"]', `rows ${cells.map((r) => r[0])}`);
      for (let row = 1; row <= 3; row++) {
        for (let col = 1; col < f.fields.length; col++) {
          const want = f.fields[col].values[row - 1].toFixed(2);
          assert(cells[row][col] === want, `${cells[row][0]}, ${f.fields[col].name}: shown ${cells[row][col]}, frame ${want}`);
        }
      }
      assert(cells[4].slice(1).map(Number).join(' ') === '25 25 25 29 29 29', `jobs row ${cells[4]}`);
    } else {
      assert(JSON.stringify(cells.slice(1).map((r) => r.slice(0, 2))) === '[["read","25"],["write","29"]]', `summary ${JSON.stringify(cells)}`);
    }
  }
  await page.screenshot({ path: join(shots, `population-${theme}.png`), fullPage: true });
  assert(problems.length === 0, problems.join('\n'));
  await page.close();
}

async function main() {
  if (!existsSync(join(root, 'dist', 'panel', 'module.js'))) {
    throw new Error('dist/ is missing: run "npm run build" first');
  }
  await buildHarness();
  const server = await serveStatic(root);
  const browser = await launch();
  try {
    await check('colour-vision model: greys unchanged, primary red and green alike to a deuteranope', () => colourVisionModel());
    // Job ids are laid out alike in both themes: one theme is enough (each page load costs seconds).
    await check('heatmap at 1920 px (dark): the drill-down table shows whole job ids', () => heatmapAt1920(browser, server.url, 'dark'));
    for (const theme of ['dark', 'light']) {
      await check(`population tables (${theme}): the cluster dashboard's table and bar chart panels' frames from the built data source`, () => population(browser, server.url, theme));
      await check(`summary view (${theme}): built panel + built data source on captured responses`, () => summary(browser, server.url, theme));
      await check(`heatmap view (${theme}): canvas drawn, cell click lists its series, row click sets $user`, () => heatmap(browser, server.url, theme));
      await check(`heatmap at 10,000 series × 720 steps (${theme}): legend, rare-cell colour, busiest cell drill-down`, () => heatmapAtScale(browser, server.url, theme));
    }
  } finally {
    await browser.close();
    await server.close();
  }
  console.log(
    `screenshots: ${shots}/{summary,heatmap,heatmap-10k}-{dark,light}.png, heatmap-10k-{dark,light}-drilldown.png, heatmap-1920-dark-drilldown.png, population-{dark,light}.png (harness in ${outDir})`,
  );
  console.log(`${passed} passed, ${failed} failed`);
  process.exitCode = failed === 0 ? 0 : 1;
}

main().catch((e) => {
  console.error(e);
  process.exitCode = 1;
});
