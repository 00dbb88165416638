import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Counter, Gauge, Registry } from 'prom-client';
import { ExpositionWriter, renderToString } from './exposition-writer.js';
import type { Labels, MetricFamily, MetricType, SampleSink } from './metric-family.js';
import { MetricRegistry } from './metric-registry.js';

/** Values whose printing differs between languages: the writer must print them as prom-client does. */
const VALUES = [0, -0, 1, -1.5, 0.1 + 0.2, 1e21, 2 ** 53 + 2, 2 ** 64, 1.5e-7, 123456789012, NaN, Infinity, -Infinity];
const LABEL_VALUES = ['plain', 'back\\slash', 'new\nline', 'quo"te', '\\"\n', '', 'ünïcødé', '{a="b"}'];
const HELP = 'Help with a \\ backslash, a\nnewline and a "quote".';

/** A family of the one model holding fixed samples. */
function family(name: string, type: MetricType, samples: readonly [Labels, number][]): MetricFamily {
  return { name, help: HELP, type, collect: (sink: SampleSink) => samples.forEach(([labels, value]) => sink.sample(labels, value)) };
}

function samples(): [Labels, number][] {
  return VALUES.map((value, i) => [{ target: LABEL_VALUES[i % LABEL_VALUES.length]!, n: String(i) }, value]);
}

/** The values a prom-client Counter takes (it refuses negative and infinite increments; NaN is added as 0). */
const counted = (v: number): boolean => Number.isNaN(v) || (v >= 0 && Number.isFinite(v));

/** The same samples through prom-client's own Gauge and Counter (a Counter refuses negative increments). */
function promFilled(registry: Registry): void {
  const gauge = new Gauge({ name: 'jobio_test_gauge', help: HELP, labelNames: ['target', 'n'], registers: [registry] });
  for (const [labels, value] of samples()) gauge.set(labels as Record<string, string>, value);
  const counter = new Counter({ name: 'jobio_test_total', help: HELP, labelNames: ['target', 'n'], registers: [registry] });
  for (const [labels, value] of samples()) if (counted(value)) counter.inc(labels as Record<string, string>, Number.isNaN(value) ? 0 : value);
  new Gauge({ name: 'jobio_test_empty', help: 'No samples.', labelNames: ['x'], registers: [registry] });
  const bare = new Gauge({ name: 'jobio_test_bare', help: 'No labels.', registers: [registry] });
  bare.set(42);
}

function ourFamilies(): MetricFamily[] {
  const counterSamples = samples()
    .filter(([, v]) => counted(v))
    .map(([l, v]): [Labels, number] => [l, Number.isNaN(v) ? 0 : v]);
  return [
    family('jobio_test_gauge', 'gauge', samples()),
    family('jobio_test_total', 'counter', counterSamples),
    { name: 'jobio_test_empty', help: 'No samples.', type: 'gauge', collect: () => undefined },
    { name: 'jobio_test_bare', help: 'No labels.', type: 'gauge', collect: (sink) => sink.sample({}, 42) },
  ];
}

test('text format 0.0.4: byte for byte what prom-client writes (escaping, numbers, layout)', async () => {
  const registry = new Registry();
  promFilled(registry);
  const expected = await registry.metrics();
  assert.equal(await renderToString([ourFamilies()]), expected);
  assert.match(expected, /jobio_test_gauge\{target="back\\\\slash",n="1"\} 0\n/, 'prom-client writes -0 as 0');
  assert.match(expected, / Nan\n/);
  assert.match(expected, / 1e\+21\n/);
});

test('OpenMetrics: byte for byte what prom-client writes (_total on counter samples only, # EOF)', async () => {
  const registry = new Registry<typeof Registry.OPENMETRICS_CONTENT_TYPE>();
  registry.setContentType(Registry.OPENMETRICS_CONTENT_TYPE);
  promFilled(registry as unknown as Registry);
  const expected = await registry.metrics();
  assert.equal(await renderToString([ourFamilies()], 'openmetrics'), expected);
  assert.match(expected, /^# TYPE jobio_test counter\njobio_test_total\{/m);
  assert.ok(expected.endsWith('\n# EOF\n'));
});

test('an empty registry is one newline, as in prom-client', async () => {
  assert.equal(await new MetricRegistry().metrics(), await new Registry().metrics(), 'an empty registry is one newline');
});

test('optional timestamps: milliseconds in the text format, seconds in OpenMetrics', async () => {
  const stamped: MetricFamily = { name: 'jobio_test_rate', help: 'h', type: 'gauge', collect: (sink) => sink.sample({ a: 'b' }, 2.5, '', 1700000000123) };
  assert.equal(await renderToString([[stamped]]), '# HELP jobio_test_rate h\n# TYPE jobio_test_rate gauge\njobio_test_rate{a="b"} 2.5 1700000000123\n');
  assert.equal(await renderToString([[stamped]], 'openmetrics'), '# HELP jobio_test_rate h\n# TYPE jobio_test_rate gauge\njobio_test_rate{a="b"} 2.5 1700000000.123\n# EOF\n');
});

test('the text is handed out in chunks as it is written, never as one string', async () => {
  const many: MetricFamily = {
    name: 'jobio_test_many',
    help: 'h',
    type: 'gauge',
    collect: (sink) => {
      for (let i = 0; i < 20000; i++) sink.sample({ i: String(i) }, i);
    },
  };
  const chunks: Buffer[] = [];
  const writer = new ExpositionWriter('text', (c) => chunks.push(c));
  await writer.part([many]);
  writer.end();
  assert.ok(chunks.length > 1, `${chunks.length} chunks`);
  assert.ok(Math.max(...chunks.map((c) => c.length)) < 70000);
  assert.equal(writer.seriesWritten, 20000);
  assert.equal(Buffer.concat(chunks).toString('utf8').split('\n').length, 20000 + 3);
});
