// The lustre_stats collector's update() on a temp tree: files that are not regular are refused without
// blocking, the other targets are served.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MetricRegistry } from '../scrape/metric-registry.js';
import { lustreStatsCollector } from './lustre_stats.js';
import { createLogger } from '../util/logger.js';
import { collectorOnRoot } from '../../../test/helpers/collector-on-root.js';

// The guard only turns a hang (the bug) into a failure instead of a stuck suite; nothing is timed.
test('lustre_stats collector: FIFOs named stats/md_stats are refused, the other targets served', { timeout: 60_000 }, async () => {
  const root = mkdtempSync(join(tmpdir(), 'jobio-lustre-stats-'));
  const registry = new MetricRegistry();
  const c = lustreStatsCollector.create({ registry, paths: { procfs: join(root, 'proc'), sysfs: join(root, 'sys'), rootfs: root }, options: {}, logger: createLogger('error', 'json') });
  for (const [kind, target, file] of [
    ['obdfilter', 'fs-OST0001', 'stats'],
    ['obdfilter', 'fs-OST0002', 'stats'],
    ['mdt', 'fs-MDT0001', 'md_stats'],
    ['mdt', 'fs-MDT0002', 'md_stats'],
  ] as const) {
    mkdirSync(join(root, 'proc/fs/lustre', kind, target), { recursive: true });
    assert.equal(spawnSync('mkfifo', [join(root, 'proc/fs/lustre', kind, target, file)]).status, 0);
  }
  const good = join(root, 'proc/fs/lustre/obdfilter/fs-OST0000');
  mkdirSync(good, { recursive: true });
  writeFileSync(join(good, 'stats'), 'snapshot_time             1510782606.789671326 secs.nsecs\nwrite_bytes               7 samples [bytes] 4096 4194304 4096000\n');
  assert.equal(await c.update(new AbortController().signal), 'ok');
  assert.equal(await c.update(new AbortController().signal), 'ok');
  assert.match(await registry.metrics(), /^jobio_lustre_target_write_bytes_total\{target="fs-OST0000"\} 4096000$/m);
});

test('lustre_stats collector: beyond max-targets the further targets are not read, and the metric says how many', async () => {
  const root = mkdtempSync(join(tmpdir(), 'jobio-lustre-stats-'));
  const { registry, collector: c } = collectorOnRoot(lustreStatsCollector, root, { 'max-targets': 1 });
  for (const name of ['fs-OST0002', 'fs-OST0000', 'fs-OST0001']) {
    mkdirSync(join(root, 'proc/fs/lustre/obdfilter', name), { recursive: true });
    writeFileSync(join(root, 'proc/fs/lustre/obdfilter', name, 'stats'), 'write_bytes               7 samples [bytes] 4096 4194304 4096000\n');
  }
  assert.equal(await c.update(new AbortController().signal), 'ok');
  const text = await registry.metrics();
  assert.match(text, /^jobio_lustre_target_targets_dropped 2$/m);
  assert.match(text, /^jobio_lustre_target_max_targets 1$/m);
  assert.deepEqual(
    [...text.matchAll(/^jobio_lustre_target_write_bytes_total\{target="([^"]+)"\}/gm)].map((m) => m[1]),
    ['fs-OST0000'],
  );
});
