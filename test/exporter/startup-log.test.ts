// The exporter's line per collector at start (as node_exporter prints its collectors, and more):
// enabled or not, whether it found its source, where it looked and why not. On a host with none of
// the sources: quiet info lines, a warning for the profiler socket's missing directory (a deployment
// mistake that would leave the collector off unnoticed), and a failing squeue without a job spool at
// debug, not an error at every scrape.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { scrape, startExporter } from '../helpers/exporter.js';
import { allCollectors } from '../../exporter/src/collectors/index.js';

interface LogLine {
  level: string;
  msg: string;
  collector?: string;
  enabled?: boolean;
  found?: boolean;
  source?: string;
  why?: string;
}

test('exporter start: one line per collector, found or why not; a missing scheduler is not an error', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'jobio-startup-'));
  const empty = join(dir, 'empty');
  mkdirSync(empty);
  // squeue installed but no controller to answer, as on a Lustre server with slurm-client.
  const squeue = join(dir, 'squeue');
  writeFileSync(squeue, '#!/bin/sh\necho "slurm_load_jobs error: Unable to contact slurm controller (connect failure)" >&2\nexit 1\n');
  chmodSync(squeue, 0o755);
  const exporter = await startExporter([
    `--path.lustre=${empty}`,
    `--path.sysfs=${empty}`,
    `--path.rootfs=${empty}`,
    `--collector.profiler.socket=${join(dir, 'missing', 'profiler.sock')}`,
    '--collector.gpu.nvml-library=/nonexistent/libnvidia-ml.so.1',
    `--collector.job_info.squeue=${squeue}`,
    '--collector.job_info.squeue-interval=1s',
  ]);
  try {
    await scrape(`${exporter.url}/metrics`);
    await new Promise((r) => setTimeout(r, 1100)); // a fresh squeue call for the next scrape
    const text = await scrape(`${exporter.url}/metrics`);
    const lines = exporter
      .log()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as LogLine);
    const byCollector = new Map(lines.filter((l) => l.msg === 'collector').map((l) => [l.collector, l]));
    assert.deepEqual(
      [...byCollector.keys()],
      allCollectors.map((d) => d.name),
      'one line per collector, in the list order',
    );
    const line = (name: string): LogLine => byCollector.get(name) ?? ({} as LogLine);
    assert.deepEqual([line('lustre_exports').level, line('lustre_exports').enabled], ['info', false], 'off by default');
    assert.deepEqual([line('process').level, line('process').found], ['info', true]);
    assert.equal(line('lustre_jobstats').found, false);
    assert.equal(line('lustre_jobstats').source, `mdt/obdfilter job_stats under ${empty}/proc/fs/lustre, ${empty}/sys/fs/lustre, ${empty}/sys/kernel/debug/lustre`);
    assert.equal(line('lustre_jobstats').level, 'info');
    assert.deepEqual([line('gpu').level, line('gpu').found], ['info', false]);
    assert.match(line('gpu').why ?? '', /^no NVML library: /);
    assert.deepEqual([line('profiler').level, line('profiler').found], ['warn', false]);
    assert.equal(
      line('profiler').why,
      `the socket's directory ${join(dir, 'missing')} does not exist: create it (the systemd unit's RuntimeDirectory=jobio does) or choose another with --collector.profiler.socket`,
    );
    assert.deepEqual([line('job_info').level, line('job_info').found], ['info', false]);
    assert.equal(line('job_info').why, `no job spool at ${empty}/run/jobio/jobs and ${squeue} failed: slurm_load_jobs error: Unable to contact slurm controller (connect failure)`);
    // Two scrapes later: no error logged, and the failing squeue is quiet (absent), not failed.
    assert.deepEqual(
      lines.filter((l) => l.level === 'error'),
      [],
    );
    assert.deepEqual(
      lines.filter((l) => l.level === 'warn').map((l) => l.collector),
      ['profiler'],
    );
    assert.match(text, /^jobio_scrape_collector_success\{collector="job_info"\} 0$/m);
  } finally {
    await exporter.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});
