// The built exporter on the Lustre stats fixtures: one golden exposition per case for the
// lustre_exports and lustre_stats collectors (regenerate with JOBIO_UPDATE_GOLDEN=1 npm test, then
// review the diff), each linted by promtool. Trees are read as pseudo-files; `.lctl.txt` dumps go
// through the fake lctl.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { startExporter, scrape, repoRoot } from '../helpers/exporter.js';
import { assertGolden, normaliseExposition } from '../helpers/golden.js';
import { promtoolCheckMetrics } from '../helpers/promtool.js';

const fixtures = join(repoRoot, 'test/fixtures/lustre');

interface GoldenCase {
  readonly collector: 'lustre_exports' | 'lustre_stats';
  readonly name: string;
  readonly tree?: string;
  readonly lctlFile?: string;
  readonly flags?: readonly string[];
}

const cases: readonly GoldenCase[] = [
  { collector: 'lustre_exports', name: 'hp-2.10.1', tree: 'stats-hp-2.10.1' },
  { collector: 'lustre_exports', name: 'mixed-layouts', tree: 'stats-mixed-layouts' },
  { collector: 'lustre_exports', name: 'whamcloud-2.14.0_ddn133-lctl', lctlFile: 'lctl/2.14.0_ddn133_exports.lctl.txt' },
  {
    collector: 'lustre_exports',
    name: 'ziyht-2.12.5-674-clients-max-clients-20-lctl',
    lctlFile: 'lctl/ziyht-2.12.5-mdt.exports.all.stats.lctl.txt',
    flags: ['--collector.lustre_exports.max-clients=20'],
  },
  { collector: 'lustre_exports', name: 'no-lustre', tree: 'no-lustre' },
  { collector: 'lustre_stats', name: 'hp-2.10.1', tree: 'stats-hp-2.10.1' },
  { collector: 'lustre_stats', name: 'mixed-layouts', tree: 'stats-mixed-layouts' },
  { collector: 'lustre_stats', name: 'telegraf-2.12-mdt', tree: 'stats-telegraf-2.12-mdt' },
  { collector: 'lustre_stats', name: 'whamcloud-2.14.0_ddn133-lctl', lctlFile: 'lctl/2.14.0_ddn133_exports.lctl.txt' },
  { collector: 'lustre_stats', name: 'whamcloud-2.14.0_ddn145-lctl', lctlFile: 'lctl/2.14.0_ddn145_stats.lctl.txt' },
  { collector: 'lustre_stats', name: 'no-lustre', tree: 'no-lustre' },
];

function argsFor(c: GoldenCase): string[] {
  const tree = join(fixtures, c.tree ?? 'no-lustre');
  const args = ['--collector.disable-defaults', `--collector.${c.collector}`, `--path.procfs=${join(tree, 'proc')}`, `--path.sysfs=${join(tree, 'sys')}`];
  if (c.lctlFile) args.push(`--collector.${c.collector}.lctl`, `--collector.${c.collector}.lctl-path=${join(fixtures, 'bin/fake-lctl')}`);
  return [...args, ...(c.flags ?? [])];
}

for (const c of cases) {
  test(`${c.collector} golden: ${c.name}`, async () => {
    const exporter = await startExporter(argsFor(c), { env: c.lctlFile ? { JOBIO_FAKE_LCTL_FILE: join(fixtures, c.lctlFile) } : {} });
    try {
      const text = await scrape(`${exporter.url}/metrics`);
      const lint = promtoolCheckMetrics(text);
      assert.ok(lint.ok, `promtool check metrics:\n${lint.output}`);
      const prefix = c.collector === 'lustre_exports' ? 'jobio_lustre_export_' : 'jobio_lustre_target_';
      if (c.name === 'no-lustre') {
        assert.doesNotMatch(text, new RegExp(`^${prefix}`, 'm'), 'a host without Lustre exports no series');
        assert.doesNotMatch(exporter.log(), /"level":"(warn|error)"/, 'and logs no warning or error');
      } else {
        assert.match(text, new RegExp(`^jobio_scrape_collector_success\\{collector="${c.collector}"\\} 1$`, 'm'));
        assert.match(text, new RegExp(`^${prefix}`, 'm'));
      }
      assertGolden(normaliseExposition(text), join(repoRoot, `test/golden/${c.collector}/${c.name}.prom`));
    } finally {
      await exporter.stop();
    }
  });
}

test('lustre_exports is off by default, lustre_stats on', async () => {
  const exporter = await startExporter([`--path.procfs=${join(fixtures, 'stats-hp-2.10.1/proc')}`, `--path.sysfs=${join(fixtures, 'no-lustre/sys')}`]);
  try {
    const text = await scrape(`${exporter.url}/metrics`);
    assert.doesNotMatch(text, /^jobio_lustre_export_/m);
    assert.match(text, /^jobio_lustre_target_write_bytes_total\{target="lustrefs-OST0000"\} 16552048697344$/m);
  } finally {
    await exporter.stop();
  }
});

test('lustre_exports: a bad max-clients is refused at start with the flag named', async () => {
  const { runJobio } = await import('../helpers/exporter.js');
  const result = await runJobio(['exporter', '--web.listen-address=127.0.0.1:0', '--collector.lustre_exports.max-clients=0']);
  assert.equal(result.code, 2);
  assert.match(result.stderr, /max-clients.*not a positive integer/);
});

test('lustre_stats: a hanging lctl fails the collector by its deadline, not the scrape', async () => {
  const args = [...argsFor({ collector: 'lustre_stats', name: 'hang', lctlFile: 'x' }), '--collector.lustre_stats.lctl-timeout=300ms'];
  const exporter = await startExporter(args, { env: { JOBIO_FAKE_LCTL_SLEEP: '5', JOBIO_FAKE_LCTL_FILE: '/dev/null' } });
  try {
    const text = await scrape(`${exporter.url}/metrics`);
    assert.match(text, /^jobio_scrape_collector_success\{collector="lustre_stats"\} 0$/m);
    assert.match(exporter.log(), /did not finish within 300 ms/);
  } finally {
    await exporter.stop();
  }
});
