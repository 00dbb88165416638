// CPU and memory of the command run by `jobio run`, sampled once a second from procfs:
//   host: /proc/stat (user, system, iowait), the whole machine;
//   job: summed over the command's process tree (process-tree.ts): CPU time of every live descendant
//        and of those already reaped, VmRSS and VmSize of the live ones.
// At the end the CPU time after the last sample joins the last slot (closeTail): the job's from
// getrusage(RUSAGE_CHILDREN) (the command and every descendant it waited for), read after the command
// was reaped, the host's from /proc/stat; so the frames add up to the whole run.
import { readFileSync } from 'node:fs';
import type { ResourceWindow } from '../profiler/mistral-records.js';
import { treeUsage } from './process-tree.js';

const TICK_US = 10_000; // USER_HZ is 100 on every Linux ABI jobio supports

interface Sample {
  second: number;
  hostUser: number;
  hostSystem: number;
  hostIowait: number;
  jobUser: number;
  jobSystem: number;
  /**
   * Absent in a slot closeTail adds when nothing was measured (the processes are gone by then), and in
   * a sample that found no process with an address space (zombies, or processes exiting).
   */
  rssBytes?: number;
  vmemBytes?: number;
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

export class ResourceSampler {
  private readonly samples: Sample[] = [];
  private lastHost: [number, number, number] | undefined;
  private lastJob: [number, number] = [0, 0];
  private endHost: [number, number, number] | undefined;
  /** Seconds below this are in frames already written. */
  private sealed = 0;
  private rssPeak = 0;
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

  /** At the command's exit: the host's CPU counters are read now, not after the wait for late snapshots. */
  stop(): void {
    clearInterval(this.timer);
    this.endHost = hostTicks(this.procfs);
  }

  sample(): void {
    const host = hostTicks(this.procfs);
    const tree = treeUsage(this.procfs, this.pid);
    const prevHost = this.lastHost;
    // A sample taken at t covers (t-1 s, t]: it belongs to the second before the one it is taken in.
    // A sample late past its frame's writing (a slipped timer) joins the next frame, not a written one.
    const s: Sample = {
      second: Math.max(this.sealed, this.second() - 1),
      hostUser: 0,
      hostSystem: 0,
      hostIowait: 0,
      jobUser: 0,
      jobSystem: 0,
      // (no level when every process of the tree was a zombie or exiting: its memory was being given back)
      ...(tree?.rssBytes !== undefined ? { rssBytes: tree.rssBytes, vmemBytes: tree.vmemBytes ?? tree.rssBytes } : {}),
    };
    if (host && prevHost) [s.hostUser, s.hostSystem, s.hostIowait] = host.map((v, i) => Math.max(0, v - (prevHost[i] ?? 0)) * TICK_US) as [number, number, number];
    if (tree) {
      // A descendant re-parented out of the tree takes its time along: the sum may fall; never count negative time.
      s.jobUser = Math.max(0, tree.userTicks - this.lastJob[0]) * TICK_US;
      s.jobSystem = Math.max(0, tree.systemTicks - this.lastJob[1]) * TICK_US;
      this.lastJob = [tree.userTicks, tree.systemTicks];
      this.rssPeak = Math.max(this.rssPeak, tree.rssBytes ?? 0);
      this.vmemPeak = Math.max(this.vmemPeak, tree.vmemBytes ?? 0);
    }
    if (host) this.lastHost = host;
    if (tree) this.samples.push(s);
  }

  /** Frames of the seconds below `second` are written. */
  seal(second: number): void {
    this.sealed = Math.max(this.sealed, second);
  }

  /** As RunTotals.foldTail: samples of seconds from `slots` on join the last slot. */
  foldTail(slots: number): void {
    const last = Math.max(0, slots - 1);
    for (const s of this.samples) if (s.second > last) s.second = last;
    // two samples in one slot: one second's CPU added up, its memory the larger of the two
    const merged: Sample[] = [];
    for (const s of this.samples) {
      const prev = merged[merged.length - 1];
      if (prev && prev.second === s.second) {
        prev.hostUser += s.hostUser;
        prev.hostSystem += s.hostSystem;
        prev.hostIowait += s.hostIowait;
        prev.jobUser += s.jobUser;
        prev.jobSystem += s.jobSystem;
        if (s.rssBytes !== undefined) {
          prev.rssBytes = Math.max(prev.rssBytes ?? 0, s.rssBytes);
          prev.vmemBytes = Math.max(prev.vmemBytes ?? 0, s.vmemBytes ?? 0);
        }
      } else merged.push(s);
    }
    this.samples.splice(0, this.samples.length, ...merged);
  }

  /**
   * The end of the run, after foldTail: the CPU time since the last sample (all of it for a job
   * shorter than a sample) goes to the last slot. The job's part is what `exact` (getrusage of the
   * reaped command) counted beyond the samples; the host's is /proc/stat as read by stop().
   * Memory is a level, not a flow: a last slot the run ended in before its sample was due (or whose
   * sample found the processes exiting, their memory being given back) holds the tree's memory at
   * the last sample that measured one; with no sample at all, getrusage's peak of the largest process
   * (`exact.maxRssBytes`) stands for both sizes, as the only figure measured.
   */
  closeTail(slots: number, exact: { userUs: number; systemUs: number; maxRssBytes?: number } | undefined): void {
    const second = Math.max(0, slots - 1);
    let last = this.samples.find((s) => s.second === second);
    if (!last) {
      last = { second, hostUser: 0, hostSystem: 0, hostIowait: 0, jobUser: 0, jobSystem: 0 };
      this.samples.push(last);
    }
    if (last.rssBytes === undefined) {
      const level = [...this.samples].reverse().find((s) => s.rssBytes !== undefined);
      const rssBytes = level?.rssBytes ?? exact?.maxRssBytes;
      if (rssBytes !== undefined) {
        last.rssBytes = rssBytes;
        last.vmemBytes = level?.vmemBytes ?? rssBytes;
      }
    }
    const host = this.endHost;
    const prevHost = this.lastHost;
    if (host && prevHost) {
      const [user, system, iowait] = host.map((v, i) => Math.max(0, v - (prevHost[i] ?? 0)) * TICK_US) as [number, number, number];
      last.hostUser += user;
      last.hostSystem += system;
      last.hostIowait += iowait;
      this.lastHost = host;
    }
    if (exact) {
      // A descendant that left the tree may have been sampled but not reaped by the command: keep the larger.
      last.jobUser += Math.max(0, exact.userUs - this.samples.reduce((a, s) => a + s.jobUser, 0));
      last.jobSystem += Math.max(0, exact.systemUs - this.samples.reduce((a, s) => a + s.jobSystem, 0));
    }
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
      rssBytes: w.flatMap((s) => (s.rssBytes === undefined ? [] : [s.rssBytes])),
      vmemBytes: w.flatMap((s) => (s.vmemBytes === undefined ? [] : [s.vmemBytes])),
      seconds: Math.max(1, to - from),
    };
  }

  /** Largest sampled sums over the tree. */
  get peakRssBytes(): number {
    return this.rssPeak;
  }

  get peakVmemBytes(): number {
    return this.vmemPeak;
  }
}
