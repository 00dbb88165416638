// node_exporter's collect[] parameter: a scrape names the collectors it wants (Prometheus sends it
// from a job's `params`); it used to be ignored and every collector was served.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { repoRoot, startExporter } from '../helpers/exporter.js';

const families = (text: string, prefix: string): boolean => text.split('\n').some((l) => l.startsWith(prefix));

test('collect[] serves the named collectors and the exporter own metrics only; an unknown name is 400', async () => {
  const exporter = await startExporter(['--collector.disable-defaults', '--collector.process', '--collector.lustre_jobstats', `--path.lustre=${join(repoRoot, 'test/fixtures/lustre/hp-2.10.1-ost')}`]);
  try {
    const all = await (await fetch(`${exporter.url}/metrics`)).text();
    assert.ok(families(all, 'process_cpu_seconds_total'), 'the process collector is served without collect[]');
    const none = await fetch(`${exporter.url}/metrics?collect[]=nonesuch&collect[]=process`);
    assert.equal(none.status, 400);
    assert.match(await none.text(), /collect\[\]: not an enabled collector: "nonesuch"/);
    const encoded = await fetch(`${exporter.url}/metrics?collect%5B%5D=process`);
    assert.equal(encoded.status, 200);
    assert.ok(families(await encoded.text(), 'process_cpu_seconds_total'));
    assert.ok(families(all, 'jobio_lustre_jobstats_'), 'and the jobstats collector');
    const lustreOnly = await (await fetch(`${exporter.url}/metrics?collect[]=lustre_jobstats`)).text();
    assert.ok(families(lustreOnly, 'jobio_lustre_jobstats_'));
    assert.ok(!families(lustreOnly, 'process_cpu_seconds_total'), 'the process collector is left out');
    assert.ok(families(lustreOnly, 'jobio_build_info'), "the exporter's own metrics stay");
    const processOnly = await (await fetch(`${exporter.url}/metrics?collect[]=process`)).text();
    assert.ok(!families(processOnly, 'jobio_lustre_jobstats_'));
    const both = await (await fetch(`${exporter.url}/metrics?collect[]=process&collect[]=lustre_jobstats`)).text();
    assert.ok(families(both, 'jobio_lustre_jobstats_') && families(both, 'process_cpu_seconds_total'));
  } finally {
    await exporter.stop();
  }
});
