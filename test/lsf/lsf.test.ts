// The LSF files of provisioning/lsf/ run with recorded LSF environments (test/fixtures/lsf/): no LSF
// on the test machine, so the test starts each file as LSF would, with the variables LSF gives it.
// - jobio-job-starter.sh, the queue's JOB_STARTER, as the job's user: the environment and arguments
//   the job's command starts with (the command prints them).
// - esub.jobio, the opt-in at submission (`bsub -a jobio`): what it adds to LSB_SUB_MODIFY_ENVFILE,
//   which LSF puts into the job's environment, where the starter reads it.
// - the host pre-/post-execution, as root, for the elements of a job array on one host: one file
//   under LSB_JOBID that stays until the last element ends, read back by the exporter.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from '../helpers/exporter.js';
import { requireProfilerLibrary } from '../profiler/real-library.js';
import { hooksNeedRoot, hostRoot, jobInfo } from '../job_info/hook-host.js';

const fixtures = join(repoRoot, 'test/fixtures/lsf');
const library = requireProfilerLibrary();
const work = mkdtempSync(join(tmpdir(), 'jobio-lsf-'));
after(() => rmSync(work, { recursive: true, force: true }));
// A file in the starter's working directory named like a queue: a `*` in a queue list must not glob.
writeFileSync(join(work, 'normal'), '');
const nowhere = join(work, 'no-exporter.sock');

/** A recorded environment: `NAME=value` lines (values as they are, spaces included). */
function recorded(name: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const line of readFileSync(join(fixtures, name), 'utf8').split('\n')) {
    const eq = line.indexOf('=');
    if (eq > 0) env[line.slice(0, eq)] = line.slice(eq + 1).replaceAll('@DIR@', work);
  }
  return env;
}

/** The environment and arguments the job's command starts with under the job starter. */
function started(conf: string, env: Record<string, string>): { profile?: string; preload?: string; socket?: string; jobid?: string; args: string; stderr: string } {
  const confPath = join(work, 'lsf-starter.conf');
  writeFileSync(confPath, conf);
  // The job's command: prints what jobio looks at, then its own arguments, one per line.
  const command = ['/bin/sh', '-c', 'printf "%s\\n" "${JOBIO_PROFILE-unset}" "${LD_PRELOAD-unset}" "${JOBIO_SOCKET-unset}" "$LSB_JOBID" "$@"', 'job', 'one arg', '*'];
  const run = spawnSync(join(repoRoot, 'provisioning/lsf/jobio-job-starter.sh'), command, {
    cwd: work,
    env: { PATH: '/usr/bin:/bin', JOBIO_STARTER_CONF: confPath, ...env },
    encoding: 'utf8',
    timeout: 20_000,
  });
  assert.equal(run.status, 0, run.stderr);
  const [profile, preload, socket, jobid, ...args] = run.stdout.replace(/\n$/, '').split('\n');
  const known = (value: string | undefined): string | undefined => (value === 'unset' ? undefined : value);
  return { profile: known(profile), preload: known(preload), socket: known(socket), jobid, args: args.join('|'), stderr: run.stderr.replace(/^ERROR: ld\.so.*\n/gm, '') };
}

const job = recorded('job-31337.env');
const profiled = (preload = library, socket = '/run/jobio/profiler.sock') => ({ profile: '1', preload, socket, jobid: '31337', args: 'one arg|*', stderr: '' });
const unprofiled = { profile: '0', preload: undefined, socket: undefined, jobid: '31337', args: 'one arg|*', stderr: '' };

test('JOB_STARTER: the queues to profile, the job asking in or out, an excluded queue; the command and its arguments run as given', () => {
  assert.deepEqual(started(`library=${library}\n`, job), profiled(), 'every queue by default');
  assert.deepEqual(started(`library=${library}\nsocket=/srv/jobio.sock\nqueues=short, normal\n`, job), profiled(library, '/srv/jobio.sock'));
  assert.deepEqual(started(`library=${library}\nqueues=short\n`, job), unprofiled);
  assert.deepEqual(started(`library=${library}\nqueues=short\n`, { ...job, JOBIO_PROFILE: '1' }), profiled(), 'the job opted in');
  assert.deepEqual(started(`library=${library}\n`, { ...job, JOBIO_PROFILE: '0' }), unprofiled, 'the job opted out');
  assert.deepEqual(started(`library=${library}\nexclude_queues=normal\n`, { ...job, JOBIO_PROFILE: '1' }), unprofiled, 'an excluded queue, whatever the job asks');
});

test("JOB_STARTER: the job's own preloads kept after the profiler, never twice; a missing library leaves the job unprofiled and says so", () => {
  assert.deepEqual(started(`library=${library}\n`, { ...job, LD_PRELOAD: '/opt/site/libfoo.so' }), profiled(`${library}:/opt/site/libfoo.so`));
  assert.deepEqual(started(`library=${library}\n`, { ...job, LD_PRELOAD: library, JOBIO_SOCKET: nowhere }), profiled());
  const missing = join(work, 'missing.so');
  const conf = join(work, 'lsf-starter.conf');
  assert.deepEqual(started(`library=${missing}\n`, job), { ...unprofiled, stderr: `jobio: profiler library not found (library= in ${conf}); this job is not profiled\n` });
});

/** Runs esub.jobio as mesub would, with `args` from `bsub -a "jobio(args)"`; returns the env file it left. */
function esub(args: string[], before = ''): { envfile: string; stderr: string } {
  const env = recorded('esub.env');
  writeFileSync(env.LSB_SUB_PARM_FILE!, readFileSync(join(fixtures, 'esub-parm')));
  writeFileSync(env.LSB_SUB_MODIFY_ENVFILE!, before);
  const run = spawnSync(join(repoRoot, 'provisioning/lsf/esub.jobio'), args, { env: { PATH: '/usr/bin:/bin', ...env }, encoding: 'utf8', timeout: 20_000 });
  assert.equal(run.status, 0, 'esub.jobio never aborts a submission');
  return { envfile: readFileSync(env.LSB_SUB_MODIFY_ENVFILE!, 'utf8'), stderr: run.stderr };
}

test('esub.jobio: bsub -a jobio opts in, jobio(off) out, added after what other esubs wrote; the starter acts on it', () => {
  assert.deepEqual(esub([]), { envfile: 'JOBIO_PROFILE="1"\n', stderr: '' });
  assert.deepEqual(esub(['on']), { envfile: 'JOBIO_PROFILE="1"\n', stderr: '' });
  assert.deepEqual(esub(['off'], 'SITE_VAR="x"\n'), { envfile: 'SITE_VAR="x"\nJOBIO_PROFILE="0"\n', stderr: '' });
  assert.deepEqual(esub(['maybe']), { envfile: '', stderr: `jobio: bsub -a "jobio(maybe)": the argument is on or off; the queue's setting applies\n` });
  // LSF puts the file's variables into the job's environment: the job of an unprofiled queue is profiled.
  const added = Object.fromEntries([...esub([]).envfile.matchAll(/^(\w+)="(.*)"$/gm)].map((m) => [m[1]!, m[2]!]));
  assert.deepEqual(started(`library=${library}\nqueues=short\n`, { ...job, ...added }), profiled());
});

test('host pre-/post-execution, two elements of one array on one host: one job_info series under LSB_JOBID, gone with the last element', { skip: hooksNeedRoot }, async () => {
  const { rootfs, spool } = hostRoot();
  const run = (script: string, env: Record<string, string>): void =>
    void execFileSync(join(repoRoot, 'provisioning/lsf', script), [], { env: { ...env, JOBIO_SPOOL: spool }, stdio: 'pipe', timeout: 20_000 });
  try {
    const [one, two] = [recorded('array-31400-1.env'), recorded('array-31400-2.env')];
    run('jobio-host-pre-exec.sh', one);
    run('jobio-host-pre-exec.sh', two);
    assert.equal(readFileSync(join(spool, '31400'), 'utf8'), 'uid=65534\naccount=default\npartition=short\njob_name=sweep[1-2]\nwork_dir=/home/alice/sweep\n');
    assert.deepEqual(await jobInfo(rootfs), ['jobio_job_info{jobid="31400",user="nobody",account="default",partition="short",job_name="sweep[1-2]",work_dir="/home/alice/sweep"} 1']);
    run('jobio-host-post-exec.sh', one);
    assert.deepEqual(readdirSync(spool).sort(), ['.31400.element.2', '31400'], 'element 2 still runs');
    run('jobio-host-post-exec.sh', two);
    assert.deepEqual(readdirSync(spool), []);
    // A job that is no array element (LSB_JOBINDEX=0) leaves no mark.
    run('jobio-host-pre-exec.sh', job);
    assert.deepEqual(readdirSync(spool), ['31337']);
    assert.equal(existsSync(join(spool, '31337')), true);
    run('jobio-host-post-exec.sh', job);
    assert.deepEqual(readdirSync(spool), []);
  } finally {
    rmSync(rootfs, { recursive: true, force: true });
  }
});
