// Collector `gpu`: per-GPU energy, PCIe traffic, utilisation, memory, temperature and power from
// NVML, and the jobs with processes on each GPU (docs/gpu-and-cgroups.md, docs/metrics.md). NVML is reached
// through the native/nvml addon, which dlopens the library at run time: a host without it reports
// `absent` quietly. Every NVML call runs off the event loop with a deadline; a call still wedged
// from an earlier scrape is never stacked on (the collector fails fast until it returns).
// Guide: docs/gpu-and-cgroups.md. Metrics: docs/metrics.md.
import { defineCollector } from '../scrape/define-collector.js';
import { durationFlag, positiveIntegerFlag, switchFlag, textFlag, valueFlag } from '../scrape/flags.js';
import { loadNvmlAddon, type Nvml, type NvmlCallError, type NvmlSample } from '../gpu/nvml-addon.js';
import { PcieIntegrator } from '../gpu/pcie-integrator.js';
import { readOwnedProcessJob } from '../labels/process-job.js';
import { SlotTable } from '../labels/slot-table.js';
import { USER_FLAGS, userResolverFor } from '../labels/users.js';
import { DEFAULT_JOB_SPOOL, readJobSpool } from '../sources/job-spool.js';
import { rootPath } from '../util/paths.js';
import { registerGpuFamilies, type GpuReading, type GpuSnapshot } from './gpu_metrics.js';

const EMPTY: GpuSnapshot = { devices: [], jobs: [], jobsFolded: 0, unverifiedProcesses: 0 };

/** NVML answers that mean "this GPU has no such reading": skipped quietly. */
const NOT_SUPPORTED = new Set([3, 13]);

/**
 * nvmlInit answers that mean "no NVIDIA GPU here", not "the GPU is broken": a CPU-only node that has
 * the NVIDIA user-space library installed (common in shared images) but no kernel driver gets
 * NVML_ERROR_DRIVER_NOT_LOADED (9). Treated like a missing library: absent, quietly, retried each scrape.
 */
const NO_GPU_HERE = new Set([9]);

/** dlopen("") would open the exporter itself, not a library. */
function nonEmpty(text: string): string {
  if (text.trim() === '') throw new Error('a library name or path is needed');
  return text;
}

function describe(e: NvmlCallError, gpu?: number): string {
  return `NVML ${e.call} failed${gpu === undefined ? '' : ` on GPU ${gpu}`}: ${e.message} (code ${e.code})`;
}

export const gpuCollector = defineCollector({
  name: 'gpu',
  help: 'Per-GPU energy, PCIe bytes, utilisation, memory, temperature, power and jobs, from NVML (quiet without NVIDIA GPUs).',
  defaultEnabled: true,
  flags: {
    library: valueFlag('nvml-library', 'libnvidia-ml.so.1', 'The NVML library to dlopen: a soname searched the usual way, or a path.', nonEmpty),
    timeoutMs: durationFlag('timeout', '5s', 'Deadline of the NVML calls of one scrape; a hung driver makes the collector fail, not the scrape.'),
    pcie: switchFlag('pcie', true, 'Query PCIe throughput (about 40 ms per GPU inside the driver).'),
    processes: switchFlag('processes', true, 'Query the compute processes of each GPU to export jobio_gpu_job_info.'),
    maxJobs: positiveIntegerFlag(
      'max-jobs',
      100,
      'jobio_gpu_job_info series at most; a GPU-job pair keeps its series while the job runs on that GPU, further pairs are counted in jobio_gpu_jobs_folded.',
    ),
    spoolDir: textFlag(
      'spool-dir',
      DEFAULT_JOB_SPOOL,
      "The prolog's job spool (as --collector.job_info.spool-dir): a GPU process whose job only its environment names counts for that job only if the spool gives the job to the process's uid.",
    ),
    ...USER_FLAGS,
  },
  create({ registry, paths, settings: s, logger }) {
    const spoolDir = rootPath(paths, s.spoolDir);
    const users = userResolverFor(paths, s);
    const pcie = new PcieIntegrator();
    // Sticky GPU-job pairs: a pair keeps its series while its job is on the GPU; a folded pair waits
    // for a free slot (longest waiting first), so the series do not flap from scrape to scrape.
    const jobSlots = new SlotTable({ max: s.maxJobs, folded: 'compete' });
    let nvml: Nvml | undefined;
    let ready = false;
    let inFlight: Promise<unknown> | undefined;
    /** What the last update read; undefined until the first, and again while NVML is absent (no families). */
    let snapshot: GpuSnapshot | undefined;

    /**
     * Runs one addon call with the deadline, refusing to start while an earlier one is wedged. The
     * scrape's signal ends the wait too (the call itself cannot be cancelled: it stays in flight).
     */
    const call = async <T>(what: string, start: () => Promise<T>, signal?: AbortSignal): Promise<T> => {
      signal?.throwIfAborted();
      if (inFlight) throw new Error(`an NVML call from an earlier scrape has not returned (hung driver?); not calling ${what}`);
      const p = start();
      inFlight = p;
      void p
        .then(
          () => undefined,
          () => undefined,
        )
        .finally(() => {
          if (inFlight === p) inFlight = undefined;
        });
      let timer: NodeJS.Timeout | undefined;
      let onAbort: (() => void) | undefined;
      const deadline = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`NVML ${what} did not return within ${s.timeoutMs} ms (hung driver?)`)), s.timeoutMs);
        onAbort = () => reject(new Error(`NVML ${what}: stopped at the scrape deadline (the call stays in flight)`));
        signal?.addEventListener('abort', onAbort, { once: true });
      });
      try {
        return await Promise.race([p, deadline]);
      } finally {
        clearTimeout(timer);
        if (onAbort) signal?.removeEventListener('abort', onAbort);
      }
    };

    const clear = (): void => {
      if (snapshot) registry.clear();
      snapshot = undefined;
    };

    let why: string | undefined;
    return {
      describe: () => ({ source: `NVML library ${s.library}`, ...(why ? { why } : {}) }),
      async update(signal) {
        // Built on the first update; once ready is set it is always there.
        const lib = (nvml ??= new (loadNvmlAddon().Nvml)(s.library));
        if (!ready) {
          const init = await call('nvmlInit_v2', () => lib.init(), signal);
          if (init.status === 'no-library') {
            clear();
            logger.debug({ library: s.library, err: init.error.message }, 'no NVML library: no NVIDIA GPU on this host');
            why = `no NVML library: ${init.error.message}`;
            return 'absent';
          }
          if (init.status === 'error' && NO_GPU_HERE.has(init.error.code)) {
            clear();
            logger.debug({ library: s.library, err: describe(init.error) }, 'NVIDIA library without a driver: no NVIDIA GPU on this host');
            why = `NVIDIA library without a driver: ${describe(init.error)}`;
            return 'absent';
          }
          if (init.status === 'error') throw new Error(describe(init.error));
          ready = true;
        }
        const sample: NvmlSample = await call('device queries', () => lib.sample({ pcie: s.pcie, processes: s.processes }), signal);
        if (sample.errors[0]) throw new Error(describe(sample.errors[0]));
        const failures = sample.devices.flatMap((d) => d.errors.filter((e) => !NOT_SUPPORTED.has(e.code)).map((e) => describe(e, d.index)));
        if (failures.length > 0) throw new Error(failures.join('; '));

        // Process → job attribution (reads under --path.procfs), by the profiler's evidence rule: the
        // kernel (job cgroup, step daemon) decides; SLURM_JOB_ID & co., which any process can set, count
        // only for a job the root-written spool gives to the process's own uid.
        const jobs: { gpu: string; jobid: string; uid: number }[] = [];
        let unverified = 0;
        const pids = sample.devices.flatMap((d) => d.pids ?? []);
        const spool = pids.length > 0 ? await readJobSpool(spoolDir, signal) : undefined;
        const owners = new Map((spool?.jobs ?? []).flatMap((j) => (j.uid === undefined ? [] : [[j.jobid, j.uid] as const])));
        for (const d of sample.devices) {
          const seen = new Set<string>();
          for (const pid of d.pids ?? []) {
            signal.throwIfAborted();
            const found = await readOwnedProcessJob(paths.procfs, pid, owners);
            if (found && 'refused' in found) {
              unverified++;
              logger.debug(
                { gpu: d.index, pid, uid: found.refused.uid, jobid: found.refused.jobid },
                'GPU process names a job only in its environment, without kernel or spool evidence: not attributed',
              );
            }
            const job = found && 'job' in found ? found.job : undefined;
            if (!job || seen.has(job.jobid)) continue;
            seen.add(job.jobid);
            jobs.push({ gpu: String(d.index), jobid: job.jobid, uid: job.uid });
          }
        }
        const pairKey = (j: { gpu: string; jobid: string }): string => `${j.gpu}\u0000${j.jobid}`;
        const nowMs = Date.now();
        jobSlots.retainOnly(new Set(jobs.map(pairKey)));
        jobSlots.fill();
        const exported = jobs.filter((j) => jobSlots.route(pairKey(j), 1, nowMs));
        if (exported.length < jobs.length) logger.debug({ jobs: jobs.length, max: s.maxJobs }, 'more GPU jobs than --collector.gpu.max-jobs; the rest are counted in jobio_gpu_jobs_folded');
        await users.resolve(new Set(jobs.map((j) => j.uid)));

        // The snapshot is complete: the families hand it out from the next scrape on (never half-made).
        const now = Date.now();
        const present = new Set<string>();
        const devices = sample.devices.map((d): GpuReading => {
          const gpu = String(d.index);
          const key = d.uuid ?? `index:${gpu}`;
          present.add(key);
          const measuredPcie = s.pcie && (d.pcieRxKilobytesPerSecond !== undefined || d.pcieTxKilobytesPerSecond !== undefined);
          return {
            gpu,
            uuid: d.uuid ?? '',
            name: d.name ?? '',
            ...(d.energyMillijoules !== undefined ? { energyJoules: d.energyMillijoules / 1000 } : {}),
            ...(measuredPcie ? { pcie: pcie.add(key, now, d.pcieRxKilobytesPerSecond, d.pcieTxKilobytesPerSecond) } : {}),
            ...(d.utilizationPercent !== undefined ? { utilizationRatio: d.utilizationPercent / 100 } : {}),
            ...(d.memoryUsedBytes !== undefined ? { memoryUsedBytes: d.memoryUsedBytes } : {}),
            ...(d.memoryTotalBytes !== undefined ? { memoryTotalBytes: d.memoryTotalBytes } : {}),
            ...(d.temperatureCelsius !== undefined ? { temperatureCelsius: d.temperatureCelsius } : {}),
            ...(d.powerMilliwatts !== undefined ? { powerWatts: d.powerMilliwatts / 1000 } : {}),
          };
        });
        pcie.retain(present);
        if (!snapshot) registerGpuFamilies(registry, () => snapshot ?? EMPTY);
        snapshot = {
          devices,
          jobs: exported.map((j) => ({ gpu: j.gpu, jobid: j.jobid, user: users.label(j.uid) })),
          jobsFolded: jobs.length - exported.length,
          unverifiedProcesses: unverified,
        };
        return 'ok';
      },
      async close() {
        const lib = nvml;
        if (!ready || inFlight || !lib) return; // never wait on a wedged driver at shutdown
        await call('nvmlShutdown', () => lib.shutdown()).catch(() => undefined);
      },
    };
  },
});
