// The collector's update() on a temp tree, through prom-client: absent without Lustre, series kept on
// a failed read, the registry reset and refilled each scrape.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Registry } from 'prom-client';
import { lustreJobStatsCollector } from './lustre_jobstats.js';
import { createLogger } from '../util/logger.js';

const ENTRY = (bytes: number): string => `job_stats:\n- job_id:          9:5000:n1\n  write_bytes:     { samples:           1, unit: bytes, min: 1, max: 1, sum: ${bytes} }\n`;

function setup(): { root: string; registry: Registry; update: () => Promise<string> } {
  const root = mkdtempSync(join(tmpdir(), 'jobio-lustre-collector-'));
  const registry = new Registry();
  const c = lustreJobStatsCollector.create({
    registry,
    paths: { procfs: join(root, 'proc'), sysfs: join(root, 'sys'), rootfs: root },
    options: { getent: false },
    logger: createLogger('error', 'json'),
  });
  return { root, registry, update: () => c.update(new AbortController().signal) };
}

test('lustre_jobstats collector: absent and empty without Lustre', async () => {
  const { registry, update } = setup();
  assert.equal(await update(), 'absent');
  assert.doesNotMatch(await registry.metrics(), /^jobio_lustre_jobstats_\w+\{/m);
});

test('lustre_jobstats collector: a read error keeps the series and counts the error', async () => {
  const { root, registry, update } = setup();
  const dir = join(root, 'proc/fs/lustre/obdfilter/fs-OST0000');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'job_stats'), ENTRY(100));
  assert.equal(await update(), 'ok');
  assert.match(await registry.metrics(), /^jobio_lustre_jobstats_write_bytes_total\{target="fs-OST0000",jobid="9",user="uid:5000"\} 100$/m);
  rmSync(join(dir, 'job_stats'));
  mkdirSync(join(dir, 'job_stats')); // exists, but reading it fails
  assert.equal(await update(), 'ok');
  const text = await registry.metrics();
  assert.match(text, /^jobio_lustre_jobstats_write_bytes_total\{target="fs-OST0000",jobid="9",user="uid:5000"\} 100$/m);
  assert.match(text, /^jobio_lustre_jobstats_read_errors_total\{target="fs-OST0000"\} 1$/m);
  assert.doesNotMatch(text, /^jobio_lustre_jobstats_entries\{/m, 'no entry counts for a target not read');
  rmSync(join(dir, 'job_stats'), { recursive: true });
  writeFileSync(join(dir, 'job_stats'), ENTRY(150));
  await update();
  assert.match(await registry.metrics(), /^jobio_lustre_jobstats_write_bytes_total\{target="fs-OST0000",jobid="9",user="uid:5000"\} 150$/m);
});

test('lustre_jobstats collector: a number beyond any u64 (or double) in one target leaves every target served', async () => {
  const { root, registry, update } = setup();
  const bad = join(root, 'proc/fs/lustre/obdfilter/fs-OST0000');
  const good = join(root, 'proc/fs/lustre/obdfilter/fs-OST0001');
  mkdirSync(bad, { recursive: true });
  mkdirSync(good, { recursive: true });
  writeFileSync(join(bad, 'job_stats'), ENTRY(100));
  writeFileSync(join(good, 'job_stats'), ENTRY(5));
  assert.equal(await update(), 'ok');
  writeFileSync(join(bad, 'job_stats'), ENTRY(100).replace('sum: 100', `sum: ${'9'.repeat(400)}`));
  writeFileSync(join(good, 'job_stats'), ENTRY(7));
  assert.equal(await update(), 'ok');
  let text = await registry.metrics();
  assert.match(text, /^jobio_lustre_jobstats_write_bytes_total\{target="fs-OST0000",jobid="9",user="uid:5000"\} 100$/m);
  assert.match(text, /^jobio_lustre_jobstats_write_bytes_total\{target="fs-OST0001",jobid="9",user="uid:5000"\} 7$/m);
  assert.match(text, /^jobio_lustre_jobstats_entries\{target="fs-OST0000",quality="malformed"\} 1$/m);
  writeFileSync(join(bad, 'job_stats'), ENTRY(130));
  assert.equal(await update(), 'ok');
  text = await registry.metrics();
  assert.match(text, /^jobio_lustre_jobstats_write_bytes_total\{target="fs-OST0000",jobid="9",user="uid:5000"\} 130$/m);
});
