// The built exporter's lustre_client collector on the real llite captures: one golden exposition per
// layout (procfs 2.10, debugfs 2.14, `lctl get_param` 2.14 taken when the mount table names a Lustre
// mount but no llite file is visible), each linted by promtool. Regenerate with
// JOBIO_UPDATE_GOLDEN=1 and review the diff.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startExporter, scrape, repoRoot } from '../helpers/exporter.js';
import { assertGolden, normaliseExposition } from '../helpers/golden.js';
import { promtoolCheckMetrics } from '../helpers/promtool.js';

const fixtures = join(repoRoot, 'test/fixtures/lustre');

interface GoldenCase {
  readonly name: string;
  readonly tree: string;
  readonly lctlFile?: string;
  /** Exact samples the case must show (beyond the golden file: the figures a reader checks by hand). */
  readonly expect: readonly string[];
}

const cases: readonly GoldenCase[] = [
  {
    name: 'hp-2.10.1-procfs',
    tree: 'client-hp-2.10.1',
    expect: [
      'jobio_lustre_client_write_bytes_total{fs="lustrefs",mount="/lustre",jobid="4242"} 93813797294080',
      'jobio_lustre_client_read_bytes_total{fs="lustrefs",mount="/lustre",jobid="4242"} 4194304',
      'jobio_lustre_client_operations_total{fs="lustrefs",mount="/lustre",jobid="4242",operation="write"} 89467810',
      'jobio_lustre_client_operations_total{fs="lustrefs",mount="/lustre",jobid="4242",operation="inode_permission"} 398',
      'jobio_lustre_client_mount_info{fs="lustrefs",mount="/lustre",llite="lustrefs-ffff88105db50000"} 1',
    ],
  },
  {
    name: 'whamcloud-2.14-debugfs',
    tree: 'client-2.14-debugfs',
    expect: [
      'jobio_lustre_client_operations_total{fs="ai400x2",mount="/mnt/ai400x2",jobid="_none",operation="open"} 35955554',
      'jobio_lustre_client_operation_seconds_total{fs="ai400x2",mount="/mnt/ai400x2",jobid="_none",operation="open"} 3393.651645',
      'jobio_lustre_client_read_bytes_total{fs="ai400x2",mount="/mnt/ai400x2",jobid="_none"} 0',
    ],
  },
  {
    name: 'whamcloud-2.14-lctl-fallback-shared',
    tree: 'client-2.14-lctl',
    lctlFile: 'lctl/llite_client.lctl.txt',
    expect: ['jobio_lustre_client_operations_total{fs="ai400x2",mount="/mnt/ai400 x2",jobid="_shared",operation="mkdir"} 17987059'],
  },
  { name: 'no-lustre', tree: 'no-lustre', expect: [] },
];

function argsFor(c: GoldenCase): string[] {
  const tree = join(fixtures, c.tree);
  const args = ['--collector.disable-defaults', '--collector.lustre_client', `--path.procfs=${join(tree, 'proc')}`, `--path.sysfs=${join(tree, 'sys')}`];
  // No --collector.lustre_client.lctl: the lctl case must be taken by the fallback.
  if (c.lctlFile) args.push(`--collector.lustre_client.lctl-path=${join(fixtures, 'bin/fake-lctl')}`);
  return args;
}

for (const c of cases) {
  test(`lustre_client golden: ${c.name}`, async () => {
    const exporter = await startExporter(argsFor(c), { env: c.lctlFile ? { JOBIO_FAKE_LCTL_FILE: join(fixtures, c.lctlFile) } : {} });
    try {
      const text = await scrape(`${exporter.url}/metrics`);
      const lint = promtoolCheckMetrics(text);
      assert.ok(lint.ok, `promtool check metrics:\n${lint.output}`);
      if (c.name === 'no-lustre') {
        assert.doesNotMatch(text, /^jobio_lustre_client_/m, 'a host without a Lustre client exports no series');
        assert.match(text, /^jobio_scrape_collector_success\{collector="lustre_client"\} 0$/m);
        assert.doesNotMatch(exporter.log(), /"level":"(warn|error|fatal)"/, 'and logs no warning or error');
      } else {
        assert.match(text, /^jobio_scrape_collector_success\{collector="lustre_client"\} 1$/m);
      }
      const lines = new Set(text.split('\n'));
      for (const line of c.expect) assert.ok(lines.has(line), `missing: ${line}`);
      assertGolden(normaliseExposition(text), join(repoRoot, `test/golden/lustre_client/${c.name}.prom`));
    } finally {
      await exporter.stop();
    }
  });
}

test('lustre_client: a Lustre mount whose stats are visible neither as files nor through lctl fails the collector with a clear error, not the scrape', async () => {
  const tree = join(fixtures, 'client-2.14-lctl');
  const exporter = await startExporter([
    '--collector.disable-defaults',
    '--collector.lustre_client',
    '--collector.process',
    `--path.procfs=${join(tree, 'proc')}`,
    `--path.sysfs=${join(tree, 'sys')}`,
    '--collector.lustre_client.lctl-path=/nonexistent/lctl',
  ]);
  try {
    const text = await scrape(`${exporter.url}/metrics`);
    assert.match(text, /^jobio_scrape_collector_success\{collector="lustre_client"\} 0$/m);
    assert.match(text, /^jobio_scrape_collector_success\{collector="process"\} 1$/m);
    assert.match(exporter.log(), /cannot run \/nonexistent\/lctl/);
  } finally {
    await exporter.stop();
  }
});

test('lustre_client: --collector.lustre_client.lctl reads through lctl even where no mount is listed', async () => {
  const exporter = await startExporter(
    [
      '--collector.disable-defaults',
      '--collector.lustre_client',
      `--path.procfs=${join(fixtures, 'no-lustre/proc')}`,
      `--path.sysfs=${join(fixtures, 'no-lustre/sys')}`,
      '--collector.lustre_client.lctl',
      `--collector.lustre_client.lctl-path=${join(fixtures, 'bin/fake-lctl')}`,
    ],
    { env: { JOBIO_FAKE_LCTL_FILE: join(fixtures, 'lctl/llite_client.lctl.txt') } },
  );
  try {
    const text = await scrape(`${exporter.url}/metrics`);
    assert.match(text, /^jobio_lustre_client_operations_total\{fs="ai400x2",mount="_unknown",jobid="_none",operation="inode_permission"\} 629305628$/m);
  } finally {
    await exporter.stop();
  }
});

test('lustre_client: mounts beyond --collector.lustre_client.max-targets are not read and are counted', async () => {
  // The 2.10 capture mounted twice: its llite instance copied under a second file system name.
  const dir = mkdtempSync(join(tmpdir(), 'jobio-client-targets-'));
  cpSync(join(fixtures, 'client-hp-2.10.1'), dir, { recursive: true });
  const llite = join(dir, 'proc/fs/lustre/llite');
  cpSync(join(llite, 'lustrefs-ffff88105db50000'), join(llite, 'scratch-ffff88105db60000'), { recursive: true });
  appendFileSync(join(dir, 'proc/mounts'), '172.20.20.1@o2ib:/scratch /scratch lustre rw,flock,lazystatfs 0 0\n');
  const args = ['--collector.disable-defaults', '--collector.lustre_client', `--path.procfs=${join(dir, 'proc')}`, `--path.sysfs=${join(dir, 'sys')}`];
  const mountInfo = /^jobio_lustre_client_mount_info\{fs="(\w+)"/gm;
  try {
    const both = await startExporter(args);
    try {
      const text = await scrape(`${both.url}/metrics`);
      assert.deepEqual([...text.matchAll(mountInfo)].map((m) => m[1]).sort(), ['lustrefs', 'scratch']);
      assert.match(text, /^jobio_lustre_client_targets_dropped 0$/m);
      assert.match(text, /^jobio_lustre_client_max_targets 256$/m);
    } finally {
      await both.stop();
    }
    const one = await startExporter([...args, '--collector.lustre_client.max-targets=1']);
    try {
      const text = await scrape(`${one.url}/metrics`);
      assert.equal([...text.matchAll(mountInfo)].length, 1, text);
      assert.match(text, /^jobio_lustre_client_targets_dropped 1$/m);
      assert.match(text, /^jobio_lustre_client_max_targets 1$/m);
      assert.ok(promtoolCheckMetrics(text).ok);
    } finally {
      await one.stop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
