// The running jobs of this node from Slurm's `squeue`, for hosts without the jobio prolog (or for
// what the prolog cannot know). One call per refresh interval, whatever the scrape rate and the
// number of jobs, each with a deadline; between calls the last answer is served from the cache.
// The answer is `squeue --json`, decoded as JSON: a job name or work directory is whatever its user
// chose, newlines and unit separators included, and a text format split on them let one user forge
// whole records (any job id, uid, account). Slurm 22.05 dumps every job of the cluster whatever
// filter is given (`--json` ignores them), so the jobs are kept here: RUNNING, with this node in
// their host list. The shapes of 22.05 (openapi/v0.0.38: flat values, `job_state` a string) and of
// 23.02+ (data_parser: `job_state` a list, numbers possibly `{set, infinite, number}`) are both read.
import { execFile } from 'node:child_process';
import type { JobMeta } from './job-spool.js';
import { JOBID_TEXT } from '../labels/process-job.js';
import { expandHostList } from '../parsers/slurm-hostlist.js';

/** squeue's arguments: the filters are passed for the releases that apply them, and applied here anyway. */
export function squeueArgs(node: string): string[] {
  return ['--json', '--states=running', `--nodelist=${node}`];
}

/** The whole answer of a big cluster (22.05 prints about 4 KB per job in the queue) fits. */
const MAX_ANSWER_BYTES = 256 * 1024 * 1024;

type Json = unknown;

/** A number as 22.05 prints it, or boxed as 23.02+ may (`{set: true, infinite: false, number: n}`). */
function numberOf(value: Json): number | undefined {
  if (typeof value === 'number') return value;
  if (value !== null && typeof value === 'object') {
    const box = value as { set?: unknown; infinite?: unknown; number?: unknown };
    if (box.set !== false && box.infinite !== true && typeof box.number === 'number') return box.number;
  }
  return undefined;
}

/** A text field; '' (squeue's unset account, for one) is no value. */
function textOf(value: Json): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function isRunning(state: Json): boolean {
  const states = Array.isArray(state) ? state : [state];
  return states.includes('RUNNING');
}

function runsOn(nodes: Json, node: string): boolean {
  return typeof nodes === 'string' && nodes !== '' && expandHostList(nodes).includes(node);
}

/**
 * The jobs of `squeue --json` running on `node`; a running job of this node whose id or uid does not
 * decode is counted in `malformed`. Throws when the text is no squeue JSON at all.
 */
export function parseSqueueJson(text: string, node: string): { jobs: JobMeta[]; malformed: number } {
  let doc: Json;
  try {
    doc = JSON.parse(text);
  } catch {
    throw new Error(`output is not JSON (${JSON.stringify(text.slice(0, 60))}…)`);
  }
  const list = doc !== null && typeof doc === 'object' ? (doc as { jobs?: Json }).jobs : undefined;
  if (!Array.isArray(list)) throw new Error('no "jobs" list in its JSON');
  const jobs: JobMeta[] = [];
  let malformed = 0;
  for (const entry of list as Json[]) {
    if (entry === null || typeof entry !== 'object') {
      malformed += 1;
      continue;
    }
    const job = entry as Record<string, Json>;
    if (!isRunning(job.job_state) || !runsOn(job.nodes, node)) continue;
    const id = numberOf(job.job_id);
    const uid = numberOf(job.user_id);
    const jobid = id !== undefined && Number.isSafeInteger(id) && id > 0 ? String(id) : '';
    if (!JOBID_TEXT.test(jobid) || uid === undefined || !Number.isSafeInteger(uid) || uid < 0) {
      malformed += 1;
      continue;
    }
    const account = textOf(job.account);
    const partition = textOf(job.partition);
    const jobName = textOf(job.name);
    const workDir = textOf(job.current_working_directory);
    jobs.push({
      jobid,
      uid,
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
    const args = squeueArgs(node);
    const failed = (message: string): SqueueAnswer => ({ available: true, jobs: [], malformed: 0, fresh: true, error: `${command} ${args.join(' ')}: ${message}` });
    return new Promise((resolve) => {
      execFile(command, args, { timeout: timeoutMs, maxBuffer: MAX_ANSWER_BYTES, encoding: 'utf8', ...(signal ? { signal } : {}) }, (err, stdout, stderr) => {
        if (err && (err as NodeJS.ErrnoException).code === 'ENOENT') resolve({ available: false, jobs: [], malformed: 0, fresh: true });
        else if (err && signal?.aborted) resolve(failed('stopped at the scrape deadline'));
        else if (err) resolve(failed(stderr.trim().split('\n')[0] || err.message));
        else {
          try {
            resolve({ available: true, ...parseSqueueJson(stdout, node), fresh: true });
          } catch (parseErr) {
            resolve(failed((parseErr as Error).message));
          }
        }
      });
    });
  }
}
