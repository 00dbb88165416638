// The memory of a scrape's buffers is used again by later scrapes only once every response that writes
// them is done: a client that reads slowly gets exactly the bytes of its own scrape while others scrape
// again and again, in both encodings.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { createApp } from './app.js';
import { WebMetrics } from './web-metrics.js';
import { Scraper } from '../scrape/scraper.js';
import { MetricRegistry } from '../scrape/metric-registry.js';
import { silentLogger } from '../util/logger.js';

const LINES = 400_000;

/** Every line of update n: the value n * 1e6 + i (about 20 MB a scrape, more than the sockets hold). */
function changingScraper(): Scraper {
  const registry = new MetricRegistry();
  let n = 0;
  const labels = Array.from({ length: LINES }, (_, i) => Buffer.from(`series="${i}"`));
  const rest = Buffer.from(',k="v"');
  registry.register({
    name: 'jobio_test_value',
    help: 'h',
    type: 'gauge',
    collect: (sink) => {
      for (let i = 0; i < LINES; i += 1) sink.renderedBytes(labels[i]!, rest, n * 1_000_000 + i);
    },
  });
  return new Scraper([{ name: 'test', registry, collector: { update: () => Promise.resolve(((n += 1), 'ok')) } }], 30_000, silentLogger());
}

/** Every test line has the value of update n. */
function assertScrape(text: string, n: number): void {
  const lines = text.split('\n').filter((l) => l.startsWith('jobio_test_value{'));
  assert.equal(lines.length, LINES);
  lines.forEach((l, i) => {
    if (l !== `jobio_test_value{series="${i}",k="v"} ${n * 1_000_000 + i}`) assert.fail(`line ${i} of scrape ${n}: ${l}`);
  });
}

test('a slow reader gets its own scrape whole while later scrapes use memory given back', async (t) => {
  const scraper = changingScraper();
  const app = createApp({
    scraper,
    telemetryPath: '/metrics',
    webConfig: { basicAuthUsers: new Map(), headers: new Map() },
    collectorNames: ['test'],
    logger: silentLogger(),
    webMetrics: new WebMetrics(scraper.self.registry),
  });
  const server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => server.close());
  const { port } = server.address() as AddressInfo;

  // Scrape 1, read by a client that does not read yet.
  const slow = connect(port, '127.0.0.1');
  slow.pause();
  const received: Buffer[] = [];
  slow.on('data', (d: Buffer) => received.push(d));
  await new Promise<void>((resolve) => slow.once('connect', resolve));
  slow.write('GET /metrics HTTP/1.1\r\nHost: x\r\nAccept-Encoding: identity\r\nConnection: close\r\n\r\n');
  // Wait until scrape 1 has run and its response is being written (the bytes wait unread).
  while (scraper.lastOutcomes.size === 0) await new Promise((r) => setTimeout(r, 10));
  await new Promise((r) => setTimeout(r, 200));
  // Scrapes 2 to 6, read at once, gzip and identity in turn.
  for (let n = 2; n <= 6; n += 1) {
    const res = await fetch(`http://127.0.0.1:${port}/metrics`, { headers: { 'Accept-Encoding': n % 2 === 0 ? 'gzip' : 'identity' } });
    const body = Buffer.from(await res.arrayBuffer());
    // fetch undoes the gzip itself; a body still compressed is undone here.
    assertScrape(body[0] === 0x1f && body[1] === 0x8b ? gunzipSync(body).toString('utf8') : body.toString('utf8'), n);
  }
  slow.resume();
  await new Promise<void>((resolve) => slow.once('end', resolve));
  const whole = Buffer.concat(received).toString('utf8');
  assertScrape(whole.slice(whole.indexOf('\r\n\r\n') + 4), 1);
});
