// The built exporter with the profiler collector on a temporary socket: frames from a C program that
// uses the wire header's structs, then /metrics must show the exact figures and pass promtool.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot, startExporter, scrape } from '../helpers/exporter.js';
import { assertGolden, normaliseExposition } from '../helpers/golden.js';
import { promtoolCheckMetrics } from '../helpers/promtool.js';
import { expected, sendScenario } from './frame-tool.js';
import { CALL_TYPES, CLASSES, SIZE_BINS } from '../../exporter/src/parsers/profiler-wire.js';
import { parseExposition, sample } from './exposition.js';

async function waitForMetric(url: string, predicate: (text: string) => boolean): Promise<string> {
  const until = Date.now() + 10_000;
  for (;;) {
    const text = await scrape(url);
    if (predicate(text) || Date.now() > until) return text;
    await new Promise((r) => setTimeout(r, 100));
  }
}

test('exporter: frames on the socket become exact jobio_profiler_* series; garbage is rejected and counted', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'jobio-prof-e2e-'));
  const socket = join(dir, 'profiler.sock');
  const exporter = await startExporter(['--collector.disable-defaults', '--collector.profiler', `--collector.profiler.socket=${socket}`]);
  try {
    // A truthful job claim (environment matches), then garbage followed by a valid snapshot of job 77,
    // then a process whose environment says job 1 claiming job 4242 (all 4 frames rejected, nothing counted).
    assert.equal(sendScenario(socket, 'valid', '4242', 'SLURM_JOB_ID', { SLURM_JOB_ID: '4242', FRAME_TOOL_HOLD_MS: '300' }).status, 0);
    assert.equal(sendScenario(socket, 'garbage', '77', 'SLURM_JOB_ID', { SLURM_JOB_ID: '77', FRAME_TOOL_HOLD_MS: '300' }).status, 0);
    assert.equal(sendScenario(socket, 'valid', '4242', 'SLURM_JOB_ID', { SLURM_JOB_ID: '1', FRAME_TOOL_HOLD_MS: '300' }).status, 0);
    const text = await waitForMetric(
      `${exporter.url}/metrics`,
      (t) => /jobio_profiler_records_rejected_total\{reason="job_mismatch"\} 4/.test(t) && /jobio_profiler_runtime_seconds_total\{jobid="77"/.test(t),
    );
    const lint = promtoolCheckMetrics(text);
    assert.ok(lint.ok, `promtool check metrics:\n${lint.output}`);
    const series = parseExposition(text);
    assert.equal(sample(series, 'jobio_scrape_collector_success', { collector: 'profiler' }), 1);
    // The tests run as root: uid 0 is a system account.
    const user = '_system';
    CALL_TYPES.forEach((call, c) =>
      CLASSES.forEach((cls, k) => {
        const labels = { jobid: '4242', user, mount: '/data', call, class: cls };
        assert.equal(sample(series, 'jobio_profiler_calls_total', labels), expected.calls(3, c, k), `calls ${call} ${cls}`);
        assert.ok(Math.abs((sample(series, 'jobio_profiler_io_seconds_total', labels) ?? -1) - expected.timeNs(3, c, k) / 1e9) < 1e-12, `seconds ${call} ${cls}`);
        assert.equal(sample(series, 'jobio_profiler_calls_total', { ...labels, jobid: '77' }), expected.calls(1, c, k));
      }),
    );
    // timed calls: per call type only (the frames' `sampled`), no mount or class label
    CALL_TYPES.forEach((call, c) => {
      assert.equal(sample(series, 'jobio_profiler_timed_calls_total', { jobid: '4242', user, call }), expected.sampled(3, c), `timed ${call}`);
      assert.equal(sample(series, 'jobio_profiler_timed_calls_total', { jobid: '77', user, call }), expected.sampled(1, c), `timed ${call} job 77`);
    });
    assert.equal(series.filter((s) => s.name === 'jobio_profiler_timed_calls_total').length, 2 * CALL_TYPES.length);
    SIZE_BINS.forEach((size, b) => {
      assert.equal(sample(series, 'jobio_profiler_read_bytes_total', { jobid: '4242', user, mount: '/data', size }), expected.sizedBytes(3, 0, b));
      assert.equal(sample(series, 'jobio_profiler_write_bytes_total', { jobid: '4242', user, mount: '/data', size }), expected.sizedBytes(3, 1, b));
    });
    assert.equal(sample(series, 'jobio_profiler_runtime_seconds_total', { jobid: '4242', user }), expected.runtimeNs(3) / 1e9);
    assert.equal(sample(series, 'jobio_profiler_runtime_seconds_total', { jobid: '77', user }), expected.runtimeNs(1) / 1e9);
    assert.equal(sample(series, 'jobio_profiler_records_dropped_total', {}), expected.droppedFrames(3) + expected.droppedFrames(1));
    const rejected = (reason: string): number | undefined => sample(series, 'jobio_profiler_records_rejected_total', { reason });
    assert.deepEqual(
      Object.fromEntries(
        ['bad_magic', 'bad_version', 'bad_kind', 'short', 'bad_length', 'bad_string', 'oversized', 'job_mismatch', 'unverified_job', 'no_process', 'stale', 'too_many_processes', 'overloaded'].map(
          (r) => [r, rejected(r)],
        ),
      ),
      {
        bad_magic: 2,
        bad_version: 1,
        bad_kind: 1,
        short: 1,
        bad_length: 1,
        bad_string: 1,
        oversized: 1,
        job_mismatch: 4,
        unverified_job: 0,
        no_process: 0,
        stale: 0,
        too_many_processes: 0,
        overloaded: 0,
      },
    );
    assert.equal(series.filter((s) => s.name === 'jobio_profiler_calls_total' && s.labels.jobid === '1').length, 0, 'nothing credited to the impostor');
    // The whole exposition, as a golden file (also the catalogue test's evidence of every profiler metric).
    assertGolden(normaliseExposition(text), join(repoRoot, 'test/golden/profiler/frame-tool-scenarios.prom'));
  } finally {
    await exporter.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});

// The per-uid budget of mount labels on the real exporter: one uid (root here), two jobs on /data, a
// budget of one (job, mount) label: job 77's /data goes to mount="_other" and is counted for the uid.
test('exporter: mount labels beyond the uid budget go to mount="_other" and are counted per user and reason', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'jobio-prof-budget-'));
  const socket = join(dir, 'profiler.sock');
  const exporter = await startExporter(['--collector.disable-defaults', '--collector.profiler', `--collector.profiler.socket=${socket}`, '--collector.profiler.max-mounts-per-user=1']);
  try {
    assert.equal(sendScenario(socket, 'valid', '4242', 'SLURM_JOB_ID', { SLURM_JOB_ID: '4242', FRAME_TOOL_HOLD_MS: '300' }).status, 0);
    assert.equal(sendScenario(socket, 'valid', '77', 'SLURM_JOB_ID', { SLURM_JOB_ID: '77', FRAME_TOOL_HOLD_MS: '300' }).status, 0);
    const text = await waitForMetric(`${exporter.url}/metrics`, (t) => /jobio_profiler_runtime_seconds_total\{jobid="77"/.test(t) && /jobio_profiler_user_labels_folded_total\{/.test(t));
    const series = parseExposition(text);
    const mountsOf = (jobid: string): string[] => [...new Set(series.filter((x) => x.name === 'jobio_profiler_calls_total' && x.labels.jobid === jobid).map((x) => x.labels.mount ?? ''))];
    assert.deepEqual(mountsOf('4242'), ['/data']);
    assert.deepEqual(mountsOf('77'), ['_other']);
    const folded = sample(series, 'jobio_profiler_mounts_folded_total', {});
    assert.ok((folded ?? 0) > 0);
    assert.equal(sample(series, 'jobio_profiler_user_labels_folded_total', { user: '_system', label: 'mount', reason: 'user_limit' }), folded);
    assertGolden(normaliseExposition(text), join(repoRoot, 'test/golden/profiler/label-budget.prom'));
  } finally {
    await exporter.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('exporter: a missing socket directory makes the collector absent, not failed, and is warned about once at start', async () => {
  const exporter = await startExporter(['--collector.disable-defaults', '--collector.profiler', '--collector.profiler.socket=/nonexistent-jobio-dir/p.sock']);
  try {
    const text = await scrape(`${exporter.url}/metrics`);
    assert.match(text, /^jobio_scrape_collector_success\{collector="profiler"\} 0$/m);
    assert.doesNotMatch(text, /^jobio_profiler_/m);
    assert.doesNotMatch(exporter.log(), /"level":"error"/);
    const warnings = exporter
      .log()
      .split('\n')
      .filter((l) => l.includes('"level":"warn"'));
    assert.equal(warnings.length, 1, exporter.log());
    assert.match(warnings[0] ?? '', /"collector":"profiler".*"found":false.*"why":"the socket's directory \/nonexistent-jobio-dir does not exist/);
    assert.ok(promtoolCheckMetrics(text).ok);
  } finally {
    await exporter.stop();
  }
});
