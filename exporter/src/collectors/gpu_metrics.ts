// The gpu collector's metric families (docs/metrics.md): families of the one model, handing out what
// the last update read (a GpuSnapshot) when the scrape renders them. They are registered on first
// use, so a host without NVIDIA GPUs exports no gpu series at all.
import type { Labels, MetricFamily, MetricType, SampleSink } from '../scrape/metric-family.js';
import type { MetricRegistry } from '../scrape/metric-registry.js';

/** One GPU as the last update read it; a reading NVML did not give is undefined (no series). */
export interface GpuReading {
  /** The NVML index, as the `gpu` label. */
  readonly gpu: string;
  readonly uuid: string;
  readonly name: string;
  readonly energyJoules?: number;
  /** PCIe bytes integrated by the exporter since it first saw the GPU (absent: not queried). */
  readonly pcie?: { readonly rx: number; readonly tx: number };
  readonly utilizationRatio?: number;
  readonly memoryUsedBytes?: number;
  readonly memoryTotalBytes?: number;
  readonly temperatureCelsius?: number;
  readonly powerWatts?: number;
}

/** What the last update read: the GPUs, the GPU-job pairs with a series, the ones folded, the unattributed processes. */
export interface GpuSnapshot {
  readonly devices: readonly GpuReading[];
  readonly jobs: readonly { readonly gpu: string; readonly jobid: string; readonly user: string }[];
  readonly jobsFolded: number;
  readonly unverifiedProcesses: number;
}

type Emit = (labels: Labels, value: number) => void;

/** A family whose samples `samples` hands out from the snapshot, in order. */
function family(name: string, help: string, type: MetricType, snapshot: () => GpuSnapshot, samples: (s: GpuSnapshot, emit: Emit) => void): MetricFamily {
  return { name, help, type, collect: (sink: SampleSink) => samples(snapshot(), (labels, value) => sink.sample(labels, value)) };
}

/** One series per GPU that has the reading. */
function perGpu(name: string, help: string, type: MetricType, snapshot: () => GpuSnapshot, reading: (d: GpuReading) => number | undefined): MetricFamily {
  return family(name, help, type, snapshot, (s, emit) => {
    for (const d of s.devices) {
      const value = reading(d);
      if (value !== undefined) emit({ gpu: d.gpu }, value);
    }
  });
}

/** Registers the gpu families in `registry`, reading `snapshot()` at each scrape. */
export function registerGpuFamilies(registry: MetricRegistry, snapshot: () => GpuSnapshot): void {
  const families = [
    family('jobio_gpu_info', 'Constant 1 per GPU, labelled with its NVML index, UUID and name.', 'gauge', snapshot, (s, emit) => {
      for (const d of s.devices) emit({ gpu: d.gpu, uuid: d.uuid, name: d.name }, 1);
    }),
    perGpu('jobio_gpu_energy_joules_total', 'Energy used by the GPU since the driver was loaded, in joules (NVML total energy consumption).', 'counter', snapshot, (d) => d.energyJoules),
    perGpu('jobio_gpu_pcie_receive_bytes_total', 'Bytes received by the GPU over PCIe, integrated by the exporter from NVML throughput samples.', 'counter', snapshot, (d) => d.pcie?.rx),
    perGpu('jobio_gpu_pcie_transmit_bytes_total', 'Bytes sent by the GPU over PCIe, integrated by the exporter from NVML throughput samples.', 'counter', snapshot, (d) => d.pcie?.tx),
    perGpu('jobio_gpu_utilization_ratio', 'Fraction of the last sample period in which a kernel ran on the GPU (0-1).', 'gauge', snapshot, (d) => d.utilizationRatio),
    perGpu('jobio_gpu_memory_used_bytes', 'GPU memory in use in bytes.', 'gauge', snapshot, (d) => d.memoryUsedBytes),
    perGpu('jobio_gpu_memory_total_bytes', 'GPU memory in total in bytes.', 'gauge', snapshot, (d) => d.memoryTotalBytes),
    perGpu('jobio_gpu_temperature_celsius', 'GPU core temperature in degrees Celsius.', 'gauge', snapshot, (d) => d.temperatureCelsius),
    perGpu('jobio_gpu_power_watts', 'GPU power draw in watts.', 'gauge', snapshot, (d) => d.powerWatts),
    family('jobio_gpu_job_info', 'Constant 1 while the job has compute processes on the GPU.', 'gauge', snapshot, (s, emit) => {
      for (const j of s.jobs) emit({ gpu: j.gpu, jobid: j.jobid, user: j.user }, 1);
    }),
    family(
      'jobio_gpu_unverified_processes',
      "GPU compute processes in the last scrape whose job only their own environment names (no job cgroup or step daemon, and no spool entry giving the job to the process's uid): not attributed to any job.",
      'gauge',
      snapshot,
      (s, emit) => emit({}, s.unverifiedProcesses),
    ),
    family(
      'jobio_gpu_jobs_folded',
      'GPU-job pairs found in the last scrape without a jobio_gpu_job_info series (beyond max-jobs; a pair keeps its series while its job runs on the GPU).',
      'gauge',
      snapshot,
      (s, emit) => emit({}, s.jobsFolded),
    ),
  ];
  for (const f of families) registry.register(f);
}
