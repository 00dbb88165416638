// The HA pair of provisioning/victoriametrics/prometheus-replica.yml run as shipped (paths, ports,
// the replica name of the second and a 2 s interval with a 1 s timeout changed): two Prometheus replicas scrape the same
// exporters at different moments and write into the provisioned VictoriaMetrics started with
// -dedup.minScrapeInterval as victoria-metrics.default says. The central store must hold one series per
// exporter (the replica label dropped on the way) with one sample per interval, not two; and with one
// replica stopped half way the other fills the interval: no gap.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startExporter, type RunningExporter } from '../helpers/exporter.js';
import { startPrometheusWithConfig } from '../helpers/prometheus.js';
import type { Service } from '../helpers/service.js';
import { PromApi, startVictoriaMetrics, VM_AUTH } from '../distributed/services.js';
import { replicaConfig } from './replica.js';

const INTERVAL_S = 2;
const RUN_S = 24;

test('HA pair into VictoriaMetrics with dedup: one series per exporter, one sample per interval, no gap when a replica stops', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'jobio-vm-dedup-'));
  const exporters: RunningExporter[] = [];
  const services: { stop(): Promise<void> }[] = [];
  try {
    const vm: Service = await startVictoriaMetrics({ 'dedup.minScrapeInterval': `${INTERVAL_S}s`, 'search.latencyOffset': '0s', 'search.disableCache': 'true' });
    services.push(vm);
    for (let i = 0; i < 2; i++) exporters.push(await startExporter(['--collector.disable-defaults', '--collector.process']));
    const targets = join(dir, 'targets');
    mkdirSync(targets);
    writeFileSync(join(targets, 'nodes.yml'), `- targets: [${exporters.map((e) => `'127.0.0.1:${e.port}'`).join(', ')}]\n`);
    const password = join(dir, 'vm.password');
    writeFileSync(password, VM_AUTH.password);
    const setup = { targets, password, vmUrl: vm.url, intervalS: INTERVAL_S, timeout: '1s' };
    const a = await startPrometheusWithConfig(replicaConfig(setup, 'a'));
    const b = await startPrometheusWithConfig(replicaConfig(setup, 'b'));
    services.push(a, b);
    const start = Date.now() / 1000;
    await new Promise((r) => setTimeout(r, (RUN_S / 2) * 1000));
    await b.stop(); // one replica gone: the other alone keeps the store complete
    await new Promise((r) => setTimeout(r, (RUN_S / 2) * 1000 + 3000));
    const end = start + RUN_S;

    const api = new PromApi(vm.url, VM_AUTH);
    const instances = `127.0.0.1:(${exporters.map((e) => e.port).join('|')})`;
    const up = await api.range(`up{job="jobio",instance=~"${instances}"}`, start + 4, end, 1);
    assert.equal(up.length, exporters.length, `one series per exporter: ${JSON.stringify(up.map((s) => s.metric))}`);
    for (const s of up) assert.equal(s.metric.replica, undefined, 'the replica label is dropped on the way');
    // raw samples per exporter over the run: about one per interval (two replicas without dedup: two)
    const counts = await api.instant(`count_over_time(up{job="jobio",instance=~"${instances}"}[${RUN_S - 4}s])`, end);
    for (const c of counts) {
      const n = Number(c.values.at(-1)?.[1]);
      const intervals = (RUN_S - 4) / INTERVAL_S;
      assert.ok(n >= intervals - 2 && n <= intervals + 1, `${String(c.metric.instance)}: ${n} samples in ${intervals} intervals`);
    }
    // no gap: the stored samples are never further apart than 2 intervals, also after a replica stopped
    const raw = await api.range(`up{job="jobio",instance=~"${instances}"}`, start + 4, end, INTERVAL_S);
    for (const s of raw) assert.ok(s.values.length >= (RUN_S - 4) / INTERVAL_S - 1, `${String(s.metric.instance)}: ${s.values.length} points`);
  } finally {
    for (const s of services.reverse()) await s.stop().catch(() => undefined);
    for (const e of exporters) await e.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});
