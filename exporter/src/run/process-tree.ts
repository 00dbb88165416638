// The processes of a job as `jobio run` sees them: CMD and every live descendant, found each time by
// parent pid in procfs. A descendant that daemonises (re-parented to init or a subreaper outside
// the job) leaves the tree, as it leaves the job's wait().
import { readdirSync, readFileSync } from 'node:fs';
import { parseProcStat } from '../parsers/proc-stat.js';

export interface TreeUsage {
  /** Processes found (CMD included). */
  readonly processes: number;
  /**
   * utime+stime+cutime+cstime summed over the tree, in clock ticks. A process reaped by a parent in
   * the tree moves its time into that parent's cutime/cstime, so every process counts exactly once.
   */
  readonly userTicks: number;
  readonly systemTicks: number;
  /** VmRSS and VmSize summed over the tree, in bytes (shared pages count in every process that maps them). */
  readonly rssBytes: number;
  readonly vmemBytes: number;
}

interface Stat {
  readonly ppid: number;
  readonly user: number;
  readonly system: number;
}

function readStat(procfs: string, pid: number): Stat | undefined {
  try {
    const stat = parseProcStat(readFileSync(`${procfs}/${pid}/stat`, 'utf8'));
    if (!stat) return undefined;
    const [utime, stime, cutime, cstime] = stat.ticks;
    return { ppid: stat.ppid, user: utime + cutime, system: stime + cstime };
  } catch {
    return undefined; // exited between the listing and the read (or not a stat line)
  }
}

function readMemory(procfs: string, pid: number): [number, number] {
  try {
    const text = readFileSync(`${procfs}/${pid}/status`, 'utf8');
    const kb = (name: string): number => Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(text)?.[1] ?? 0) * 1024;
    return [kb('VmRSS'), kb('VmSize')];
  } catch {
    return [0, 0];
  }
}

/** CMD (`root`) and its live descendants; undefined when `root` itself is gone. */
export function treeUsage(procfs: string, root: number): TreeUsage | undefined {
  const stats = new Map<number, Stat>();
  let names: string[];
  try {
    names = readdirSync(procfs);
  } catch {
    return undefined;
  }
  const children = new Map<number, number[]>();
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    const pid = Number(name);
    const st = readStat(procfs, pid);
    if (!st) continue;
    stats.set(pid, st);
    const list = children.get(st.ppid) ?? [];
    list.push(pid);
    children.set(st.ppid, list);
  }
  if (!stats.has(root)) return undefined;
  let processes = 0;
  let userTicks = 0;
  let systemTicks = 0;
  let rssBytes = 0;
  let vmemBytes = 0;
  const queue = [root];
  const seen = new Set<number>();
  while (queue.length > 0) {
    const pid = queue.pop() as number;
    if (seen.has(pid)) continue;
    seen.add(pid);
    const st = stats.get(pid);
    if (!st) continue;
    processes++;
    userTicks += st.user;
    systemTicks += st.system;
    const [rss, vmem] = readMemory(procfs, pid);
    rssBytes += rss;
    vmemBytes += vmem;
    queue.push(...(children.get(pid) ?? []));
  }
  return { processes, userTicks, systemTicks, rssBytes, vmemBytes };
}
