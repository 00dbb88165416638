// The rate density families write their samples as bytes (SampleSink.renderedBytes): with hostile target
// names (quotes, backslashes, newlines, non-ASCII, a surrogate pair) the text is exactly what the labels
// rendered as strings give (renderLabels, the escaping every other family uses), in both formats, across
// chunk boundaries, and byte samples interleaved with string samples keep their order.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LustreJobStatsDensityMetrics } from './lustre_jobstats_density.js';
import { MetricRegistry } from '../scrape/metric-registry.js';
import { ExpositionWriter, renderToString } from '../scrape/exposition-writer.js';
import { renderLabels, type MetricFamily } from '../scrape/metric-family.js';
import { BUCKETS, DENSITY_OPERATIONS, DENSITY_ROWS, RATE_CLASSES, type RateDensity } from '../lustre/rate-density.js';
import type { TargetView } from '../lustre/jobstats-accumulator.js';
import { densityText, sampleLines } from '../../../test/helpers/density-oracle.js';

const HOSTILE = ['plain-OST0000', 'quo"te', 'back\\slash', 'new\nline', '\\"\n', 'ünïcødé-ÖST', 'emoji-😀', '{a="b"}', 'trailing\\'];

/** A density whose counts differ per target and bucket (some large, some zero). */
function densityOf(t: number, endMs: number): RateDensity {
  const counts = (k: number): Uint32Array => Uint32Array.from({ length: DENSITY_ROWS * BUCKETS }, (_, i) => ((i * 7 + t * 13 + k) % 5 === 0 ? 0 : (i * 104729 + t * 7919 + k) % 4_000_000_000));
  return { intervalSeconds: t === 0 ? 30 : 29.987 + t / 1000, endMs, jobs: counts(0), users: counts(1) };
}

for (const format of ['text', 'openmetrics'] as const) {
  test(`density with hostile target names, ${format}: the text the labels rendered as strings give`, async () => {
    const registry = new MetricRegistry();
    const metrics = new LustreJobStatsDensityMetrics(registry);
    // Enough targets for the 426 lines of each to cross several 64 KB chunks; timestamps that differ between targets.
    const shown = Array.from({ length: 60 }, (_, t) => ({ name: `${HOSTILE[t % HOSTILE.length]!}-${t}`, density: densityOf(t, 1796000000000 + (t % 3) * 30_000 + (t % 2) * 123) }));
    for (const s of shown) metrics.fill(s as unknown as TargetView);
    const text = await renderToString([registry.list()], format);
    assert.equal(sampleLines(text), sampleLines(densityText(shown, format)));
    assert.equal(text.split('\n').filter((l) => l.startsWith('jobio_')).length, 60 * (2 * RATE_CLASSES.length * BUCKETS + DENSITY_OPERATIONS.length * BUCKETS + 1));
    // Both renders of the same state agree (the target bytes kept from the first one).
    assert.equal(await renderToString([registry.list()], format), text);
  });
}

test('byte samples between string samples and text: written in order, the same as string samples, across chunks', async () => {
  const values = [0, -0, 1, -1.5, 0.1 + 0.2, 1e21, 2 ** 53 - 1, -(2 ** 53 - 1), 2 ** 53 + 2, 1.5e-7, NaN, Infinity, -Infinity, 4_000_000_000];
  const stamps = [undefined, 1700000000123, 1700000000123, 1700000000000.5, undefined];
  const samples = Array.from({ length: 5000 }, (_, i) => ({
    first: renderLabels({ target: `${HOSTILE[i % HOSTILE.length]!}${i}` }),
    rest: i % 11 === 0 ? '' : `,${renderLabels({ k: HOSTILE[(i * 3) % HOSTILE.length]! })}`,
    value: values[i % values.length]!,
    stamp: stamps[i % stamps.length],
  }));
  const make = (bytes: boolean): MetricFamily[] =>
    ['a', 'b', 'c'].map((n, f) => ({
      name: `jobio_test_${n}_total`,
      help: `help ${HOSTILE[f]!}`,
      type: f === 1 ? 'counter' : 'gauge',
      collect: (sink) =>
        samples.forEach(({ first, rest, value, stamp }, i) => {
          // Family b interleaves: string samples between byte samples.
          if (bytes && (f !== 1 || i % 3 === 0)) sink.renderedBytes(Buffer.from(first), Buffer.from(rest), value, stamp);
          else sink.rendered(first + rest, value, '', stamp);
        }),
    }));
  for (const format of ['text', 'openmetrics'] as const) {
    const chunks: Buffer[] = [];
    const writer = new ExpositionWriter(format, (c) => chunks.push(c));
    await writer.part(make(true));
    writer.end();
    assert.ok(chunks.length > 3, `${chunks.length} chunks`);
    assert.equal(writer.seriesWritten, 3 * samples.length);
    assert.equal(Buffer.concat(chunks).toString('utf8'), await renderToString([make(false)], format), format);
  }
  // Labels empty in both pieces: the sample has no braces, as a string sample without labels.
  const bare: MetricFamily = { name: 'jobio_test_bare', help: 'h', type: 'gauge', collect: (sink) => sink.renderedBytes(Buffer.alloc(0), Buffer.alloc(0), 3, 1700000000123) };
  assert.equal(await renderToString([[bare]]), '# HELP jobio_test_bare h\n# TYPE jobio_test_bare gauge\njobio_test_bare 3 1700000000123\n');
});
