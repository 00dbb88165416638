// jobio on a real single-node Grid Engine (test/helpers/gridengine.ts) with the shipped hooks of
// provisioning/gridengine/ in its queue: the root prolog and epilog write and remove the job_info
// spool files, the starter_method preloads the profiler into jobs whose scripts have no line for it,
// and jobio-job-map.sh gives `jobio top` its job lookup. One cluster and one exporter serve every
// test of this file.
import { after, before, test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot, scrape, startExporter, type RunningExporter } from '../helpers/exporter.js';
import { startGridEngine, type GridEngineCluster } from '../helpers/gridengine.js';
import { ensureUser, type TestUser } from '../helpers/slurm.js';
import { parseExposition, pollSamples, type Sample } from '../profiler/exposition.js';
import { mountOf, requireProfilerLibrary } from '../profiler/real-library.js';
import { ClientMapper } from '../../exporter/src/top/client-map.js';

let ge: GridEngineCluster | undefined;
let skipReason = '';
let exporter: RunningExporter | undefined;
let hooksDir = '';
let spool = '';
let socket = '';
let alice: TestUser;

before(async () => {
  const library = requireProfilerLibrary();
  // The hooks as a site installs them, with the spool and the starter's settings in a private
  // directory: execd gives hooks a fixed environment, so small wrappers name them.
  hooksDir = mkdtempSync(join(tmpdir(), 'jobio-ge-hooks-'));
  chmodSync(hooksDir, 0o755);
  spool = join(hooksDir, 'jobs');
  mkdirSync(join(hooksDir, 'sock'), { mode: 0o755 });
  chmodSync(join(hooksDir, 'sock'), 0o755);
  socket = join(hooksDir, 'sock', 'profiler.sock');
  writeFileSync(join(hooksDir, 'starter.conf'), `library=${library}\nsocket=${socket}\nqueues=*\n`, { mode: 0o644 });
  const wrapper = (name: string, variable: string, value: string): string => {
    const path = join(hooksDir, `${name}.sh`);
    writeFileSync(path, `#!/bin/sh\n${variable}=${value} exec ${join(repoRoot, `provisioning/gridengine/jobio-${name}.sh`)} "$@"\n`, { mode: 0o755 });
    return path;
  };
  const started = await startGridEngine({
    queue: {
      slots: '4',
      prolog: `root@${wrapper('prolog', 'JOBIO_SPOOL', spool)}`,
      epilog: `root@${wrapper('epilog', 'JOBIO_SPOOL', spool)}`,
      starter_method: wrapper('starter', 'JOBIO_STARTER_CONF', join(hooksDir, 'starter.conf')),
    },
  });
  if (started.skip !== undefined) {
    skipReason = started.skip;
    console.log(`# Grid Engine tests skipped: ${skipReason}`);
    return;
  }
  ge = started.cluster;
  alice = ensureUser('jobiotest');
  // A project for qsub -P (Grid Engine refuses an unknown one).
  writeFileSync(join(hooksDir, 'testproj'), 'name testproj\noticket 0\nfshare 0\nacl NONE\nxacl NONE\n');
  ge.client('qconf', ['-Aprj', join(hooksDir, 'testproj')]);
  exporter = await startExporter([
    '--collector.disable-defaults',
    '--collector.profiler',
    `--collector.profiler.socket=${socket}`,
    '--collector.job_info',
    `--collector.job_info.spool-dir=${spool}`,
    '--collector.job_info.squeue=',
    // Grid Engine makes no job cgroup: the cgroup collector measures the spool's jobs from their processes.
    '--collector.cgroup',
    `--collector.cgroup.spool-dir=${spool}`,
    '--collector.cgroup.sample-interval=250ms',
  ]);
});

after(async () => {
  await exporter?.stop();
  await ge?.stop();
  if (hooksDir) rmSync(hooksDir, { recursive: true, force: true });
});

function cluster(t: TestContext): GridEngineCluster | undefined {
  if (!ge) t.skip(skipReason);
  return ge;
}

async function metrics(): Promise<Sample[]> {
  return parseExposition(await scrape(`${exporter!.url}/metrics`));
}

const pollMetrics = (what: string, done: (s: Sample[]) => boolean, timeoutMs = 30_000): Promise<Sample[]> => pollSamples(`${exporter!.url}/metrics`, what, done, timeoutMs, () => ge?.logs() ?? '');

const sum = (s: readonly Sample[], name: string, labels: Record<string, string>): number =>
  s.filter((x) => x.name === name && Object.entries(labels).every(([k, v]) => x.labels[k] === v)).reduce((a, x) => a + x.value, 0);
const info = (s: readonly Sample[], jobid: string): Record<string, string> | undefined => s.find((x) => x.name === 'jobio_job_info' && x.labels.jobid === jobid)?.labels;
const waitRelease = '#!/bin/sh\nwhile [ ! -e "$PWD/release-$JOB_ID.$SGE_TASK_ID" ]; do sleep 0.2; done\n';

test('job_info on the real Grid Engine: a job and an array task named by the root prolog (id, owner, project, queue, name, cwd); jobio top finds them through jobio-job-map.sh; the epilog ends them', async (t) => {
  const s = cluster(t);
  if (!s) return;
  const job = s.submit({ user: alice, args: ['-N', 'iojob7', '-P', 'testproj'], script: waitRelease });
  const array = s.submit({ user: alice, args: ['-N', 'arr', '-t', '1-2'], script: waitRelease });
  t.after(() => s.cancel(job, array));
  await s.waitRunning(job);
  await s.waitRunning(array, 1);
  await s.waitRunning(array, 2);
  const m = await pollMetrics(`jobio_job_info of jobs ${job} and ${array}`, (x) => info(x, job) !== undefined && info(x, array) !== undefined);
  assert.deepEqual(info(m, job), { jobid: job, user: 'jobiotest', account: 'testproj', partition: 'all.q', job_name: 'iojob7', work_dir: s.work });
  assert.deepEqual(info(m, array), { jobid: array, user: 'jobiotest', account: '', partition: 'all.q', job_name: 'arr', work_dir: s.work });
  assert.equal(m.filter((x) => x.name === 'jobio_job_info').length, 2, 'one series per job: the array tasks share theirs');
  assert.equal(sum(m, 'jobio_job_info_spool_rejected_total', {}), 0);
  // CPU and memory from the jobs' processes (the array's tasks together, under its one id).
  const usage = await pollMetrics(`process CPU and memory of ${job} and ${array}`, (x) => [job, array].every((id) => sum(x, 'jobio_job_memory_bytes', { jobid: id, user: 'jobiotest' }) > 0));
  for (const id of [job, array]) {
    assert.equal(usage.filter((x) => x.name === 'jobio_job_cpu_user_seconds_total' && x.labels.jobid === id && x.labels.user === 'jobiotest').length, 1, `one CPU series for ${id}`);
    assert.ok(sum(usage, 'jobio_job_memory_peak_bytes', { jobid: id }) >= sum(usage, 'jobio_job_memory_bytes', { jobid: id }));
  }
  assert.equal(sum(usage, 'jobio_cgroup_process_jobs', {}), 2);
  const file = statSync(join(spool, job));
  assert.deepEqual([file.uid, file.mode & 0o777], [0, 0o644], 'the prolog writes a root-owned 0644 file');
  t.diagnostic(`spool ${join(spool, job)}: ${readFileSync(join(spool, job), 'utf8').trim().split('\n').join('; ')}`);

  // jobio top's job lookup: the shipped job map command, with the cluster's SGE_* settings.
  const settings = ['PATH', 'SGE_ROOT', 'SGE_CELL', 'SGE_QMASTER_PORT', 'SGE_EXECD_PORT'].map((k) => `${k}=${s.env[k] ?? ''}`).join(' ');
  const mapper = new ClientMapper({ jobMapCommand: `env ${settings} ${join(repoRoot, 'provisioning/gridengine/jobio-job-map.sh')}` });
  await mapper.refresh();
  assert.equal(mapper.warning, undefined);
  assert.deepEqual(mapper.job(s.host), { job: `${job},${array}`, owner: 'jobiotest' });
  assert.deepEqual(mapper.job(`${s.host}.cluster.example`), { job: `${job},${array}`, owner: 'jobiotest' }, 'a FQDN matches the short name');

  // Task 1 ends: the array's series stays while task 2 runs; then task 2 and the job end.
  writeFileSync(join(s.work, `release-${array}.1`), '');
  await s.waitEnded(array, 1);
  assert.equal(existsSync(join(spool, array)), true, "the array's file stays while a task runs");
  assert.deepEqual(info(await metrics(), array), { jobid: array, user: 'jobiotest', account: '', partition: 'all.q', job_name: 'arr', work_dir: s.work });
  writeFileSync(join(s.work, `release-${array}.2`), '');
  writeFileSync(join(s.work, `release-${job}.undefined`), '');
  const done = await s.waitEnded(job);
  assert.deepEqual([done.exitStatus, done.fields.project, done.fields.qname, done.fields.owner, done.fields.jobname], [0, 'testproj', 'all.q', 'jobiotest', 'iojob7'], 'qacct agrees');
  await s.waitEnded(array, 2);
  await pollMetrics(`jobio_job_info of ${job} and ${array} gone`, (x) => info(x, job) === undefined && info(x, array) === undefined);
  assert.deepEqual([existsSync(join(spool, job)), existsSync(join(spool, array))], [false, false], 'the epilog removed both files');
});

test('the starter_method: a job and an array with no profiler line in their scripts are profiled under JOB_ID and the owner, exactly', async (t) => {
  const s = cluster(t);
  if (!s) return;
  const mount = mountOf(s.work);
  const writes = (m: readonly Sample[], jobid: string): number => sum(m, 'jobio_profiler_calls_total', { call: 'write', mount, jobid });
  const dd = (n: number): string => `#!/bin/sh\ndd if=/dev/zero of="$PWD/w-$JOB_ID.$SGE_TASK_ID.bin" bs=4k count=${n} status=none\nsleep 1\n`;
  const job = s.submit({ user: alice, args: ['-N', 'ddjob'], script: dd(100) });
  const array = s.submit({ user: alice, args: ['-N', 'ddarr', '-t', '1-2'], script: dd(30) });
  t.after(() => s.cancel(job, array));
  assert.equal((await s.waitEnded(job)).exitStatus, 0, readFileSync(s.output(job), 'utf8'));
  await s.waitEnded(array, 1);
  await s.waitEnded(array, 2);
  const m = await pollMetrics(`the writes of ${job} and ${array}`, (x) => writes(x, job) >= 100 && writes(x, array) >= 60);
  assert.equal(writes(m, job), 100);
  assert.equal(sum(m, 'jobio_profiler_calls_total', { call: 'write', mount, jobid: job, user: 'jobiotest', class: 'red' }), 100, 'small writes, under the owner');
  assert.equal(writes(m, array), 60, 'both tasks, 30 writes each, under the array job id');
  assert.equal(sum(m, 'jobio_profiler_records_rejected_total', {}), 0, 'no frame refused');
  assert.equal(readFileSync(s.output(job), 'utf8'), '', 'the starter prints nothing into the job output');
  t.diagnostic(`job ${job}: ${writes(m, job)} writes; array ${array} (2 tasks): ${writes(m, array)} writes`);
});

test('a 2-second Grid Engine job between two scrapes: the next scrape has all its profiler writes', async (t) => {
  const s = cluster(t);
  if (!s) return;
  const mount = mountOf(s.work);
  const before = await metrics();
  // 250 writes, then 2 s of CPU in short-lived children (each `date` is reaped by the job's shell:
  // its CPU reaches the shell's cutime), then a second of sleep.
  const script = [
    '#!/bin/sh',
    'dd if=/dev/zero of="$PWD/short-$JOB_ID.bin" bs=4k count=250 status=none',
    'end=$(( $(date +%s) + 2 )); while [ "$(date +%s)" -lt "$end" ]; do :; done',
    'sleep 1',
    '',
  ].join('\n');
  const job = s.submit({ user: alice, args: ['-N', 'short'], script });
  t.after(() => s.cancel(job));
  const done = await s.waitEnded(job);
  assert.equal(done.exitStatus, 0);
  assert.equal(before.filter((x) => x.labels.jobid === job).length, 0, 'the scrape before knew nothing of the job');
  const writes = (x: readonly Sample[]): number => sum(x, 'jobio_profiler_calls_total', { call: 'write', mount, jobid: job, user: 'jobiotest' });
  const next = await pollMetrics(`job ${job}'s 250 writes`, (x) => writes(x) >= 250);
  assert.equal(writes(next), 250);
  assert.equal(sum(next, 'jobio_profiler_write_bytes_total', { mount, jobid: job, user: 'jobiotest', size: 'small' }), 250 * 4096);
  assert.equal(sum(next, 'jobio_profiler_records_rejected_total', {}), sum(before, 'jobio_profiler_records_rejected_total', {}), "none of the job's frames refused");
  // CPU and peak memory from the job's processes, kept after the job ended; no current memory.
  const cpu = sum(next, 'jobio_job_cpu_user_seconds_total', { jobid: job, user: 'jobiotest' }) + sum(next, 'jobio_job_cpu_system_seconds_total', { jobid: job, user: 'jobiotest' });
  const peak = sum(next, 'jobio_job_memory_peak_bytes', { jobid: job, user: 'jobiotest' });
  const qacctCpu = Number.parseFloat(done.fields.cpu ?? ''); // `0.389s`
  // qacct's cpu is the job's whole rusage; jobio's last sample is at most one sample interval (250 ms)
  // before the job's last process exited, so it is at most qacct's and most of it.
  assert.ok(cpu <= qacctCpu + 0.02 && cpu >= qacctCpu / 2, `jobio ${cpu} s of CPU, qacct ${qacctCpu} s`);
  assert.ok(peak > 0, 'a peak memory');
  assert.equal(next.filter((x) => x.name === 'jobio_job_memory_bytes' && x.labels.jobid === job).length, 0, 'an ended job holds no memory');
  t.diagnostic(`job ${job} (2 s, ru_wallclock ${done.fields.ru_wallclock}, qacct cpu ${done.fields.cpu}): profiler writes ${writes(next)}; jobio CPU ${cpu.toFixed(3)} s, peak memory ${peak} B`);
});
