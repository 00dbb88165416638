// Bounded cardinality for the cgroup collector (docs/architecture.md "Bounded cardinality"): at most
// max-jobs jobs get their own series, from the slot table (labels/slot-table.ts) with folded jobs pinned.
// Membership is sticky for the job's whole life in both directions: a job with a slot keeps it until
// its cgroup vanishes (the job ended), and a job that found no free slot stays folded into
// jobid="_other" until it ends. So a job's own counters are the kernel's counters from the job's
// start, and `_other` is an exporter-owned counter of the folded jobs' increments (their first
// observed value counts whole: a job cgroup's counters start at zero with the job), so sum() over
// jobs stays true and no exported counter ever decreases.
import type { CpuSeconds } from '../parsers/cgroup-stat.js';

import { OTHER } from '../labels/reserved.js';
import { SlotTable } from '../labels/slot-table.js';

export { OTHER };

export interface JobSample {
  readonly jobid: string;
  readonly cpu?: CpuSeconds;
  readonly memoryBytes?: number;
  readonly memoryPeakBytes?: number;
}

export interface FoldedView<S extends JobSample> {
  readonly own: readonly S[];
  /** Cumulative CPU seconds of every job ever folded; undefined while none ever was. */
  readonly otherCpu?: CpuSeconds;
  /** Summed current and peak memory of the folded jobs still running (peak: sum of their peaks). */
  readonly otherMemoryBytes: number;
  readonly otherMemoryPeakBytes: number;
  readonly foldedJobs: number;
}

export class CgroupJobFold {
  private readonly slots: SlotTable;
  private readonly folded = new Map<string, CpuSeconds>(); // job → CPU already credited to _other
  private otherCpu: { user: number; system: number } | undefined;

  constructor(maxJobs: number) {
    this.slots = new SlotTable({ max: maxJobs, folded: 'pinned' });
  }

  /** Sorts this scrape's samples into own series and the `_other` bucket; forgets ended jobs. */
  apply<S extends JobSample>(samples: readonly S[]): FoldedView<S> {
    const present = new Set(samples.map((s) => s.jobid));
    this.slots.retainOnly(present);
    for (const job of this.folded.keys()) if (!present.has(job)) this.folded.delete(job);

    const own: S[] = [];
    let memory = 0;
    let peak = 0;
    for (const s of samples) {
      // No idle rule here (only ending frees a slot), so the time given is irrelevant.
      if (this.slots.route(s.jobid, 0, 0)) {
        own.push(s);
        continue;
      }
      const credited = this.folded.get(s.jobid) ?? { user: 0, system: 0 };
      const cpu = s.cpu ?? credited;
      this.otherCpu ??= { user: 0, system: 0 };
      // A counter below what was credited cannot happen within one cgroup; credit only growth.
      this.otherCpu.user += Math.max(0, cpu.user - credited.user);
      this.otherCpu.system += Math.max(0, cpu.system - credited.system);
      this.folded.set(s.jobid, { user: Math.max(cpu.user, credited.user), system: Math.max(cpu.system, credited.system) });
      memory += s.memoryBytes ?? 0;
      peak += s.memoryPeakBytes ?? 0;
    }
    return { own, ...(this.otherCpu ? { otherCpu: { ...this.otherCpu } } : {}), otherMemoryBytes: memory, otherMemoryPeakBytes: peak, foldedJobs: this.folded.size };
  }
}
