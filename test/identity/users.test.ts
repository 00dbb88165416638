// One user resolver for every collector: a uid that only NSS knows (an LDAP/SSSD user, not in
// /etc/passwd) is the same `user` in the Lustre jobstats series and in the profiler series of the same
// job, so joins on (jobid, user) hold. NSS is played by a `getent` placed first on the exporter's PATH
// (the exporter runs `getent passwd UID...`); the profiled program really runs as that uid.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { scrape, startExporter } from '../helpers/exporter.js';
import { parseExposition } from '../profiler/exposition.js';
import { requireProfilerLibrary } from '../profiler/real-library.js';

const LDAP_UID = 7345;

test('an LDAP-only uid is user="carol" in jobstats and profiler series alike', { skip: process.getuid?.() === 0 ? false : 'running a program as another uid needs root' }, async () => {
  const lib = requireProfilerLibrary();
  const dir = mkdtempSync(join(tmpdir(), 'jobio-users-'));
  chmodSync(dir, 0o755);
  const nss = join(dir, 'bin');
  mkdirSync(nss);
  writeFileSync(join(nss, 'getent'), `#!/bin/sh\nfor u in "$@"; do [ "$u" = ${LDAP_UID} ] && echo "carol:*:${LDAP_UID}:${LDAP_UID}::/home/carol:/bin/sh"; done\nexit 0\n`);
  chmodSync(join(nss, 'getent'), 0o755);
  const ost = join(dir, 'sys/fs/lustre/obdfilter/fs-OST0000');
  mkdirSync(ost, { recursive: true });
  writeFileSync(
    join(ost, 'job_stats'),
    `job_stats:\n- job_id:          4711:${LDAP_UID}:n01\n  snapshot_time:   1700000000\n  write_bytes:     { samples:           2, unit: bytes, min:    4096, max:    4096, sum:            8192 }\n`,
  );
  const work = join(dir, 'work');
  mkdirSync(work);
  chmodSync(work, 0o777);
  const socket = join(dir, 'profiler.sock');
  const exporter = await startExporter(
    ['--collector.disable-defaults', '--collector.lustre_jobstats', '--collector.profiler', `--collector.profiler.socket=${socket}`, `--path.sysfs=${join(dir, 'sys')}`],
    { env: { ...process.env, PATH: `${nss}:${process.env.PATH ?? '/usr/bin:/bin'}` } },
  );
  try {
    const r = spawnSync('sh', ['-c', 'sleep 0.3; dd if=/dev/zero of="$1" bs=4k count=10 status=none', 'sh', join(work, 'out.bin')], {
      env: { PATH: '/usr/bin:/bin', LD_PRELOAD: lib, JOBIO_SOCKET: socket, SLURM_JOB_ID: '4711' },
      uid: LDAP_UID,
      gid: LDAP_UID,
      encoding: 'utf8',
    });
    assert.equal(r.status, 0, r.stderr);
    let users = { jobstats: '', profiler: '' };
    const until = Date.now() + 10_000;
    while (Date.now() < until) {
      const series = parseExposition(await scrape(`${exporter.url}/metrics`));
      users = {
        jobstats: series.find((s) => s.name === 'jobio_lustre_jobstats_write_bytes_total' && s.labels.jobid === '4711')?.labels.user ?? '',
        profiler: series.find((s) => s.name === 'jobio_profiler_calls_total' && s.labels.jobid === '4711' && s.labels.call === 'write')?.labels.user ?? '',
      };
      if (users.jobstats !== '' && users.profiler !== '') break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.deepEqual(users, { jobstats: 'carol', profiler: 'carol' });
  } finally {
    await exporter.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});
