// The gpu collector's metric families (docs/metrics.md), created on first use so a host without NVIDIA
// GPUs exports no gpu series at all.
import type { MetricRegistry } from '../scrape/metric-registry.js';
import { metricsIn } from '../scrape/metric-factory.js';

export function makeGpuMetrics(registry: MetricRegistry) {
  const { counter, gauge } = metricsIn(registry);
  const gpu = ['gpu'] as const;
  return {
    info: gauge('jobio_gpu_info', 'Constant 1 per GPU, labelled with its NVML index, UUID and name.', ['gpu', 'uuid', 'name']),
    energy: counter('jobio_gpu_energy_joules_total', 'Energy used by the GPU since the driver was loaded, in joules (NVML total energy consumption).', gpu),
    pcieRx: counter('jobio_gpu_pcie_receive_bytes_total', 'Bytes received by the GPU over PCIe, integrated by the exporter from NVML throughput samples.', gpu),
    pcieTx: counter('jobio_gpu_pcie_transmit_bytes_total', 'Bytes sent by the GPU over PCIe, integrated by the exporter from NVML throughput samples.', gpu),
    utilization: gauge('jobio_gpu_utilization_ratio', 'Fraction of the last sample period in which a kernel ran on the GPU (0-1).', gpu),
    memoryUsed: gauge('jobio_gpu_memory_used_bytes', 'GPU memory in use in bytes.', gpu),
    memoryTotal: gauge('jobio_gpu_memory_total_bytes', 'GPU memory in total in bytes.', gpu),
    temperature: gauge('jobio_gpu_temperature_celsius', 'GPU core temperature in degrees Celsius.', gpu),
    power: gauge('jobio_gpu_power_watts', 'GPU power draw in watts.', gpu),
    jobInfo: gauge('jobio_gpu_job_info', 'Constant 1 while the job has compute processes on the GPU.', ['gpu', 'jobid', 'user']),
    unverifiedProcesses: gauge(
      'jobio_gpu_unverified_processes',
      "GPU compute processes in the last scrape whose job only their own environment names (no job cgroup or step daemon, and no spool entry giving the job to the process's uid): not attributed to any job.",
    ),
    jobsFolded: gauge('jobio_gpu_jobs_folded', 'GPU-job pairs found in the last scrape without a jobio_gpu_job_info series (beyond max-jobs; a pair keeps its series while its job runs on the GPU).'),
  };
}

export type GpuMetrics = ReturnType<typeof makeGpuMetrics>;
