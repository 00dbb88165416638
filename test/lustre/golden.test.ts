// The built exporter on every Lustre fixture: one golden exposition per fixture (regenerate with
// JOBIO_UPDATE_GOLDEN=1 npm test, then review the diff), each linted by promtool.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { startExporter, scrape, repoRoot } from '../helpers/exporter.js';
import { assertGolden, normaliseExposition } from '../helpers/golden.js';
import { promtoolCheckMetrics } from '../helpers/promtool.js';

const fixtures = join(repoRoot, 'test/fixtures/lustre');
const fakeLctl = join(fixtures, 'bin/fake-lctl');

interface GoldenCase {
  readonly name: string;
  /** A fixture tree with proc/ and sys/, or an lctl capture. */
  readonly tree?: string;
  readonly lctlFile?: string;
  readonly flags?: readonly string[];
}

const cases: readonly GoldenCase[] = [
  { name: 'hp-2.10.1-mdt', tree: 'hp-2.10.1-mdt', flags: ['--collector.lustre_jobstats.jobid-format=%j'] },
  { name: 'hp-2.10.1-ost', tree: 'hp-2.10.1-ost', flags: ['--collector.lustre_jobstats.jobid-format=%j'] },
  { name: 'hp-2.10.1-ost-max-jobs-3', tree: 'hp-2.10.1-ost', flags: ['--collector.lustre_jobstats.jobid-format=%j', '--collector.lustre_jobstats.max-jobs=3'] },
  { name: 'hp-2.10.1-ost-empty', tree: 'hp-2.10.1-ost-empty' },
  { name: 'iml-2.4-era-ost', tree: 'iml-2.4-era-ost' },
  { name: 'telegraf-2.12-mdt', tree: 'telegraf-2.12-mdt', flags: ['--collector.lustre_jobstats.jobid-format=%j'] },
  { name: 'telegraf-2.12-ost', tree: 'telegraf-2.12-ost', flags: ['--collector.lustre_jobstats.jobid-format=%j'] },
  { name: 'synthetic-2.15-2.17', tree: 'synthetic-2.15-2.17' },
  { name: 'whamcloud-2.14.0_ddn-obdfilter-lctl', lctlFile: 'lctl/lctl_get_param.obdfilter.job_stats.txt' },
  { name: 'whamcloud-2.14.0_ddn-mdt-lctl', lctlFile: 'lctl/lctl_get_param.mdt.job_stats.txt' },
  { name: 'unattributed-lctl', lctlFile: 'lctl/unattributed.lctl.txt' },
  { name: 'no-lustre', tree: 'no-lustre' },
];

function argsFor(c: GoldenCase): string[] {
  const tree = join(fixtures, c.tree ?? 'no-lustre');
  const args = ['--collector.disable-defaults', '--collector.lustre_jobstats', `--path.procfs=${join(tree, 'proc')}`, `--path.sysfs=${join(tree, 'sys')}`, `--path.rootfs=${join(fixtures, 'rootfs')}`];
  if (c.lctlFile) args.push('--collector.lustre_jobstats.lctl', `--collector.lustre_jobstats.lctl-path=${fakeLctl}`);
  return [...args, ...(c.flags ?? [])];
}

for (const c of cases) {
  test(`lustre_jobstats golden: ${c.name}`, async () => {
    const env = c.lctlFile ? { JOBIO_FAKE_LCTL_FILE: join(fixtures, c.lctlFile) } : {};
    const exporter = await startExporter(argsFor(c), { env });
    try {
      const text = await scrape(`${exporter.url}/metrics`);
      const lint = promtoolCheckMetrics(text);
      assert.ok(lint.ok, `promtool check metrics:\n${lint.output}`);
      if (c.name === 'no-lustre') {
        assert.doesNotMatch(text, /^jobio_lustre_jobstats_/m, 'a host without Lustre exports no lustre_jobstats series');
        assert.doesNotMatch(exporter.log(), /"level":"(warn|error)"/, 'and logs no warning or error');
      } else {
        assert.match(text, /^jobio_scrape_collector_success\{collector="lustre_jobstats"\} 1$/m);
        // Only the dump with an entry and a stray line before its first header has lines without a target.
        assert.match(text, new RegExp(`^jobio_lustre_jobstats_unattributed_lines_total ${c.name === 'unattributed-lctl' ? 2 : 0}$`, 'm'));
      }
      assertGolden(normaliseExposition(text), join(repoRoot, `test/golden/lustre_jobstats/${c.name}.prom`));
    } finally {
      await exporter.stop();
    }
  });
}

test('lustre_jobstats: a hanging lctl fails the collector by its deadline, not the scrape', async () => {
  const exporter = await startExporter([...argsFor({ name: 'lctl-hang', lctlFile: 'x' }), '--collector.lustre_jobstats.lctl-timeout=300ms'], {
    env: { JOBIO_FAKE_LCTL_SLEEP: '5', JOBIO_FAKE_LCTL_FILE: '/dev/null' },
  });
  try {
    const started = Date.now();
    const text = await scrape(`${exporter.url}/metrics`);
    assert.ok(Date.now() - started < 4000, 'the scrape did not wait for lctl');
    assert.match(text, /^jobio_scrape_collector_success\{collector="lustre_jobstats"\} 0$/m);
    assert.match(exporter.log(), /did not finish within 300 ms/);
  } finally {
    await exporter.stop();
  }
});

test('lustre_jobstats: lctl without any job_stats parameter is quiet (absent)', async () => {
  const exporter = await startExporter(argsFor({ name: 'lctl-absent', lctlFile: 'x' }), { env: { JOBIO_FAKE_LCTL_FILE: '' } });
  try {
    const text = await scrape(`${exporter.url}/metrics`);
    assert.doesNotMatch(text, /^jobio_lustre_jobstats_/m);
    assert.doesNotMatch(exporter.log(), /collector failed/);
  } finally {
    await exporter.stop();
  }
});

test('lustre_jobstats: bad flag values are refused at start with the flag named', async () => {
  const { runJobio } = await import('../helpers/exporter.js');
  for (const [flag, message] of [
    ['--collector.lustre_jobstats.jobid-format=%j:%q', /jobid-format.*unknown jobid_name code "%q"/],
    ['--collector.lustre_jobstats.max-jobs=0', /max-jobs.*not a positive integer/],
    ['--collector.lustre_jobstats.expiry=soon', /expiry.*invalid duration/],
  ] as const) {
    const result = await runJobio(['exporter', '--web.listen-address=127.0.0.1:0', flag]);
    assert.equal(result.code, 2, flag);
    assert.match(result.stderr, message);
  }
});
