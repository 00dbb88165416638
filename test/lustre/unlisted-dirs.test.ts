// Lustre directories that exist but cannot be listed (EACCES) are counted errors, not absence: a
// target's directory fails that target's read (its series are kept, jobstats counts a read error), a
// directory above the targets keeps every target it hid, and nothing is counted twice when they are
// readable again. Root lists any directory, so the scenario runs as an unprivileged user who owns the
// tree (it becomes nobody, when the tests run as root).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, mkdtempSync, readdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from '../helpers/exporter.js';

const NOBODY = 65534;

function chownTree(path: string, uid: number): void {
  chownSync(path, uid, uid);
  if (statSync(path).isDirectory()) for (const name of readdirSync(path)) chownTree(join(path, name), uid);
}

function line(text: string, pattern: RegExp): string | undefined {
  return text.split('\n').find((l) => pattern.test(l));
}

test('lustre: an unlistable target directory, then the obdfilter/ directory, are counted and lose nothing', () => {
  const root = mkdtempSync(join(tmpdir(), 'jobio-lustre-eacces-'));
  chmodSync(root, 0o755);
  const asRoot = process.getuid?.() === 0;
  if (asRoot) chownTree(root, NOBODY);
  const run = spawnSync(process.execPath, ['--import', 'tsx', join(repoRoot, 'test/lustre/unlisted-dirs-scenario.ts'), root, ...(asRoot ? [String(NOBODY)] : [])], { cwd: repoRoot, encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
  const scrapes = JSON.parse(run.stdout) as { outcomes: string[]; text: string }[];
  const value = (i: number, pattern: RegExp): string | undefined =>
    line(scrapes[i]?.text ?? '', pattern)
      ?.split(' ')
      .at(-1);
  const jobBytes = (i: number, target: string): string | undefined => value(i, new RegExp(`^jobio_lustre_jobstats_write_bytes_total\\{target="${target}",jobid="9",user="uid:5000"\\}`));
  const clientBytes = (i: number): string | undefined => value(i, /^jobio_lustre_export_write_bytes_total\{target="fs-OST0000",client="10.0.0.1@tcp"\}/);

  assert.deepEqual(
    scrapes.map((s) => s.outcomes),
    [
      ['ok', 'ok'],
      ['ok', 'ok'],
      ['ok', 'ok'],
      ['ok', 'ok'],
    ],
  );
  assert.deepEqual([jobBytes(0, 'fs-OST0000'), jobBytes(0, 'fs-OST0001'), clientBytes(0)], ['100', '7', '4096']);
  assert.equal(value(0, /^jobio_lustre_jobstats_unreadable_dirs_total /), '0');

  // fs-OST0001's directory cannot be listed: its read failed and is counted; its series is kept.
  // jobstats does not list a directory whose job_stats it read last scrape: the open is what failed.
  assert.deepEqual([jobBytes(1, 'fs-OST0000'), jobBytes(1, 'fs-OST0001')], ['100', '7']);
  assert.equal(value(1, /^jobio_lustre_jobstats_read_errors_total\{target="fs-OST0001",reason="unreadable"\} /), '1');
  assert.equal(value(1, /^jobio_lustre_jobstats_unreadable_dirs_total /), '0');
  assert.equal(value(1, /^jobio_lustre_export_unreadable_dirs_total /), '1');

  // obdfilter/ itself cannot be listed: counted, and every target it hides keeps its series.
  assert.deepEqual([jobBytes(2, 'fs-OST0000'), jobBytes(2, 'fs-OST0001'), clientBytes(2)], ['100', '7', '4096']);
  assert.equal(value(2, /^jobio_lustre_jobstats_unreadable_dirs_total /), '1');
  assert.equal(value(2, /^jobio_lustre_export_unreadable_dirs_total /), '2');

  // Readable again: the counters go on from the values kept, nothing counted twice.
  assert.deepEqual([jobBytes(3, 'fs-OST0000'), jobBytes(3, 'fs-OST0001'), clientBytes(3)], ['150', '7', '8192']);
  assert.equal(value(3, /^jobio_lustre_jobstats_read_errors_total\{target="fs-OST0001",reason="unreadable"\} /), '1');
});
