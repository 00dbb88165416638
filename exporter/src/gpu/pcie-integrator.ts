// NVML gives PCIe throughput as a rate (KB/s over a ~20 ms window, 1 KB = 1024 bytes); the metric
// contract wants byte counters. Each GPU's counter grows by rate × time since the previous sample
// (the latest rate stands for the whole interval: a sampled estimate, documented as such). The first
// sample of a GPU only starts the clock. Keyed by UUID so a re-enumeration never mixes GPUs.
export class PcieIntegrator {
  private readonly state = new Map<string, { atMs: number; rx: number; tx: number }>();

  /** Adds one sample and returns the GPU's cumulative bytes. */
  add(key: string, nowMs: number, rxKBps: number | undefined, txKBps: number | undefined): { rx: number; tx: number } {
    const prev = this.state.get(key);
    const next = { atMs: nowMs, rx: prev?.rx ?? 0, tx: prev?.tx ?? 0 };
    if (prev) {
      const seconds = Math.max(0, (nowMs - prev.atMs) / 1000);
      next.rx += (rxKBps ?? 0) * 1024 * seconds;
      next.tx += (txKBps ?? 0) * 1024 * seconds;
    }
    this.state.set(key, next);
    return { rx: next.rx, tx: next.tx };
  }

  /** Forgets GPUs no longer present. */
  retain(keys: ReadonlySet<string>): void {
    for (const key of this.state.keys()) if (!keys.has(key)) this.state.delete(key);
  }
}
