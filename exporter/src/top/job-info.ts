// ACCOUNT and WORKDIR of `jobio top`: the scheduler metadata of each job from jobio_job_info (collector
// job_info, docs/schedulers.md), taken from Prometheus by one instant query per refresh, or from the
// same exporter scrapes that give the increments. A job running on several nodes has one series per
// node with the same values; differing values are all shown.
import type { Sample } from './exposition.js';

export const JOB_INFO_FAMILY = 'jobio_job_info';

export interface JobInfo {
  readonly accounts: Set<string>;
  readonly workDirs: Set<string>;
}

export type JobInfoMap = Map<string, JobInfo>;

/** Job → account and work dir from jobio_job_info samples (or query results: their label sets). */
export function jobInfoMap(labelSets: Iterable<Readonly<Record<string, string>>>): JobInfoMap {
  const map: JobInfoMap = new Map();
  for (const labels of labelSets) {
    const jobid = labels.jobid;
    if (jobid === undefined) continue;
    const info = map.get(jobid) ?? { accounts: new Set<string>(), workDirs: new Set<string>() };
    if (labels.account) info.accounts.add(labels.account);
    if (labels.work_dir) info.workDirs.add(labels.work_dir);
    map.set(jobid, info);
  }
  return map;
}

/** The label sets of the jobio_job_info samples in a parsed exposition. */
export function jobInfoLabels(samples: readonly Sample[]): Array<Readonly<Record<string, string>>> {
  return samples.filter((s) => s.name === JOB_INFO_FAMILY).map((s) => s.labels);
}

/** The PromQL of the instant query: one result per job and distinct (account, work_dir). */
export const JOB_INFO_QUERY = `max by (jobid, account, work_dir) (${JOB_INFO_FAMILY})`;
