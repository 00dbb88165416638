// Jobs shorter than a scrape interval are not lost: the cgroup collector samples the job cgroups
// between scrapes (every sample-interval) and this book keeps each job's last sample. When a job's
// cgroup is gone (Slurm removes it as the job ends, before any epilog could read it), its last
// sample stays exported as the job's final values, frozen, until finished-expiry: the next scrapes
// see the CPU seconds and peak memory of a 2-second job that started and ended between two of them.
// A finished job has no current memory (its cgroup holds nothing), only its peak.
export interface UsageSample {
  readonly jobid: string;
  readonly uid: number;
  readonly cpu?: { readonly user: number; readonly system: number };
  readonly memoryBytes?: number;
  readonly memoryPeakBytes?: number;
}

export class FinishedJobs<S extends UsageSample> {
  private readonly running = new Map<string, S>();
  private readonly finished = new Map<string, { sample: S; endedMs: number }>();

  constructor(private readonly expiryMs: number) {}

  /**
   * Records one complete sampling of every job cgroup now present and returns it, each value missing
   * from a sample (a file gone while the job ended mid-read) taken from the job's previous sample.
   */
  observe(samples: readonly S[], nowMs: number): S[] {
    const present = new Set(samples.map((s) => s.jobid));
    for (const [id, last] of this.running) {
      if (present.has(id)) continue;
      this.running.delete(id);
      const final: S = { ...last };
      delete (final as { memoryBytes?: number }).memoryBytes; // nothing is charged to a cgroup that is gone
      this.finished.set(id, { sample: final, endedMs: nowMs });
    }
    const merged = samples.map((s) => {
      const prev = this.running.get(s.jobid);
      const m: S = prev ? { ...s, cpu: s.cpu ?? prev.cpu, memoryPeakBytes: s.memoryPeakBytes ?? prev.memoryPeakBytes } : s;
      this.running.set(s.jobid, m);
      this.finished.delete(s.jobid); // a job id seen again (requeued job): it runs
      return m;
    });
    for (const [id, f] of this.finished) if (nowMs - f.endedMs > this.expiryMs) this.finished.delete(id);
    return merged;
  }

  /** Final values of the jobs that ended within the expiry and do not run now. */
  finals(): S[] {
    return [...this.finished.values()].map((f) => f.sample);
  }

  get finishedCount(): number {
    return this.finished.size;
  }
}
