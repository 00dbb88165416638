// The running jobs of this node from Slurm's `squeue`, for hosts without the jobio prolog (or for
// what the prolog cannot know). One call per refresh interval, whatever the scrape rate and the
// number of jobs, each with a deadline; between calls the last answer is served from the cache.
// Fields are separated by the ASCII unit separator (0x1f), which no job name or path holds in
// practice, so names with spaces or `|` stay whole.
import { execFile } from 'node:child_process';
import type { JobMeta } from './job-spool.js';
import { JOBID_TEXT } from '../labels/process-job.js';

const SEP = '\x1f';
/** jobid, uid, account, partition, job name, working directory. */
export const SQUEUE_FORMAT = ['%i', '%U', '%a', '%P', '%j', '%Z'].join(SEP);

/** Parses `squeue -h -o SQUEUE_FORMAT` output; lines that do not have the six fields are skipped and counted. */
export function parseSqueue(text: string): { jobs: JobMeta[]; malformed: number } {
  const jobs: JobMeta[] = [];
  let malformed = 0;
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const [jobid = '', uid = '', ...rest] = line.split(SEP);
    if (rest.length !== 4 || !JOBID_TEXT.test(jobid) || !/^\d{1,10}$/.test(uid)) {
      malformed += 1;
      continue;
    }
    // squeue prints `(null)` for an unset account.
    const value = (s: string | undefined): string | undefined => (s === undefined || s === '' || s === '(null)' ? undefined : s);
    const [account, partition, jobName, workDir] = rest.map((s) => value(s));
    jobs.push({
      jobid,
      uid: Number(uid),
      ...(account !== undefined ? { account } : {}),
      ...(partition !== undefined ? { partition } : {}),
      ...(jobName !== undefined ? { jobName } : {}),
      ...(workDir !== undefined ? { workDir } : {}),
    });
  }
  return { jobs, malformed };
}

export interface SqueueAnswer {
  /** False when the squeue program is not installed: not a Slurm host (quiet). */
  readonly available: boolean;
  readonly jobs: readonly JobMeta[];
  /** Set when the last call failed (timeout, slurmctld down): its message. */
  readonly error?: string;
  /** Lines of the last answer that did not parse. */
  readonly malformed: number;
  /** True the first time a call's answer is returned (its failures and bad lines are counted once). */
  readonly fresh: boolean;
}

export interface SqueueOptions {
  /** The program (absolute or on PATH); '' turns the source off. */
  readonly command: string;
  readonly node: string;
  readonly intervalMs: number;
  readonly timeoutMs: number;
}

/**
 * Caches squeue's answer for intervalMs; concurrent scrapes share one call. Only the first scrape
 * waits for squeue: later, a stale answer is served while the next call runs in the background
 * (its answer is used from the scrape after it arrives), so a slow slurmctld never slows a scrape.
 * The call the first scrape waits for is killed when that scrape's signal aborts (its deadline):
 * its answer is then an error, counted like any failed call.
 */
export class SqueueJobs {
  private last: SqueueAnswer | undefined;
  private lastAt = -Infinity;
  private pending: Promise<SqueueAnswer> | undefined;
  private unreported = false; // the last answer came from a call no get() has returned yet

  constructor(private readonly options: SqueueOptions) {}

  async get(nowMs = Date.now(), signal?: AbortSignal): Promise<SqueueAnswer> {
    if (this.options.command === '') return { available: false, jobs: [], malformed: 0, fresh: false };
    if (this.last && nowMs - this.lastAt >= this.options.intervalMs) void this.refresh(nowMs);
    if (!this.last) await this.refresh(nowMs, signal);
    const answer = this.last ?? { available: false, jobs: [], malformed: 0, fresh: false };
    const fresh = this.unreported;
    this.unreported = false;
    return { ...answer, fresh };
  }

  /** One call at a time; its answer replaces the cache when it arrives. */
  private refresh(nowMs: number, signal?: AbortSignal): Promise<SqueueAnswer> {
    this.lastAt = nowMs; // no second call for this interval, even while this one runs
    this.pending ??= this.call(signal).then((answer) => {
      this.last = answer;
      this.unreported = true;
      this.pending = undefined;
      return answer;
    });
    return this.pending;
  }

  private call(signal?: AbortSignal): Promise<SqueueAnswer> {
    const { command, node, timeoutMs } = this.options;
    const args = ['-h', '-t', 'running', '-w', node, '-o', SQUEUE_FORMAT];
    return new Promise((resolve) => {
      execFile(command, args, { timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024, encoding: 'utf8', ...(signal ? { signal } : {}) }, (err, stdout, stderr) => {
        if (err && (err as NodeJS.ErrnoException).code === 'ENOENT') resolve({ available: false, jobs: [], malformed: 0, fresh: true });
        else if (err && signal?.aborted) resolve({ available: true, jobs: [], malformed: 0, fresh: true, error: `${command} ${args.join(' ')}: stopped at the scrape deadline` });
        else if (err) resolve({ available: true, jobs: [], malformed: 0, fresh: true, error: `${command} ${args.join(' ')}: ${stderr.trim().split('\n')[0] || err.message}` });
        else resolve({ available: true, ...parseSqueue(stdout), fresh: true });
      });
    });
  }
}
