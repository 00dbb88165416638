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
  /**
   * VmRSS and VmSize summed over the tree, in bytes (shared pages count in every process that maps
   * them); undefined when no process of the tree had an address space (all of them zombies, or
   * exiting with their memory being given back): that is no level of the job's memory, not 0.
   */
  readonly rssBytes: number | undefined;
  readonly vmemBytes: number | undefined;
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

/** VmRSS and VmSize in bytes; undefined for a process without an address space (a zombie, or one exiting). */
function readMemory(procfs: string, pid: number): [number, number] | undefined {
  try {
    const text = readFileSync(`${procfs}/${pid}/status`, 'utf8');
    const kb = (name: string): number | undefined => {
      const m = new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(text);
      return m ? Number(m[1]) * 1024 : undefined;
    };
    const rss = kb('VmRSS');
    return rss === undefined ? undefined : [rss, kb('VmSize') ?? rss];
  } catch {
    return undefined;
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
  let rssBytes: number | undefined;
  let vmemBytes: number | undefined;
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
    const memory = readMemory(procfs, pid);
    if (memory) {
      rssBytes = (rssBytes ?? 0) + memory[0];
      vmemBytes = (vmemBytes ?? 0) + memory[1];
    }
    queue.push(...(children.get(pid) ?? []));
  }
  return { processes, userTicks, systemTicks, rssBytes, vmemBytes };
}
