// The job spool: one file per running job, `<spool>/<jobid>`, written by the scheduler's prolog as
// root and removed by its epilog (provisioning/slurm/, docs/schedulers.md). Lines `key=value`:
//   uid=2000  account=proj1  partition=debug  job_name=my run  work_dir=/home/alice/run1
// Every local user is a potential attacker, so nothing in it is believed unless root wrote it and
// only root could have: the spool directory must be a real directory owned by root and writable by
// no one else, and each job file a regular file (not a symlink) owned by root, not group- or
// world-writable, and small. Anything else is skipped and counted by reason.
import { lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { JOBID_TEXT } from '../labels/process-job.js';
import { readRootOnlyFile, rootOnly } from '../util/root-only-file.js';

/** Where the prolog writes (and the exporter reads) by default: tmpfs, gone at reboot with the jobs. */
export const DEFAULT_JOB_SPOOL = '/run/jobio/jobs';

/** A job file is a handful of short lines; anything bigger is not one of ours. */
const MAX_FILE_BYTES = 8192;
/** At most this many job files are read per scrape (a full spool is a broken epilog, not a big node). */
export const MAX_SPOOL_FILES = 4096;

export interface JobMeta {
  readonly jobid: string;
  readonly uid?: number;
  readonly account?: string;
  readonly partition?: string;
  readonly jobName?: string;
  readonly workDir?: string;
}

export type SpoolRejection = 'untrusted_dir' | 'untrusted_file' | 'bad_name' | 'too_big' | 'too_many' | 'unreadable';

export interface SpoolRead {
  /** False when the spool directory does not exist (no prolog on this host). */
  readonly exists: boolean;
  readonly jobs: readonly JobMeta[];
  readonly rejected: ReadonlyMap<SpoolRejection, number>;
}

/** Parses a job file's text; unknown keys are ignored (newer prologs may write more). */
export function parseJobFile(jobid: string, text: string): JobMeta {
  const fields = new Map<string, string>();
  for (const line of text.split('\n')) {
    const eq = line.indexOf('=');
    if (eq > 0) fields.set(line.slice(0, eq).trim(), line.slice(eq + 1));
  }
  const uidText = fields.get('uid');
  const uid = uidText !== undefined && /^\d{1,10}$/.test(uidText) ? Number(uidText) : undefined;
  // A key the prolog wrote with an empty value (a job without an account) is kept as '': the spool's
  // word wins over squeue's even then (collectors/job_info.ts, mergeJobs).
  const pick = (key: string): Partial<Record<string, string>> => (fields.has(key) ? { [key]: fields.get(key) } : {});
  const { account, partition, job_name: jobName, work_dir: workDir } = { ...pick('account'), ...pick('partition'), ...pick('job_name'), ...pick('work_dir') };
  return {
    jobid,
    ...(uid !== undefined ? { uid } : {}),
    ...(account !== undefined ? { account } : {}),
    ...(partition !== undefined ? { partition } : {}),
    ...(jobName !== undefined ? { jobName } : {}),
    ...(workDir !== undefined ? { workDir } : {}),
  };
}

/** Every trusted job file in `dir`, sorted by job id text. Stops (throws) when `signal` aborts. */
export async function readJobSpool(dir: string, signal?: AbortSignal): Promise<SpoolRead> {
  const rejected = new Map<SpoolRejection, number>();
  const reject = (why: SpoolRejection, n = 1): void => void rejected.set(why, (rejected.get(why) ?? 0) + n);
  let st;
  try {
    st = await lstat(dir);
  } catch {
    return { exists: false, jobs: [], rejected };
  }
  if (!st.isDirectory() || !rootOnly(st)) {
    reject('untrusted_dir');
    return { exists: true, jobs: [], rejected };
  }
  let names: string[];
  try {
    names = (await readdir(dir)).sort();
  } catch {
    reject('unreadable');
    return { exists: true, jobs: [], rejected };
  }
  const jobs: JobMeta[] = [];
  for (const [i, name] of names.entries()) {
    signal?.throwIfAborted();
    if (name.startsWith('.')) continue; // a prolog's temporary file before its rename
    if (i >= MAX_SPOOL_FILES) {
      reject('too_many', names.length - i);
      break;
    }
    if (!JOBID_TEXT.test(name)) {
      reject('bad_name');
      continue;
    }
    const read = await readRootOnlyFile(join(dir, name), MAX_FILE_BYTES);
    // a file removed since the listing was an epilog at work: unreadable, as before
    if ('rejected' in read) reject(read.rejected === 'missing' ? 'unreadable' : read.rejected);
    else jobs.push(parseJobFile(name, read.text));
  }
  return { exists: true, jobs, rejected };
}
