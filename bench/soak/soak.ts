// The profiler socket under three local users, one of them hostile, against the real built exporter:
//   - two honest users each run a profiled shell (the real LD_PRELOAD library) that runs `dd` writing
//     50 blocks again and again under its own job id, and prints how many runs it finished;
//   - the hostile user floods forged frames (frame-tool `hostile`: invented processes and mounts,
//     counters jumping between ~1e18 and 1, old sequences, garbage) while squatting on an honest
//     user's job id, and keeps starting forgers under ever new fake job ids;
//   - a Lustre job_stats file (served through --path.sysfs) grows by new jobs all along.
// Every few seconds /metrics is scraped: the exporter's RSS is sampled and every *_total series seen
// twice is checked not to have gone down. At the end the honest users' write counts must equal
// 50 × the runs they reported. Used by `npm run bench -- soak` (15 minutes) and by a ~60 s test.
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { scrape, startExporter, type RunningExporter } from '../../test/helpers/exporter.js';
import { ensureUser, type TestUser } from '../../test/helpers/slurm.js';
import { frameTool } from '../../test/profiler/frame-tool.js';
import { mountOf, requireProfilerLibrary } from '../../test/profiler/real-library.js';

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
  const hostile = ensureUser('jobiohostile');
  const children: ChildProcess[] = [];
  let exporter: RunningExporter | undefined;
  try {
    exporter = await startExporter([`--path.sysfs=${join(dir, 'sys')}`, `--collector.profiler.socket=${socket}`]);
    const pid = exporter.child.pid ?? 0;
    const url = `${exporter.url}/metrics`;
    await scrape(url);
    const rssStart = rssMb(pid);

    const as = (user: TestUser, script: string, env: Record<string, string>): ChildProcess => {
      const child = spawn('sh', ['-c', script], { uid: user.uid, gid: user.gid, cwd: dir, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env }, stdio: ['ignore', 'pipe', 'ignore'] });
      children.push(child);
      return child;
    };

    // Honest users: a profiled shell under its job id runs dd until told to stop, printing each run.
    const honest = honestUsers.map((user, i) => {
      const work = join(dir, `work-${user.name}`);
      mkdirSync(work);
      chownSync(work, user.uid, user.gid);
      const jobid = `honest${i + 1}`;
      const child = as(user, `i=0; while [ ! -e ${stop} ]; do dd if=/dev/zero of=${work}/out bs=4k count=${BLOCKS} status=none || exit 1; i=$((i+1)); echo $i; done`, {
        LD_PRELOAD: lib,
        JOBIO_SOCKET: socket,
        SLURM_JOB_ID: jobid,
      });
      let runs = 0;
      if (child.stdout) createInterface({ input: child.stdout }).on('line', (line) => (runs = Number(line)));
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      return { user, jobid, mount: mountOf(work), runs: () => runs, exited };
    });

    // The hostile user: two endless forgers squatting on honest1's job id, and fake jobs one after another.
    const squat = honest[0]?.jobid ?? 'honest1';
    const forgers: ChildProcess[] = [];
    for (let f = 0; f < 2; f++) forgers[f] = as(hostile, `exec ${tool} send ${socket} hostile ${squat} SLURM_JOB_ID`, { SLURM_JOB_ID: squat, FRAME_TOOL_ROUNDS: '0' });
    let fakeJobsStarted = 0;
    const fakes = as(
      hostile,
      `j=0; while [ ! -e ${stop} ]; do j=$((j+1)); echo $j; SLURM_JOB_ID=fake$j FRAME_TOOL_ROUNDS=2 FRAME_TOOL_PROCESSES=8 FRAME_TOOL_MOUNTS=8 ${tool} send ${socket} hostile fake$j SLURM_JOB_ID 2>/dev/null; done`,
      {},
    );
    if (fakes.stdout) createInterface({ input: fakes.stdout }).on('line', (line) => (fakeJobsStarted = Number(line)));

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
    for (const s of samples) if (s.name === 'jobio_profiler_user_records_rejected_total') rejectedByUser[s.labels.user ?? ''] = (rejectedByUser[s.labels.user ?? ''] ?? 0) + s.value;
    return {
      durationMs: Date.now() - started,
      scrapes,
      rssMb: { start: rssStart, warm: rssWarm || rssEnd, end: rssEnd, max: rssMax, lateMin: Math.min(...late), lateMax: Math.max(...late) },
      honest: honest.map((h) => ({ user: h.user.name, jobid: h.jobid, runs: h.runs(), expected: h.runs() * BLOCKS, counted: counted(samples, h) })),
      decreases,
      rejected,
      rejectedByUser,
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
