// A private single-node Grid Engine (Debian gridengine 8.1.9) for tests: its own SGE_ROOT, cell
// `test`, Berkeley DB spool, execd spool and accounting under a temporary directory, qmaster and execd
// ports chosen free, both daemons run as root (admin_user root) with a cleared environment (jobs
// inherit the execd's), host_aliases mapping this host's name to `localhost` (Grid Engine compares a
// peer's reverse-resolved name with the name it gives, and 127.0.0.1 resolves to localhost), min_uid
// and min_gid 0, one queue all.q with 2 slots, scheduling every second. Only the installed binaries
// (/var/lib/gridengine/{bin,lib,utilbin}) are shared with the system's own cluster.
//
// Outcomes of startGridEngine(): the packages missing: throws (the test FAILS with the apt-get
// command); not root, or the daemons not coming up: { skip: reason } (printed by the test, never a
// silent pass); else { cluster } with the queue instance reporting load. cluster.stop() deletes every
// job, kills execd, qmaster and any process still carrying this instance's marker, by PID, and removes
// the directory; a process exit handler does the same.
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './prometheus.js';
import { processesOf, type TestUser } from './slurm.js';

const APT = 'apt-get install -y gridengine-master gridengine-exec gridengine-client';
const LIB = '/usr/lib/gridengine';
const CELL = 'test';

export interface GeSubmitOptions {
  readonly script: string;
  readonly user?: TestUser;
  /** Extra qsub arguments (-N, -P, -t …). */
  readonly args?: readonly string[];
}

export interface GeAccounting {
  readonly exitStatus: number;
  readonly failed: string;
  /** The qacct record's fields (qname, owner, project, jobname, taskid …), one record per task. */
  readonly fields: Record<string, string>;
}

export interface GridEngineCluster {
  readonly root: string;
  /** A directory (mode 1777) for job scripts, outputs and data; jobs are submitted with -cwd here. */
  readonly work: string;
  readonly host: string;
  /** SGE_ROOT, SGE_CELL, the ports and PATH: what every client (and jobio top's job map) needs. */
  readonly env: NodeJS.ProcessEnv;
  client(cmd: string, args: readonly string[], user?: TestUser): string;
  /** qdel, whatever the jobs' state (an ended job is no error). */
  cancel(...jobids: string[]): void;
  /** qsub -terse; returns the job id (the `<id>` of `<id>.<first>-<last>:<step>` for an array). */
  submit(opts: GeSubmitOptions): string;
  /** Polls until the job (or task) is running on the execd (its active_jobs directory exists). */
  waitRunning(jobid: string, task?: number, timeoutMs?: number): Promise<void>;
  /** Polls until qacct has the record of the job (or task); throws with the logs after timeoutMs. */
  waitEnded(jobid: string, task?: number, timeoutMs?: number): Promise<GeAccounting>;
  /** Output file of a job (-o <work>/job-<id>[.<task>].out, -j y). */
  output(jobid: string, task?: number): string;
  logs(): string;
  stop(): Promise<void>;
}

export type GridEngineStart = { readonly cluster: GridEngineCluster; readonly skip?: undefined } | { readonly cluster?: undefined; readonly skip: string };

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

function tail(path: string, lines = 20): string {
  try {
    return readFileSync(path, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no file)';
  }
}

function kill(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // gone
  }
}

export interface GeStartOptions {
  /** Queue attributes set on all.q (prolog, epilog, starter_method …), as `name value`. */
  readonly queue?: Readonly<Record<string, string>>;
}

export async function startGridEngine(opts: GeStartOptions = {}): Promise<GridEngineStart> {
  for (const program of ['sge_qmaster', 'sge_execd', 'qconf', 'qsub', 'qstat', 'qacct', 'spoolinit', 'spooldefaults']) {
    if (!existsSync(join(LIB, program))) throw new Error(`${join(LIB, program)} is missing: the Grid Engine tests need a real qmaster and execd (Debian: ${APT}; .ci/run installs them)`);
  }
  if (process.getuid?.() !== 0) return { skip: 'a private Grid Engine needs root (execd runs jobs as their users); run the tests as root as CI does' };

  const root = mkdtempSync(join(tmpdir(), 'jobio-ge-'));
  chmodSync(root, 0o755);
  const host = hostname();
  const work = join(root, 'work');
  const spool = join(root, 'spool');
  for (const d of [work, join(root, CELL, 'common'), join(spool, 'qmaster', 'job_scripts'), join(spool, 'spooldb'), join(spool, 'execd')]) mkdirSync(d, { recursive: true });
  chmodSync(work, 0o1777);
  for (const d of ['bin', 'lib', 'utilbin']) symlinkSync(`/var/lib/gridengine/${d}`, join(root, d));
  symlinkSync('/usr/share/gridengine/util', join(root, 'util'));
  const marker = `JOBIO_GE_INSTANCE=${root}`;
  const ports = { qmaster: await freePort(), execd: await freePort() };
  const env: NodeJS.ProcessEnv = {
    PATH: '/usr/sbin:/usr/bin:/sbin:/bin',
    LANG: 'C.UTF-8',
    HOME: '/root',
    SGE_ROOT: root,
    SGE_CELL: CELL,
    SGE_QMASTER_PORT: String(ports.qmaster),
    SGE_EXECD_PORT: String(ports.execd),
    JOBIO_GE_INSTANCE: root,
  };
  const edit = (text: string, values: Record<string, string>): string =>
    text
      .split('\n')
      .map((line) => {
        const key = line.split(/\s+/)[0] ?? '';
        return key in values ? `${key} ${values[key]}` : line;
      })
      .join('\n');
  writeFileSync(
    join(root, CELL, 'common', 'bootstrap'),
    edit(readFileSync('/usr/share/gridengine/default-bootstrap', 'utf8'), { admin_user: 'root', spooling_params: join(spool, 'spooldb'), qmaster_spool_dir: join(spool, 'qmaster') }),
  );
  writeFileSync(join(root, CELL, 'common', 'act_qmaster'), `${host}\n`);
  writeFileSync(join(root, CELL, 'common', 'host_aliases'), `${host} localhost\n`);
  writeFileSync(join(root, 'global.conf'), edit(readFileSync('/usr/share/gridengine/default-configuration', 'utf8'), { execd_spool_dir: join(spool, 'execd'), min_uid: '0', min_gid: '0' }));

  const run = (file: string, args: readonly string[], user?: TestUser) =>
    spawnSync(file, args, {
      env: { ...env, ...(user ? { HOME: work, USER: user.name, LOGNAME: user.name } : {}) },
      encoding: 'utf8',
      timeout: 20_000,
      cwd: work,
      ...(user ? { uid: user.uid, gid: user.gid } : {}),
    });
  const must = (file: string, args: readonly string[], user?: TestUser): string => {
    const r = run(file, args, user);
    if (r.status !== 0) throw new Error(`${file} ${args.join(' ')}: exit ${r.status}: ${(r.stderr || r.stdout).trim()}`);
    return r.stdout;
  };
  const pidFiles = [join(spool, 'qmaster', 'qmaster.pid'), join(spool, 'execd', 'localhost', 'execd.pid'), join(spool, 'execd', host, 'execd.pid')];
  const daemonPids = (): number[] =>
    pidFiles.flatMap((f) => {
      const pid = Number(tail(f, 1).trim());
      return Number.isInteger(pid) && pid > 0 ? [pid] : [];
    });
  const killAll = (): void => {
    for (const pid of [...daemonPids(), ...processesOf(marker)]) kill(pid, 'SIGKILL');
  };
  const onExit = (): void => {
    killAll();
    rmSync(root, { recursive: true, force: true });
  };
  process.once('exit', onExit);
  const logs = (): string => [join(spool, 'qmaster', 'messages'), join(spool, 'execd', 'localhost', 'messages'), join(spool, 'execd', host, 'messages')].map((f) => `--- ${f}\n${tail(f)}`).join('\n');
  const fail = (why: string): GridEngineStart => {
    const text = `${why}\n${logs()}`;
    killAll();
    process.off('exit', onExit);
    rmSync(root, { recursive: true, force: true });
    return { skip: `Grid Engine could not start here: ${text}` };
  };

  // The cluster's database, as /usr/share/gridengine/scripts/init_cluster makes it, with our config.
  try {
    must(join(LIB, 'spoolinit'), ['berkeleydb', 'libspoolb', join(spool, 'spooldb'), 'init']);
    must(join(LIB, 'spooldefaults'), ['configuration', join(root, 'global.conf')]);
    must(join(LIB, 'spooldefaults'), ['complexes', '/usr/share/gridengine/util/resources/centry']);
    must(join(LIB, 'spooldefaults'), ['usersets', '/usr/share/gridengine/util/resources/usersets']);
    must(join(LIB, 'spooldefaults'), ['managers', 'root']);
    must(join(LIB, 'sge_qmaster'), []); // daemonizes; its PID is in qmaster.pid
  } catch (err) {
    return fail((err as Error).message);
  }
  const qconf = join(LIB, 'qconf');
  let until = Date.now() + 30_000;
  while (run(qconf, ['-sh']).status !== 0) {
    if (Date.now() > until) return fail('qmaster never answered qconf -sh');
    await sleep(100);
  }
  try {
    must(qconf, ['-as', host]);
    // all.q: this host, 2 slots, no parallel environments (the template names ones that do not exist), no load alarm.
    const queueTemplate = spawnSync(qconf, ['-aq', 'all.q'], { env: { ...env, EDITOR: 'cat' }, encoding: 'utf8', timeout: 20_000 }).stdout;
    writeFileSync(join(root, 'all.q'), edit(queueTemplate, { hostlist: host, slots: '2', pe_list: 'NONE', load_thresholds: 'NONE', ...opts.queue }));
    must(qconf, ['-Aq', join(root, 'all.q')]);
    writeFileSync(join(root, 'sconf'), edit(must(qconf, ['-ssconf']), { schedule_interval: '0:0:1', flush_submit_sec: '1', flush_finish_sec: '1' }));
    must(qconf, ['-Msconf', join(root, 'sconf')]);
    must(join(LIB, 'sge_execd'), []);
  } catch (err) {
    return fail((err as Error).message);
  }
  const qstat = join(LIB, 'qstat');
  until = Date.now() + 30_000;
  const instance = new RegExp(`^all\\.q@${host.replace(/\./g, '\\.')} .*lx-amd64 *$`, 'm');
  while (!instance.test(run(qstat, ['-f']).stdout)) {
    if (Date.now() > until) return fail(`the execd never reported load (qstat -f:\n${run(qstat, ['-f']).stdout})`);
    await sleep(200);
  }

  const activeJobs = (): string[] => {
    for (const name of ['localhost', host]) {
      const dir = join(spool, 'execd', name, 'active_jobs');
      if (existsSync(dir)) return spawnSync('ls', [dir], { encoding: 'utf8' }).stdout.split('\n').filter(Boolean);
    }
    return [];
  };
  let stopped = false;
  const cluster: GridEngineCluster = {
    root,
    work,
    host,
    env,
    client: (cmd, args, user) => must(join(LIB, cmd), args, user),
    cancel: (...jobids) => void run(join(LIB, 'qdel'), jobids),
    submit({ script, user, args = [] }) {
      const path = join(work, `script-${Date.now()}-${Math.random().toString(36).slice(2)}.sh`);
      writeFileSync(path, script, { mode: 0o755 });
      const out = must(join(LIB, 'qsub'), ['-terse', '-cwd', '-S', '/bin/sh', '-j', 'y', '-o', join(work, 'job-$JOB_ID.$TASK_ID.out'), ...args, path], user);
      return out.trim().split('.')[0] ?? '';
    },
    async waitRunning(jobid, task, timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      const name = `${jobid}.${task ?? 1}`;
      while (!activeJobs().includes(name)) {
        if (Date.now() > deadline) throw new Error(`job ${name} not running within ${timeoutMs} ms\n${run(qstat, ['-u', '*', '-f']).stdout}\n${logs()}`);
        await sleep(100);
      }
    },
    async waitEnded(jobid, task, timeoutMs = 60_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const r = run(join(LIB, 'qacct'), ['-j', jobid, ...(task !== undefined ? ['-t', String(task)] : [])]);
        if (r.status === 0 && /^exit_status/m.test(r.stdout)) {
          const fields: Record<string, string> = {};
          for (const line of r.stdout.split('\n')) {
            const m = /^(\w+)\s+(.*?)\s*$/.exec(line);
            if (m) fields[m[1]!] = m[2]!;
          }
          return { exitStatus: Number(fields.exit_status), failed: fields.failed ?? '', fields };
        }
        if (Date.now() > deadline) throw new Error(`job ${jobid}${task !== undefined ? `.${task}` : ''} not in qacct within ${timeoutMs} ms\n${run(qstat, ['-u', '*', '-f']).stdout}\n${logs()}`);
        await sleep(200);
      }
    },
    output: (jobid, task) => join(work, `job-${jobid}.${task ?? 0}.out`), // $TASK_ID is 0 for a job that is no array
    logs,
    async stop() {
      if (stopped) return;
      stopped = true;
      run(join(LIB, 'qdel'), ['-u', '*']);
      // Neither daemon's state is worth a controlled shutdown (qmaster takes 10 s): by PID, at once.
      killAll();
      const deadline = Date.now() + 10_000;
      while (Date.now() < deadline && processesOf(marker).length > 0) {
        for (const pid of processesOf(marker)) kill(pid, 'SIGKILL');
        await sleep(50);
      }
      process.off('exit', onExit);
      rmSync(root, { recursive: true, force: true });
    },
  };
  return { cluster };
}
