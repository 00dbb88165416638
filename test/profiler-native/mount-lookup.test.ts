// The profiler's mount lookup (native/profiler/src/process/mounts.c: an index rebuilt with the mount
// table, and each thread's last directory) on real mounts: a private mount namespace (unshare -m)
// with 50 extra tmpfs mounts, a mount inside a mount, two mounts stacked on one point, a file
// bind-mounted over a file, relative paths across chdir, "..", a mount made while the program runs
// and a volume (JOBIO_VOLUMES: a directory counted as a mount point of its own). Each mount is opened
// a number of times of its own, so the opens the profiler counts per mount say which mount every
// path was attributed to; the expected mount of each path is the one the kernel resolves it on (or
// the volume that holds it), written below.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildTests, removeDir, runProfiled, tempDir, type DumpMount } from './harness.js';
import { requireBinary } from '../helpers/binaries.js';

const opens = (m: DumpMount): number => {
  const c = m.calls['open'];
  return c ? c.red + c.yellow + c.green : 0;
};

// look(path, n): n opens of path, each closed at once when it exists. An open that moves no byte and
// an open that fails are counted on the mount of the path alone (no device to confirm it by), so the
// opens counted per mount are exactly the path lookup's answers.
const PROGRAM = `
import os, subprocess, sys, time
D = sys.argv[1]
def look(path, n):
    for _ in range(n):
        try:
            os.close(os.open(path, os.O_RDONLY))
        except FileNotFoundError:
            pass
look(D + '/m3/a', 3)            # fills the directory cache with D/m3/
look(D + '/m3/f', 4)            # same directory, but the file itself is a mount point (a bind of m4/g)
look(D + '/m3/b', 30)           # back in D/m3
look(D + '/m7/x', 7)
look(D + '/m7/../m8/x', 8)      # ".." in the directory
look(D + '/m1/inner/x', 100)    # a mount inside a mount
look(D + '/m1/x', 1)
look(D + '/m2/x', 2)            # two mounts on m2: the top one
os.chdir(D + '/m5')
look('x', 5)                    # relative, then the same relative path in another directory
os.chdir(D + '/m6')
look('x', 6)
look('../m9/x', 9)
os.chdir(D + '/m1')
look('inner/../y', 10)          # normalises to D/m1/y
look('inner/y', 20)
look(D + '/m50/x', 50)
look(D + '/m10/a', 2)           # a volume (JOBIO_VOLUMES) is a mount point too: after its parent
look(D + '/m10/vol', 3)         # the volume's own path
look(D + '/m10/vol/x', 4)
subprocess.run(['mount', '-t', 'tmpfs', 'jobio-late', D + '/late'], check=True)
time.sleep(1.2)                 # the table is read again at most once a second, when a device is new:
fd = os.open(D + '/late/x', os.O_WRONLY | os.O_CREAT, 0o644)
os.write(fd, b'x')              # this write's device check reads it
os.close(fd)
look(D + '/late/y', 12)
`;

describe('mount lookup on real mounts', { timeout: 120_000 }, () => {
  before(() => buildTests());

  test('every open is counted on the mount the kernel put the file on, with 50 extra mounts', async (t) => {
    const unshare = requireBinary('unshare', 'util-linux');
    const python = requireBinary('python3');
    // as root a private mount namespace; otherwise one inside a user namespace, where mounting tmpfs is allowed
    const ns = process.getuid?.() === 0 ? ['-m'] : ['-rm'];
    const probe = spawnSync(unshare, [...ns, 'true']);
    if (probe.status !== 0) {
      t.skip(`cannot make a mount namespace here (unshare ${ns.join(' ')}: ${probe.stderr.toString().trim()})`);
      return;
    }
    const dir = tempDir();
    const d = join(dir, 'mnt');
    const script = join(dir, 'program.py');
    writeFileSync(script, PROGRAM);
    const volumes = join(dir, 'volumes');
    writeFileSync(volumes, `${d}/m10/vol\n`);
    const setup = [
      'set -e',
      `D=${d}`,
      'mkdir -p $D/late',
      'for i in $(seq 1 50); do mkdir -p $D/m$i; done',
      'for i in $(seq 1 50); do mount -t tmpfs jobio-m$i $D/m$i; done',
      'mkdir $D/m10/vol',
      'mkdir $D/m1/inner && mount -t tmpfs jobio-inner $D/m1/inner',
      'mount -t tmpfs jobio-m2-top $D/m2',
      ': > $D/m4/g && : > $D/m3/f && mount --bind $D/m4/g $D/m3/f',
      `exec ${python} -I -B ${script} $D`,
    ].join('\n');
    try {
      const r = await runProfiled(unshare, [...ns, 'sh', '-c', setup], { dir, env: { JOBIO_VOLUMES: volumes } });
      assert.equal(r.status, 0, r.stderr.toString());
      const py = r.dump.processes.filter((p) => p.exe.includes('python'));
      assert.equal(py.length, 1, `one python process: ${r.dump.processes.map((p) => p.exe).join(',')}`);
      const mounts = py[0]!.mounts.filter((m) => m.path === d || m.path.startsWith(d + '/'));
      const got = new Map<string, number>();
      for (const m of mounts) {
        const key = `${m.path.slice(d.length)} ${m.fsname}`;
        if (opens(m) > 0) got.set(key, (got.get(key) ?? 0) + opens(m));
      }
      const want = new Map<string, number>([
        ['/m3 jobio-m3', 33],
        ['/m3/f jobio-m4', 4],
        ['/m7 jobio-m7', 7],
        ['/m8 jobio-m8', 8],
        ['/m1/inner jobio-inner', 120],
        ['/m1 jobio-m1', 11],
        ['/m2 jobio-m2-top', 2],
        ['/m5 jobio-m5', 5],
        ['/m6 jobio-m6', 6],
        ['/m9 jobio-m9', 9],
        ['/m50 jobio-m50', 50],
        ['/m10 jobio-m10', 2],
        ['/m10/vol jobio-m10', 7],
        ['/late jobio-late', 12], // (the write's open made the file: a create)
      ]);
      assert.deepEqual(Object.fromEntries([...got].sort()), Object.fromEntries([...want].sort()));
    } finally {
      removeDir(dir);
    }
  });
});
