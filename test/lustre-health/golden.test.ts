// The built exporter's lustre_health collector on every capture that holds capacity or health_check
// files (the `lctl get_param` dumps, through the fake lctl) and on pseudo-file trees (one split from a
// capture, plus recovery_status, and one of malformed values): a golden exposition per case, linted by
// promtool, and every value checked against an independent reading of the fixture written here.
// Regenerate the goldens with JOBIO_UPDATE_GOLDEN=1, then review the diff.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { startExporter, scrape, repoRoot } from '../helpers/exporter.js';
import { assertGolden, normaliseExposition } from '../helpers/golden.js';
import { promtoolCheckMetrics } from '../helpers/promtool.js';
import { parseExposition, sample } from '../profiler/exposition.js';

const fixtures = join(repoRoot, 'test/fixtures/lustre');

const METRIC_OF: Readonly<Record<string, [string, number]>> = {
  kbytestotal: ['jobio_lustre_target_size_bytes', 1024],
  kbytesfree: ['jobio_lustre_target_free_bytes', 1024],
  kbytesavail: ['jobio_lustre_target_avail_bytes', 1024],
  filestotal: ['jobio_lustre_target_files', 1],
  filesfree: ['jobio_lustre_target_files_free', 1],
};

/** What the fixture says, read without the exporter's parsers: `target file value` triples and the health text. */
interface Expected {
  readonly capacity: { target: string; file: string; value: number }[];
  readonly health: string | undefined;
}

function expectedFromDump(path: string): Expected {
  const text = readFileSync(path, 'latin1');
  const capacity = [...text.matchAll(/^osd-\w+\.([\w-]+)\.(kbytestotal|kbytesfree|kbytesavail|filestotal|filesfree)=(\d+)$/gm)].map((m) => ({ target: m[1]!, file: m[2]!, value: Number(m[3]) }));
  return { capacity, health: /^health_check=(.*)$/m.exec(text)?.[1] };
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => (statSync(join(dir, name)).isDirectory() ? filesUnder(join(dir, name)) : [join(dir, name)]));
}

function expectedFromTree(tree: string): Expected {
  const capacity: Expected['capacity'] = [];
  let health: string | undefined;
  for (const path of filesUnder(tree)) {
    const parts = relative(tree, path).split('/');
    const content = readFileSync(path, 'latin1').trim();
    if (parts.at(-1) === 'health_check') health = content;
    const osd = parts.at(-3);
    if (osd?.startsWith('osd-') && /^\d+$/.test(content)) capacity.push({ target: parts.at(-2)!, file: parts.at(-1)!, value: Number(content) });
  }
  return { capacity, health };
}

interface Case {
  readonly name: string;
  readonly tree?: string;
  readonly lctlFile?: string;
}

const cases: readonly Case[] = [
  { name: 'whamcloud-2.14.0_ddn133-lctl', lctlFile: 'lctl/2.14.0_ddn133_exports.lctl.txt' },
  { name: 'whamcloud-2.14.0_ddn145-lctl', lctlFile: 'lctl/2.14.0_ddn145_stats.lctl.txt' },
  { name: 'whamcloud-es6.2.0-r9-lctl', lctlFile: 'lctl/params-6.2.0-r9.lctl.txt' },
  { name: 'whamcloud-2.14-client-lctl', lctlFile: 'lctl/llite_client.lctl.txt' },
  { name: 'es6.2.0-tree-recovery', tree: 'health-es6.2.0' },
  { name: 'malformed', tree: 'health-malformed' },
  { name: 'no-lustre', tree: 'no-lustre' },
];

function argsFor(c: Case): string[] {
  const tree = join(fixtures, c.tree ?? 'no-lustre');
  const args = ['--collector.disable-defaults', '--collector.lustre_health', `--path.procfs=${join(tree, 'proc')}`, `--path.sysfs=${join(tree, 'sys')}`];
  if (c.lctlFile) args.push('--collector.lustre_health.lctl', `--collector.lustre_health.lctl-path=${join(fixtures, 'bin/fake-lctl')}`);
  return args;
}

async function scrapeCase(c: Case): Promise<{ text: string; log: string }> {
  const exporter = await startExporter(argsFor(c), { env: c.lctlFile ? { JOBIO_FAKE_LCTL_FILE: join(fixtures, c.lctlFile) } : {} });
  try {
    return { text: await scrape(`${exporter.url}/metrics`), log: exporter.log() };
  } finally {
    await exporter.stop();
  }
}

for (const c of cases) {
  test(`lustre_health golden: ${c.name}`, async () => {
    const { text, log } = await scrapeCase(c);
    const lint = promtoolCheckMetrics(text);
    assert.ok(lint.ok, `promtool check metrics:\n${lint.output}`);
    assertGolden(normaliseExposition(text), join(repoRoot, `test/golden/lustre_health/${c.name}.prom`));
    if (c.name === 'no-lustre') {
      assert.doesNotMatch(text, /^jobio_lustre_(target|health)_/m, 'a host without Lustre exports no series');
      assert.doesNotMatch(log, /"level":"(warn|error)"/, 'and logs no warning or error');
      return;
    }
    assert.match(text, /^jobio_scrape_collector_success\{collector="lustre_health"\} 1$/m);
    const samples = parseExposition(text);
    const expected = c.lctlFile ? expectedFromDump(join(fixtures, c.lctlFile)) : expectedFromTree(join(fixtures, c.tree!));
    const exported = samples.filter((s) => Object.values(METRIC_OF).some(([name]) => name === s.name));
    assert.equal(exported.length, expected.capacity.length, 'one series per capacity value of the fixture');
    for (const { target, file, value } of expected.capacity) {
      const [name, scale] = METRIC_OF[file]!;
      const fs = /^(.+)-(OST|MDT)[0-9a-f]{4}$/i.exec(target)?.[1] ?? '';
      assert.equal(sample(samples, name, { fs, target }), value * scale, `${name}{target="${target}"}`);
    }
    const healthy = sample(samples, 'jobio_lustre_health_check_healthy', {});
    assert.equal(healthy, expected.health === 'healthy' ? 1 : expected.health === 'NOT HEALTHY' ? 0 : undefined);
  });
}

test('lustre_health: the capture values, by hand', async () => {
  // Spot checks written from reading the captures, so the independent reader above is checked too.
  const es = parseExposition((await scrapeCase(cases[2]!)).text);
  assert.equal(sample(es, 'jobio_lustre_target_size_bytes', { fs: 'fs', target: 'fs-OST0000' }), 4108388 * 1024);
  assert.equal(sample(es, 'jobio_lustre_target_files_free', { fs: 'fs', target: 'fs-MDT0000' }), 1885250);
  assert.equal(sample(es, 'jobio_lustre_target_avail_bytes', { fs: '', target: 'MGS' }), 463060 * 1024);
  assert.equal(sample(es, 'jobio_lustre_health_check_healthy', {}), 0, 'es6.2.0 says NOT HEALTHY');
  const ddn = parseExposition((await scrapeCase(cases[0]!)).text);
  assert.equal(sample(ddn, 'jobio_lustre_target_size_bytes', { fs: 'ai400x2', target: 'ai400x2-OST0001' }), 35016088872 * 1024);
  assert.equal(sample(ddn, 'jobio_lustre_health_check_healthy', {}), 1);
});

test('lustre_health: recovery_status of each state, and malformed values counted, never exported', async () => {
  const tree = parseExposition((await scrapeCase(cases[4]!)).text);
  const status = (target: string, s: string) => sample(tree, 'jobio_lustre_target_recovery_status', { fs: 'fs', target, status: s });
  assert.deepEqual([status('fs-MDT0000', 'COMPLETE'), status('fs-MDT0000', 'RECOVERING'), status('fs-OST0000', 'RECOVERING'), status('fs-OST0001', 'WAITING_FOR_CLIENTS')], [1, 0, 1, 1]);
  const labels = { fs: 'fs', target: 'fs-OST0000' };
  assert.equal(sample(tree, 'jobio_lustre_target_recovery_time_remaining_seconds', labels), 214);
  assert.equal(sample(tree, 'jobio_lustre_target_recovery_completed_clients', labels), 4);
  assert.equal(sample(tree, 'jobio_lustre_target_recovery_clients', labels), 8);
  assert.equal(sample(tree, 'jobio_lustre_target_recovery_clients', { fs: 'fs', target: 'fs-MDT0000' }), 8);
  assert.equal(sample(tree, 'jobio_lustre_health_errors_total', { reason: 'parse' }), 0);

  const bad = parseExposition((await scrapeCase(cases[5]!)).text);
  // kbytestotal "12x", an empty filesfree, health_check "maybe", status SLEEPING: 4 values skipped.
  assert.equal(sample(bad, 'jobio_lustre_health_errors_total', { reason: 'parse' }), 4);
  assert.equal(sample(bad, 'jobio_lustre_target_free_bytes', { fs: 'bad', target: 'bad-OST0000' }), 104857600 * 1024);
  assert.equal(sample(bad, 'jobio_lustre_target_size_bytes', { fs: 'bad', target: 'bad-OST0000' }), undefined);
  assert.equal(sample(bad, 'jobio_lustre_health_check_healthy', {}), undefined);
});
