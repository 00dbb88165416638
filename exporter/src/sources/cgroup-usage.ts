// Reads one job's CPU and memory usage from its cgroup files (each file whole, in one call) and
// hands the text to the pure parsers. A missing file is not an error (controller not enabled for
// the job, memory.peak before Linux 5.19, or the job ended mid-read); text that does not parse is
// reported so the collector can count it, never thrown.
import { readPseudoFile } from '../util/pseudo-files.js';
import { join } from 'node:path';
import { parseCpuStatV2, parseCpuacctStat, parseSingleValue, type CpuSeconds, type Parsed } from '../parsers/cgroup-stat.js';
import type { CgroupJob } from './cgroup-jobs.js';

export interface CgroupUsage {
  readonly cpu?: CpuSeconds;
  readonly memoryBytes?: number;
  readonly memoryPeakBytes?: number;
  /** Files that exist but could not be read or parsed: `path: reason`. */
  readonly problems: readonly string[];
}

async function readText(path: string, signal?: AbortSignal): Promise<string | undefined> {
  try {
    return (await readPseudoFile(path, { signal })).toString('utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

export async function readCgroupUsage(job: CgroupJob, userHz: number, signal?: AbortSignal): Promise<CgroupUsage> {
  const problems: string[] = [];
  /** Reads and parses one file; undefined when absent or bad (bad ones are recorded). */
  const get = async <T>(dir: string | undefined, name: string, parse: (text: string) => Parsed<T>): Promise<T | undefined> => {
    if (!dir) return undefined;
    const path = join(dir, name);
    let text: string | undefined;
    try {
      text = await readText(path, signal);
    } catch (err) {
      if (signal?.aborted) throw err;
      problems.push(`${path}: ${(err as Error).message}`);
      return undefined;
    }
    if (text === undefined) return undefined;
    const parsed = parse(text);
    if (parsed.ok) return parsed.value;
    problems.push(`${path}: ${parsed.error}`);
    return undefined;
  };

  let cpu: CpuSeconds | undefined;
  let memoryBytes: number | undefined;
  let memoryPeakBytes: number | undefined;
  if (job.layout === 'v2') {
    cpu = await get(job.cpuDir, 'cpu.stat', parseCpuStatV2);
    memoryBytes = await get(job.memoryDir, 'memory.current', parseSingleValue);
    memoryPeakBytes = await get(job.memoryDir, 'memory.peak', parseSingleValue);
  } else {
    // usage_user/usage_sys (ns, Linux 4.7+) are exact; cpuacct.stat is in USER_HZ ticks.
    const userNs = await get(job.cpuDir, 'cpuacct.usage_user', parseSingleValue);
    const sysNs = await get(job.cpuDir, 'cpuacct.usage_sys', parseSingleValue);
    cpu = userNs !== undefined && sysNs !== undefined ? { user: userNs / 1e9, system: sysNs / 1e9 } : await get(job.cpuDir, 'cpuacct.stat', (t) => parseCpuacctStat(t, userHz));
    memoryBytes = await get(job.memoryDir, 'memory.usage_in_bytes', parseSingleValue);
    memoryPeakBytes = await get(job.memoryDir, 'memory.max_usage_in_bytes', parseSingleValue);
  }
  return { ...(cpu ? { cpu } : {}), ...(memoryBytes !== undefined ? { memoryBytes } : {}), ...(memoryPeakBytes !== undefined ? { memoryPeakBytes } : {}), problems };
}
