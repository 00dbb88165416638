// CPU and memory of the command run by `jobio run`, sampled once a second from procfs:
//   host: /proc/stat (user, system, iowait), the whole machine;
//   job: /proc/<pid>/stat utime+stime+cutime+cstime of the command (its reaped descendants included;
//        live descendants count once they are reaped) and /proc/<pid>/status VmRSS/VmSize.
// At the end the exact totals come from getrusage(RUSAGE_CHILDREN) (the command and every descendant
// it waited for), read after the command was reaped.
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import type { ResourceWindow } from '../profiler/mistral-records.js';

const TICK_US = 10_000; // USER_HZ is 100 on every Linux ABI jobio supports

interface Sample {
  second: number;
  hostUser: number;
  hostSystem: number;
  hostIowait: number;
  jobUser: number;
  jobSystem: number;
  rssBytes: number;
  vmemBytes: number;
}

function hostTicks(procfs: string): [number, number, number] | undefined {
  try {
    const line = readFileSync(`${procfs}/stat`, 'utf8').split('\n')[0] ?? '';
    const f = line.trim().split(/\s+/).slice(1).map(Number);
    return [(f[0] ?? 0) + (f[1] ?? 0), f[2] ?? 0, f[4] ?? 0];
  } catch {
    return undefined;
  }
}

function jobTicks(procfs: string, pid: number): [number, number] | undefined {
  try {
    const text = readFileSync(`${procfs}/${pid}/stat`, 'utf8');
    // Fields after the command name (which may contain spaces and parentheses).
    const f = text.slice(text.lastIndexOf(')') + 2).split(' ').map(Number);
    return [(f[11] ?? 0) + (f[13] ?? 0), (f[12] ?? 0) + (f[14] ?? 0)];
  } catch {
    return undefined;
  }
}

function memory(procfs: string, pid: number): [number, number, number] | undefined {
  try {
    const text = readFileSync(`${procfs}/${pid}/status`, 'utf8');
    const kb = (name: string): number => Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(text)?.[1] ?? 0) * 1024;
    return [kb('VmRSS'), kb('VmSize'), kb('VmPeak')];
  } catch {
    return undefined;
  }
}

export class ResourceSampler {
  private readonly samples: Sample[] = [];
  private lastHost: [number, number, number] | undefined;
  private lastJob: [number, number] = [0, 0];
  private vmemPeak = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly procfs: string,
    private readonly pid: number,
    private readonly second: () => number,
  ) {
    this.lastHost = hostTicks(procfs);
  }

  start(): void {
    this.timer = setInterval(() => this.sample(), 1000);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  sample(): void {
    const host = hostTicks(this.procfs);
    const job = jobTicks(this.procfs, this.pid);
    const mem = memory(this.procfs, this.pid);
    const prevHost = this.lastHost;
    const s: Sample = { second: this.second(), hostUser: 0, hostSystem: 0, hostIowait: 0, jobUser: 0, jobSystem: 0, rssBytes: mem?.[0] ?? 0, vmemBytes: mem?.[1] ?? 0 };
    if (host && prevHost) [s.hostUser, s.hostSystem, s.hostIowait] = host.map((v, i) => Math.max(0, v - (prevHost[i] ?? 0)) * TICK_US) as [number, number, number];
    if (job) {
      s.jobUser = Math.max(0, job[0] - this.lastJob[0]) * TICK_US;
      s.jobSystem = Math.max(0, job[1] - this.lastJob[1]) * TICK_US;
      this.lastJob = job;
    }
    if (mem) this.vmemPeak = Math.max(this.vmemPeak, mem[2]);
    if (host) this.lastHost = host;
    if (mem || job) this.samples.push(s);
  }

  /** The samples of seconds [from, to). */
  window(from: number, to: number): ResourceWindow {
    const w = this.samples.filter((s) => s.second >= from && s.second < to);
    return {
      hostUser: w.map((s) => s.hostUser),
      hostSystem: w.map((s) => s.hostSystem),
      hostIowait: w.map((s) => s.hostIowait),
      jobUser: w.map((s) => s.jobUser),
      jobSystem: w.map((s) => s.jobSystem),
      rssBytes: w.map((s) => s.rssBytes),
      vmemBytes: w.map((s) => s.vmemBytes),
      seconds: Math.max(1, to - from),
      cpus: availableParallelism(),
    };
  }

  get peakVmemBytes(): number {
    return this.vmemPeak;
  }
}
