// `jobio run` on a Lustre client, with the real profiler library: the llite stats of a fake node root
// (--path.procfs) are read before and after the command, and the summary prints the share of the
// client's bytes the profiler saw. The command is the known case: a dynamic `dd` writes 1 MiB (seen by
// the profiler) and a static program writes 3 MiB (LD_PRELOAD does not reach it), then the fake kernel
// counters move by the true 4 MiB: the coverage must be exactly 25.0 %. The "Lustre mount" is the real
// mount holding the data directory, so the profiler attributes the writes to the same mount point.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot, runJobio } from '../helpers/exporter.js';
import { requireBinary } from '../helpers/binaries.js';
import { mountOf, requireProfilerLibrary } from '../profiler/real-library.js';

const MiB = 1024 * 1024;

function buildStatic(): string {
  const out = join(mkdtempSync(join(tmpdir(), 'jobio-static-')), 'write-static');
  execFileSync(requireBinary('cc', 'gcc'), ['-static', '-O1', '-Wall', '-Werror', join(repoRoot, 'test/lustre-client/programs/write-static.c'), '-o', out], { stdio: 'inherit' });
  // The oracle that it is static: no program interpreter, so LD_PRELOAD cannot apply.
  const ldd = spawnSync('ldd', [out], { encoding: 'utf8' });
  assert.match(`${ldd.stdout}${ldd.stderr}`, /not a dynamic executable/);
  return out;
}

function llite(writeBytes: number, readBytes = 20480): string {
  return `snapshot_time 1700000000.000000001 secs.nsecs\nread_bytes 5 samples [bytes] 4096 4096 ${readBytes}\nwrite_bytes ${writeBytes / 4096} samples [bytes] 4096 4096 ${writeBytes}\nopen 7 samples [usecs] 1 9 30\n`;
}

/** The row of `mount` in the coverage table (the profiler's own mount table comes before it). */
function coverageRow(stderr: string, mount: string): string[] | undefined {
  const lines = stderr.split('\n');
  const start = lines.findIndex((l) => l.startsWith("profiler coverage against this node's Lustre client"));
  return start < 0
    ? undefined
    : lines
        .slice(start)
        .find((l) => l.startsWith(`${mount} `))
        ?.trim()
        .split(/\s{2,}/);
}

function node(): { root: string; data: string; mount: string; dir: (instance: string) => string } {
  const root = mkdtempSync(join(tmpdir(), 'jobio-client-run-'));
  // /dev/shm: a mount of its own, so nothing else the command does lands on it.
  const data = mkdtempSync('/dev/shm/jobio-client-data-');
  const mount = mountOf(data);
  mkdirSync(join(root, 'proc'), { recursive: true });
  writeFileSync(join(root, 'proc/mounts'), `proc /proc proc rw 0 0\nmgs@tcp:/scratch ${mount} lustre rw,flock 0 0\n`);
  return { root, data, mount, dir: (instance) => join(root, 'proc/fs/lustre/llite', instance) };
}

test('jobio run prints the profiler coverage of its command against the llite stats: 1 MiB seen of 4 MiB is 25.0 %', async () => {
  requireProfilerLibrary();
  const writer = buildStatic();
  const n = node();
  try {
    mkdirSync(n.dir('scratch-ffff0001'), { recursive: true });
    writeFileSync(join(n.dir('scratch-ffff0001'), 'stats'), llite(409600));
    writeFileSync(join(n.root, 'after'), llite(409600 + 4 * MiB));
    const script = `dd if=/dev/zero of=${n.data}/a bs=65536 count=16 status=none && ${writer} ${n.data}/b ${3 * MiB} && mv ${n.root}/after ${n.dir('scratch-ffff0001')}/stats`;
    const r = await runJobio(['run', `--path.procfs=${join(n.root, 'proc')}`, `--path.sysfs=${join(n.root, 'sys')}`, '--', '/bin/sh', '-c', script]);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(coverageRow(r.stderr, n.mount), [n.mount, 'scratch', '0 B', '4.0 MiB', '1.0 MiB', '25.0 %']);
  } finally {
    rmSync(n.root, { recursive: true, force: true });
    rmSync(n.data, { recursive: true, force: true });
  }
});

test('jobio run: a remount during the command is reported, not measured; no Lustre client, no coverage lines', async () => {
  requireProfilerLibrary();
  const n = node();
  try {
    mkdirSync(n.dir('scratch-ffff0001'), { recursive: true });
    writeFileSync(join(n.dir('scratch-ffff0001'), 'stats'), llite(409600));
    mkdirSync(join(n.root, 'next'));
    writeFileSync(join(n.root, 'next/stats'), llite(8192));
    const script = `dd if=/dev/zero of=${n.data}/a bs=4096 count=2 status=none && mv ${n.dir('scratch-ffff0001')} ${n.root}/old && mv ${n.root}/next ${n.dir('scratch-ffff0002')}`;
    const r = await runJobio(['run', `--path.procfs=${join(n.root, 'proc')}`, '--', '/bin/sh', '-c', script]);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(coverageRow(r.stderr, n.mount), [n.mount, 'scratch', '-', '-', '8.0 KiB', 'remounted during the run']);

    const none = await runJobio(['run', `--path.procfs=${join(n.root, 'nothing')}`, `--path.sysfs=${join(n.root, 'nothing')}`, '--', '/bin/true']);
    assert.equal(none.code, 0, none.stderr);
    assert.doesNotMatch(none.stderr, /profiler coverage/);
  } finally {
    rmSync(n.root, { recursive: true, force: true });
    rmSync(n.data, { recursive: true, force: true });
  }
});
