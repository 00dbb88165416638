// A real Prometheus (Debian package) scraping the real exporter on 127.0.0.1.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startExporter } from '../helpers/exporter.js';
import { startPrometheus } from '../helpers/prometheus.js';

test('Prometheus scrapes the exporter: up == 1 and the self-metrics arrive', async () => {
  const exporter = await startExporter([]);
  const prometheus = await startPrometheus([{ job: 'jobio', address: `127.0.0.1:${exporter.port}` }]);
  try {
    const up = await prometheus.waitFor('up{job="jobio"}', (s) => s[0]?.value === 1);
    assert.equal(up.length, 1);
    const build = await prometheus.waitFor('jobio_build_info', (s) => s.length === 1);
    assert.equal(build[0]?.value, 1);
    assert.equal(build[0].metric.job, 'jobio', 'Prometheus owns the job label');
    const success = await prometheus.waitFor('jobio_scrape_collector_success{collector="process"}', (s) => s.length === 1);
    assert.equal(success[0]?.value, 1);
    // No exported series carries an `exported_job`/`exported_instance` label: we never emit job/instance.
    const clashes = await prometheus.query('count({__name__=~"jobio_.+", exported_job!=""}) or count({__name__=~"jobio_.+", exported_instance!=""})');
    assert.equal(clashes.length, 0);
  } finally {
    await prometheus.stop();
    await exporter.stop();
  }
});
