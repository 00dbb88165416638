// The simulated site's Lustre servers: job_stats files that grow linearly, rewritten atomically every
// tick from rate × elapsed time (in the 2.14 layout of the shared generator). Run as a child process
// of the test (`startJobStatsWriter`) at a raised priority: on the test's own thread a busy 2-core
// machine stalled the writer for seconds, the counters went up in steps, and two scrapers reading
// them at different moments saw different rates. Ends when its parent closes its standard input.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { jobStatsText, type GeneratedJob } from '../lustre/generate-jobstats.js';

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

/** One server's procfs root and its targets. */
export interface WriterRoot {
  readonly root: string;
  readonly targets: readonly TargetSpec[];
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

/** Every target's file as it stands `elapsed` seconds after the start. */
export function writeAllTargets(roots: readonly WriterRoot[], elapsed: number): void {
  for (const { root, targets } of roots) for (const target of targets) writeTarget(root, target, elapsed);
}

interface WriterArgs {
  readonly roots: readonly WriterRoot[];
  readonly t0: number;
  readonly tickMs: number;
}

const self = fileURLToPath(import.meta.url);

/**
 * Writes the files once now (they exist when this returns), then keeps them growing in a child
 * process; as root it runs at nice -10, above the test suite's own processes.
 */
export function startJobStatsWriter(roots: readonly WriterRoot[], t0: number, tickMs: number): ChildProcess {
  writeAllTargets(roots, (Date.now() - t0) / 1000);
  const args: WriterArgs = { roots, t0, tickMs };
  const node = [process.execPath, '--import', 'tsx', self, JSON.stringify(args)];
  const command = process.getuid?.() === 0 ? ['nice', '-n', '-10', ...node] : node;
  return spawn(command[0]!, command.slice(1), { stdio: ['pipe', 'ignore', 'inherit'], cwd: join(self, '..', '..', '..') });
}

if (process.argv[1] === self) {
  const { roots, t0, tickMs } = JSON.parse(process.argv[2] ?? '{}') as WriterArgs;
  const timer = setInterval(() => writeAllTargets(roots, (Date.now() - t0) / 1000), tickMs);
  process.stdin.on('close', () => clearInterval(timer));
  process.stdin.resume();
}
