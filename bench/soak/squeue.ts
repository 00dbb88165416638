// The soak's scheduler: a stand-in `squeue` answering `squeue --json` with the honest users' jobs and
// one forged job, whose name and work directory spell whole records of the old unit-separated text
// format (newline, then id, uid, account, partition, name, work dir split by \x1f) claiming the honest
// jobs for root with another account, plus JSON that tries to close the string and add a job. The
// exporter must list exactly the jobs running on the soak's node, each whole, control characters
// replaced, the honest jobs with their own user, account, partition, name and work dir.
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { withoutControlChars } from '../../exporter/src/labels/control-chars.js';

export const SOAK_NODE = 'soak1';

export interface SoakJob {
  readonly jobid: string;
  readonly uid: number;
  readonly user: string;
  readonly account: string;
  readonly partition: string;
  readonly name: string;
  readonly workDir: string;
}

/** What `jobio_job_info` shows for a job: its labels, control characters as `?`. */
export function jobInfoLabels(job: SoakJob): Record<string, string> {
  return { jobid: job.jobid, user: job.user, account: job.account, partition: job.partition, job_name: withoutControlChars(job.name), work_dir: withoutControlChars(job.workDir) };
}

/** A record of the unit-separated text format, as a user can spell it inside a name or a path. */
export function forgedRecord(jobid: string): string {
  return `\n${jobid}\u001f0\u001fforged\u001fdebug\u001fforged\u001f/root`;
}

/** Writes the stand-in squeue (a script printing the JSON) into `dir`; returns its path. */
export function writeSqueue(dir: string, running: readonly SoakJob[]): string {
  const entry = (job: SoakJob, state = 'RUNNING', nodes = SOAK_NODE) => ({
    job_id: Number(job.jobid),
    user_id: job.uid,
    account: job.account,
    partition: job.partition,
    name: job.name,
    current_working_directory: job.workDir,
    job_state: [state],
    nodes,
  });
  const [first] = running;
  const jobs = [
    ...running.map((job) => entry(job)),
    // Not running here: neither may be listed.
    ...(first ? [entry({ ...first, jobid: '9101' }, 'PENDING', ''), entry({ ...first, jobid: '9102' }, 'RUNNING', 'other7')] : []),
  ];
  const json = join(dir, 'squeue.json');
  writeFileSync(json, JSON.stringify({ jobs }));
  const script = join(dir, 'squeue');
  writeFileSync(script, `#!/bin/sh\nexec cat ${json}\n`);
  chmodSync(script, 0o755);
  return script;
}
