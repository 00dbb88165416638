// The vmagent variant of the sharded layout run as shipped (provisioning/victoriametrics/vmagent.default
// and vmagent-scrape.yml): two vmagents, members 0 and 1 of 2, with the same target list of three
// exporters, write into the provisioned VictoriaMetrics (with its password). Only the paths, ports,
// the scrape interval (2 s, to keep the test short) and member 1's number are changed. Each exporter
// must arrive in VictoriaMetrics scraped by exactly one vmagent.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot, startExporter, type RunningExporter } from '../helpers/exporter.js';
import { startService, type Service } from '../helpers/service.js';
import { PromApi, provisionedArgs, provisionedEnv, startVictoriaMetrics, VM_AUTH, withFlags } from './services.js';

const EXPORTERS = 3;

function startVmagent(config: string, member: number, vmUrl: string): Promise<Service> {
  return startService({
    binary: 'vmagent',
    aptPackage: 'victoria-metrics',
    args: (port, dir) =>
      withFlags(provisionedArgs('vmagent.default'), {
        'promscrape.config': config,
        'promscrape.cluster.memberNum': String(member),
        'remoteWrite.url': `${vmUrl}/api/v1/write`,
        'remoteWrite.tmpDataPath': join(dir, 'queue'),
        // flushed at once, so the test need not wait for the default 1 s batches
        'remoteWrite.flushInterval': '200ms',
        httpListenAddr: `127.0.0.1:${port}`,
        loggerLevel: 'WARN',
      }),
    readyPath: '/health',
    env: provisionedEnv('vmagent.default', { remoteWrite_basicAuth_username: VM_AUTH.username, remoteWrite_basicAuth_password: VM_AUTH.password }),
  });
}

test('vmagent recipe as shipped: two members share three exporters, each scraped by exactly one, all in VictoriaMetrics', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'jobio-vmagent-'));
  const exporters: RunningExporter[] = [];
  const services: Service[] = [];
  try {
    const vm = await startVictoriaMetrics({ 'search.latencyOffset': '0s', 'search.disableCache': 'true' });
    services.push(vm);
    for (let i = 0; i < EXPORTERS; i++) exporters.push(await startExporter(['--collector.disable-defaults', '--collector.process']));
    const targets = join(dir, 'targets');
    mkdirSync(targets);
    writeFileSync(join(targets, 'nodes.yml'), `- targets: [${exporters.map((e) => `'127.0.0.1:${e.port}'`).join(', ')}]\n`);
    const shipped = readFileSync(join(repoRoot, 'provisioning/victoriametrics/vmagent-scrape.yml'), 'utf8');
    assert.ok(!/^remote_write:/m.test(shipped), 'no remote_write section: vmagent refuses it');
    const config = join(dir, 'vmagent-scrape.yml');
    writeFileSync(config, shipped.replace('/etc/jobio/vmagent-targets', targets).replace('scrape_interval: 30s', 'scrape_interval: 2s'));
    for (const member of [0, 1]) services.push(await startVmagent(config, member, vm.url));

    const api = new PromApi(vm.url, VM_AUTH);
    const instances = `127.0.0.1:(${exporters.map((e) => e.port).join('|')})`;
    let byInstance = new Map<string, number>();
    for (const deadline = Date.now() + 60_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 1000))) {
      // how many samples of `up` each exporter has: one scraper each means one series each
      const series = await api.instant(`count by (instance) (up{job="jobio",instance=~"${instances}"})`, Date.now() / 1000);
      byInstance = new Map(series.map((s) => [String(s.metric.instance), Number(s.values.at(-1)?.[1])]));
      if (byInstance.size === EXPORTERS) break;
    }
    assert.equal(byInstance.size, EXPORTERS, `exporters seen in VictoriaMetrics: ${JSON.stringify([...byInstance])}`);
    // Each vmagent's own targets page: together they scrape every exporter, no exporter twice (the
    // series in VictoriaMetrics would look the same either way: the agents add no label).
    const scraped: string[][] = [];
    for (const agent of services.slice(1)) {
      const body = (await (await fetch(`${agent.url}/api/v1/targets`)).json()) as { data: { activeTargets: { labels: { instance: string }; health: string }[] } };
      scraped.push(body.data.activeTargets.filter((t) => t.health === 'up').map((t) => t.labels.instance));
    }
    const all = scraped.flat().sort();
    assert.deepEqual(all, exporters.map((e) => `127.0.0.1:${e.port}`).sort(), `targets per vmagent: ${JSON.stringify(scraped)}`);
    // and the exporters' own series came through whole
    const success = await api.instant(`count(jobio_scrape_collector_success{collector="process",instance=~"${instances}"})`, Date.now() / 1000);
    assert.equal(Number(success[0]?.values.at(-1)?.[1]), EXPORTERS);
  } finally {
    for (const s of services.reverse()) await s.stop();
    for (const e of exporters) await e.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});
