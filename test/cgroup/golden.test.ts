// The built exporter with only the cgroup collector on each fixture tree: a golden exposition per
// tree (regenerate with JOBIO_UPDATE_GOLDEN=1 npm test, then review the diff), linted by promtool.
import { test } from 'node:test';
import assert from 'node:assert/strict';
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
    assert.doesNotMatch(exporter.log(), /"level":(40|50)/);
    assertGolden(normaliseExposition(text), join(repoRoot, 'test/golden/cgroup/no-slurm.prom'));
  } finally {
    await exporter.stop();
  }
});
