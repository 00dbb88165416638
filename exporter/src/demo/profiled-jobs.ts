// Real programs run under the profiler (libjobio.so through LD_PRELOAD) as the demo's jobs on "this
// compute node": each a shell loop with its own SLURM_JOB_ID, sending to the exporter's socket in the
// demo's directory. The loops also end by themselves once the demo's process is gone.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ChildGroup } from './child-group.js';

export interface ProfiledJob {
  readonly jobid: string;
  readonly what: string;
  /** The program in a few characters, for the demo screen's verdict lines. */
  readonly short: string;
  /** A POSIX sh loop body; $W is the job's work directory. */
  readonly body: string;
}

export const PROFILED_JOBS: readonly ProfiledJob[] = [
  { jobid: '5101', what: 'dd writing 4 MiB blocks (green: large transfers)', short: 'dd bs=4M', body: 'dd if=/dev/zero of="$W/large.dat" bs=4M count=4 status=none; sleep 1' },
  { jobid: '5102', what: 'dd writing 512-byte blocks (red: tiny transfers)', short: 'dd bs=512', body: 'dd if=/dev/zero of="$W/tiny.dat" bs=512 count=2000 status=none; sleep 1' },
  { jobid: '5103', what: 'ls -lR over 300 files (red: a stat storm)', short: 'ls -lR', body: 'ls -lR "$W/tree" >/dev/null; sleep 0.5' },
];

/** Files the stat storm walks: 300 empty files in 10 directories. */
function makeTree(dir: string): void {
  for (let d = 0; d < 10; d += 1) {
    const sub = join(dir, `d${d}`);
    mkdirSync(sub, { recursive: true });
    for (let f = 0; f < 30; f += 1) writeFileSync(join(sub, `f${f}`), '');
  }
}

export interface ProfiledJobSettings {
  readonly library: string;
  readonly socket: string;
  readonly workDir: string;
}

export function startProfiledJobs(group: ChildGroup, settings: ProfiledJobSettings): void {
  for (const job of PROFILED_JOBS) {
    const dir = join(settings.workDir, `job-${job.jobid}`);
    mkdirSync(dir, { recursive: true });
    if (job.body.includes('$W/tree')) makeTree(join(dir, 'tree'));
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      LD_PRELOAD: [settings.library, process.env['LD_PRELOAD']].filter((p) => p).join(':'),
      JOBIO_SOCKET: settings.socket,
      // Snapshots every 2 s instead of 10 s, so the series move while one watches.
      JOBIO_TIMEFRAME: '2',
      SLURM_JOB_ID: job.jobid,
      W: dir,
      JOBIO_DEMO_PID: String(process.pid),
    };
    group.start(`job ${job.jobid}`, '/bin/sh', ['-c', `while kill -0 "$JOBIO_DEMO_PID" 2>/dev/null; do ${job.body}; done`], { env, cwd: dir });
  }
}
