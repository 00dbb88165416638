// Discovery of job_stats across the layouts Lustre versions use, one read per target.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findJobStatsFiles, readJobStatsFile } from './jobstats-files.js';
import type { TargetProbe, TargetReader } from './jobstats-accumulator.js';

function tree(): string {
  const root = mkdtempSync(join(tmpdir(), 'jobio-lustre-files-'));
  const put = (path: string, text: string): void => {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), text);
  };
  put('proc/fs/lustre/mdt/fs-MDT0000/job_stats', 'from proc');
  put('sys/fs/lustre/mdt/fs-MDT0000/job_stats', 'duplicate in sys');
  put('sys/fs/lustre/obdfilter/fs-OST0001/job_stats', '');
  put('sys/kernel/debug/lustre/obdfilter/fs-OST0002/job_stats', 'from debugfs');
  put('proc/fs/lustre/obdfilter/fs-OST0003/stats', 'a target without job_stats');
  mkdirSync(join(root, 'proc/fs/lustre/obdfilter/fs-OST0004/job_stats'), { recursive: true }); // unreadable as a file
  return root;
}

test('findJobStatsFiles: every layout, first root wins, targets without job_stats skipped', async () => {
  const root = tree();
  const { files, unlisted } = await findJobStatsFiles({ procfs: join(root, 'proc'), sysfs: join(root, 'sys'), rootfs: root });
  assert.deepEqual(unlisted, []);
  assert.deepEqual(
    files.map((f) => [f.ref.kind, f.ref.name, f.path.slice(root.length)]),
    [
      ['mdt', 'fs-MDT0000', '/proc/fs/lustre/mdt/fs-MDT0000/job_stats'],
      ['obdfilter', 'fs-OST0004', '/proc/fs/lustre/obdfilter/fs-OST0004/job_stats'],
      ['obdfilter', 'fs-OST0001', '/sys/fs/lustre/obdfilter/fs-OST0001/job_stats'],
      ['obdfilter', 'fs-OST0002', '/sys/kernel/debug/lustre/obdfilter/fs-OST0002/job_stats'],
    ],
  );
  const reads = [];
  for (const file of files) {
    let text = '';
    let ended = 'unused';
    const reader: TargetReader = { push: (c) => void (text += c.toString()), end: (cut) => void (ended = cut ? 'cut' : 'end'), fail: () => void (ended = 'fail') };
    const outcome = await readJobStatsFile(file, reader, 1 << 20);
    reads.push('error' in outcome ? [file.ref.name, 'error', ended] : [file.ref.name, text, ended]);
  }
  assert.deepEqual(reads, [
    ['fs-MDT0000', 'from proc', 'end'],
    ['fs-OST0004', 'error', 'fail'],
    ['fs-OST0001', '', 'end'],
    ['fs-OST0002', 'from debugfs', 'end'],
  ]);
});

test('findJobStatsFiles: no Lustre at all is an empty list, not an error', async () => {
  const root = mkdtempSync(join(tmpdir(), 'jobio-lustre-none-'));
  assert.deepEqual(await findJobStatsFiles({ procfs: join(root, 'proc'), sysfs: join(root, 'sys'), rootfs: root }), { files: [], unlisted: [] });
});

test('findJobStatsFiles: a directory that exists but cannot be listed is reported, with its target when it is a target', async () => {
  const root = mkdtempSync(join(tmpdir(), 'jobio-lustre-unlisted-'));
  mkdirSync(join(root, 'proc/fs/lustre/obdfilter/fs-OST0000'), { recursive: true });
  writeFileSync(join(root, 'proc/fs/lustre/obdfilter/fs-OST0000/job_stats'), '');
  // A symlink to itself cannot be listed even by root (ELOOP), as a directory without permission
  // cannot be by anyone else (test/lustre/unlisted-dirs.test.ts runs that case unprivileged).
  symlinkSync('fs-OST0001', join(root, 'proc/fs/lustre/obdfilter/fs-OST0001'));
  symlinkSync('mdt', join(root, 'proc/fs/lustre/mdt'));
  mkdirSync(join(root, 'sys/fs/lustre'), { recursive: true });
  writeFileSync(join(root, 'sys/fs/lustre/obdfilter'), 'a file where a directory should be: absent, not an error');
  const { files, unlisted } = await findJobStatsFiles({ procfs: join(root, 'proc'), sysfs: join(root, 'sys'), rootfs: root });
  assert.deepEqual(
    files.map((f) => f.ref.name),
    ['fs-OST0000'],
  );
  assert.deepEqual(
    unlisted.map((u) => [u.dir.slice(root.length), u.target?.target, (u.error as NodeJS.ErrnoException).code]),
    [
      ['/proc/fs/lustre/mdt', undefined, 'ELOOP'],
      ['/proc/fs/lustre/obdfilter/fs-OST0001', 'fs-OST0001', 'ELOOP'],
    ],
  );
});

test('findJobStatsFiles: a known target directory is taken as known, not listed; one no longer under its kind is dropped', async () => {
  const root = tree();
  const paths = { procfs: join(root, 'proc'), sysfs: join(root, 'sys'), rootfs: root };
  const dir = (path: string): string => join(root, path);
  // fs-OST0003 has no job_stats: a listing would skip it, so finding it proves it was not listed.
  const unlistedKnown = { ref: { kind: 'obdfilter', name: 'fs-OST0003' }, path: dir('proc/fs/lustre/obdfilter/fs-OST0003/job_stats') };
  const vanished = { ref: { kind: 'obdfilter', name: 'fs-OST0009' }, path: dir('proc/fs/lustre/obdfilter/fs-OST0009/job_stats') };
  const known = new Map([
    [dir('proc/fs/lustre/obdfilter/fs-OST0003'), unlistedKnown],
    [dir('proc/fs/lustre/obdfilter/fs-OST0009'), vanished],
  ]);
  const { files, unlisted } = await findJobStatsFiles(paths, known);
  assert.deepEqual(unlisted, []);
  assert.equal(
    files.find((f) => f.ref.name === 'fs-OST0003'),
    unlistedKnown,
  );
  assert.deepEqual(
    files.map((f) => f.ref.name),
    ['fs-MDT0000', 'fs-OST0003', 'fs-OST0004', 'fs-OST0001', 'fs-OST0002'],
  );
  // Its read tells the caller the file is not there: absent, as the listing would have said.
  const reader: TargetReader = { push: () => assert.fail('nothing to read'), end: () => assert.fail('not ended'), fail: () => assert.fail('not an error') };
  assert.deepEqual(await readJobStatsFile(unlistedKnown, reader, 1 << 20), { gone: true });
});

test('readJobStatsFile: a read made whole is the first pass (its chunks, its deadline); a probe that differs after its first chunk reads the file again', async () => {
  const root = mkdtempSync(join(tmpdir(), 'jobio-lustre-whole-'));
  const path = join(root, 'job_stats');
  writeFileSync(path, 'on disk');
  const file = { ref: { kind: 'obdfilter', name: 'fs-OST0000' }, path };
  const chunks = [Buffer.from('read '), Buffer.from('whole')];
  const noClock = (): boolean => assert.fail('the whole read took its own time');
  const run = async (late: boolean, probe?: TargetProbe, expired = noClock): Promise<[unknown, string, string]> => {
    let text = '';
    let ended = 'unused';
    const reader: TargetReader = { push: (c) => void (text += c.toString()), end: (cut) => void (ended = cut ?? 'end'), fail: () => void (ended = 'fail'), probe };
    const outcome = await readJobStatsFile(file, reader, 1 << 20, undefined, undefined, expired, { chunks, late });
    return [outcome, text, ended];
  };
  // The file on disk is not read: the chunks made whole are what the reader gets.
  assert.deepEqual(await run(false), [{ bytes: 10, cut: undefined }, 'read whole', 'end']);
  // Its time was up after the last chunk: cut, as a stream whose deadline passed there.
  assert.deepEqual(await run(true), [{ bytes: 10, cut: 'timeout' }, 'read whole', 'timeout']);
  // The same bytes as the last read: nothing pushed, nothing ended (the accumulator repeats the last read).
  const probe = (agrees: (chunk: number) => boolean): TargetProbe => {
    let chunks = 0;
    return {
      push: () => agrees((chunks += 1)),
      get chunks() {
        return chunks;
      },
      end: () => true,
    };
  };
  assert.deepEqual(
    await run(
      false,
      probe(() => true),
    ),
    [{ bytes: 10, cut: undefined }, '', 'unused'],
  );
  // The second chunk differs from the last read: the file is read again from its start, now from disk.
  assert.deepEqual(
    await run(
      false,
      probe((n) => n === 1),
      () => false,
    ),
    [{ bytes: 7, cut: undefined }, 'on disk', 'end'],
  );
});
