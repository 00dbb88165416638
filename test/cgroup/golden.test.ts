// The built exporter with only the cgroup collector on each fixture tree: a golden exposition per
// tree (regenerate with JOBIO_UPDATE_GOLDEN=1 npm test, then review the diff), linted by promtool.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chownSync, cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startExporter, scrape, repoRoot } from '../helpers/exporter.js';
import { assertGolden, normaliseExposition } from '../helpers/golden.js';
import { promtoolCheckMetrics } from '../helpers/promtool.js';

const fixtures = join(repoRoot, 'test/fixtures/cgroup');

interface GoldenCase {
  readonly name: string;
  readonly tree: string;
  /** v2 trees whose job directories get owners (git keeps no ownership). */
  readonly scope?: string;
  readonly flags?: readonly string[];
  readonly malformed: number;
}

const cases: readonly GoldenCase[] = [
  { name: 'v1', tree: 'v1', malformed: 2 },
  { name: 'v1-max-jobs-1', tree: 'v1', flags: ['--collector.cgroup.max-jobs=1'], malformed: 2 },
  { name: 'v1-nodename', tree: 'v1-nodename', malformed: 0 },
  { name: 'v2', tree: 'v2', scope: 'slurmstepd.scope', malformed: 1 },
  { name: 'v2-nodename', tree: 'v2-nodename', scope: 'node01_slurmstepd.scope', malformed: 1 },
];

/** A copy of a v2 tree with job 123 owned by alice (1000) and job 124's step user dir by bob (1001). */
function ownedCopy(c: GoldenCase): string {
  const dir = mkdtempSync(join(tmpdir(), 'jobio-cgroup-'));
  cpSync(join(fixtures, c.tree), dir, { recursive: true });
  const scope = join(dir, 'sys/fs/cgroup/system.slice', c.scope ?? '');
  chownSync(join(scope, 'job_123'), 1000, 1000);
  chownSync(join(scope, 'job_124/step_batch/user'), 1001, 1001);
  return dir;
}

const canChown = process.getuid?.() === 0;

for (const c of cases) {
  test(`cgroup golden: ${c.name}`, { skip: c.scope && !canChown ? 'chown of the v2 fixture needs root' : false }, async () => {
    const tree = c.scope ? ownedCopy(c) : join(fixtures, c.tree);
    const args = ['--collector.disable-defaults', '--collector.cgroup', `--path.sysfs=${join(tree, 'sys')}`, `--path.rootfs=${join(fixtures, 'rootfs')}`, ...(c.flags ?? [])];
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
      if (c.scope) rmSync(tree, { recursive: true, force: true });
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
