import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Scraper } from './scraper.js';
import { createEnabledCollectors } from './enabled.js';
import { silentLogger } from '../util/logger.js';
import { defaultPaths } from '../util/paths.js';
import { absentCollector, failingCollector, hangingCollector, workingCollector } from '../../../test/helpers/test-collectors.js';

function scraperFor(timeoutMs: number, explicit: Array<[string, boolean]> = []): Scraper {
  const descriptors = [workingCollector, failingCollector, hangingCollector, absentCollector];
  const enabled = createEnabledCollectors(descriptors, { disableDefaults: false, explicit: new Map(explicit) }, new Map([['working', { step: 2 }]]), defaultPaths, silentLogger());
  return new Scraper(enabled, timeoutMs, silentLogger());
}

function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(series + ' '));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

test('a failing and a hanging collector report success 0 while the others are served', async () => {
  const scraper = scraperFor(200, [['absent', true]]);
  const text = await scraper.scrape();
  assert.equal(sample(text, 'jobio_scrape_collector_success{collector="working"}'), 1);
  assert.equal(sample(text, 'jobio_scrape_collector_success{collector="failing"}'), 0);
  assert.equal(sample(text, 'jobio_scrape_collector_success{collector="hanging"}'), 0);
  assert.equal(sample(text, 'jobio_scrape_collector_success{collector="absent"}'), 0);
  assert.equal(sample(text, 'jobio_working_updates_total'), 2, 'collector options reach the collector');
  assert.ok(!text.includes('jobio_failing_value'), 'a failed collector serves nothing');
  const hangSeconds = sample(text, 'jobio_scrape_collector_duration_seconds{collector="hanging"}') ?? 0;
  assert.ok(hangSeconds >= 0.15, `the hanging collector ran until its deadline (${hangSeconds} s)`);
  assert.equal(sample(text, 'jobio_exporter_series{collector="working"}'), 1);
  assert.equal(sample(text, 'jobio_exporter_series{collector="failing"}'), 0);
});

test('a collector still hanging from the last scrape is not started a second time', async () => {
  const scraper = scraperFor(100);
  await scraper.scrape();
  const second = await scraper.scrape(); // hangingCollector throws if update() runs twice
  assert.equal(sample(second, 'jobio_scrape_collector_success{collector="hanging"}'), 0);
  assert.equal(sample(second, 'jobio_working_updates_total'), 4);
});

test('concurrent requests share one scrape (single flight)', async () => {
  const scraper = scraperFor(100);
  const [a, b, c] = await Promise.all([scraper.scrape(), scraper.scrape(), scraper.scrape()]);
  assert.equal(a, b);
  assert.equal(b, c);
  assert.equal(sample(a, 'jobio_working_updates_total'), 2, 'one update for three requests');
  const next = await scraper.scrape();
  assert.equal(sample(next, 'jobio_working_updates_total'), 4, 'a later request scrapes again');
});

test('disabled-by-default collectors do not run unless named', async () => {
  const text = await scraperFor(100).scrape();
  assert.equal(sample(text, 'jobio_scrape_collector_success{collector="absent"}'), undefined);
  assert.equal(sample(text, 'jobio_build_info{version="0.1.0",nodeversion="' + process.version + '",platform="' + `${process.platform}/${process.arch}` + '"}'), 1);
});

/** The sample lines of an exposition (neither comments nor blank lines nor OpenMetrics' end). */
const sampleLines = (text: string): string[] => text.split('\n').filter((l) => l !== '' && !l.startsWith('#'));

test('a text and an OpenMetrics request in flight together share one scrape; # EOF ends the whole exposition once', async () => {
  const scraper = scraperFor(100);
  const [text, openMetrics] = await Promise.all([scraper.scrape(), scraper.scrape(undefined, 'openmetrics')]);
  assert.equal(sample(text, 'jobio_working_updates_total'), 2);
  assert.equal(sample(openMetrics, 'jobio_working_updates_total'), 2, 'one update for both formats');
  // every counter here ends in _total, so both formats name every sample alike
  assert.deepEqual(sampleLines(openMetrics), sampleLines(text));
  assert.ok(openMetrics.endsWith('\n# EOF\n'));
  assert.equal(openMetrics.split('# EOF').length, 2, '# EOF once, after every part');
  assert.ok(!openMetrics.includes('\n\n'), 'OpenMetrics has no blank lines');
  assert.match(openMetrics, /^# TYPE jobio_working_updates counter$/m);
  assert.ok(!text.includes('# EOF'));

  const only = await scraper.scrape(new Set(['working']), 'openmetrics');
  assert.equal(sample(only, 'jobio_working_updates_total'), 4, 'a later request scrapes again');
  assert.ok(only.endsWith('\n# EOF\n') && only.split('# EOF').length === 2, 'collect[] keeps the one # EOF');
});
