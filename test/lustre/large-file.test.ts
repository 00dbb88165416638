// Memory of the lustre_jobstats collector does not follow the size of a job_stats file: a 96 MB file of
// zeros without a newline (sparse, one "line") and a ~48 MB file of real entries cost, in peak RSS of
// the collector's own process, what 1 MB files cost. Each case runs in a child (its own peak RSS).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync, truncateSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from '../helpers/exporter.js';

const MB = 1024 * 1024;
const OPS = ['open', 'close', 'getattr', 'setattr', 'punch', 'sync', 'statfs', 'create', 'destroy', 'quotactl'];

/** Writes job_stats entries to `path` until it holds about `bytes` bytes; returns the number of entries. */
function writeEntries(path: string, bytes: number): number {
  const fd = openSync(path, 'w');
  let written = writeSync(fd, 'job_stats:\n');
  let n = 0;
  while (written < bytes) {
    let text = '';
    for (let k = 0; k < 1000; k += 1, n += 1) {
      text += `- job_id:          ${n}:5000:node${n % 97}\n  snapshot_time:   1510782606\n  write_bytes:     { samples:           3, unit: bytes, min:    4096, max: 4194304, sum:        ${n + 1} }\n`;
      for (const op of OPS) text += `  ${op.padEnd(16)} { samples:           ${(n % 7) + 1}, unit:  reqs }\n`;
    }
    written += writeSync(fd, text);
  }
  closeSync(fd);
  return n;
}

interface ChildResult {
  readonly outcomes: string[];
  readonly maxRssKb: number;
  readonly metrics: string;
}

function tree(zerosBytes: number, entriesBytes: number): { dir: string; entries: number } {
  const dir = mkdtempSync(join(tmpdir(), 'jobio-lustre-large-'));
  const zeros = join(dir, 'proc/fs/lustre/obdfilter/fs-OST0000');
  const real = join(dir, 'proc/fs/lustre/obdfilter/fs-OST0001');
  mkdirSync(zeros, { recursive: true });
  mkdirSync(real, { recursive: true });
  closeSync(openSync(join(zeros, 'job_stats'), 'w'));
  truncateSync(join(zeros, 'job_stats'), zerosBytes); // sparse: no disk used
  return { dir, entries: writeEntries(join(real, 'job_stats'), entriesBytes) };
}

function run(dir: string): ChildResult {
  const child = spawnSync(process.execPath, [join(repoRoot, 'test/lustre/rss-child.mjs'), dir, '1000'], { encoding: 'utf8', maxBuffer: 64 * MB });
  assert.equal(child.status, 0, child.stderr);
  return JSON.parse(child.stdout) as ChildResult;
}

const value = (text: string, series: string): number => Number(new RegExp(`^${series.replace(/[{}]/g, '\\$&')} (\\S+)$`, 'm').exec(text)?.[1]);

test('lustre_jobstats: peak memory does not grow with the size of job_stats files (96 MB of zeros, ~48 MB of entries)', () => {
  const small = tree(1 * MB, 1 * MB);
  const large = tree(96 * MB, 48 * MB);
  try {
    const s = run(small.dir);
    const l = run(large.dir);
    for (const [r, t] of [
      [s, small],
      [l, large],
    ] as const) {
      assert.deepEqual(r.outcomes, ['ok', 'ok']);
      // The file of zeros is one line without a newline: one malformed line per read, nothing else.
      assert.equal(value(r.metrics, 'jobio_lustre_jobstats_parse_errors_total{target="fs-OST0000",reason="malformed_line"}'), 2);
      assert.equal(value(r.metrics, 'jobio_lustre_jobstats_entries{target="fs-OST0001",quality="correct",uid_class="non_system"}'), 1000, 'max-entries 1000');
      assert.equal(value(r.metrics, 'jobio_lustre_jobstats_dropped_entries_total{target="fs-OST0001"}'), 2 * (t.entries - 1000));
      assert.equal(value(r.metrics, 'jobio_lustre_jobstats_truncated_reads_total{target="fs-OST0001",reason="max_file_bytes"}'), 0);
    }
    const growthMb = (l.maxRssKb - s.maxRssKb) / 1024;
    console.log(`peak RSS: ${(s.maxRssKb / 1024).toFixed(0)} MB with 1 MB files (${small.entries} entries), ${(l.maxRssKb / 1024).toFixed(0)} MB with 96 + 48 MB files (${large.entries} entries)`);
    assert.ok(growthMb < 32, `peak RSS grew by ${growthMb.toFixed(0)} MB for 143 MB more of files`);
  } finally {
    rmSync(small.dir, { recursive: true, force: true });
    rmSync(large.dir, { recursive: true, force: true });
  }
});
