// Malformed Lustre trees written by the test (a hostile local user or a bad capture): FIFOs and
// directories where a pseudo-file is expected, and a job_stats entry with a value beyond u64. Every
// collector refuses them without blocking, counts each in its error counter with a reason, says so in
// a log line, and serves the good files exactly.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pino } from 'pino';
import { MetricRegistry } from '../../exporter/src/scrape/metric-registry.js';
import type { CollectorDescriptor } from '../../exporter/src/scrape/collector.js';
import { lustreJobStatsCollector } from '../../exporter/src/collectors/lustre_jobstats.js';
import { lustreStatsCollector } from '../../exporter/src/collectors/lustre_stats.js';
import { lustreExportsCollector } from '../../exporter/src/collectors/lustre_exports.js';
import { lustreClientCollector } from '../../exporter/src/collectors/lustre_client.js';

const LUSTRE = 'proc/fs/lustre';
const STATS = (bytes: number): string => `snapshot_time 1700000000.000000001 secs.nsecs\nwrite_bytes 1 samples [bytes] ${bytes} ${bytes} ${bytes}\n`;
const ENTRY = (id: string, sum: string): string => `- job_id:          ${id}\n  write_bytes:     { samples:           1, unit: bytes, min: 1, max: 1, sum: ${sum} }\n`;

function fifo(root: string, path: string): void {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  assert.equal(spawnSync('mkfifo', [join(root, path)]).status, 0);
}

function file(root: string, path: string, text: string): void {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), text);
}

/** The tree: one good file per collector beside FIFOs, a directory and an out-of-range entry. */
function malformedTree(): string {
  const root = mkdtempSync(join(tmpdir(), 'jobio-malformed-'));
  file(root, 'proc/mounts', 'mgs@tcp:/scratch /scratch lustre rw 0 0\nmgs@tcp:/work /work lustre rw 0 0\n');
  // job_stats: fs-OST0000 good, fs-OST0001 a FIFO, fs-OST0002 a directory, fs-OST0003 a good entry,
  // an out-of-range one (sum of 2^64) and a line of no shape.
  file(root, `${LUSTRE}/obdfilter/fs-OST0000/job_stats`, `job_stats:\n${ENTRY('7:5000:n1', '100')}`);
  fifo(root, `${LUSTRE}/obdfilter/fs-OST0001/job_stats`);
  mkdirSync(join(root, `${LUSTRE}/obdfilter/fs-OST0002/job_stats`), { recursive: true });
  file(root, `${LUSTRE}/obdfilter/fs-OST0003/job_stats`, `job_stats:\n${ENTRY('8:5000:n1', '30')}${ENTRY('9:5000:n1', '18446744073709551616')}  what is this\n`);
  // Target stats: fs-OST0000 good, fs-OST0001 and fs-MDT0000 FIFOs.
  file(root, `${LUSTRE}/obdfilter/fs-OST0000/stats`, STATS(4096));
  fifo(root, `${LUSTRE}/obdfilter/fs-OST0001/stats`);
  fifo(root, `${LUSTRE}/mdt/fs-MDT0000/md_stats`);
  // Export stats of fs-OST0000: one good client, one FIFO.
  file(root, `${LUSTRE}/obdfilter/fs-OST0000/exports/10.0.0.1@tcp/stats`, STATS(8192));
  fifo(root, `${LUSTRE}/obdfilter/fs-OST0000/exports/10.0.0.2@tcp/stats`);
  // llite: scratch good, work a FIFO.
  file(root, `${LUSTRE}/llite/scratch-ffff88105db50000/stats`, STATS(12288));
  fifo(root, `${LUSTRE}/llite/work-ffff88105db58000/stats`);
  return root;
}

interface Run {
  readonly text: string;
  readonly logs: Record<string, unknown>[];
}

/** Two updates of one collector on the tree; its exposition and its warnings. */
async function twice(descriptor: CollectorDescriptor, root: string, options: Record<string, boolean> = {}): Promise<Run> {
  const registry = new MetricRegistry();
  const logs: Record<string, unknown>[] = [];
  const logger = pino({ level: 'warn', base: undefined }, { write: (line: string) => void logs.push(JSON.parse(line) as Record<string, unknown>) });
  const collector = descriptor.create({ registry, paths: { procfs: join(root, 'proc'), sysfs: join(root, 'sys'), rootfs: root }, options, logger });
  assert.equal(await collector.update(new AbortController().signal), 'ok');
  assert.equal(await collector.update(new AbortController().signal), 'ok', 'and again: nothing is left blocked');
  return { text: await registry.metrics(), logs };
}

function line(text: string, series: string): string | undefined {
  return text.split('\n').find((l) => l.startsWith(`${series} `));
}

function logged(logs: readonly Record<string, unknown>[], msg: RegExp, fields: Record<string, unknown>): number {
  return logs.filter((l) => msg.test(String(l.msg)) && Object.entries(fields).every(([k, v]) => l[k] === v)).length;
}

// The timeouts only turn a hang (the bug: a FIFO opened blocking) into a failure; nothing is timed.
test('lustre_jobstats on a malformed tree: FIFO, directory and out-of-range entry counted by reason and logged', { timeout: 60_000 }, async () => {
  const root = malformedTree();
  try {
    const { text, logs } = await twice(lustreJobStatsCollector, root, { getent: false });
    assert.equal(line(text, 'jobio_lustre_jobstats_write_bytes_total{target="fs-OST0000",jobid="7",user="uid:5000"}')?.split(' ')[1], '100');
    assert.equal(line(text, 'jobio_lustre_jobstats_write_bytes_total{target="fs-OST0003",jobid="8",user="uid:5000"}')?.split(' ')[1], '30');
    assert.equal(line(text, 'jobio_lustre_jobstats_read_errors_total{target="fs-OST0001",reason="not_regular_file"}')?.split(' ')[1], '2');
    assert.equal(line(text, 'jobio_lustre_jobstats_read_errors_total{target="fs-OST0002",reason="not_regular_file"}')?.split(' ')[1], '2');
    assert.equal(line(text, 'jobio_lustre_jobstats_read_errors_total{target="fs-OST0000",reason="not_regular_file"}')?.split(' ')[1], '0');
    assert.equal(line(text, 'jobio_lustre_jobstats_parse_errors_total{target="fs-OST0003",reason="value_out_of_range"}')?.split(' ')[1], '2');
    assert.equal(line(text, 'jobio_lustre_jobstats_parse_errors_total{target="fs-OST0003",reason="malformed_line"}')?.split(' ')[1], '2');
    assert.equal(line(text, 'jobio_lustre_jobstats_parse_errors_total{target="fs-OST0000",reason="value_out_of_range"}')?.split(' ')[1], '0');
    assert.equal(line(text, 'jobio_lustre_jobstats_entries{target="fs-OST0003",quality="correct",uid_class="non_system"}')?.split(' ')[1], '1', 'the good entry beside it is taken');
    assert.equal(logged(logs, /^cannot read job_stats/, { reason: 'not_regular_file', path: join(root, `${LUSTRE}/obdfilter/fs-OST0001/job_stats`) }), 2);
    assert.equal(logged(logs, /^cannot read job_stats/, { reason: 'not_regular_file', path: join(root, `${LUSTRE}/obdfilter/fs-OST0002/job_stats`) }), 2);
    assert.equal(logged(logs, /beyond u64 rejected/, { target: 'obdfilter/fs-OST0003', rejected: 1 }), 2, 'one line per scrape that rejected one');
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('lustre_stats, lustre_exports and lustre_client on a malformed tree: FIFOs counted by reason and logged, good files exact', { timeout: 60_000 }, async () => {
  const root = malformedTree();
  try {
    const stats = await twice(lustreStatsCollector, root);
    assert.equal(line(stats.text, 'jobio_lustre_target_write_bytes_total{target="fs-OST0000"}')?.split(' ')[1], '4096');
    assert.equal(line(stats.text, 'jobio_lustre_target_read_errors_total{target="fs-OST0001",reason="not_regular_file"}')?.split(' ')[1], '2');
    assert.equal(line(stats.text, 'jobio_lustre_target_read_errors_total{target="fs-MDT0000",reason="not_regular_file"}')?.split(' ')[1], '2');
    assert.equal(line(stats.text, 'jobio_lustre_target_read_errors_total{target="fs-OST0000",reason="not_regular_file"}')?.split(' ')[1], '0');
    assert.equal(logged(stats.logs, /^cannot read Lustre stats file/, { reason: 'not_regular_file', path: join(root, `${LUSTRE}/mdt/fs-MDT0000/md_stats`) }), 2);

    const exports = await twice(lustreExportsCollector, root);
    assert.equal(line(exports.text, 'jobio_lustre_export_write_bytes_total{target="fs-OST0000",client="10.0.0.1@tcp"}')?.split(' ')[1], '8192');
    assert.equal(line(exports.text, 'jobio_lustre_export_read_errors_total{target="fs-OST0000",reason="not_regular_file"}')?.split(' ')[1], '2');
    assert.equal(logged(exports.logs, /^cannot read Lustre stats file/, { reason: 'not_regular_file', path: join(root, `${LUSTRE}/obdfilter/fs-OST0000/exports/10.0.0.2@tcp/stats`) }), 2);

    const client = await twice(lustreClientCollector, root);
    assert.equal(line(client.text, 'jobio_lustre_client_write_bytes_total{fs="scratch",mount="/scratch",jobid="_none"}')?.split(' ')[1], '12288');
    assert.equal(line(client.text, 'jobio_lustre_client_read_errors_total{fs="work",mount="/work",reason="not_regular_file"}')?.split(' ')[1], '2');
    assert.equal(line(client.text, 'jobio_lustre_client_read_errors_total{fs="scratch",mount="/scratch",reason="not_regular_file"}')?.split(' ')[1], '0');
    assert.equal(logged(client.logs, /^cannot read Lustre stats file/, { reason: 'not_regular_file', path: join(root, `${LUSTRE}/llite/work-ffff88105db58000/stats`) }), 2);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
