// The built exporter with only the cgroup collector on each fixture tree: a golden exposition per
// tree (regenerate with JOBIO_UPDATE_GOLDEN=1 npm test, then review the diff), linted by promtool.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startExporter, scrape, repoRoot } from '../helpers/exporter.js';
import { assertGolden, normaliseExposition } from '../helpers/golden.js';
import { promtoolCheckMetrics } from '../helpers/promtool.js';

const fixtures = join(repoRoot, 'test/fixtures/cgroup');

interface GoldenCase {
  readonly name: string;
  readonly tree: string;
  readonly flags?: readonly string[];
  readonly malformed: number;
}

const cases: readonly GoldenCase[] = [
  { name: 'v1', tree: 'v1', malformed: 2 },
  { name: 'v1-max-jobs-1', tree: 'v1', flags: ['--collector.cgroup.max-jobs=1'], malformed: 2 },
  { name: 'v1-nodename', tree: 'v1-nodename', malformed: 0 },
  { name: 'v2', tree: 'v2', malformed: 1 },
  { name: 'v2-nodename', tree: 'v2-nodename', malformed: 1 },
  { name: 'pbs-v1', tree: 'pbs-v1', malformed: 0 },
  { name: 'pbs-v2', tree: 'pbs-v2', malformed: 0 },
  { name: 'lsf-v1', tree: 'lsf-v1', malformed: 0 },
  { name: 'lsf-v2', tree: 'lsf-v2', malformed: 0 },
  { name: 'flux-v2', tree: 'flux-v2', malformed: 0 },
];

for (const c of cases) {
  // v2 trees are root-owned, as Slurm's cgroup/v2 plugin makes them: owners come from the real uids
  // of the processes in each job's `user` cgroups (test/fixtures/cgroup/proc/<pid>/status).
  test(`cgroup golden: ${c.name}`, async () => {
    const tree = join(fixtures, c.tree);
    const args = [
      '--collector.disable-defaults',
      '--collector.cgroup',
      `--path.sysfs=${join(tree, 'sys')}`,
      `--path.procfs=${join(fixtures, 'proc')}`,
      `--path.rootfs=${join(fixtures, 'rootfs')}`,
      ...(c.flags ?? []),
    ];
    const exporter = await startExporter(args);
    try {
      const text = await scrape(`${exporter.url}/metrics`);
      const lint = promtoolCheckMetrics(text);
      assert.ok(lint.ok, `promtool check metrics:\n${lint.output}`);
      assert.match(text, /^jobio_scrape_collector_success\{collector="cgroup"\} 1$/m);
      assert.match(text, new RegExp(`^jobio_cgroup_malformed_files_total ${c.malformed}$`, 'm'));
      assertGolden(normaliseExposition(text), join(repoRoot, `test/golden/cgroup/${c.name}.prom`));
    } finally {
      await exporter.stop();
    }
  });
}

test('cgroup: a host without Slurm cgroups is quiet (success 0, no series, no warning)', async () => {
  const exporter = await startExporter(['--collector.disable-defaults', '--collector.cgroup', `--path.sysfs=${join(fixtures, 'rootfs')}`, `--path.rootfs=${join(fixtures, 'rootfs')}`]);
  try {
    const text = await scrape(`${exporter.url}/metrics`);
    assert.ok(promtoolCheckMetrics(text).ok);
    assert.match(text, /^jobio_scrape_collector_success\{collector="cgroup"\} 0$/m);
    assert.doesNotMatch(text, /^jobio_(job|cgroup)_/m);
    assert.doesNotMatch(exporter.log(), /"level":"(warn|error|fatal)"/);
    assertGolden(normaliseExposition(text), join(repoRoot, 'test/golden/cgroup/no-slurm.prom'));
  } finally {
    await exporter.stop();
  }
});

test('cgroup: a job whose cgroup is removed between two scrapes keeps its final CPU seconds and peak memory (no current memory), and goes after finished-expiry', async () => {
  const tree = mkdtempSync(join(tmpdir(), 'jobio-cgroup-finished-'));
  cpSync(join(fixtures, 'v1'), tree, { recursive: true });
  const args = ['--collector.disable-defaults', '--collector.cgroup', `--path.sysfs=${join(tree, 'sys')}`, `--path.procfs=${join(fixtures, 'proc')}`, `--path.rootfs=${join(fixtures, 'rootfs')}`];
  const job123 = /^jobio_job_(cpu_user_seconds_total|memory_bytes|memory_peak_bytes)\{jobid="123",user="alice"\} (\S+)$/gm;
  const values = (text: string): Record<string, string> => Object.fromEntries([...text.matchAll(job123)].map((m) => [m[1], m[2]]));
  const exporter = await startExporter([...args, '--collector.cgroup.finished-expiry=1h']);
  try {
    const running = values(await scrape(`${exporter.url}/metrics`));
    assert.deepEqual(Object.keys(running).sort(), ['cpu_user_seconds_total', 'memory_bytes', 'memory_peak_bytes']);
    // Slurm removes the job's cgroup directories as the job ends.
    for (const controller of ['cpuacct', 'memory']) rmSync(join(tree, 'sys/fs/cgroup', controller, 'slurm/uid_1000/job_123'), { recursive: true, force: true });
    const text = await scrape(`${exporter.url}/metrics`);
    assert.deepEqual(values(text), { cpu_user_seconds_total: running.cpu_user_seconds_total, memory_peak_bytes: running.memory_peak_bytes });
    assert.match(text, /^jobio_cgroup_finished_jobs 1$/m);
    assert.match(text, /^jobio_cgroup_jobs 2$/m);
  } finally {
    await exporter.stop();
  }
  const short = await startExporter([...args, '--collector.cgroup.finished-expiry=1ms']);
  try {
    await scrape(`${short.url}/metrics`);
    cpSync(join(fixtures, 'v1'), tree, { recursive: true }); // job 123 back
    await scrape(`${short.url}/metrics`);
    for (const controller of ['cpuacct', 'memory']) rmSync(join(tree, 'sys/fs/cgroup', controller, 'slurm/uid_1000/job_123'), { recursive: true, force: true });
    // Kept while within 1 ms of its end, gone at the first sampling after: poll, no timing assertion.
    let text = '';
    for (let i = 0; i < 100; i += 1) {
      text = await scrape(`${short.url}/metrics`);
      if (/^jobio_cgroup_finished_jobs 0$/m.test(text)) break;
    }
    assert.deepEqual(values(text), {});
    assert.match(text, /^jobio_cgroup_finished_jobs 0$/m);
  } finally {
    await short.stop();
    rmSync(tree, { recursive: true, force: true });
  }
});
