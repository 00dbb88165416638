// A scrape's chunks' memory is used again only once every request of that scrape is done with it: a
// request that still holds a scrape's buffers (a slow reader) keeps their bytes as they were, and a
// scrape handed out without a lease is never taken back.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ChunkPool, POOLED_CHUNK_BYTES } from './chunk-pool.js';
import { Scraper } from './scraper.js';
import { MetricRegistry } from './metric-registry.js';
import { silentLogger } from '../util/logger.js';

test('the pool keeps only whole chunks of its size, once each, at most one scrape of them', () => {
  const pool = new ChunkPool();
  const a = pool.take();
  const b = pool.take();
  assert.equal(a.length, POOLED_CHUNK_BYTES);
  // A chunk handed out is a view of its first bytes; other sizes and views elsewhere are not the pool's.
  pool.giveBack([a.subarray(0, 100), b, b, Buffer.alloc(100), Buffer.allocUnsafe(2 * POOLED_CHUNK_BYTES), b.subarray(10)]);
  assert.equal(pool.size, 2);
  const again = [pool.take(), pool.take()];
  assert.deepEqual(new Set(again.map((c) => c.buffer)), new Set([a.buffer, b.buffer]));
  assert.equal(pool.size, 0);
  assert.notEqual(pool.take().buffer, a.buffer);
  // A scrape of one chunk given back after one of two: one kept.
  pool.giveBack(again);
  pool.giveBack([again[0]!]);
  assert.equal(pool.size, 1);
});

/**
 * A scraper over one collector whose 3,000 lines all change at every update (about 150 KB: 3 chunks),
 * written as byte samples (those fill the chunks the pool lends; text alone is encoded at its length).
 */
function changingScraper(): Scraper {
  const registry = new MetricRegistry();
  let n = 0;
  const labels = Array.from({ length: 3000 }, (_, i) => Buffer.from(`series="${i}"`));
  const padding = Buffer.from(`,padding="${'x'.repeat(10)}"`);
  registry.register({
    name: 'jobio_test_value',
    help: 'h',
    type: 'gauge',
    collect: (sink) => {
      for (let i = 0; i < 3000; i += 1) sink.renderedBytes(labels[i]!, padding, n * 10_000 + i, 1796000000000 + n);
    },
  });
  return new Scraper([{ name: 'test', registry, collector: { update: () => Promise.resolve(((n += 1), 'ok')) } }], 5000, silentLogger());
}

const text = (chunks: readonly Buffer[]): string => Buffer.concat(chunks).toString('utf8');
/** The memory of the chunks the writer filled (small text chunks share Node's own pool of small buffers). */
const memory = (chunks: readonly Buffer[]): Set<ArrayBufferLike> => new Set(chunks.filter((c) => c.buffer.byteLength === POOLED_CHUNK_BYTES).map((c) => c.buffer));
const line = (t: string, i: number): string | undefined => t.split('\n').find((l) => l.startsWith(`jobio_test_value{series="${i}",`));

test('a scrape released by every request lends its memory to the next; one still held keeps its bytes', async () => {
  const scraper = changingScraper();
  const first = await scraper.scrapeLeased();
  const firstText = text(first.chunks);
  assert.equal(line(firstText, 2999), 'jobio_test_value{series="2999",padding="xxxxxxxxxx"} 12999 1796000000001');
  // Not released yet (a slow reader): the next scrape makes new memory, and the first's bytes stay.
  const second = await scraper.scrapeLeased();
  assert.equal(text(first.chunks), firstText);
  assert.equal([...memory(second.chunks)].filter((m) => memory(first.chunks).has(m)).length, 0);
  // Released (twice: once counts), then a new scrape uses the first's memory, with its own bytes.
  first.release();
  first.release();
  const third = await scraper.scrapeLeased();
  const reused = [...memory(third.chunks)].filter((m) => memory(first.chunks).has(m)).length;
  assert.ok(reused >= 2, `${reused} chunks' memory used again`);
  assert.equal(line(text(third.chunks), 2999), 'jobio_test_value{series="2999",padding="xxxxxxxxxx"} 32999 1796000000003');
  // The second, still held, is untouched by the third.
  assert.equal(line(text(second.chunks), 0), 'jobio_test_value{series="0",padding="xxxxxxxxxx"} 20000 1796000000002');
  assert.equal(line(text(second.chunks), 2999), 'jobio_test_value{series="2999",padding="xxxxxxxxxx"} 22999 1796000000002');
  second.release();
  third.release();
});

test('requests sharing a scrape: its memory comes back after the last one releases; never for buffers given without a lease', async () => {
  const scraper = changingScraper();
  const [a, b] = await Promise.all([scraper.scrapeLeased(), scraper.scrapeLeased()]);
  assert.equal(a.chunks, b.chunks);
  const aText = text(a.chunks);
  a.release();
  const next = await scraper.scrapeLeased();
  assert.equal([...memory(next.chunks)].filter((m) => memory(a.chunks).has(m)).length, 0);
  assert.equal(text(b.chunks), aText);
  b.release();
  next.release();
  // Given out without a lease: kept by whoever wants it, so its memory never comes back.
  const kept = await scraper.scrapeChunks();
  const keptText = text(kept);
  for (let i = 0; i < 3; i += 1) (await scraper.scrapeLeased()).release();
  assert.equal(text(kept), keptText);
});
