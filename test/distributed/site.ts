// A simulated site of real exporters on 127.0.0.1: Lustre servers whose job_stats grow linearly
// (jobstats-writer.ts, in a child process) and compute nodes with the profiler (frames from frame-tool, a real process per job
// snapshot), the fake-NVML GPUs and the cgroup fixture. Used by the distributed-engine test and by
// `npm run bench -- fleet`.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot, startExporter, type RunningExporter } from '../helpers/exporter.js';
import { startJobStatsWriter, type TargetSpec } from './jobstats-writer.js';
import { frameTool } from '../profiler/frame-tool.js';
import { fakeConfig, fakeLibrary } from '../gpu/harness.js';

export type { JobLoad, TargetSpec } from './jobstats-writer.js';

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

/** Starts every host's exporter and the writers that make the load grow. */
export async function startSite(spec: SiteSpec): Promise<RunningSite> {
  const dir = mkdtempSync(join(tmpdir(), 'jobio-site-'));
  const hosts: SiteHost[] = [];
  const timers: NodeJS.Timeout[] = [];
  const t0 = Date.now();
  let ok = 0;
  let failed = 0;
  const lustreRoots = spec.lustre.map((server) => ({ server, root: join(dir, server.host) }));
  const writer = startJobStatsWriter(
    lustreRoots.map(({ server, root }) => ({ root, targets: server.targets })),
    t0,
    spec.tickMs ?? 100,
  );
  try {
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
    writer.stdin?.end();
    for (const t of timers) clearInterval(t);
    await Promise.all(hosts.map((h) => h.exporter.stop()));
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  return {
    hosts,
    sent: () => ({ ok, failed }),
    async stop() {
      writer.stdin?.end();
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
