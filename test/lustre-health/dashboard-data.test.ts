// The cluster dashboard's Lustre server panels show data from what the collectors export: a real
// Prometheus, with the shipped rules file jobio-lustre-health.yml, scrapes the goldens of the ddn133
// server dump (capacity, brw_stats, services) and of the lnetctl captures (LNet, NIs) as one server,
// whose counters grow 1 % of their golden value per scrape (a server at work: rates and the 5-minute
// means of the recording rules need counters that move). Every query of the brw_stats panels and of
// the "servers' network and request queues" row, with $fs set to the dump's file system, must return
// series. (The capacity row's "time to full" and "not well" panels need a 6-hour trend or a sick
// server; their rules have promtool cases in test/rules.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../helpers/exporter.js';
import { startPrometheusWithConfig, freePort } from '../helpers/prometheus.js';

interface Panel {
  type: string;
  title: string;
  repeat?: string;
  targets?: Array<{ expr?: string; refId: string }>;
}

const golden = (path: string): string => readFileSync(join(repoRoot, 'test/golden', path), 'utf8');

/** A golden's families of one prefix (the others, the exporter's own, hold normalised placeholders). */
const families = (path: string, prefix: RegExp): string[] =>
  golden(path)
    .split('\n')
    .filter((l) => new RegExp(`^(# (HELP|TYPE) )?${prefix.source}`).test(l));

/** The two goldens' Lustre families as one exposition, counters and histograms grown by `step` %. */
export function grown(step: number): string {
  const lines = [...families('lustre_health/whamcloud-2.14.0_ddn133-lctl.prom', /jobio_lustre_/), ...families('lustre_lnet/whamcloud-lnetctl.prom', /jobio_lnet_/)];
  const moving = new Set(lines.flatMap((l) => /^# TYPE (\S+) (counter|histogram)$/.exec(l)?.[1] ?? []));
  return (
    lines
      .map((l) => {
        const m = /^([a-z_]+?)(_bucket|_count)?(\{.*\})? (\S+)$/.exec(l);
        if (!m || !moving.has(m[1] ?? '')) return l;
        return `${m[1]}${m[2] ?? ''}${m[3] ?? ''} ${Number(m[4]) * (1 + step / 100)}`;
      })
      .join('\n') + '\n'
  );
}

test('the golden server grows only its counters and histograms', () => {
  const at0 = grown(0);
  const at2 = grown(2);
  assert.match(at0, /^jobio_lustre_service_requests_total\{service="ost_io"\} (\d+)$/m);
  const requests = (text: string): number => Number(/^jobio_lustre_service_requests_total\{service="ost_io"\} (\S+)$/m.exec(text)?.[1]);
  assert.equal(requests(at2), requests(at0) * 1.02);
  const size = (text: string): string | undefined => /^jobio_lustre_target_size_bytes\{fs="ai400x2",target="ai400x2-OST0000"\} (\S+)$/m.exec(text)?.[1];
  assert.equal(size(at2), size(at0));
  assert.match(at0, /^jobio_lnet_ni_up\{/m);
});

test('every brw_stats, LNet and service panel of the cluster dashboard shows data for the server’s file system', async () => {
  const dashboard = JSON.parse(readFileSync(join(repoRoot, 'dashboards/cluster-filesystem.json'), 'utf8')) as { panels: Panel[] };
  const first = dashboard.panels.findIndex((p) => p.type === 'row' && p.repeat === 'fs' && /network and request queues/.test(p.title));
  assert.ok(first > 0, 'the servers’ row');
  const panels = [...dashboard.panels.filter((p) => /brw_/.test(JSON.stringify(p.targets ?? []))), ...dashboard.panels.slice(first + 1)];
  assert.equal(panels.length, 9, panels.map((p) => p.title).join('; '));

  let scrapes = 0;
  const server: Server = createServer((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/plain; version=0.0.4' });
    res.end(grown(scrapes++));
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const rules = readFileSync(join(repoRoot, 'provisioning/prometheus/rules/jobio-lustre-health.yml'), 'utf8');
  const prom = await startPrometheusWithConfig(
    `global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\nrule_files:\n  - rules.yml\nscrape_configs:\n  - job_name: oss\n    static_configs:\n      - targets: ["127.0.0.1:${port}"]\n`,
    { files: { 'rules.yml': rules } },
  );
  try {
    // The recording rules have evaluated over at least two scrapes.
    await prom.waitFor('service:jobio_lustre_service_request_wait_seconds:mean5m{service="ost_io"}', (s) => s.length === 1, 60_000);
    const empty: string[] = [];
    let queries = 0;
    for (const p of panels) {
      for (const t of p.targets ?? []) {
        const expr = (t.expr ?? '')
          .replace(/\$fs/g, 'ai400x2')
          .replace(/\$__rate_interval/g, '5s')
          .replace(/\$__range/g, '1m');
        assert.doesNotMatch(expr, /\$/, `${p.title} ${t.refId}: every variable filled`);
        queries += 1;
        if ((await prom.query(expr)).length === 0) empty.push(`${p.title} ${t.refId}: ${expr}`);
      }
    }
    assert.deepEqual(empty, []);
    assert.equal(queries, 16);
    // The file system filter keeps the server out of another file system's row.
    const other = dashboard.panels[first + 1]?.targets?.[0]?.expr?.replace(/\$fs/g, 'otherfs').replace(/\$__rate_interval/g, '5s') ?? '';
    assert.deepEqual(await prom.query(other), []);
  } finally {
    await prom.stop();
    await new Promise((resolve) => server.close(resolve));
  }
});
