// Which job the Lustre client I/O of a node belongs to. The client counters are per mount, not per
// process, so they can be credited to a job only when the node runs one job: exclusive allocation,
// the usual case for parallel jobs. The increments of one window of the exporter's clock happened
// between the reads that opened and closed it (client-book.ts), so every job seen at either end may
// have caused them:
// - no job at either end: `_none` (I/O of the node itself: health checks, admins, prologs);
// - one job (also one that started or ended within the interval on an otherwise idle node): its id;
// - several (jobs sharing the node, or one job ending and the next starting between two reads):
//   `_shared`, which no single job can claim.
import { NONE, SHARED } from '../labels/reserved.js';

export const NO_JOB = NONE;
export const SHARED_JOB = SHARED;

export function nodeJobLabel(previous: ReadonlySet<string> | undefined, current: ReadonlySet<string>): string {
  const jobs = new Set([...(previous ?? []), ...current]);
  if (jobs.size === 0) return NO_JOB;
  if (jobs.size > 1) return SHARED_JOB;
  const [only] = jobs;
  return only ?? NO_JOB;
}
