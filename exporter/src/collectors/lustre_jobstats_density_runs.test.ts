// The density's lines are kept as bytes from one scrape to the next and copied with the new window's
// end (SampleSink.renderedRun): what is served is never a kept run gone stale. Counts that change, a
// window that closes, a timestamp that gets a digit longer, a target that goes and comes back, both
// formats in turn: each render is compared whole with the text rendered line by line from the labels.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LustreJobStatsDensityMetrics } from './lustre_jobstats_density.js';
import { MetricRegistry } from '../scrape/metric-registry.js';
import { ExpositionWriter, formatValue, renderToString, type ExpositionFormat } from '../scrape/exposition-writer.js';
import { SampleRunMemo } from '../scrape/sample-run.js';
import { BUCKETS, DENSITY_ROWS, type RateDensity } from '../lustre/rate-density.js';
import type { TargetView } from '../lustre/jobstats-accumulator.js';
import { densityText, sampleLines } from '../../../test/helpers/density-oracle.js';

type Shown = { name: string; density: RateDensity };

/** A density with `n` in every count (the zero bucket of the first class set apart), over `interval` s, ending at `endMs`. */
function density(n: number, endMs: number, interval = 30): RateDensity {
  const counts = (k: number): Uint32Array => Uint32Array.from({ length: DENSITY_ROWS * BUCKETS }, (_, i) => (i === 0 ? 7 + k : n));
  return { intervalSeconds: interval, endMs, jobs: counts(0), users: counts(1) };
}

test('density runs kept between scrapes: never served stale', async () => {
  const registry = new MetricRegistry();
  const metrics = new LustreJobStatsDensityMetrics(registry);
  const scrape = async (shown: readonly Shown[], format: ExpositionFormat = 'text'): Promise<string> => {
    metrics.clear();
    for (const s of shown) metrics.fill(s as unknown as TargetView);
    const text = await renderToString([registry.list()], format);
    assert.equal(sampleLines(text), sampleLines(densityText(shown, format)), format);
    return text;
  };
  const t0 = 1796000010000;
  const line = (text: string, start: string): string | undefined => text.split('\n').find((l) => l.startsWith(start));
  const zeroOf = (target: string): string => `jobio_lustre_jobstats_rate_jobs{target="${target}",class="operations",decade="zero"}`;
  const intervalOf = (target: string): string => `jobio_lustre_jobstats_rate_interval_seconds{target="${target}"}`;

  let text = await scrape([
    { name: 'a', density: density(0, t0) },
    { name: 'b', density: density(1, t0) },
  ]);
  assert.equal(line(text, zeroOf('a')), `${zeroOf('a')} 7 1796000010000`);
  // The next window with the same counts: the kept bytes, the new window's end in every line.
  text = await scrape([
    { name: 'a', density: density(0, t0 + 30_000) },
    { name: 'b', density: density(1, t0 + 30_000) },
  ]);
  assert.equal(line(text, zeroOf('b')), `${zeroOf('b')} 7 1796000040000`);
  assert.equal(text.split('\n').filter((l) => l.endsWith(' 1796000010000')).length, 0);
  // Counts that change (b), and a count that gets a digit longer (a): written again.
  text = await scrape([
    { name: 'a', density: density(10, t0 + 60_000) },
    { name: 'b', density: density(2, t0 + 60_000, 31.5) },
  ]);
  assert.equal(line(text, `jobio_lustre_jobstats_rate_jobs{target="a",class="operations",decade="-3"}`), `jobio_lustre_jobstats_rate_jobs{target="a",class="operations",decade="-3"} 10 1796000070000`);
  assert.equal(line(text, intervalOf('b')), `${intervalOf('b')} 31.5 1796000070000`);
  // The same window again (a second scraper): unchanged.
  await scrape([
    { name: 'a', density: density(10, t0 + 60_000) },
    { name: 'b', density: density(2, t0 + 60_000, 31.5) },
  ]);
  // The other format, then back: each format's bytes kept apart.
  text = await scrape([{ name: 'a', density: density(10, t0 + 90_000) }], 'openmetrics');
  assert.equal(line(text, zeroOf('a')), `${zeroOf('a')} 7 1796000100`);
  // Target b gone, then back with the counts it had: no line of it while gone, its lines right when back.
  text = await scrape([{ name: 'a', density: density(10, t0 + 120_000) }]);
  assert.equal(text.includes('target="b"'), false);
  text = await scrape([
    { name: 'b', density: density(2, t0 + 150_000, 31.5) },
    { name: 'a', density: density(10, t0 + 150_000) },
  ]);
  assert.equal(line(text, intervalOf('b')), `${intervalOf('b')} 31.5 1796000160000`);
  // A window's end one digit longer (and back): the lines written again, not overwritten in place.
  text = await scrape([{ name: 'a', density: density(10, 9999999990000) }]);
  text = await scrape([{ name: 'a', density: density(10, 10000000020000) }]);
  assert.equal(line(text, zeroOf('a')), `${zeroOf('a')} 7 10000000020000`);
  text = await scrape([{ name: 'a', density: density(10, 9999999990000) }]);
  assert.equal(line(text, zeroOf('a')), `${zeroOf('a')} 7 9999999990000`);
  text = await scrape([{ name: 'a', density: density(10, t0 + 180_000, 29.75) }], 'openmetrics');
  assert.equal(line(text, intervalOf('a')), `${intervalOf('a')} 29.75 1796000190`);
});

test('a run kept: values that are not integers or never equal (NaN), across chunk boundaries, in order with text', () => {
  const first = Buffer.from('target="x"');
  const tails = Array.from({ length: 2000 }, (_, i) => Buffer.from(`,i="${i}"`));
  const memo = new SampleRunMemo();
  const render = (values: number[], stamp: number | undefined): { text: string; chunks: number; series: number } => {
    const chunks: Buffer[] = [];
    const writer = new ExpositionWriter('text', (c) => chunks.push(c));
    // A string sample before and after the run, and a run of 2,000 lines of ~45 bytes after 1,500 others.
    for (let i = 0; i < 1500; i += 1) writer.rendered(`k="${i}"`, i);
    writer.renderedRun(first, tails, values, 0, stamp, memo);
    writer.rendered('k="end"', 1);
    writer.end();
    return { text: Buffer.concat(chunks).toString('utf8'), chunks: chunks.length, series: writer.seriesWritten };
  };
  const oracle = (values: number[], stamp: number | undefined): string =>
    `${Array.from({ length: 1500 }, (_, i) => `{k="${i}"} ${i}\n`).join('')}${tails.map((t, i) => `{target="x"${t.toString()}} ${formatValue(values[i]!)}${stamp === undefined ? '' : ` ${stamp}`}\n`).join('')}{k="end"} 1\n`;
  const values = tails.map((_, i) => [0.1, 1.25, -0, 2 ** 53 + 2, Infinity, 3][i % 6]!);
  const changed = values.map((x, i) => (i === 1999 ? 4 : x));
  const withNaN = values.map((x, i) => (i === 5 ? NaN : x));
  for (const [v, stamp] of [
    [values, 1796000010000],
    [values, 1796000040000],
    [values, undefined],
    [changed, undefined],
    [changed, 1796000070000],
    [changed, 1796000100000],
    [withNaN, 1796000100000],
    [withNaN, 1796000130000],
  ] as const) {
    const out = render([...v], stamp);
    assert.equal(out.text, oracle([...v], stamp));
    assert.equal(out.series, 1500 + 2000 + 1);
    assert.ok(out.chunks >= 2, `${out.chunks} chunks`);
  }
});
