// The LSF and Flux metadata hooks (provisioning/lsf, provisioning/flux) run here as root with the
// environment their scheduler gives them (no LSF or Flux on the test machine: the variables are set
// by the test, and `flux` is a stand-in script), then the built exporter's job_info collector reads
// what they wrote: the series carries the id the cgroup collector gives the same job (LSF's
// LSB_JOBID, Flux's ASCII F58 from either spelling of FLUX_JOB_ID). The post-execution/epilog
// removes the file.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../helpers/exporter.js';
import { hooksNeedRoot, hostRoot, jobInfo } from './hook-host.js';

const skip = hooksNeedRoot;

function run(script: string, env: Record<string, string>): void {
  execFileSync(join(repoRoot, script), [], { env: { ...env }, stdio: 'pipe', timeout: 20_000 });
}

test('LSF host pre-/post-execution: the job file under LSB_JOBID, read by job_info; removed after', { skip }, async () => {
  const { rootfs, spool } = hostRoot();
  try {
    // The owner's name goes through the host's own user database (`id -u`): nobody exists everywhere.
    const env = { JOBIO_SPOOL: spool, LSB_JOBID: '31337', LSFUSER: 'nobody', LSB_PROJECT_NAME: 'proj_climate', LSB_QUEUE: 'normal', LSB_JOBNAME: 'ocean run 7', LS_EXECCWD: '/home/alice/ocean' };
    run('provisioning/lsf/jobio-host-pre-exec.sh', env);
    assert.equal(readFileSync(join(spool, '31337'), 'utf8'), 'uid=65534\naccount=proj_climate\npartition=normal\njob_name=ocean run 7\nwork_dir=/home/alice/ocean\n');
    assert.deepEqual(await jobInfo(rootfs), ['jobio_job_info{jobid="31337",user="nobody",account="proj_climate",partition="normal",job_name="ocean run 7",work_dir="/home/alice/ocean"} 1']);
    run('provisioning/lsf/jobio-host-post-exec.sh', env);
    assert.equal(existsSync(join(spool, '31337')), false);
    run('provisioning/lsf/jobio-host-pre-exec.sh', { ...env, LSB_JOBID: '../etc/passwd' });
    assert.deepEqual(execFileSync('ls', ['-A', spool], { encoding: 'utf8' }), '', 'a malformed LSB_JOBID writes nothing');
  } finally {
    rmSync(rootfs, { recursive: true, force: true });
  }
});

test('Flux prolog/epilog: FLUX_JOB_ID as ƒ-F58 or decimal → one job file under the ASCII F58 id, read by job_info', { skip }, async () => {
  const { rootfs, spool } = hostRoot();
  // A stand-in for `flux`: the two subcommands the hooks use, answering for job 91088924704768 only.
  const fakeFlux = join(rootfs, 'flux');
  writeFileSync(
    fakeFlux,
    [
      '#!/bin/sh',
      'if [ "$1 $2 $3" = "job id --to=f58plain" ] && [ "$4" = 91088924704768 ]; then echo fiFkbMhFM; exit 0; fi',
      'if [ "$1" = jobs ]; then printf "batch\\tsim run 1\\n"; exit 0; fi',
      'exit 1',
      '',
    ].join('\n'),
    { mode: 0o755 },
  );
  try {
    const env = { JOBIO_SPOOL: spool, JOBIO_FLUX: fakeFlux, FLUX_JOB_USERID: '1000' };
    run('provisioning/flux/jobio-prolog.sh', { ...env, FLUX_JOB_ID: 'ƒiFkbMhFM' });
    assert.equal(readFileSync(join(spool, 'fiFkbMhFM'), 'utf8'), 'uid=1000\npartition=batch\njob_name=sim run 1\n');
    assert.deepEqual(await jobInfo(rootfs), ['jobio_job_info{jobid="fiFkbMhFM",user="alice",account="",partition="batch",job_name="sim run 1",work_dir=""} 1']);
    run('provisioning/flux/jobio-epilog.sh', { ...env, FLUX_JOB_ID: '91088924704768' });
    assert.equal(existsSync(join(spool, 'fiFkbMhFM')), false, 'the decimal spelling names the same file');
    run('provisioning/flux/jobio-prolog.sh', { ...env, FLUX_JOB_ID: '91088924704768' });
    assert.equal(existsSync(join(spool, 'fiFkbMhFM')), true);
    for (const bad of ['ƒ0OIl', 'f../x', '']) run('provisioning/flux/jobio-prolog.sh', { ...env, FLUX_JOB_ID: bad });
    assert.deepEqual(execFileSync('ls', ['-A', spool], { encoding: 'utf8' }), 'fiFkbMhFM\n', 'malformed ids write nothing');
  } finally {
    rmSync(rootfs, { recursive: true, force: true });
  }
});
