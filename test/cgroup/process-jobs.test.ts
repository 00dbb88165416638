// Jobs without a job cgroup (Grid Engine) measured from their processes, on this machine's real
// /proc: the built exporter's cgroup collector reads a root-owned job spool naming job 4711 of
// `nobody`, and the test starts processes as the scheduler would: the job's own (as nobody, with
// JOB_ID=4711), an impostor of another uid claiming the job, and a process of nobody naming a job the
// spool does not have. The oracle is the processes' own /proc/<pid>/stat and status, read by the test.
// (The real Grid Engine test, test/gridengine/gridengine.test.ts, runs the same collector on real jobs.)
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { scrape, startExporter } from '../helpers/exporter.js';
import { parseExposition, type Sample } from '../profiler/exposition.js';

const asRoot = process.getuid?.() === 0;
const work = mkdtempSync(join(tmpdir(), 'jobio-process-jobs-'));
const children: ChildProcess[] = [];
after(() => {
  for (const child of children) child.kill('SIGKILL');
  rmSync(work, { recursive: true, force: true });
});

/** A process as `uid` with `env` only: CPU in forked children (reaped by the shell: its cutime), then it waits. */
function startAs(uid: number, env: Record<string, string>): ChildProcess {
  const script = 'i=0; while [ $i -lt 200 ]; do /bin/true; i=$((i+1)); done; exec sleep 600';
  const child = spawn('setpriv', [`--reuid=${uid}`, `--regid=${uid}`, '--clear-groups', '/usr/bin/env', '-i', ...Object.entries(env).map(([k, v]) => `${k}=${v}`), '/bin/sh', '-c', script], {
    stdio: 'ignore',
  });
  children.push(child);
  return child;
}

const ticks = (pid: number): { user: number; system: number } => {
  const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' '); // f[11..14]: utime, stime, cutime, cstime
  return { user: (Number(f[11]) + Number(f[13])) / 100, system: (Number(f[12]) + Number(f[14])) / 100 };
};
const kib = (pid: number, name: string): number => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'latin1'))?.[1]) * 1024;
const value = (s: readonly Sample[], name: string): number | undefined => s.find((x) => x.name === name && x.labels.jobid === '4711')?.value;

test(
  'a spool job without a cgroup: CPU and memory of exactly its owner’s processes that name it; kept after it ends',
  { skip: asRoot ? false : 'starts processes as other users and writes a root-owned spool' },
  async (t) => {
    const spool = join(work, 'jobs');
    mkdirSync(spool, { mode: 0o755 });
    chmodSync(spool, 0o755);
    writeFileSync(join(spool, '4711'), 'uid=65534\naccount=\npartition=all.q\njob_name=sim\nwork_dir=/tmp\n', { mode: 0o644 });
    const job = startAs(65534, { JOB_ID: '4711', PATH: '/usr/bin:/bin' });
    startAs(54321, { JOB_ID: '4711', PATH: '/usr/bin:/bin' });
    startAs(65534, { JOB_ID: '9999', PATH: '/usr/bin:/bin' });
    // An empty sysfs: a real job cgroup on this machine (another test's Slurm job) is not this test's.
    mkdirSync(join(work, 'sys'));
    const exporter = await startExporter([
      '--collector.disable-defaults',
      '--collector.cgroup',
      `--collector.cgroup.spool-dir=${spool}`,
      '--collector.cgroup.sample-interval=100ms',
      `--path.sysfs=${join(work, 'sys')}`,
    ]);
    try {
      // The job's shell has exec'd into `sleep`: one process, its own time and its reaped children's.
      let expected: { user: number; system: number; rss: number; hwm: number } | undefined;
      let seen: Sample[] = [];
      for (let tries = 0; tries < 300; tries++) {
        try {
          const t = ticks(job.pid!);
          if (readFileSync(`/proc/${job.pid}/cmdline`, 'latin1').startsWith('sleep')) expected = { ...t, rss: kib(job.pid!, 'VmRSS'), hwm: kib(job.pid!, 'VmHWM') };
        } catch {
          /* not started yet */
        }
        seen = parseExposition(await scrape(`${exporter.url}/metrics`));
        if (expected && value(seen, 'jobio_job_cpu_user_seconds_total') === expected.user && value(seen, 'jobio_job_memory_bytes') === expected.rss) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      assert.ok(expected, 'the job process started');
      const job4711 = seen
        .filter((x) => x.labels.jobid !== undefined && x.name !== 'jobio_job_memory_peak_bytes')
        .map((x) => `${x.name}{jobid="${x.labels.jobid}",user="${x.labels.user}"} ${x.value}`);
      assert.deepEqual(job4711, [
        `jobio_job_cpu_user_seconds_total{jobid="4711",user="nobody"} ${expected.user}`,
        `jobio_job_cpu_system_seconds_total{jobid="4711",user="nobody"} ${expected.system}`,
        `jobio_job_memory_bytes{jobid="4711",user="nobody"} ${expected.rss}`,
      ]);
      // The peak is sampled (while the shell and a child ran, both counted) or the process's own VmHWM.
      const peak = value(seen, 'jobio_job_memory_peak_bytes') ?? 0;
      assert.ok(peak >= Math.max(expected.rss, expected.hwm), `peak ${peak}`);
      assert.ok(expected.user + expected.system > 0, 'the forked children’s CPU reached the job (cutime)');
      assert.equal(seen.find((x) => x.name === 'jobio_cgroup_process_jobs')?.value, 1);
      t.diagnostic(`job 4711: CPU user ${expected.user} s, system ${expected.system} s, memory ${expected.rss} B, peak ${peak} B`);
      // The job ends: its final CPU and peak stay, its current memory goes.
      job.kill('SIGKILL');
      let after: Sample[] = [];
      for (let tries = 0; tries < 100; tries++) {
        after = parseExposition(await scrape(`${exporter.url}/metrics`));
        if (value(after, 'jobio_job_memory_bytes') === undefined) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      assert.deepEqual(
        [
          value(after, 'jobio_job_memory_bytes'),
          value(after, 'jobio_job_cpu_user_seconds_total'),
          value(after, 'jobio_job_memory_peak_bytes'),
          after.find((x) => x.name === 'jobio_cgroup_finished_jobs')?.value,
        ],
        [undefined, expected.user, peak, 1],
      );
    } finally {
      await exporter.stop();
    }
  },
);
