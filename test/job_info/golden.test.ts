// The built exporter with only the job_info collector on the fixture spool (test/fixtures/job_info):
// golden expositions (regenerate with JOBIO_UPDATE_GOLDEN=1 npm test, then review), linted by promtool.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { startExporter, scrape, repoRoot } from '../helpers/exporter.js';
import { assertGolden, normaliseExposition } from '../helpers/golden.js';
import { promtoolCheckMetrics } from '../helpers/promtool.js';

const rootfs = join(repoRoot, 'test/fixtures/job_info/rootfs');
const asRoot = process.getuid?.() === 0;

const cases = [
  { name: 'spool', flags: [] as string[] },
  { name: 'spool-bounded', flags: ['--collector.job_info.max-jobs=2', '--collector.job_info.label-max-length=16'] },
];

for (const c of cases) {
  test(`job_info golden: ${c.name}`, { skip: asRoot ? false : 'the spool is believed only when root-owned (a root checkout, as in CI)' }, async () => {
    const exporter = await startExporter(['--collector.disable-defaults', '--collector.job_info', '--collector.job_info.squeue=', `--path.rootfs=${rootfs}`, ...c.flags]);
    try {
      const text = await scrape(`${exporter.url}/metrics`);
      const lint = promtoolCheckMetrics(text);
      assert.ok(lint.ok, `promtool check metrics:\n${lint.output}`);
      assert.match(text, /^jobio_scrape_collector_success\{collector="job_info"\} 1$/m);
      assertGolden(normaliseExposition(text), join(repoRoot, `test/golden/job_info/${c.name}.prom`));
    } finally {
      await exporter.stop();
    }
  });
}

test('job_info: no spool and no squeue is quiet (success 0, no series, no warning)', async () => {
  const exporter = await startExporter([
    '--collector.disable-defaults',
    '--collector.job_info',
    '--collector.job_info.squeue=/nonexistent/squeue',
    `--path.rootfs=${join(repoRoot, 'test/fixtures/cgroup/rootfs')}`,
  ]);
  try {
    const text = await scrape(`${exporter.url}/metrics`);
    assert.match(text, /^jobio_scrape_collector_success\{collector="job_info"\} 0$/m);
    assert.doesNotMatch(text, /^jobio_job_info/m);
    assert.doesNotMatch(exporter.log(), /"level":"(warn|error|fatal)"/);
  } finally {
    await exporter.stop();
  }
});
