#!/usr/bin/env node
// Benchmark of the density heatmap at 10,000 series × 720 steps:
//  1. bucketing (buildDensity: time axis, log10 buckets) in Node, compute ms, and its ratio to a
//     same-run naive baseline (alternating runs);
//  2. the built panel in headless Chromium: first paint ms (render start → canvas drawn → next frame),
//     hover and click latency (event → tooltip / drill-down list on screen).
//   node bench/run.mjs [--series 10000] [--steps 720] [--runs 11] [--json] [--compute-only]
// (--compute-only: part 1 alone, no Chromium.)
import { spawnSync } from 'node:child_process';
import { cpus } from 'node:os';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { build } from 'esbuild';
import { launch, openHarness } from '../test-browser/browser.mjs';
import { buildHarness } from '../test-browser/build.mjs';
import { serveStatic } from '../test-browser/server.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const { values: args } = parseArgs({
  options: {
    series: { type: 'string', default: '10000' },
    steps: { type: 'string', default: '720' },
    json: { type: 'boolean', default: false },
    runs: { type: 'string', default: '11' },
    'compute-only': { type: 'boolean', default: false },
  },
});
const SERIES = Number(args.series);
const STEPS = Number(args.steps);
const RUNS = Number(args.runs);

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function loadDensity() {
  const tmp = mkdtempSync(join(tmpdir(), 'jobio-bench-'));
  const out = join(tmp, 'density.mjs');
  await build({
    stdin: { contents: "export * from './density'; export * from './members';", resolveDir: join(root, 'src/panel/heatmap'), loader: 'ts' },
    bundle: true,
    format: 'esm',
    platform: 'node',
    outfile: out,
    logLevel: 'error',
  });
  const mod = await import(pathToFileURL(out).href);
  rmSync(tmp, { recursive: true, force: true });
  return mod;
}

/**
 * The same synthetic load as test-browser/synthetic.ts, as plain series: Prometheus-shaped (a series
 * absent for a while has no points there, never nulls), 20 % of series starting late or ending early.
 */
function synthetic(seriesCount, steps) {
  const start = 1_700_000_000_000;
  let seed = 12345;
  const rand = () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed / 0x7fffffff;
  };
  return Array.from({ length: seriesCount }, (_, s) => {
    const level = -2 + 9 * rand();
    const partial = rand() < 0.2;
    const first = partial ? Math.floor(rand() * steps * 0.5) : 0;
    const last = partial ? first + Math.floor(rand() * (steps - first)) : steps - 1;
    const times = [];
    const values = [];
    for (let t = first; t <= last; t++) {
      const r = rand();
      times.push(start + t * 60000);
      values.push(r < 0.07 ? 0 : 10 ** (level + Math.sin((t + s) / 40) + 0.3 * r));
    }
    return { name: `s${s}`, labels: { user: `user${s % 2000}`, jobid: String(100000 + s) }, times, values };
  });
}

/**
 * The same-run baseline: the least any density computation must do, one pass over every point with a
 * Math.log10 and a count per (step, decade), no time-axis alignment and no membership index.
 */
function naiveCounts(series, steps) {
  const counts = new Uint32Array(steps * 16);
  const start = 1_700_000_000_000;
  for (const s of series) {
    for (let i = 0; i < s.values.length; i++) {
      const v = s.values[i];
      const row = v > 0 ? Math.min(15, Math.max(1, Math.floor(Math.log10(v)) + 4)) : 0;
      counts[((s.times[i] - start) / 60000) * 16 + row]++;
    }
  }
  return counts;
}

async function computeBench() {
  const { buildDensity, cellMembers } = await loadDensity();
  const series = synthetic(SERIES, STEPS);
  buildDensity(series);
  naiveCounts(series, STEPS);
  // Baseline and bucketing alternate, so that load from other processes on a shared machine falls on
  // both alike; the figure is the median of the per-pair ratios.
  const baseline = [];
  const times = [];
  const ratios = [];
  let index;
  for (let i = 0; i < RUNS; i++) {
    let t0 = performance.now();
    naiveCounts(series, STEPS);
    baseline.push(performance.now() - t0);
    t0 = performance.now();
    index = buildDensity(series);
    times.push(performance.now() - t0);
    ratios.push(times[i] / baseline[i]);
  }
  let busiest = 0;
  for (let c = 0; c < index.counts.length; c++) {
    if (index.counts[c] > index.counts[busiest]) busiest = c;
  }
  const t0 = performance.now();
  const members = cellMembers(index, series, Math.floor(busiest / index.rows), busiest % index.rows);
  const membersMs = performance.now() - t0;
  return {
    computeMedianMs: median(times),
    computeMinMs: Math.min(...times),
    baselineMedianMs: median(baseline),
    ratioMedian: median(ratios),
    ratioMax: Math.max(...ratios),
    rows: index.rows,
    busiestCell: members.length,
    membersMs,
  };
}

async function browserBench() {
  if (!existsSync(join(root, 'dist', 'panel', 'module.js'))) {
    const r = spawnSync(process.execPath, ['scripts/build.mjs'], { cwd: root, stdio: 'inherit' });
    if (r.status !== 0) throw new Error('build failed');
  }
  await buildHarness();
  const server = await serveStatic(root);
  const browser = await launch();
  const results = { firstPaintMs: [], hoverMs: [], clickMs: [] };
  try {
    for (let i = 0; i < 3; i++) {
      const { page } = await openHarness(browser, server.url, { view: 'heatmap', theme: 'dark', scenario: 'bench', series: SERIES, steps: STEPS, width: 1000, height: 380 });
      const paint = await page.evaluate(
        () =>
          new Promise((resolve) => {
            const done = () => requestAnimationFrame(() => resolve(performance.now() - window.__harness.renderStart));
            const canvas = () => document.querySelector('[data-testid="jobio-heatmap-canvas"]');
            if (canvas()?.dataset.drawn) return done();
            new MutationObserver((_, obs) => {
              if (canvas()?.dataset.drawn) {
                obs.disconnect();
                done();
              }
            }).observe(document.body, { subtree: true, childList: true, attributes: true });
          }),
      );
      results.firstPaintMs.push(paint);
      const latency = (type, testId) =>
        page.evaluate(
          ({ type, testId }) =>
            new Promise((resolve) => {
              const canvas = document.querySelector('[data-testid="jobio-heatmap-canvas"]');
              const rect = canvas.getBoundingClientRect();
              const { x, y } = window.__harness.busiest;
              const t0 = performance.now();
              const check = () => (document.querySelector(`[data-testid="${testId}"]`) ? requestAnimationFrame(() => resolve(performance.now() - t0)) : requestAnimationFrame(check));
              canvas.dispatchEvent(new MouseEvent(type, { bubbles: true, clientX: rect.left + x, clientY: rect.top + y }));
              check();
            }),
          { type, testId },
        );
      results.hoverMs.push(await latency('mousemove', 'jobio-heatmap-hover'));
      results.clickMs.push(await latency('click', 'jobio-drilldown'));
      await page.close();
    }
  } finally {
    await browser.close();
    await server.close();
  }
  return { firstPaintMs: median(results.firstPaintMs), hoverMs: median(results.hoverMs), clickMs: median(results.clickMs) };
}

const compute = await computeBench();
const browser = args['compute-only'] ? { firstPaintMs: NaN, hoverMs: NaN, clickMs: NaN } : await browserBench();
const machine = { nproc: cpus().length, cpu: cpus()[0]?.model ?? 'unknown', node: process.version };
const result = { date: new Date().toISOString().slice(0, 10), machine, series: SERIES, steps: STEPS, ...compute, ...browser };
if (args.json) {
  console.log(JSON.stringify(result));
} else {
  const f = (x) => x.toFixed(1);
  console.log(`## Grafana plugin

Density heatmap, ${SERIES.toLocaleString('en')} series × ${STEPS} steps (up to ${((SERIES * STEPS) / 1e6).toFixed(1)} M points; 20 % of series start late or end early, 7 % zeros, rates over 9 decades). ${result.date}, ${machine.nproc} cores, ${machine.cpu}, Node ${machine.node}, Chromium headless.

| measure | value |
| --- | --- |
| baseline, same run: one Math.log10 and a count per point (no time axis, no index), median of ${RUNS} | ${f(compute.baselineMedianMs)} ms |
| bucketing (buildDensity: time axis, log10 buckets; typed histogram, no per-point allocation), median of ${RUNS} | ${f(compute.computeMedianMs)} ms (min ${f(compute.computeMinMs)} ms) |
| bucketing ÷ baseline, median of the ${RUNS} alternating pairs (largest pair) | ${compute.ratioMedian.toFixed(2)}× (${compute.ratioMax.toFixed(2)}×) |
| drill-down list of the busiest cell (${compute.busiestCell} series: one column recomputed, sorted) | ${f(compute.membersMs)} ms |
| Chromium: first paint (render start → canvas drawn → next frame), median of 3 | ${f(browser.firstPaintMs)} ms |
| Chromium: hover → tooltip on screen | ${f(browser.hoverMs)} ms |
| Chromium: click → drill-down list on screen | ${f(browser.clickMs)} ms |
`);
}
