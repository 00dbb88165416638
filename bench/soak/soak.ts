// The exporter under six local users, four of them hostile, against the real built exporter:
//   - two honest users each run a profiled shell (the real LD_PRELOAD library) that runs `dd` writing
//     50 blocks again and again under its own job id, and prints how many runs it finished;
//   - hostile users 1 and 2 flood forged frames (frame-tool `hostile`: invented processes and mounts,
//     counters jumping between ~1e18 and 1, old sequences, garbage) while squatting on the honest
//     users' job ids; user 3 keeps starting forgers under ever new fake job ids; all four hold idle
//     connections to the profiler socket (user 4 past its uid's share); users 3 and 4 pipeline
//     GET /metrics over HTTP from addresses of their own and never read the answers;
//   - `squeue` (a stand-in, squeue.ts) lists the honest jobs and a job of hostile user 1 whose name
//     and work dir spell forged records; a Lustre job_stats file (served through --path.sysfs) grows
//     by new jobs all along.
// Every few seconds /metrics is scraped: the exporter's RSS is sampled and every *_total series seen
// twice is checked not to have gone down. At the end the honest users' write counts must equal
// 50 × the runs they reported, and jobio_job_info must list exactly the jobs running on the node,
// whole. Used by `npm run bench -- soak` (15 minutes) and by a ~60 s test.
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { scrape, startExporter, type RunningExporter } from '../../test/helpers/exporter.js';
import { ensureUser, type TestUser } from '../../test/helpers/slurm.js';
import { frameTool } from '../../test/profiler/frame-tool.js';
import { mountOf, requireProfilerLibrary } from '../../test/profiler/real-library.js';
import { HOLD_CONNECTIONS, PIPELINE_NO_READ, python } from './hostile.js';
import { forgedRecord, jobInfoLabels, SOAK_NODE, writeSqueue, type SoakJob } from './squeue.js';

export interface SoakOptions {
  readonly durationMs: number;
  /** Between scrapes (default 5 s). */
  readonly scrapeEveryMs?: number;
  readonly log?: (line: string) => void;
}

export interface HonestCount {
  readonly user: string;
  readonly jobid: string;
  readonly runs: number;
  readonly expected: number;
  readonly counted: number;
}

export interface SoakResult {
  readonly durationMs: number;
  readonly scrapes: number;
  /**
   * Exporter RSS in MB: before traffic, at a third of the run (warm: the hostile user has reached its
   * bounds), at the end, the highest sample, and the lowest and highest from a third to the end.
   */
  readonly rssMb: { readonly start: number; readonly warm: number; readonly end: number; readonly max: number; readonly lateMin: number; readonly lateMax: number };
  readonly honest: readonly HonestCount[];
  /** `series: before -> after` for every counter seen going down (must be empty). */
  readonly decreases: readonly string[];
  /** jobio_profiler_records_rejected_total by reason at the end (non-zero ones). */
  readonly rejected: Readonly<Record<string, number>>;
  /** jobio_profiler_user_records_rejected_total by user at the end. */
  readonly rejectedByUser: Readonly<Record<string, number>>;
  /** The same by user and reason, for the honest users (must stay empty). */
  readonly honestRejected: Readonly<Record<string, Readonly<Record<string, number>>>>;
  /** Its `connection_refused` part: profiler socket connections refused at accept, by user. */
  readonly connectionsRefusedByUser: Readonly<Record<string, number>>;
  /** The hostile users' names, hostile user 4 (holding more connections than its share) last. */
  readonly hostileUsers: readonly string[];
  /** Connections hostile user 4 tried to hold, and its uid's share. */
  readonly held: { readonly tried: number; readonly share: number };
  /** jobio_job_info's labels at the end (sorted by job id), and what they must be. */
  readonly jobInfo: { readonly seen: readonly Record<string, string>[]; readonly expected: readonly Record<string, string>[] };
  /** jobio_web_connections_dropped_total by reason at the end (non-zero ones), and the pipelining rounds made. */
  readonly webDropped: Readonly<Record<string, number>>;
  readonly pipelineRounds: number;
  readonly processesMax: number;
  readonly fakeJobsStarted: number;
  readonly lustreJobs: number;
  readonly profilerSeriesMax: number;
}

const BLOCKS = 50;

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
  key: string;
}

function parse(text: string): Sample[] {
  const out: Sample[] = [];
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m?.[1] || m[3] === undefined) continue;
    const labels: Record<string, string> = {};
    for (const pair of (m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[pair[1] ?? ''] = pair[2] ?? '';
    out.push({ name: m[1], labels, value: Number(m[3]), key: `${m[1]}{${m[2] ?? ''}}` });
  }
  return out;
}

function sum(samples: Sample[], name: string, labels: Record<string, string>): number {
  return samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v)).reduce((a, s) => a + s.value, 0);
}

function rssMb(pid: number): number {
  const m = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : 0;
}

/** A job_stats file of `jobs` OST jobs, each having written 1 MiB per `tick`. */
function jobStats(jobs: number, tick: number): string {
  const lines = ['job_stats:'];
  for (let j = 0; j < jobs; j++) {
    const writes = tick * (1 + (j % 7));
    lines.push(
      `- job_id:          soak${j}`,
      `  snapshot_time:   ${1_700_000_000 + tick}`,
      '  read_bytes:      { samples:           0, unit: bytes, min:       0, max:       0, sum:               0 }',
      `  write_bytes:     { samples: ${writes}, unit: bytes, min: 1048576, max: 1048576, sum: ${writes * 1_048_576} }`,
      '  punch:           { samples:           0, unit:  reqs }',
      '  sync:            { samples:           0, unit:  reqs }',
    );
  }
  return `${lines.join('\n')}\n`;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function runSoak(options: SoakOptions): Promise<SoakResult> {
  const log = options.log ?? (() => {});
  const every = options.scrapeEveryMs ?? 5000;
  const dir = mkdtempSync(join(tmpdir(), 'jobio-soak-'));
  chmodSync(dir, 0o755);
  const stop = join(dir, 'stop');
  const socket = join(dir, 'run', 'profiler.sock');
  mkdirSync(join(dir, 'run'), { mode: 0o755 });
  const target = join(dir, 'sys', 'fs', 'lustre', 'obdfilter', 'soak-OST0000');
  mkdirSync(target, { recursive: true });
  let lustreJobs = 10;
  let tick = 1;
  writeFileSync(join(target, 'job_stats'), jobStats(lustreJobs, tick));
  const tool = join(dir, 'frame-tool');
  copyFileSync(frameTool(), tool);
  chmodSync(tool, 0o755);
  const lib = requireProfilerLibrary();

  const honestUsers = [ensureUser('jobiotest'), ensureUser('jobiotest2')];
  const hostile = [ensureUser('jobiohostile'), ensureUser('jobiohostile2'), ensureUser('jobiohostile3'), ensureUser('jobiohostile4')];
  const [hostile1, hostile2, hostile3, hostile4] = hostile as [TestUser, TestUser, TestUser, TestUser];
  // The honest jobs as the scheduler knows them, and hostile user 1's job forging records in its name and work dir.
  const jobs: SoakJob[] = honestUsers.map((user, i) => ({
    jobid: String(7001 + i),
    uid: user.uid,
    user: user.name,
    account: ['physics', 'chemistry'][i] ?? 'physics',
    partition: 'batch',
    name: `honest job ${i + 1}`,
    workDir: join(dir, `work-${user.name}`),
  }));
  const forgedJob: SoakJob = {
    jobid: '7003',
    uid: hostile1.uid,
    user: hostile1.name,
    account: 'hostile',
    partition: 'batch',
    name: `evil${forgedRecord('7001')}","job_id":7004,"user_id":0,"x":"`,
    workDir: join(dir, `run${forgedRecord('7002')}`),
  };
  const squeue = writeSqueue(dir, [...jobs, forgedJob]);
  // A small connection budget, so hostile user 4's idle connections reach its uid's share: 2,048 in
  // all, 256 per uid, a quarter kept for processes in a job cgroup (the honest jobs here have none).
  const connectionShare = 256;
  const heldTried = connectionShare + 44;
  const children: ChildProcess[] = [];
  let exporter: RunningExporter | undefined;
  try {
    exporter = await startExporter([
      `--path.sysfs=${join(dir, 'sys')}`,
      `--collector.profiler.socket=${socket}`,
      '--collector.profiler.max-connections=2048',
      `--collector.profiler.max-connections-per-user=${connectionShare}`,
      '--collector.job_info',
      `--collector.job_info.squeue=${squeue}`,
      `--collector.job_info.node=${SOAK_NODE}`,
      `--collector.job_info.spool-dir=${join(dir, 'spool')}`,
    ]);
    const pid = exporter.child.pid ?? 0;
    const url = `${exporter.url}/metrics`;
    await scrape(url);
    const rssStart = rssMb(pid);

    const as = (user: TestUser, script: string, env: Record<string, string>): ChildProcess => {
      const child = spawn('sh', ['-c', script], { uid: user.uid, gid: user.gid, cwd: dir, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env }, stdio: ['ignore', 'pipe', 'ignore'] });
      children.push(child);
      return child;
    };

    // Honest users: a profiled shell under its job id runs dd until told to stop, printing each run,
    // with a 50 ms pause between runs (an unprofiled sleep): about 15 job processes a second each, not
    // the 65 a tight loop starts, which on a 2-core machine shared with other tests outran its fair
    // turn at the exporter and lost frames as `overloaded` without any attacker's help.
    // Hostile idle connections first (so hostile user 4's refusals are exactly those past its share).
    const holding = [hostile1, hostile2, hostile3, hostile4].map((user) => {
      const child = as(user, `exec ${python()} -c "$HOLD" ${socket} ${user === hostile4 ? heldTried : 200} ${stop}`, { HOLD: HOLD_CONNECTIONS });
      return new Promise<void>((resolve) => child.stdout?.once('data', () => resolve()));
    });
    await Promise.all(holding);

    const honest = honestUsers.map((user, i) => {
      const work = join(dir, `work-${user.name}`);
      mkdirSync(work);
      chownSync(work, user.uid, user.gid);
      const jobid = jobs[i]?.jobid ?? '';
      const child = as(user, `i=0; while [ ! -e ${stop} ]; do dd if=/dev/zero of=${work}/out bs=4k count=${BLOCKS} status=none || exit 1; i=$((i+1)); echo $i; sleep 0.05; done`, {
        LD_PRELOAD: lib,
        JOBIO_EXCLUDE: 'sleep',
        JOBIO_SOCKET: socket,
        SLURM_JOB_ID: jobid,
      });
      let runs = 0;
      if (child.stdout) createInterface({ input: child.stdout }).on('line', (line) => (runs = Number(line)));
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      return { user, jobid, mount: mountOf(work), runs: () => runs, exited };
    });

    // Hostile users 1 and 2: an endless forger each, squatting on an honest job id; user 3: fake jobs one after another.
    const forgers: ChildProcess[] = [];
    for (const [f, user] of [hostile1, hostile2].entries()) {
      const squat = honest[f]?.jobid ?? '';
      forgers.push(as(user, `exec ${tool} send ${socket} hostile ${squat} SLURM_JOB_ID`, { SLURM_JOB_ID: squat, FRAME_TOOL_ROUNDS: '0' }));
    }
    let fakeJobsStarted = 0;
    const fakes = as(
      hostile3,
      `j=0; while [ ! -e ${stop} ]; do j=$((j+1)); echo $j; SLURM_JOB_ID=fake$j FRAME_TOOL_ROUNDS=2 FRAME_TOOL_PROCESSES=8 FRAME_TOOL_MOUNTS=8 ${tool} send ${socket} hostile fake$j SLURM_JOB_ID 2>/dev/null; done`,
      {},
    );
    if (fakes.stdout) createInterface({ input: fakes.stdout }).on('line', (line) => (fakeJobsStarted = Number(line)));
    // Hostile users 3 and 4: HTTP clients pipelining 100 scrapes on each of 4 connections, never reading, every 10 s.
    const port = exporter.port;
    const rounds = [0, 0];
    for (const [p, user] of [hostile3, hostile4].entries()) {
      const client = as(user, `exec ${python()} -c "$PIPELINE" ${port} 127.0.0.${p + 2} 4 100 ${stop}`, { PIPELINE: PIPELINE_NO_READ });
      if (client.stdout) createInterface({ input: client.stdout }).on('line', (line) => (rounds[p] = Number(line)));
    }

    const started = Date.now();
    let previous = new Map<string, number>();
    const decreases: string[] = [];
    let scrapes = 0;
    let rssMax = rssStart;
    let rssWarm = 0;
    const late: number[] = [];
    let processesMax = 0;
    let profilerSeriesMax = 0;
    const check = (samples: Sample[]): void => {
      const now = new Map<string, number>();
      for (const s of samples) {
        if (!s.name.endsWith('_total')) continue;
        now.set(s.key, s.value);
        const before = previous.get(s.key);
        if (before !== undefined && s.value < before) decreases.push(`${s.key}: ${before} -> ${s.value}`);
      }
      previous = now;
      processesMax = Math.max(processesMax, sum(samples, 'jobio_profiler_processes', {}));
      profilerSeriesMax = Math.max(profilerSeriesMax, sum(samples, 'jobio_exporter_series', { collector: 'profiler' }));
    };
    while (Date.now() - started < options.durationMs) {
      await sleep(every);
      // The job_stats tree grows: 5 new jobs every scrape, every job's counters move on.
      lustreJobs += 5;
      tick += 1;
      writeFileSync(join(target, 'job_stats'), jobStats(lustreJobs, tick));
      const samples = parse(await scrape(url));
      scrapes++;
      check(samples);
      const rss = rssMb(pid);
      rssMax = Math.max(rssMax, rss);
      if (!rssWarm && Date.now() - started >= options.durationMs / 3) rssWarm = rss;
      if (rssWarm) late.push(rss);
      log(
        `${Math.round((Date.now() - started) / 1000)} s: RSS ${rss.toFixed(0)} MB, processes ${sum(samples, 'jobio_profiler_processes', {})}, honest runs ${honest.map((h) => h.runs()).join('/')}, fake jobs ${fakeJobsStarted}, rejected ${sum(samples, 'jobio_profiler_records_rejected_total', {})}`,
      );
    }

    // Stop: the hostile senders are killed, the honest loops finish their run and exit.
    writeFileSync(stop, '');
    for (const forger of forgers) forger.kill('SIGKILL');
    const codes = await Promise.all(honest.map((h) => h.exited));
    if (codes.some((c) => c !== 0)) throw new Error(`an honest loop failed: exit codes ${codes.join(', ')}`);
    const counted = (samples: Sample[], h: (typeof honest)[number]): number => sum(samples, 'jobio_profiler_calls_total', { jobid: h.jobid, user: h.user.name, mount: h.mount, call: 'write' });
    // The last frames may still be on their way: wait (bounded) until the counts stop moving.
    let samples = parse(await scrape(url));
    const until = Date.now() + 60_000;
    while (Date.now() < until && honest.some((h) => counted(samples, h) < h.runs() * BLOCKS)) {
      await sleep(500);
      samples = parse(await scrape(url));
    }
    await sleep(every);
    samples = parse(await scrape(url));
    scrapes++;
    check(samples);
    const rssEnd = rssMb(pid);
    rssMax = Math.max(rssMax, rssEnd);
    late.push(rssEnd);
    const rejected: Record<string, number> = {};
    for (const s of samples) if (s.name === 'jobio_profiler_records_rejected_total' && s.value > 0) rejected[s.labels.reason ?? ''] = s.value;
    const rejectedByUser: Record<string, number> = {};
    const connectionsRefusedByUser: Record<string, number> = {};
    const honestRejected: Record<string, Record<string, number>> = {};
    for (const s of samples) {
      if (s.name !== 'jobio_profiler_user_records_rejected_total') continue;
      const user = s.labels.user ?? '';
      rejectedByUser[user] = (rejectedByUser[user] ?? 0) + s.value;
      if (s.labels.reason === 'connection_refused') connectionsRefusedByUser[user] = s.value;
      if (honestUsers.some((h) => h.name === user)) (honestRejected[user] ??= {})[s.labels.reason ?? ''] = s.value;
    }
    const webDropped: Record<string, number> = {};
    for (const s of samples) if (s.name === 'jobio_web_connections_dropped_total' && s.value > 0) webDropped[s.labels.reason ?? ''] = s.value;
    const byJob = (a: Record<string, string>, b: Record<string, string>): number => Number(a.jobid) - Number(b.jobid);
    // Label values as written, unescaped (the exposition escapes backslash, quote and newline).
    const unescape = (v: string): string => v.replace(/\\(["\\n])/g, (_, c: string) => (c === 'n' ? '\n' : c));
    const seen = samples.filter((s) => s.name === 'jobio_job_info').map((s) => Object.fromEntries(Object.entries(s.labels).map(([k, v]) => [k, unescape(v)])));
    return {
      durationMs: Date.now() - started,
      scrapes,
      rssMb: { start: rssStart, warm: rssWarm || rssEnd, end: rssEnd, max: rssMax, lateMin: Math.min(...late), lateMax: Math.max(...late) },
      honest: honest.map((h) => ({ user: h.user.name, jobid: h.jobid, runs: h.runs(), expected: h.runs() * BLOCKS, counted: counted(samples, h) })),
      decreases,
      rejected,
      rejectedByUser,
      connectionsRefusedByUser,
      honestRejected,
      hostileUsers: hostile.map((u) => u.name),
      held: { tried: heldTried, share: connectionShare },
      jobInfo: { seen: seen.sort(byJob), expected: [...jobs, forgedJob].map(jobInfoLabels).sort(byJob) },
      webDropped,
      pipelineRounds: rounds[0]! + rounds[1]!,
      processesMax,
      fakeJobsStarted,
      lustreJobs,
      profilerSeriesMax,
    };
  } finally {
    if (!existsSync(stop)) writeFileSync(stop, '');
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exporter?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
