// The GPUs of the node as `jobio run` sees them, for the log's `gpu` records: NVML (through the
// native/nvml addon) sampled once a second while CMD runs, plus once at the start and once at the end.
// Where NVML is not there (no library, no driver) there are no `gpu` records, quietly.
import { existsSync } from 'node:fs';
import { loadNvmlAddon, type Nvml, type NvmlDeviceSample } from '../gpu/nvml-addon.js';
import { PcieIntegrator } from '../gpu/pcie-integrator.js';
import type { GpuFigures } from '../profiler/mistral-records.js';

export interface GpuPoint {
  readonly second: number;
  readonly energyMj?: number;
  readonly utilisation?: number;
  readonly temperature?: number;
  readonly memUsed?: number;
  readonly powerMw?: number;
  /**
   * Cumulative PCIe bytes since the first sample (rate × time, a sampled estimate), in whole bytes:
   * rounded here, at the point, so the frames' differences add up exactly to the job total's.
   */
  readonly rxBytes: number;
  readonly txBytes: number;
}

/**
 * The device nodes through which NVML reaches the NVIDIA driver: /dev/nvidiactl on Linux, /dev/dxg
 * under WSL. Without either the driver's NVML cannot initialise, so `jobio run` does not load it.
 */
const DRIVER_NODES = ['/dev/nvidiactl', '/dev/dxg'];

/**
 * Whether NVML is worth loading: always for a library given by path; for the driver's own soname
 * (libnvidia-ml.so.1) only where a driver device node exists. Loading the addon and looking for the
 * library costs `jobio run` a few milliseconds of start-up on every node without a GPU.
 */
export function nvmlWorthLoading(library: string, driverNodes: readonly string[] = DRIVER_NODES): boolean {
  if (library.includes('/') || !library.startsWith('libnvidia-ml.so')) return true;
  return driverNodes.some((node) => existsSync(node));
}

/** One GPU over a window, in the units of the log (J, bytes, %, °C, W): what a `gpu` record holds. */
export type GpuWindow = GpuFigures;

export class GpuSampler {
  /** index → its points, oldest first */
  private readonly points = new Map<number, GpuPoint[]>();
  private readonly pcie = new PcieIntegrator();
  private timer: NodeJS.Timeout | undefined;
  private busy: Promise<void> | undefined;
  /** Seconds below this are in frames already written. */
  private sealed = 0;

  private constructor(
    private readonly nvml: Nvml,
    private readonly elapsedMs: () => number,
  ) {}

  /**
   * The second a point closes: a point taken near t s (t = 0 at the start, about 1, 2, … from the
   * timer, the run's end) holds the counters up to t, so it ends second round(t) - 1, the last slot of a
   * run of round(t) s. Windows [from, to) then end at the point taken at `to`.
   */
  private second(): number {
    return Math.max(0, Math.round(this.elapsedMs() / 1000) - 1);
  }

  /** A sampler with its first sample taken, or undefined when NVML is not there. */
  static async open(library: string, elapsedMs: () => number): Promise<GpuSampler | undefined> {
    if (!nvmlWorthLoading(library)) return undefined;
    let nvml: Nvml;
    try {
      nvml = new (loadNvmlAddon().Nvml)(library);
    } catch {
      return undefined; // addon not built: no GPU records
    }
    const init = await nvml.init();
    if (init.status !== 'ok') return undefined;
    const sampler = new GpuSampler(nvml, elapsedMs);
    await sampler.sample();
    return sampler;
  }

  /** Samples on the run's whole seconds (NVML's start-up may have taken part of the first one). */
  start(): void {
    this.timer = setTimeout(
      () => {
        void this.sample();
        this.timer = setInterval(() => void this.sample(), 1000);
        this.timer.unref();
      },
      1000 - (this.elapsedMs() % 1000),
    );
    this.timer.unref();
  }

  /** Stops the timer and takes the last sample (the end of the run). */
  async stop(): Promise<void> {
    clearTimeout(this.timer); // the first timer or the interval: Node clears either with either call
    await this.busy;
    await this.sample();
    await this.nvml.shutdown();
  }

  /** Frames of the seconds below `second` are written: a later point joins the next frame. */
  seal(second: number): void {
    this.sealed = Math.max(this.sealed, second);
  }

  /**
   * As RunTotals.foldTail: points of seconds from `slots` on join the last slot; and the run's last
   * point (taken by stop) closes the last slot, also when the run's length added a slot after it.
   */
  foldTail(slots: number): void {
    const last = Math.max(0, slots - 1);
    for (const [index, list] of this.points)
      this.points.set(
        index,
        list.map((p, i) => (p.second > last || i === list.length - 1 ? { ...p, second: last } : p)),
      );
  }

  private sample(): Promise<void> {
    if (this.busy) return this.busy; // NVML refuses overlapping calls: one sample at a time
    const run = async (): Promise<void> => {
      try {
        const s = await this.nvml.sample({ pcie: true, processes: false });
        const now = Date.now();
        for (const d of s.devices) this.add(d, now);
      } catch {
        // a failed sample leaves a gap; the next one carries on
      }
    };
    this.busy = run().finally(() => (this.busy = undefined));
    return this.busy;
  }

  private add(d: NvmlDeviceSample, nowMs: number): void {
    const bytes = this.pcie.add(d.uuid ?? String(d.index), nowMs, d.pcieRxKilobytesPerSecond, d.pcieTxKilobytesPerSecond);
    const list = this.points.get(d.index) ?? [];
    list.push({
      second: Math.max(this.sealed, this.second()),
      ...(d.energyMillijoules !== undefined ? { energyMj: d.energyMillijoules } : {}),
      ...(d.utilizationPercent !== undefined ? { utilisation: d.utilizationPercent } : {}),
      ...(d.temperatureCelsius !== undefined ? { temperature: d.temperatureCelsius } : {}),
      ...(d.memoryUsedBytes !== undefined ? { memUsed: d.memoryUsedBytes } : {}),
      ...(d.powerMilliwatts !== undefined ? { powerMw: d.powerMilliwatts } : {}),
      rxBytes: Math.round(bytes.rx),
      txBytes: Math.round(bytes.tx),
    });
    this.points.set(d.index, list);
  }

  /**
   * Each GPU over seconds [from, to), per second: a counter's (energy, PCIe bytes) increment is what it
   * grew since the GPU's point before (none for the run's first point, which starts the clocks), in the
   * second of the point that saw it; a counter that went back (a driver reset) counts nothing there.
   * So the seconds of the frames add up to the job total's. Utilisation is the mean of the second's
   * samples; temperature, memory and power the window's samples.
   */
  windows(from: number, to: number): GpuWindow[] {
    const out: GpuWindow[] = [];
    const length = Math.max(1, to - from);
    for (const [index, list] of [...this.points].sort((a, b) => a[0] - b[0])) {
      const inside = list.filter((p) => p.second >= from && p.second < to);
      if (inside.length === 0) continue;
      const energyJ = new Array<number>(length).fill(0);
      const readBytes = new Array<number>(length).fill(0);
      const writeBytes = new Array<number>(length).fill(0);
      const util: number[][] = Array.from({ length }, () => []);
      list.forEach((p, i) => {
        const at = p.second - from;
        if (at < 0 || at >= length) return;
        const prev = list[i - 1];
        const grew = (pick: (q: GpuPoint) => number | undefined): number => (prev ? Math.max(0, (pick(p) ?? 0) - (pick(prev) ?? 0)) : 0);
        energyJ[at] = (energyJ[at] ?? 0) + grew((q) => q.energyMj) / 1000;
        readBytes[at] = (readBytes[at] ?? 0) + grew((q) => q.rxBytes);
        writeBytes[at] = (writeBytes[at] ?? 0) + grew((q) => q.txBytes);
        if (p.utilisation !== undefined) util[at]?.push(p.utilisation);
      });
      const values = (pick: (p: GpuPoint) => number | undefined): number[] => inside.map(pick).filter((v): v is number => v !== undefined);
      out.push({
        device: `/dev/nvidia${index}`,
        energyJ,
        readBytes,
        writeBytes,
        utilisation: util.map((u) => (u.length > 0 ? u.reduce((a, b) => a + b, 0) / u.length : undefined)),
        temperature: values((p) => p.temperature),
        mem: values((p) => p.memUsed),
        power: values((p) => (p.powerMw === undefined ? undefined : p.powerMw / 1000)),
      });
    }
    return out;
  }
}
