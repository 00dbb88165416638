// A profiled job and its node's Lustre client on a fake node root, for the tests that join the two
// (profiler coverage): llite stats text with given byte counts, and the frame tool sending frames as
// Slurm job 4242 with its /proc entry visible in the fake procfs.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expected, frameTool } from '../profiler/frame-tool.js';
import { startExporter, type RunningExporter } from '../helpers/exporter.js';

const KiB4 = 4096;

/** What one frame-tool run reports for /data (scale 3): the formulas of frame-tool.c. */
export const profiledRead = [0, 1, 2].reduce((a, b) => a + expected.sizedBytes(3, 0, b), 0);
export const profiledWrite = [0, 1, 2].reduce((a, b) => a + expected.sizedBytes(3, 1, b), 0);

/**
 * Makes job 4242's Slurm cgroup in the fake sysfs, which tells the lustre_client collector the node's
 * job. In the v1 layout (`memory/slurm/uid_<uid>/job_4242`): the profiler learns v1 Slurm directories
 * from kernel evidence only, so the frame tool, which runs in no job cgroup, is believed on its
 * environment; a v2 `slurmstepd.scope/job_4242` would make it refuse the claims of a process outside it.
 */
export function makeJobCgroup(sysfs: string): void {
  mkdirSync(join(sysfs, `fs/cgroup/memory/slurm/uid_${process.getuid?.() ?? 0}/job_4242`), { recursive: true });
}

/** llite stats with these bytes (4 KiB per sample) and 9 opens. */
export function llite(read: number, write: number): string {
  return `snapshot_time 1700000000.000000001 secs.nsecs\nread_bytes ${read / KiB4} samples [bytes] 4096 4096 ${read}\nwrite_bytes ${write / KiB4} samples [bytes] 4096 4096 ${write}\nopen 9 samples [usecs] 1 9 40\n`;
}

/**
 * Runs the frame tool as job 4242 with its /proc entry visible in the fake procfs: a shell waits for a
 * go file, the test links <procfs>/<pid> to the real one, and the shell execs the frame tool (same pid),
 * so the receiver checks the job claim against the real environment.
 */
export async function sendAsJob(procfs: string, socket: string, dir: string): Promise<void> {
  const go = join(dir, `go-${Date.now()}`);
  const child = spawn('/bin/sh', ['-c', `while [ ! -e ${go} ]; do sleep 0.02; done; exec ${frameTool()} send ${socket} valid 4242 SLURM_JOB_ID`], {
    env: { ...process.env, SLURM_JOB_ID: '4242', FRAME_TOOL_HOLD_MS: '300' },
    stdio: 'ignore',
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  symlinkSync(`/proc/${child.pid}`, join(procfs, String(child.pid)));
  writeFileSync(go, '');
  assert.equal(await exited, 0);
}

export interface ClientNode {
  readonly exporter: RunningExporter;
  readonly procfs: string;
  /** The profiler's socket. */
  readonly socket: string;
  /** The llite stats file of /data. */
  readonly llitePath: string;
}

/**
 * Job 4242's node under `dir`: /data a Lustre client mount whose llite stats say `read` and `write`
 * bytes, the job's cgroup, and an exporter of the profiler's frames and the client's counters.
 */
export async function startClientNode(dir: string, read: number, write: number): Promise<ClientNode> {
  const procfs = join(dir, 'proc');
  const sysfs = join(dir, 'sys');
  const llitePath = join(sysfs, 'kernel/debug/lustre/llite/scratch-ffff0001/stats');
  mkdirSync(join(sysfs, 'kernel/debug/lustre/llite/scratch-ffff0001'), { recursive: true });
  makeJobCgroup(sysfs);
  mkdirSync(procfs);
  writeFileSync(join(procfs, 'mounts'), '10.0.0.1@tcp:/scratch /data lustre rw,flock 0 0\n');
  writeFileSync(llitePath, llite(read, write));
  const socket = join(dir, 'profiler.sock');
  const exporter = await startExporter([
    '--collector.disable-defaults',
    '--collector.profiler',
    '--collector.lustre_client',
    `--collector.profiler.socket=${socket}`,
    // The client's increments show once a window of the exporter's clock has closed: a short one here.
    '--collector.lustre_client.job-window=200ms',
    `--path.procfs=${procfs}`,
    `--path.sysfs=${sysfs}`,
  ]);
  return { exporter, procfs, socket, llitePath };
}
