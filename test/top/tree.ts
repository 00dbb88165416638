// A changing Lustre server tree for the `jobio top` tests: job_stats (2.14 layout, from the shared
// generator) and per-client export stats of one OST, replaced atomically so the exporter never reads
// half a file.
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../helpers/exporter.js';
import { jobStatsText, type GeneratedJob } from '../lustre/generate-jobstats.js';

export const MiB = 1048576;
export const TARGET = 'fs-OST0000';

export interface ClientLoad {
  readonly wrMiB?: number;
  readonly rdMiB?: number;
}

export interface Snapshot {
  /** job_id (`%j:%u:%H`) → MiB written / read, in 1 MiB requests. */
  readonly jobs: Record<string, ClientLoad>;
  /** NID → MiB written / read. */
  readonly clients: Record<string, ClientLoad>;
}

function job(id: string, load: ClientLoad): GeneratedJob {
  const wr = load.wrMiB ?? 0;
  const rd = load.rdMiB ?? 0;
  return { id, samples: { write_bytes: wr, write: wr, read_bytes: rd, read: rd }, sums: { write_bytes: wr * MiB, read_bytes: rd * MiB, write: wr * 10, read: rd * 10 } };
}

function exportStats(load: ClientLoad): string {
  const lines = ['snapshot_time             1700000000.000000001 secs.nsecs'];
  if (load.rdMiB) lines.push(`read_bytes                ${load.rdMiB} samples [bytes] ${MiB} ${MiB} ${load.rdMiB * MiB}`);
  if (load.wrMiB) lines.push(`write_bytes               ${load.wrMiB} samples [bytes] ${MiB} ${MiB} ${load.wrMiB * MiB}`);
  return `${lines.join('\n')}\n`;
}

function atomicWrite(path: string, text: string): void {
  writeFileSync(`${path}.tmp`, text);
  renameSync(`${path}.tmp`, path);
}

/** The exporter flags that read the tree under `root` (and the fixtures' rootfs for the mounts). */
export function treePaths(root: string): string[] {
  return [`--path.procfs=${join(root, 'proc')}`, `--path.sysfs=${join(root, 'sys')}`, `--path.rootfs=${join(repoRoot, 'test/fixtures/lustre/rootfs')}`];
}

/** Writes the snapshot under `<root>/proc/fs/lustre/obdfilter/fs-OST0000` (clients are only added or grown). */
export function writeSnapshot(root: string, snapshot: Snapshot): void {
  const dir = join(root, 'proc/fs/lustre/obdfilter', TARGET);
  mkdirSync(join(dir, 'exports'), { recursive: true });
  atomicWrite(
    join(dir, 'job_stats'),
    jobStatsText(
      Object.entries(snapshot.jobs).map(([id, load]) => job(id, load)),
      '2.14',
      ['read_bytes', 'write_bytes', 'read', 'write'],
    ),
  );
  for (const [nid, load] of Object.entries(snapshot.clients)) {
    mkdirSync(join(dir, 'exports', nid), { recursive: true });
    atomicWrite(join(dir, 'exports', nid, 'stats'), exportStats(load));
  }
}

/** The table of a `jobio top --once` output: its first line is the title (checked), the rest returned. */
export function withoutTitle(stdout: string): string {
  if (stdout === '') return stdout;
  const end = stdout.indexOf('\n');
  const title = stdout.slice(0, end);
  if (!/^jobio top — by (job|client), \S+ (interval|window \(.*\)), \S.* — \d{4}-\d\d-\d\dT/.test(title)) throw new Error(`not a title line: ${JSON.stringify(title)}`);
  return stdout.slice(end + 1);
}
