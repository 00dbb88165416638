// The request queue figures of a Lustre service's `stats` (ost/OSS/ost_io/stats, mds/MDS/mdt/stats,
// mgs/MGS/mgs/stats, ldlm/services/ldlm_canceld/stats; plain stats format, parsed by lustre-stats.ts):
//   req_waittime   <n> samples [usecs] min max sum sumsq   time each request waited before a thread took it
//   req_qdepth     <n> samples [reqs]  min max sum sumsq   requests already queued when each one arrived
//   req_active     <n> samples [reqs]  min max sum sumsq   requests being handled when each one arrived
// Each is tallied once per request handled, so the sums over the sample count are the mean wait, queue
// depth and concurrency a request saw. Lustre prints no line for a counter with no samples: a service
// that handled no request yet has none of them (all 0). `[usec]` is the unit's spelling before 2.12.
// Never throws: lines of no known shape, and a req_* line without its sum or in another unit, are counted.
import { parseLustreStats } from './lustre-stats.js';
import { u64ToNumber } from '../util/u64.js';

export interface ServiceStats {
  readonly requests: number;
  readonly waitSeconds: number;
  readonly queueDepthSum: number;
  readonly activeSum: number;
  readonly badLines: number;
}

const UNITS: Readonly<Record<string, readonly string[]>> = { req_waittime: ['usecs', 'usec'], req_qdepth: ['reqs'], req_active: ['reqs'] };

export function parseServiceStats(text: string): ServiceStats {
  const sections = parseLustreStats(text);
  let badLines = sections.reduce((n, s) => n + s.badLines, 0);
  // A raw file has one section; a line taken for an lctl header opened another, and is not a counter.
  badLines += Math.max(0, sections.length - 1);
  const counters = sections[0]?.counters ?? [];
  const sumOf = (name: string): { samples: number; sum: number } => {
    const c = counters.find((k) => k.name === name);
    if (!c) return { samples: 0, sum: 0 };
    if (c.sum === undefined || !UNITS[name]?.includes(c.unit)) {
      badLines += 1;
      return { samples: 0, sum: 0 };
    }
    return { samples: u64ToNumber(c.samples), sum: Number(c.sum) };
  };
  const wait = sumOf('req_waittime');
  return { requests: wait.samples, waitSeconds: wait.sum / 1e6, queueDepthSum: sumOf('req_qdepth').sum, activeSum: sumOf('req_active').sum, badLines };
}
