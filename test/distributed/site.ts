// A simulated site of real exporters on 127.0.0.1: Lustre servers whose job_stats grow linearly
// (rewritten atomically every tick from rate × elapsed time, in the 2.14 layout of the shared
// generator) and compute nodes with the profiler (frames from frame-tool, a real process per job
// snapshot), the fake-NVML GPUs and the cgroup fixture. Used by the distributed-engine test and by
// `npm run bench -- fleet`.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot, startExporter, type RunningExporter } from '../helpers/exporter.js';
import { jobStatsText, type GeneratedJob } from '../lustre/generate-jobstats.js';
import { frameTool } from '../profiler/frame-tool.js';
import { fakeConfig, fakeLibrary } from '../gpu/harness.js';

/** Per-second rates of one job on one target: requests per operation, and bytes read/written. */
export interface JobLoad {
  readonly id: string; // job_id as Lustre prints it (%j:%u:%H)
  readonly ops?: Readonly<Record<string, number>>;
  readonly readBytes?: number; // bytes/s, in 1 MiB requests
  readonly writeBytes?: number;
}

export interface TargetSpec {
  readonly name: string; // fs-OST0000, fs-MDT0000
  readonly jobs: readonly JobLoad[];
}

export interface LustreServerSpec {
  readonly host: string;
  readonly targets: readonly TargetSpec[];
}

export interface ComputeNodeSpec {
  readonly host: string;
  /** Jobs whose processes send profiler snapshots, one every `profilerEveryMs`. */
  readonly jobs: readonly string[];
  readonly gpus: number;
}

export interface SiteSpec {
  readonly lustre: readonly LustreServerSpec[];
  readonly compute: readonly ComputeNodeSpec[];
  readonly tickMs?: number;
  readonly profilerEveryMs?: number;
}

export interface SiteHost {
  readonly host: string;
  readonly kind: 'lustre-server' | 'compute';
  readonly exporter: RunningExporter;
  readonly address: string;
}

export interface RunningSite {
  readonly hosts: readonly SiteHost[];
  /** Profiler snapshots sent and accepted so far (frame-tool exit 0). */
  sent(): { ok: number; failed: number };
  stop(): Promise<void>;
}

const MiB = 1048576;
const MDT_DIR = 'proc/fs/lustre/mdt';
const OST_DIR = 'proc/fs/lustre/obdfilter';

function generated(job: JobLoad, elapsed: number): GeneratedJob {
  const samples: Record<string, number> = {};
  const sums: Record<string, number> = {};
  for (const [op, rate] of Object.entries(job.ops ?? {})) {
    samples[op] = Math.floor(rate * elapsed);
    sums[op] = samples[op] * 20; // 20 µs per request
  }
  const rd = Math.floor(((job.readBytes ?? 0) * elapsed) / MiB);
  const wr = Math.floor(((job.writeBytes ?? 0) * elapsed) / MiB);
  Object.assign(samples, { read_bytes: rd, read: rd, write_bytes: wr, write: wr });
  Object.assign(sums, { read_bytes: rd * MiB, read: rd * 150, write_bytes: wr * MiB, write: wr * 150 });
  return { id: job.id, samples, sums };
}

function targetOps(target: TargetSpec): string[] {
  const ops = new Set(['read_bytes', 'write_bytes', 'read', 'write']);
  for (const job of target.jobs) for (const op of Object.keys(job.ops ?? {})) ops.add(op);
  return [...ops];
}

function writeTarget(root: string, target: TargetSpec, elapsed: number): void {
  const dir = join(root, target.name.includes('-MDT') ? MDT_DIR : OST_DIR, target.name);
  mkdirSync(dir, { recursive: true });
  const path = join(dir, 'job_stats');
  writeFileSync(
    `${path}.tmp`,
    jobStatsText(
      target.jobs.map((j) => generated(j, elapsed)),
      '2.14',
      targetOps(target),
    ),
  );
  renameSync(`${path}.tmp`, path);
}

/** Starts every host's exporter and the writers that make the load grow. */
export async function startSite(spec: SiteSpec): Promise<RunningSite> {
  const dir = mkdtempSync(join(tmpdir(), 'jobio-site-'));
  const hosts: SiteHost[] = [];
  const timers: NodeJS.Timeout[] = [];
  const t0 = Date.now();
  let ok = 0;
  let failed = 0;
  const lustreRoots = spec.lustre.map((server) => ({ server, root: join(dir, server.host) }));
  const writeAll = (): void => {
    const elapsed = (Date.now() - t0) / 1000;
    for (const { server, root } of lustreRoots) for (const target of server.targets) writeTarget(root, target, elapsed);
  };
  try {
    writeAll();
    timers.push(setInterval(writeAll, spec.tickMs ?? 100));
    const lustreRootfs = join(repoRoot, 'test/fixtures/lustre/rootfs');
    const starts: Array<() => Promise<SiteHost>> = [];
    for (const { server, root } of lustreRoots) {
      starts.push(() =>
        startExporter([
          '--collector.disable-defaults',
          '--collector.lustre_jobstats',
          `--path.procfs=${join(root, 'proc')}`,
          `--path.sysfs=${join(root, 'sys')}`,
          `--path.rootfs=${lustreRootfs}`,
        ]).then((exporter) => ({
          host: server.host,
          kind: 'lustre-server' as const,
          exporter,
          address: `127.0.0.1:${exporter.port}`,
        })),
      );
    }
    const cgroupFixtures = join(repoRoot, 'test/fixtures/cgroup');
    for (const node of spec.compute) {
      const socket = join(dir, `${node.host}.sock`);
      const nvml = fakeConfig([`gpus=${node.gpus}`, ...Array.from({ length: node.gpus }, (_, g) => `gpu${g}.energy_mj=${1000000 * (g + 1)}`)]);
      starts.push(() =>
        startExporter(
          [
            '--collector.disable-defaults',
            '--collector.profiler',
            `--collector.profiler.socket=${socket}`,
            '--collector.gpu',
            `--collector.gpu.nvml-library=${fakeLibrary}`,
            '--collector.cgroup',
            `--path.sysfs=${join(cgroupFixtures, 'v1/sys')}`,
            `--path.rootfs=${join(cgroupFixtures, 'rootfs')}`,
          ],
          { env: { JOBIO_FAKE_NVML_CONFIG: nvml } },
        ).then((exporter) => {
          // As many snapshots as the wall clock says are due, so a busy machine that delays a timer
          // makes the counters lag for a moment, not drift: they stay close to a straight line.
          const every = spec.profilerEveryMs ?? 250;
          const started = Date.now();
          let sentTicks = 0;
          const send = (): void => {
            const due = Math.min(8, Math.floor((Date.now() - started) / every) - sentTicks);
            sentTicks += Math.max(0, due);
            for (let i = 0; i < due; i += 1) {
              for (const jobid of node.jobs) {
                const child = spawn(frameTool(), ['send', socket, 'valid', jobid, 'SLURM_JOB_ID'], { stdio: 'ignore', env: { ...process.env, SLURM_JOB_ID: jobid, FRAME_TOOL_HOLD_MS: '300' } });
                child.on('exit', (code) => (code === 0 ? (ok += 1) : (failed += 1)));
                child.on('error', () => (failed += 1));
              }
            }
          };
          timers.push(setInterval(send, every));
          return { host: node.host, kind: 'compute' as const, exporter, address: `127.0.0.1:${exporter.port}` };
        }),
      );
    }
    // A few at a time: forty Node processes starting at once on two busy cores miss the exporter's
    // start-up deadline.
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < starts.length) {
        const start = starts[next]!;
        next += 1;
        hosts.push(await start());
      }
    };
    const results = await Promise.allSettled(Array.from({ length: 3 }, worker));
    const failure = results.find((r) => r.status === 'rejected');
    if (failure) throw failure.reason;
  } catch (err) {
    for (const t of timers) clearInterval(t);
    await Promise.all(hosts.map((h) => h.exporter.stop()));
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  return {
    hosts,
    sent: () => ({ ok, failed }),
    async stop() {
      for (const t of timers) clearInterval(t);
      await Promise.all(hosts.map((h) => h.exporter.stop()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** file_sd target lists: one group per host kind, labelled with its role. */
export function fileSdTargets(hosts: readonly SiteHost[]): string {
  const groups = (['lustre-server', 'compute'] as const).map((kind) => ({ kind, targets: hosts.filter((h) => h.kind === kind).map((h) => h.address) })).filter((g) => g.targets.length > 0);
  return groups.map((g) => `- targets: ${JSON.stringify(g.targets)}\n  labels: { role: ${g.kind} }\n`).join('');
}
