// The one parser of /proc/<pid>/stat: the job process sampler (process-jobs.ts), the profiler's
// start-time budget (profiler/plausibility.ts) and step-daemon ancestry (labels/process-job.ts), and
// `jobio run`'s process tree (run/process-tree.ts) all read the same line.

export interface ProcStat {
  /** The parent's pid (field 4; 0 for init and kernel threads' parent). */
  readonly ppid: number;
  /** utime, stime, cutime, cstime (fields 14-17) in USER_HZ ticks. */
  readonly ticks: [number, number, number, number];
  /** starttime (field 22) in ticks since boot, as written: with the pid, a process's identity. */
  readonly start: string;
}

/** A /proc/<pid>/stat line's fields after the command name, or undefined when it is not one. */
export function parseProcStat(text: string): ProcStat | undefined {
  // The command name (field 2) may hold spaces and parentheses: fields are counted after the last ')'.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  // Field 3 (state) is fields[0]: ppid is fields[1], utime fields[11], starttime fields[19].
  const ppid = Number(fields[1]);
  const ticks = [11, 12, 13, 14].map((i) => Number(fields[i])) as [number, number, number, number];
  const start = fields[19];
  if (start === undefined || !/^\d+$/.test(start) || !Number.isSafeInteger(ppid) || ppid < 0 || ticks.some((t) => !Number.isSafeInteger(t) || t < 0)) return undefined;
  return { ppid, ticks, start };
}
