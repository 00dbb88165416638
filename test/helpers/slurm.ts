// A private single-node Slurm (Debian slurm-wlm 22.05 + munge) for tests, after
// docs/slurm.md: slurm.conf and cgroup.conf in a temporary directory,
// state, spool, logs and PID files inside it, ports chosen free on 127.0.0.1, `SLURM_CONF` handed to
// every client (and so to the jobs). Variant A (cgroup v1 job cgroups: proctrack/task/jobacct
// cgroup) where the host has writable v1 cpuacct and memory controllers, else the baseline without
// cgroups; `cgroups` and `variantReason` say which and why.
//
// Outcomes of startSlurm():
//   - the Slurm or munge programs are missing: throws (the test FAILS with the apt-get command, as
//     requireBinary does for every other program the tests need);
//   - the daemons cannot run here for a reason outside the project (not root, munged or slurmd
//     refusing, the node never becomes idle): resolves to { skip: reason } so the test can
//     t.skip(reason) and print it, never pass silently;
//   - else { cluster }: the node is idle. cluster.stop() cancels every job, stops slurmd then
//     slurmctld by PID, stops munged if this helper started it, kills any process still carrying
//     this instance's SLURM_CONF, and removes the directory. A process exit handler does the same
//     best-effort, so daemons never outlive the test process.
// One instance per host at a time: a lock file (with the owner's PID) serialises concurrent users,
// since every instance uses the same node name and so the same cgroup directories.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import type { TestContext } from 'node:test';
import { chmodSync, closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, rmdirSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './prometheus.js';
import { findBinary } from './binaries.js';

const APT = 'apt-get install -y slurm-wlm munge';
const LOCK = '/tmp/jobio-slurm-test.lock'; // fixed, whatever TMPDIR says: one instance per host

export interface TestUser {
  readonly name: string;
  readonly uid: number;
  readonly gid: number;
}

export interface SubmitOptions {
  /** The batch script's text (with its #! line). */
  readonly script: string;
  /** Submit as this user (default root). */
  readonly user?: TestUser;
  /** Extra sbatch arguments (--mem, --time …). */
  readonly args?: readonly string[];
  /** Added to the job's environment (sbatch exports its whole environment to the job). */
  readonly env?: NodeJS.ProcessEnv;
}

export interface SlurmCluster {
  readonly dir: string;
  /** A directory (mode 1777) for job scripts, outputs and data. */
  readonly work: string;
  readonly conf: string;
  /** NodeName = `hostname -s`. */
  readonly node: string;
  readonly cgroups: 'v1' | 'none';
  readonly variantReason: string;
  /** PATH and SLURM_CONF for client commands. */
  readonly env: NodeJS.ProcessEnv;
  /** Runs a client command (squeue, scontrol …) and returns its stdout; throws on failure. */
  client(cmd: string, args: readonly string[], user?: TestUser): string;
  submit(opts: SubmitOptions): string;
  /** The job's state from squeue, else from `scontrol show job` (finished jobs stay MinJobAge = 300 s). */
  state(jobid: string): string | undefined;
  /** Polls until the job's state is one of `states`; throws with the logs after timeoutMs. */
  waitState(jobid: string, states: readonly string[], timeoutMs?: number): Promise<string>;
  /** Polls until the job has ended (any state but PENDING/CONFIGURING/RUNNING/COMPLETING/SUSPENDED). */
  waitEnded(jobid: string, timeoutMs?: number): Promise<string>;
  cancel(jobid: string): void;
  /** The output file of a job submitted with submit() (its -o). */
  output(jobid: string): string;
  describe(): string;
  logs(): string;
  stop(): Promise<void>;
}

export type SlurmStart = { readonly cluster: SlurmCluster; readonly skip?: undefined } | { readonly cluster?: undefined; readonly skip: string };

function findProgram(name: string): string {
  const found = findBinary(name, ['/usr/sbin', '/sbin', '/usr/bin']);
  if (found !== undefined) return found;
  throw new Error(`${name} is not installed: the Slurm tests need a real slurmctld, slurmd and munge (Debian: ${APT}; .ci/run installs them)`);
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function waitExit(pid: number, timeoutMs: number): Promise<boolean> {
  const until = Date.now() + timeoutMs;
  while (alive(pid)) {
    if (Date.now() > until) return false;
    await sleep(50);
  }
  return true;
}

function tail(path: string, lines = 15): string {
  try {
    return readFileSync(path, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

/** Creates (once) a real login-less user with a uid >= 1000, so the exporter names it. */
export function ensureUser(name: string): TestUser {
  const id = (flag: string): number => Number(spawnSync('id', [flag, name], { encoding: 'utf8' }).stdout.trim());
  if (spawnSync('id', ['-u', name]).status !== 0) {
    const r = spawnSync(findProgram('useradd'), ['-M', '-s', '/bin/sh', '-K', 'UID_MIN=2000', name], { encoding: 'utf8' });
    if (r.status !== 0 && spawnSync('id', ['-u', name]).status !== 0) throw new Error(`useradd ${name} failed: ${r.stderr}`);
  }
  const user = { name, uid: id('-u'), gid: id('-g') };
  if (!(user.uid >= 1000)) throw new Error(`user ${name} exists with uid ${user.uid} < 1000: the exporter would report it as _system`);
  return user;
}

/** The lock: O_EXCL file holding our PID; a lock whose owner is gone is taken over. */
async function acquireLock(timeoutMs: number): Promise<boolean> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    try {
      const fd = openSync(LOCK, 'wx');
      writeFileSync(fd, String(process.pid));
      closeSync(fd);
      return true;
    } catch {
      const owner = Number(readFileSync(LOCK, { encoding: 'utf8', flag: 'a+' }).trim());
      if (!owner || !alive(owner) || owner === process.pid) {
        rmSync(LOCK, { force: true });
        continue;
      }
      if (Date.now() > until) return false;
      await sleep(200);
    }
  }
}

function releaseLock(): void {
  try {
    if (Number(readFileSync(LOCK, 'utf8').trim()) === process.pid) unlinkSync(LOCK);
  } catch {
    // already gone
  }
}

/** Writable cgroup v1 cpuacct and memory hierarchies (Slurm 22.05's cgroup/v1 plugin), or why not. */
function cgroupV1Support(): { ok: boolean; reason: string } {
  let mounts = '';
  try {
    mounts = readFileSync('/proc/self/mounts', 'utf8');
  } catch {
    return { ok: false, reason: '/proc/self/mounts unreadable' };
  }
  const v1 = mounts
    .split('\n')
    .map((l) => l.split(' '))
    .filter((f) => f[2] === 'cgroup');
  const need = ['cpuacct', 'memory', 'cpuset', 'freezer'];
  const missing = need.filter((c) => !v1.some((f) => (f[3] ?? '').split(',').includes(c) && !(f[3] ?? '').split(',').includes('ro')));
  if (missing.length > 0) return { ok: false, reason: `no writable cgroup v1 ${missing.join(', ')} controller (cgroup v2 only hosts need a systemd-less v2 setup that 22.05 does not support here)` };
  return { ok: true, reason: 'writable cgroup v1 cpuacct, memory, cpuset and freezer controllers' };
}

function slurmConf(dir: string, node: string, ports: { ctld: number; slurmd: number }, cgroups: boolean, extra: readonly string[]): string {
  const lines = [
    'ClusterName=jobiotest',
    `SlurmctldHost=${node}(127.0.0.1)`,
    'SlurmUser=root',
    'SlurmdUser=root',
    'AuthType=auth/munge',
    'CredType=cred/munge',
    'MpiDefault=none',
    cgroups ? 'ProctrackType=proctrack/cgroup' : 'ProctrackType=proctrack/linuxproc',
    cgroups ? 'TaskPlugin=task/cgroup' : 'TaskPlugin=task/none',
    cgroups ? 'JobAcctGatherType=jobacct_gather/cgroup' : 'JobAcctGatherType=jobacct_gather/none',
    'AccountingStorageType=accounting_storage/none',
    'JobCompType=jobcomp/none',
    'SchedulerType=sched/backfill',
    'SelectType=select/cons_tres',
    cgroups ? 'SelectTypeParameters=CR_Core_Memory' : 'SelectTypeParameters=CR_Core',
    ...(cgroups ? ['DefMemPerCPU=500'] : []),
    'ReturnToService=2',
    `StateSaveLocation=${join(dir, 'state')}`,
    `SlurmdSpoolDir=${join(dir, 'spool')}`,
    `SlurmctldPidFile=${join(dir, 'slurmctld.pid')}`,
    `SlurmdPidFile=${join(dir, 'slurmd.pid')}`,
    `SlurmctldPort=${ports.ctld}`,
    `SlurmdPort=${ports.slurmd}`,
    `SlurmctldLogFile=${join(dir, 'slurmctld.log')}`,
    `SlurmdLogFile=${join(dir, 'slurmd.log')}`,
    'SlurmctldDebug=info',
    'SlurmdDebug=info',
    'SlurmctldTimeout=30',
    'SlurmdTimeout=30',
    'InactiveLimit=0',
    'MinJobAge=300',
    'KillWait=2',
    'Waittime=0',
    // The scheduler's first pass comes ~3 s after start; later submissions are scheduled at once.
    'SchedulerParameters=sched_interval=2',
    `NodeName=${node} NodeAddr=127.0.0.1 CPUs=2 RealMemory=4000 State=UNKNOWN`,
    'PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP',
    ...extra,
  ];
  return `${lines.join('\n')}\n`;
}

const CGROUP_CONF = ['CgroupPlugin=cgroup/v1', 'CgroupAutomount=no', 'ConstrainCores=yes', 'ConstrainRAMSpace=yes', 'ConstrainDevices=no', ''].join('\n');

interface Munge {
  readonly startedPid?: number;
}

function mungeWorks(munge: string, unmunge: string): boolean {
  const cred = spawnSync(munge, ['-n'], { encoding: 'utf8', timeout: 5000 });
  if (cred.status !== 0) return false;
  return spawnSync(unmunge, [], { input: cred.stdout, encoding: 'utf8', timeout: 5000 }).status === 0;
}

/** munged as the munge user (the key is munge's), started only if no working one answers. */
async function ensureMunge(): Promise<Munge | string> {
  const munged = findProgram('munged');
  const munge = findProgram('munge');
  const unmunge = findProgram('unmunge');
  if (mungeWorks(munge, unmunge)) return {};
  const pw = spawnSync('id', ['-u', 'munge'], { encoding: 'utf8' });
  if (pw.status !== 0) return 'the munge user does not exist (the munge package postinst creates it)';
  const uid = Number(pw.stdout.trim());
  const gid = Number(spawnSync('id', ['-g', 'munge'], { encoding: 'utf8' }).stdout.trim());
  mkdirSync('/run/munge', { recursive: true });
  spawnSync('chown', ['munge:munge', '/run/munge']);
  chmodSync('/run/munge', 0o755);
  const r = spawnSync(munged, [], { uid, gid, encoding: 'utf8', timeout: 10_000 });
  if (r.status !== 0) return `munged refused to start: ${(r.stderr || r.stdout).trim()}`;
  const until = Date.now() + 10_000;
  while (!mungeWorks(munge, unmunge)) {
    if (Date.now() > until) return 'munged started but `munge -n | unmunge` never succeeded';
    await sleep(100);
  }
  let pid: number | undefined;
  try {
    pid = Number(readFileSync('/run/munge/munged.pid', 'utf8').trim()) || undefined;
  } catch {
    pid = undefined;
  }
  return { startedPid: pid };
}

/** PIDs of processes whose environment names this instance (its daemons' children and its jobs). */
export function processesOf(marker: string): number[] {
  const pids: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      if (readFileSync(`/proc/${name}/environ`).includes(marker)) pids.push(Number(name));
    } catch {
      // gone, or a kernel thread
    }
  }
  return pids;
}

/** rmdir, deepest first; a cgroup that still has processes refuses (EBUSY) and is left alone. */
function removeEmptyCgroups(dir: string): void {
  let entries: string[] = [];
  try {
    entries = readdirSync(dir, { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => d.name);
  } catch {
    return;
  }
  for (const name of entries) removeEmptyCgroups(join(dir, name));
  try {
    rmdirSync(dir);
  } catch {
    // busy or gone
  }
}

/**
 * Leftovers of an instance whose test process was killed before its exit handler ran: its daemons
 * and jobs (they carry JOBIO_SLURM_INSTANCE; we hold the lock, so none is live) and, when no other
 * slurmd runs here, the job cgroups they left (a fresh state directory restarts job ids at 1).
 */
async function cleanLeftovers(node: string): Promise<void> {
  const stale = processesOf('JOBIO_SLURM_INSTANCE=');
  for (const pid of stale) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
  const dead = (pid: number | string): boolean => {
    try {
      return /^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
    } catch {
      return true;
    }
  };
  const until = Date.now() + 5000;
  while (stale.some((pid) => !dead(pid)) && Date.now() < until) await sleep(50);
  const otherSlurmd = readdirSync('/proc').some((p) => {
    try {
      return /^\d+$/.test(p) && readFileSync(`/proc/${p}/comm`, 'utf8').trim() === 'slurmd' && !dead(p);
    } catch {
      return false;
    }
  });
  // Instance directories of killed runs (each holds a slurm.conf; ours does not exist yet).
  for (const name of readdirSync(tmpdir())) {
    if (name.startsWith('jobio-slurm-') && existsSync(join(tmpdir(), name, 'slurm.conf'))) rmSync(join(tmpdir(), name), { recursive: true, force: true });
  }
  if (otherSlurmd) return;
  for (const controller of ['cpuacct', 'memory', 'cpuset', 'freezer', 'devices']) {
    for (const uidDir of (() => {
      try {
        return readdirSync(`/sys/fs/cgroup/${controller}/slurm_${node}`).filter((n) => n.startsWith('uid_'));
      } catch {
        return [];
      }
    })()) {
      removeEmptyCgroups(`/sys/fs/cgroup/${controller}/slurm_${node}/${uidDir}`);
    }
  }
}

export interface StartOptions {
  readonly lockTimeoutMs?: number;
  /** Extra slurm.conf lines (Prolog=, Epilog= …), appended after the node and partition. */
  readonly extraConf?: readonly string[];
}

export async function startSlurm(opts: StartOptions = {}): Promise<SlurmStart> {
  const bin = {
    slurmctld: findProgram('slurmctld'),
    slurmd: findProgram('slurmd'),
    sbatch: findProgram('sbatch'),
    squeue: findProgram('squeue'),
    scontrol: findProgram('scontrol'),
    scancel: findProgram('scancel'),
    sinfo: findProgram('sinfo'),
  };
  findProgram('munged');
  if (process.getuid?.() !== 0) return { skip: 'a private Slurm needs root (slurmd runs jobs as their users, munged as munge); run the tests as root as CI does' };
  if (!(await acquireLock(opts.lockTimeoutMs ?? 120_000))) return { skip: `another test process holds ${LOCK} (one private Slurm per host) for over 2 minutes` };

  const munge = await ensureMunge();
  if (typeof munge === 'string') {
    releaseLock();
    return { skip: munge };
  }

  const node = hostname().split('.')[0] ?? 'localhost';
  await cleanLeftovers(node);
  // JOBIO_SLURM_CGROUPS=none forces the baseline (to exercise it on a host that has cgroup v1).
  const support = process.env.JOBIO_SLURM_CGROUPS === 'none' ? { ok: false, reason: 'JOBIO_SLURM_CGROUPS=none' } : cgroupV1Support();
  const attempts: Array<{ cgroups: boolean; reason: string }> = support.ok ? [{ cgroups: true, reason: support.reason }] : [];
  attempts.push({ cgroups: false, reason: support.ok ? '' : support.reason });
  const failures: string[] = [];

  for (const attempt of attempts) {
    const dir = mkdtempSync(join(tmpdir(), 'jobio-slurm-'));
    chmodSync(dir, 0o755); // jobs run as their users from the spool directory
    const work = join(dir, 'work');
    mkdirSync(work);
    chmodSync(work, 0o1777);
    mkdirSync(join(dir, 'state'));
    mkdirSync(join(dir, 'spool'));
    const ports = { ctld: await freePort(), slurmd: await freePort() };
    const conf = join(dir, 'slurm.conf');
    writeFileSync(conf, slurmConf(dir, node, ports, attempt.cgroups, opts.extraConf ?? []));
    if (attempt.cgroups) writeFileSync(join(dir, 'cgroup.conf'), CGROUP_CONF);
    const marker = `JOBIO_SLURM_INSTANCE=${dir}`;
    const env: NodeJS.ProcessEnv = { PATH: `${process.env.PATH ?? '/usr/bin:/bin'}:/usr/sbin:/sbin`, SLURM_CONF: conf, LANG: 'C.UTF-8', JOBIO_SLURM_INSTANCE: dir };
    const daemon = (file: string, args: string[], log: string): ChildProcess => {
      const fd = openSync(join(dir, log), 'a');
      const child = spawn(file, args, { detached: true, stdio: ['ignore', fd, fd], env });
      closeSync(fd);
      child.unref();
      child.on('error', () => undefined);
      return child;
    };
    const ctld = daemon(bin.slurmctld, ['-D', '-i', '-f', conf], 'slurmctld.out');
    const slurmd = daemon(bin.slurmd, ['-D', '-f', conf], 'slurmd.out');
    const daemons = [slurmd, ctld];
    const killAll = (): void => {
      for (const d of daemons) if (d.pid && d.exitCode === null && d.signalCode === null) process.kill(d.pid, 'SIGKILL');
      for (const pid of processesOf(marker)) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // gone
        }
      }
    };
    const onExit = (): void => {
      killAll();
      rmSync(dir, { recursive: true, force: true });
      releaseLock();
    };
    process.once('exit', onExit);

    const logs = (): string => ['slurmctld.out', 'slurmctld.log', 'slurmd.out', 'slurmd.log'].map((f) => `--- ${f}\n${tail(join(dir, f))}`).join('\n');
    const run = (file: string, args: readonly string[], user?: TestUser, input?: string) =>
      spawnSync(file, args, {
        env: { ...env, ...(user ? { HOME: work, USER: user.name, LOGNAME: user.name } : {}) },
        encoding: 'utf8',
        timeout: 20_000,
        cwd: work,
        input,
        ...(user ? { uid: user.uid, gid: user.gid } : {}),
      });

    // Ready: the node reports idle (poll; never a fixed sleep).
    let ready = false;
    let last = '';
    const until = Date.now() + 30_000;
    while (Date.now() < until) {
      if (daemons.some((d) => d.exitCode !== null || d.signalCode !== null)) break;
      const r = run(bin.sinfo, ['-h', '-N', '-o', '%T']);
      last = `${r.stdout}${r.stderr}`.trim();
      if (r.status === 0 && /^(idle|mixed)/.test(last)) {
        ready = true;
        break;
      }
      await sleep(100);
    }
    if (!ready) {
      const exited = daemons.filter((d) => d.exitCode !== null || d.signalCode !== null).map((d) => (d === ctld ? 'slurmctld' : 'slurmd'));
      failures.push(`${attempt.cgroups ? 'variant A (cgroup v1)' : 'baseline'}: ${exited.length ? `${exited.join(' and ')} exited` : `node not idle after 30 s (sinfo: ${last})`}\n${logs()}`);
      killAll();
      process.off('exit', onExit);
      rmSync(dir, { recursive: true, force: true });
      continue;
    }

    const submitted: string[] = [];
    const client = (cmd: string, args: readonly string[], user?: TestUser): string => {
      const r = run(findProgram(cmd), args, user);
      if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')}: exit ${r.status}: ${r.stderr.trim()}`);
      return r.stdout;
    };
    const state = (jobid: string): string | undefined => {
      const q = run(bin.squeue, ['-h', '-j', jobid, '-o', '%T']);
      if (q.status === 0 && q.stdout.trim() !== '') return q.stdout.trim();
      const s = run(bin.scontrol, ['show', 'job', '-o', jobid]);
      return /JobState=(\S+)/.exec(s.stdout)?.[1];
    };
    const waitState = async (jobid: string, states: readonly string[], timeoutMs = 30_000): Promise<string> => {
      const deadline = Date.now() + timeoutMs;
      let seen: string | undefined;
      for (;;) {
        seen = state(jobid);
        if (seen !== undefined && states.includes(seen)) return seen;
        if (Date.now() > deadline) {
          const job = run(bin.scontrol, ['show', 'job', jobid]).stdout;
          throw new Error(`job ${jobid} did not reach ${states.join('/')} within ${timeoutMs} ms (last: ${seen})\n${job}\n--- job output\n${tail(join(work, `job-${jobid}.out`), 30)}\n${logs()}`);
        }
        await sleep(100);
      }
    };
    const ACTIVE = ['PENDING', 'CONFIGURING', 'RUNNING', 'COMPLETING', 'SUSPENDED', 'REQUEUED', 'RESIZING', 'SIGNALING', 'STAGE_OUT'];
    let stopped = false;
    const cluster: SlurmCluster = {
      dir,
      work,
      conf,
      node,
      cgroups: attempt.cgroups ? 'v1' : 'none',
      variantReason: attempt.cgroups
        ? `variant A, job cgroups v1 (${attempt.reason})`
        : `baseline without cgroups (${[attempt.reason, ...failures.map((f) => f.split('\n')[0])].filter(Boolean).join('; ')})`,
      env,
      client,
      submit({ script, user, args = [], env: extra = {} }) {
        const path = join(work, `script-${submitted.length + 1}.sh`);
        writeFileSync(path, script, { mode: 0o755 });
        const r = spawnSync(bin.sbatch, ['--parsable', `--chdir=${work}`, '-o', join(work, 'job-%j.out'), '--time=5', ...args, path], {
          env: { ...env, ...(user ? { HOME: work, USER: user.name, LOGNAME: user.name } : { HOME: work }), ...extra },
          encoding: 'utf8',
          timeout: 20_000,
          cwd: work,
          ...(user ? { uid: user.uid, gid: user.gid } : {}),
        });
        if (r.status !== 0) throw new Error(`sbatch ${path} as ${user?.name ?? 'root'}: ${r.stderr.trim()}`);
        const jobid = r.stdout.trim().split(';')[0] ?? '';
        submitted.push(jobid);
        return jobid;
      },
      state,
      waitState,
      async waitEnded(jobid, timeoutMs = 30_000) {
        const deadline = Date.now() + timeoutMs;
        for (;;) {
          const s = state(jobid);
          if (s !== undefined && !ACTIVE.includes(s)) return s;
          if (Date.now() > deadline) return waitState(jobid, ['(ended)'], 0);
          await sleep(100);
        }
      },
      cancel(jobid) {
        run(bin.scancel, [jobid]);
      },
      output: (jobid) => join(work, `job-${jobid}.out`),
      describe: () =>
        `Slurm 22.05 single node ${node} on 127.0.0.1:${ports.ctld}/${ports.slurmd}, ${cluster.variantReason}, munge ${munge.startedPid ? `started (pid ${munge.startedPid})` : 'already running'}`,
      logs,
      async stop() {
        if (stopped) return;
        stopped = true;
        // 1. Cancel every job (slurmstepd would otherwise outlive slurmd) and let them leave.
        const ids = run(bin.squeue, ['-h', '-o', '%i']).stdout.split('\n').filter(Boolean);
        if (ids.length > 0) run(bin.scancel, ids);
        const deadline = Date.now() + 15_000;
        while (
          Date.now() < deadline &&
          run(bin.squeue, ['-h', '-t', 'all', '-o', '%i %T'])
            .stdout.split('\n')
            .some((l) => / (RUNNING|COMPLETING|PENDING|CONFIGURING)$/.test(l))
        )
          await sleep(100);
        // 2. slurmd, then slurmctld (it saves its state first), by PID.
        for (const [d, ms] of [
          [slurmd, 10_000],
          [ctld, 15_000],
        ] as const) {
          if (!d.pid || d.exitCode !== null || d.signalCode !== null) continue;
          process.kill(d.pid, 'SIGTERM');
          if (!(await waitExit(d.pid, ms))) process.kill(d.pid, 'SIGKILL');
          await waitExit(d.pid, 5000);
        }
        // 3. Leftovers (a slurmstepd or job process still carrying this instance's environment).
        for (const pid of processesOf(marker)) {
          try {
            process.kill(pid, 'SIGKILL');
          } catch {
            // gone
          }
        }
        // 4. munged only if we started it.
        if (munge.startedPid && alive(munge.startedPid)) {
          process.kill(munge.startedPid, 'SIGTERM');
          await waitExit(munge.startedPid, 5000);
        }
        process.off('exit', onExit);
        rmSync(dir, { recursive: true, force: true });
        releaseLock();
      },
    };
    return { cluster };
  }
  if (munge.startedPid && alive(munge.startedPid)) process.kill(munge.startedPid, 'SIGTERM');
  releaseLock();
  return { skip: `Slurm daemons could not start on this host:\n${failures.join('\n')}` };
}

/**
 * Runs `body` on a started Slurm with its login-less test user, and stops the cluster after, whatever
 * the body did. Where the daemons cannot run here, the test is skipped with the reason (never a silent
 * pass) and `body` does not run.
 */
export async function onSlurm(t: TestContext, opts: StartOptions, body: (s: SlurmCluster, user: TestUser) => Promise<void>): Promise<void> {
  const started = await startSlurm(opts);
  try {
    if (started.skip !== undefined) {
      t.skip(started.skip);
      return;
    }
    const s = started.cluster;
    t.diagnostic(s.describe());
    await body(s, ensureUser('jobiotest'));
  } finally {
    await started.cluster?.stop();
  }
}
