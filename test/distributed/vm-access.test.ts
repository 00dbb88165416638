// Who can reach the VictoriaMetrics and vmalert of the shipped sharded layout
// (provisioning/victoriametrics): both listen on 127.0.0.1 as shipped, and VictoriaMetrics started
// with the credentials its defaults file tells a site to set before opening it to other hosts refuses
// every read, import and deletion without them (forged per-job series imported, or real ones deleted,
// by anyone on the network was the finding). The whole layout with these credentials runs in
// victoriametrics.test.ts.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { authHeader, provisionedArgs, startVictoriaMetrics, VM_AUTH, VM_DELETE_KEY, type Service } from './services.js';

let vm: Service | undefined;

before(async () => {
  vm = await startVictoriaMetrics({ 'search.latencyOffset': '0s', 'search.disableCache': 'true' });
});

after(async () => {
  await vm?.stop();
});

const withAuth = { headers: { authorization: authHeader(VM_AUTH) } };
const FORGED = 'jobio_profiler_calls_total{jobid="4711",user="victim"} 1e12';

const url = (): string => {
  assert.ok(vm, 'VictoriaMetrics did not start');
  return vm.url;
};

async function status(path: string, init: RequestInit = {}): Promise<number> {
  const res = await fetch(`${url()}${path}`, init);
  await res.arrayBuffer();
  return res.status;
}

test('the shipped VictoriaMetrics and vmalert listen on 127.0.0.1 only', () => {
  const listen = (file: string): string | undefined => provisionedArgs(file).find((a) => a.startsWith('-httpListenAddr='));
  assert.match(listen('victoria-metrics.default') ?? '', /^-httpListenAddr=127\.0\.0\.1:\d+$/);
  assert.match(listen('vmalert.default') ?? '', /^-httpListenAddr=127\.0\.0\.1:\d+$/);
  // The credentials come from the environment, never from the command line that `ps` shows.
  for (const file of ['victoria-metrics.default', 'vmalert.default']) {
    assert.ok(provisionedArgs(file).includes('-envflag.enable'), file);
    assert.ok(!provisionedArgs(file).some((a) => /password|authkey/i.test(a)), file);
  }
});

test('without the password: no query, no import, no deletion', async () => {
  assert.equal(await status('/api/v1/query?query=up'), 401);
  assert.equal(await status('/api/v1/import/prometheus', { method: 'POST', body: FORGED }), 401);
  assert.equal(await status('/api/v1/admin/tsdb/delete_series?match[]={__name__!=""}'), 401);
  // The series the rejected import carried is not there.
  assert.equal(await status('/internal/force_flush', withAuth), 200);
  const res = await fetch(`${url()}/api/v1/series?match[]=jobio_profiler_calls_total`, withAuth);
  assert.deepEqual(((await res.json()) as { data: unknown[] }).data, []);
});

test('with the password: import and query; deletion needs the delete key on top', async () => {
  assert.equal(await status('/api/v1/import/prometheus', { method: 'POST', body: 'jobio_vm_access_probe 1', ...withAuth }), 204);
  assert.equal(await status('/internal/force_flush', withAuth), 200);
  const series = async (): Promise<unknown[]> => ((await (await fetch(`${url()}/api/v1/series?match[]=jobio_vm_access_probe`, withAuth)).json()) as { data: unknown[] }).data;
  assert.equal((await series()).length, 1);
  assert.ok((await status('/api/v1/admin/tsdb/delete_series?match[]=jobio_vm_access_probe', withAuth)) >= 400);
  assert.equal((await series()).length, 1);
  assert.equal(await status(`/api/v1/admin/tsdb/delete_series?match[]=jobio_vm_access_probe&authKey=${VM_DELETE_KEY}`, withAuth), 204);
  assert.deepEqual(await series(), []);
});
