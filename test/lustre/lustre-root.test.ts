// --path.lustre: the Lustre collectors read a captured tree while the profiler checks the senders of
// its frames in the real /proc (one exporter replaying Lustre files next to real profiled programs).
// And what used to fail silently now says so: --path.procfs pointed at a tree without processes while
// the profiler runs, and a second exporter on an occupied profiler socket.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot, scrape, startExporter } from '../helpers/exporter.js';
import { parseExposition } from '../profiler/exposition.js';
import { mountOf, requireProfilerLibrary } from '../profiler/real-library.js';

const tree = join(repoRoot, 'test/fixtures/lustre/hp-2.10.1-ost');
const rootfs = join(repoRoot, 'test/fixtures/lustre/rootfs');

test('--path.lustre: job_stats from a captured tree and a real profiled dd, both counted, in one exporter', async () => {
  const lib = requireProfilerLibrary();
  const dir = mkdtempSync(join(tmpdir(), 'jobio-lustre-root-'));
  const socket = join(dir, 'profiler.sock');
  const exporter = await startExporter([
    '--collector.disable-defaults',
    '--collector.lustre_jobstats',
    '--collector.lustre_jobstats.jobid-format=%j',
    '--collector.profiler',
    `--collector.profiler.socket=${socket}`,
    `--path.lustre=${tree}`,
    `--path.rootfs=${rootfs}`,
  ]);
  try {
    const r = spawnSync('sh', ['-c', 'sleep 0.3; dd if=/dev/zero of="$1" bs=4k count=100 status=none', 'sh', join(dir, 'out.bin')], {
      env: { ...process.env, LD_PRELOAD: lib, JOBIO_SOCKET: socket, SLURM_JOB_ID: '4711' },
      encoding: 'utf8',
    });
    assert.equal(r.status, 0, r.stderr);
    const mount = mountOf(dir);
    const writes = (text: string): number =>
      parseExposition(text)
        .filter((s) => s.name === 'jobio_profiler_calls_total' && s.labels.call === 'write' && s.labels.mount === mount && s.labels.jobid === '4711')
        .reduce((a, s) => a + s.value, 0);
    let text = '';
    // Polling for the frames to arrive (not a timing assertion: the bound only ends a broken run).
    for (const until = Date.now() + 10_000; Date.now() < until; await new Promise((resolve) => setTimeout(resolve, 100))) {
      text = await scrape(`${exporter.url}/metrics`);
      if (writes(text) >= 100) break;
    }
    assert.equal(
      writes(text),
      100,
      text
        .split('\n')
        .filter((l) => /rejected_total\{/.test(l))
        .join('\n'),
    );
    assert.match(text, /^jobio_lustre_jobstats_entries\{target="lustrefs-OST0000",quality="correct",uid_class="none"\} 35$/m);
    assert.match(text, /^jobio_scrape_collector_success\{collector="lustre_jobstats"\} 1$/m);
    assert.doesNotMatch(exporter.log(), /"level":"(warn|error)"/, 'nothing to warn about');
  } finally {
    await exporter.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('--path.procfs at a tree without processes while the profiler runs: a warning that names the flags', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'jobio-lustre-root-'));
  const exporter = await startExporter([
    '--collector.disable-defaults',
    '--collector.lustre_jobstats',
    '--collector.profiler',
    `--collector.profiler.socket=${join(dir, 'profiler.sock')}`,
    `--path.procfs=${join(tree, 'proc')}`,
    `--path.rootfs=${rootfs}`,
  ]);
  try {
    const text = await scrape(`${exporter.url}/metrics`);
    assert.match(text, /^jobio_scrape_collector_success\{collector="lustre_jobstats"\} 1$/m, 'the Lustre files are still read there (backward compatible)');
    const warning = exporter
      .log()
      .split('\n')
      .find((l) => l.includes('"level":"warn"') && l.includes('--path.lustre'));
    assert.ok(warning, exporter.log());
    assert.match(warning, /has no processes/);
  } finally {
    await exporter.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a second exporter on the same profiler socket path says so at warn', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'jobio-lustre-root-'));
  const args = ['--collector.disable-defaults', '--collector.profiler', `--collector.profiler.socket=${join(dir, 'profiler.sock')}`];
  const first = await startExporter(args);
  try {
    const second = await startExporter(args);
    try {
      const line = second
        .log()
        .split('\n')
        .find((l) => l.includes('another receiver is listening'));
      assert.ok(line, second.log());
      assert.match(line, /"level":"warn"/);
    } finally {
      await second.stop();
    }
  } finally {
    await first.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('--path.lustre that does not exist or is a file is refused at start with exit 2', async () => {
  const { runJobio } = await import('../helpers/exporter.js');
  for (const [dir, message] of [
    [join(tree, 'nope'), /--path\.lustre: .*nope does not exist/],
    [join(repoRoot, 'package.json'), /--path\.lustre: .*package\.json is not a directory/],
  ] as const) {
    const result = await runJobio(['exporter', '--web.listen-address=127.0.0.1:0', `--path.lustre=${dir}`]);
    assert.equal(result.code, 2, result.stderr);
    assert.match(result.stderr, message);
  }
});
