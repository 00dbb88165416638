// The built exporter with the profiler collector on a temporary socket, and a real program run with
// LD_PRELOAD=libjobio.so and JOBIO_SOCKET: /metrics shows exactly its writes, promtool-clean.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startExporter, scrape } from '../helpers/exporter.js';
import { promtoolCheckMetrics } from '../helpers/promtool.js';
import { parseExposition } from './exposition.js';
import { mountOf, requireProfilerLibrary } from './real-library.js';

test('exporter: dd under LD_PRELOAD shows its exact writes in jobio_profiler_* series', async () => {
  const lib = requireProfilerLibrary();
  const dir = mkdtempSync(join(tmpdir(), 'jobio-prof-real-'));
  const socket = join(dir, 'profiler.sock');
  const exporter = await startExporter(['--collector.disable-defaults', '--collector.profiler', `--collector.profiler.socket=${socket}`]);
  try {
    const target = join(dir, 'out.bin');
    // Under a profiled shell, like a job's batch script, alive long enough to be verified: dd may exit
    // before the receiver reads its frames, and then counts only because the shell (same uid) holds a
    // verified claim on the job (a lone process that fast would be rejected as unverified_job).
    const r = spawnSync('sh', ['-c', 'sleep 0.3; dd if=/dev/zero of="$1" bs=4k count=250 status=none; s=$?; exit $s', 'sh', target], {
      env: { ...process.env, LD_PRELOAD: lib, JOBIO_SOCKET: socket, SLURM_JOB_ID: '31337' },
      encoding: 'utf8',
    });
    assert.equal(r.status, 0, r.stderr);
    const mount = mountOf(dir);
    let text = '';
    const until = Date.now() + 10_000;
    const writeCalls = (t: string): number =>
      parseExposition(t)
        .filter((s) => s.name === 'jobio_profiler_calls_total' && s.labels.call === 'write' && s.labels.mount === mount && s.labels.jobid === '31337')
        .reduce((a, s) => a + s.value, 0);
    while (Date.now() < until) {
      text = await scrape(`${exporter.url}/metrics`);
      if (writeCalls(text) >= 250) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const lint = promtoolCheckMetrics(text);
    assert.ok(lint.ok, `promtool check metrics:\n${lint.output}`);
    const series = parseExposition(text);
    const find = (name: string, labels: Record<string, string>): number | undefined => series.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value;
    // 4 KiB writes are below the 32 KiB small threshold: all red, all in the small bin.
    assert.equal(
      writeCalls(text),
      250,
      text
        .split('\n')
        .filter((l) => /rejected_total\{|dropped_total |calls_total.*write/.test(l))
        .join('\n'),
    );
    assert.equal(find('jobio_profiler_calls_total', { jobid: '31337', user: '_system', mount, call: 'write', class: 'red' }), 250);
    assert.equal(find('jobio_profiler_write_bytes_total', { jobid: '31337', user: '_system', mount, size: 'small' }), 250 * 4096);
    assert.equal(find('jobio_profiler_write_bytes_total', { jobid: '31337', mount, size: 'medium' }) ?? 0, 0);
    assert.ok((find('jobio_profiler_runtime_seconds_total', { jobid: '31337', user: '_system' }) ?? 0) > 0);
    assert.equal(find('jobio_profiler_records_rejected_total', { reason: 'job_mismatch' }), 0, 'the environment confirms job 31337');
    assert.equal(find('jobio_profiler_records_dropped_total', {}), 0);
  } finally {
    await exporter.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('profiled program with nothing listening: no hang, exit status and output unchanged', () => {
  const lib = requireProfilerLibrary();
  const env = { ...process.env, LD_PRELOAD: lib, JOBIO_SOCKET: '/nonexistent-jobio/profiler.sock' };
  const started = Date.now();
  const a = spawnSync('sh', ['-c', 'echo hello; exit 5'], { env, encoding: 'utf8', timeout: 20_000 });
  assert.equal(a.status, 5);
  assert.equal(a.stdout, 'hello\n');
  assert.ok(Date.now() - started < 10_000);
});
