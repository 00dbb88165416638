// The exporter with the real library and JOBIO_NETWORK=1: a program talking to 19 peer addresses
// (native/profiler/tests/t_net_peers.c, "fold") gives series on mount="[network]" only, none per
// address, with the exact calls, and the 3 calls the library folded in jobio_profiler_network_folded_total.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startExporter, scrape } from '../helpers/exporter.js';
import { promtoolCheckMetrics } from '../helpers/promtool.js';
import { buildTests, testBin } from '../profiler-native/harness.js';
import { parseExposition } from './exposition.js';
import { requireProfilerLibrary } from './real-library.js';

test('exporter: socket I/O of 19 peers is on the one mount="[network]" label, folded calls counted', async () => {
  const lib = requireProfilerLibrary();
  buildTests();
  const dir = mkdtempSync(join(tmpdir(), 'jobio-prof-net-'));
  const socket = join(dir, 'profiler.sock');
  const exporter = await startExporter(['--collector.disable-defaults', '--collector.profiler', `--collector.profiler.socket=${socket}`]);
  try {
    // under a profiled shell that lives long enough to verify the job claim (see exporter-real.test.ts)
    const r = spawnSync('sh', ['-c', 'sleep 0.3; "$1" "$2" fold', 'sh', testBin('t_net_peers'), dir], {
      env: { ...process.env, LD_PRELOAD: lib, JOBIO_SOCKET: socket, JOBIO_NETWORK: '1', SLURM_JOB_ID: '31338' },
      encoding: 'utf8',
    });
    assert.equal(r.status, 0, r.stderr);
    const calls = (t: string, call: string): number =>
      parseExposition(t)
        .filter((s) => s.name === 'jobio_profiler_calls_total' && s.labels.jobid === '31338' && s.labels.call === call)
        .reduce((a, s) => a + s.value, 0);
    let text = '';
    const until = Date.now() + 10_000;
    while (Date.now() < until) {
      text = await scrape(`${exporter.url}/metrics`);
      if (calls(text, 'write') >= 19) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const lint = promtoolCheckMetrics(text);
    assert.ok(lint.ok, `promtool check metrics:\n${lint.output}`);
    const series = parseExposition(text).filter((s) => s.name.startsWith('jobio_profiler_') && s.labels.jobid === '31338');
    const sockets = new Set(series.map((s) => s.labels.mount).filter((m) => m?.startsWith('[network')));
    assert.deepEqual([...sockets], ['[network]']);
    const find = (call: string, cls: string): number | undefined =>
      series.find((s) => s.name === 'jobio_profiler_calls_total' && s.labels.mount === '[network]' && s.labels.call === call && s.labels.class === cls)?.value;
    // 18 datagrams and one send on the connected socket; the one datagram read back; the connect
    assert.deepEqual([find('write', 'green'), find('read', 'green'), find('connect', 'green')], [19, 1, 1]);
    const bytes = series.filter((s) => s.name === 'jobio_profiler_write_bytes_total' && s.labels.mount === '[network]').reduce((a, s) => a + s.value, 0);
    assert.equal(bytes, 18 * 10 + 5);
    assert.equal(parseExposition(text).find((s) => s.name === 'jobio_profiler_network_folded_total')?.value, 3);
  } finally {
    await exporter.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});
