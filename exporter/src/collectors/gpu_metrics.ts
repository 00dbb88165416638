// The gpu collector's metric families (docs/metrics.md), created on first use so a host without NVIDIA
// GPUs exports no gpu series at all.
import { Counter, Gauge, type Registry } from 'prom-client';

export function makeGpuMetrics(registry: Registry) {
  const registers = [registry];
  const gpu = ['gpu'] as const;
  return {
    info: new Gauge({ name: 'jobio_gpu_info', help: 'Constant 1 per GPU, labelled with its NVML index, UUID and name.', labelNames: ['gpu', 'uuid', 'name'] as const, registers }),
    energy: new Counter({ name: 'jobio_gpu_energy_joules_total', help: 'Energy used by the GPU since the driver was loaded, in joules (NVML total energy consumption).', labelNames: gpu, registers }),
    pcieRx: new Counter({
      name: 'jobio_gpu_pcie_receive_bytes_total',
      help: 'Bytes received by the GPU over PCIe, integrated by the exporter from NVML throughput samples.',
      labelNames: gpu,
      registers,
    }),
    pcieTx: new Counter({ name: 'jobio_gpu_pcie_transmit_bytes_total', help: 'Bytes sent by the GPU over PCIe, integrated by the exporter from NVML throughput samples.', labelNames: gpu, registers }),
    utilization: new Gauge({ name: 'jobio_gpu_utilization_ratio', help: 'Fraction of the last sample period in which a kernel ran on the GPU (0-1).', labelNames: gpu, registers }),
    memoryUsed: new Gauge({ name: 'jobio_gpu_memory_used_bytes', help: 'GPU memory in use in bytes.', labelNames: gpu, registers }),
    memoryTotal: new Gauge({ name: 'jobio_gpu_memory_total_bytes', help: 'GPU memory in total in bytes.', labelNames: gpu, registers }),
    temperature: new Gauge({ name: 'jobio_gpu_temperature_celsius', help: 'GPU core temperature in degrees Celsius.', labelNames: gpu, registers }),
    power: new Gauge({ name: 'jobio_gpu_power_watts', help: 'GPU power draw in watts.', labelNames: gpu, registers }),
    jobInfo: new Gauge({ name: 'jobio_gpu_job_info', help: 'Constant 1 while the job has compute processes on the GPU.', labelNames: ['gpu', 'jobid', 'user'] as const, registers }),
    jobsFolded: new Gauge({
      name: 'jobio_gpu_jobs_folded',
      help: 'GPU-job pairs found in the last scrape without a jobio_gpu_job_info series (beyond max-jobs; a pair keeps its series while its job runs on the GPU).',
      registers,
    }),
  };
}

export type GpuMetrics = ReturnType<typeof makeGpuMetrics>;
