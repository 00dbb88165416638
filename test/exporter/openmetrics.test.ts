// /metrics answers in OpenMetrics when the scraper asks for it (Accept: application/openmetrics-text),
// as client_golang's exporters do, and in the text format 0.0.4 otherwise. A real Prometheus (which
// asks for OpenMetrics first) reads it: the series it stores are the ones the exposition lists, its
// metadata names counters as OpenMetrics does (the family without `_total`), and the density's
// timestamps (seconds in OpenMetrics) land at the window's end.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { rawGet, repoRoot, startExporter } from '../helpers/exporter.js';
import { promtoolCheckMetrics } from '../helpers/promtool.js';
import { startPrometheus } from '../helpers/prometheus.js';

/** Prometheus 2.x's scrape Accept header, verbatim. */
const PROMETHEUS_ACCEPT = 'application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1';

/** A sample line's series (name and labels) and its value and timestamp. */
function parseSample(line: string): { series: string; value: number; timestamp?: number } {
  const close = line.lastIndexOf('}');
  const space = line.indexOf(' ', close < 0 ? 0 : close);
  const [value = '', timestamp] = line.slice(space + 1).split(' ');
  return { series: line.slice(0, space), value: Number(value), ...(timestamp !== undefined ? { timestamp: Number(timestamp) } : {}) };
}

const samples = (text: string): ReturnType<typeof parseSample>[] =>
  text
    .split('\n')
    .filter((l) => l !== '' && !l.startsWith('#'))
    .map(parseSample);

/** The series of the Lustre collectors (their values come from the fixture files, the same at every scrape). */
const lustreSeries = (text: string): string[] =>
  samples(text)
    .filter((s) => s.series.startsWith('jobio_lustre_'))
    .map((s) => s.series)
    .sort();

test('OpenMetrics on request: content type, # EOF, counters named as OpenMetrics says, gzip; a real Prometheus stores the same series', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'jobio-openmetrics-'));
  const lustre = join(dir, 'lustre');
  // jobstats (counters, the timestamped density) and brw_stats (histograms) of one server
  cpSync(join(repoRoot, 'test/fixtures/lustre/hp-2.10.1-ost'), lustre, { recursive: true });
  cpSync(join(repoRoot, 'test/fixtures/lustre/server-2.14.0_ddn133'), lustre, { recursive: true });
  const exporter = await startExporter([
    '--collector.disable-defaults',
    '--collector.lustre_jobstats',
    '--collector.lustre_health',
    '--collector.process',
    `--path.lustre=${lustre}`,
    `--path.rootfs=${join(repoRoot, 'test/fixtures/lustre/rootfs')}`,
    '--collector.lustre_jobstats.density-window=2s',
  ]);
  try {
    const url = `${exporter.url}/metrics`;
    // The density's series appear when its first window closes: from then on the series are the same at every scrape.
    for (const until = Date.now() + 30_000; !(await rawGet(url, {})).body.toString('utf8').includes('jobio_lustre_jobstats_rate_jobs{') && Date.now() < until;) {
      await new Promise((r) => setTimeout(r, 200));
    }
    const om = await rawGet(url, { Accept: PROMETHEUS_ACCEPT });
    assert.equal(om.headers['content-type'], 'application/openmetrics-text; version=1.0.0; charset=utf-8');
    assert.match(String(om.headers.vary), /Accept\b.*Accept-Encoding|Accept-Encoding.*Accept\b/);
    const omText = om.body.toString('utf8');
    assert.ok(omText.endsWith('\n# EOF\n'), 'ends with # EOF');
    assert.equal(omText.split('# EOF').length, 2, '# EOF once');
    assert.ok(!omText.includes('\n\n'), 'no blank lines');
    assert.match(omText, /^# TYPE jobio_lustre_jobstats_write_bytes counter\njobio_lustre_jobstats_write_bytes_total\{/m, 'a counter family without _total, its samples with it');
    assert.match(omText, /^# TYPE jobio_lustre_target_brw_disk_io_seconds histogram$/m);

    const plain = await rawGet(url, {});
    assert.equal(plain.headers['content-type'], 'text/plain; version=0.0.4; charset=utf-8');
    const text = plain.body.toString('utf8');
    assert.ok(!text.includes('# EOF'));
    const lint = promtoolCheckMetrics(text);
    assert.ok(lint.ok, `promtool check metrics:\n${lint.output}`);
    assert.match(text, /^# TYPE jobio_lustre_jobstats_write_bytes_total counter$/m);
    const lustreCount = lustreSeries(text).length;
    assert.ok(lustreCount > 100, `${lustreCount} Lustre series`);
    assert.deepEqual(lustreSeries(omText), lustreSeries(text), 'the same series in both formats');

    const zipped = await rawGet(url, { Accept: PROMETHEUS_ACCEPT, 'Accept-Encoding': 'gzip' });
    assert.equal(zipped.headers['content-encoding'], 'gzip');
    assert.equal(zipped.headers['content-type'], 'application/openmetrics-text; version=1.0.0; charset=utf-8');
    const unzipped = gunzipSync(zipped.body).toString('utf8');
    assert.ok(unzipped.endsWith('\n# EOF\n'));
    assert.deepEqual(lustreSeries(unzipped), lustreSeries(text));

    const prometheus = await startPrometheus([{ job: 'jobio', address: `127.0.0.1:${exporter.port}` }]);
    try {
      await prometheus.waitFor('up{job="jobio"}', (s) => s[0]?.value === 1);
      // Prometheus keeps a family's metadata under the name its TYPE line gives: OpenMetrics' name for a counter
      const metadata = (await prometheus.queryRaw('/api/v1/targets/metadata', { match_target: '{job="jobio"}' })) as { metric: string; type: string }[];
      const counters = metadata.filter((m) => m.type === 'counter').map((m) => m.metric);
      assert.ok(counters.includes('jobio_lustre_jobstats_write_bytes'), `counter metadata: ${counters.join(' ')}`);
      assert.deepEqual(
        counters.filter((name) => name.endsWith('_total')),
        [],
        'no counter family named with _total: Prometheus read OpenMetrics',
      );

      // Every untimestamped Lustre series of the exposition is in Prometheus with the exposition's value.
      const stored = new Map((await prometheus.query('{job="jobio",__name__=~"jobio_lustre_.+"}')).map((s) => [s.metric, s.value] as const));
      const storedText = new Map<string, number>();
      for (const [metric, value] of stored) {
        const { __name__: name, job: _job, instance: _instance, ...labels } = metric;
        storedText.set(
          `${name}{${Object.entries(labels)
            .map(([k, v]) => `${k}="${v}"`)
            .sort()
            .join(',')}}`,
          value,
        );
      }
      const exposed = samples(omText).filter((s) => s.series.startsWith('jobio_lustre_'));
      const untimestamped = exposed.filter((s) => s.timestamp === undefined);
      const key = (series: string): string => {
        const open = series.indexOf('{');
        if (open < 0) return `${series}{}`;
        const labels = series.slice(open + 1, -1).match(/[a-zA-Z_]\w*="(?:[^"\\]|\\.)*"/g) ?? [];
        return `${series.slice(0, open)}{${labels
          .map((l) => l.replace(/\\(.)/g, (_m, c: string) => (c === 'n' ? '\n' : c)))
          .sort()
          .join(',')}}`;
      };
      assert.ok(untimestamped.length > 100, `${untimestamped.length} series compared`);
      for (const s of untimestamped) assert.equal(storedText.get(key(s.series)), s.value, `${s.series} in Prometheus`);
      // The density's samples carry the window's end, in seconds: Prometheus holds them at that instant.
      await prometheus.waitFor('count(jobio_lustre_jobstats_rate_jobs{job="jobio"})', (r) => r.length === 1);
      const stamped = samples((await rawGet(url, { Accept: PROMETHEUS_ACCEPT })).body.toString('utf8')).filter((x) => x.timestamp !== undefined);
      assert.ok(stamped.length > 0, 'the density families are timestamped');
      const last = stamped.reduce((a, b) => ((b.timestamp ?? 0) > (a.timestamp ?? 0) ? b : a));
      const at = last.timestamp ?? 0;
      await prometheus.waitFor('max(timestamp(jobio_lustre_jobstats_rate_jobs{job="jobio"}))', (r) => (r[0]?.value ?? 0) >= at);
      const [held] = await prometheus.query(`timestamp(${last.series})`, at);
      assert.equal(held?.value, at, `${last.series} held at ${at}`);
      const [value] = await prometheus.query(last.series, at);
      assert.equal(value?.value, last.value);
    } finally {
      await prometheus.stop();
    }
  } finally {
    await exporter.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});
