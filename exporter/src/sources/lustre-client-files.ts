// The Lustre client's own pseudo-files on a compute node: `llite/<instance>/stats`, one per mounted
// Lustre file system (the instance is `<fsname>-<superblock address>`, e.g. `lustrefs-ffff88105db50000`),
// under /proc/fs/lustre (up to 2.11), /sys/kernel/debug/lustre (2.12 on) or /sys/fs/lustre, looked up
// in every root as for the server files; and the mount table that says where each file system is mounted.
import { readdirSync, readFileSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { procPath, type Paths } from '../util/paths.js';
import { lustreRoots } from './lustre-jobstats-files.js';
import type { StatsFile } from './lustre-stats-files.js';

async function listDir(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir)).sort();
  } catch {
    return []; // no such layout on this host
  }
}

function listDirSync(dir: string): string[] {
  try {
    return readdirSync(dir).sort();
  } catch {
    return []; // no such layout on this host
  }
}

/** The search for `llite.*.stats`: yields each directory it needs listed and is sent its entries. */
function* lliteSearch(paths: Paths): Generator<string, StatsFile[], string[]> {
  const found = new Map<string, StatsFile>();
  for (const root of lustreRoots(paths)) {
    for (const instance of yield join(root, 'llite')) {
      if (found.has(instance)) continue;
      if ((yield join(root, 'llite', instance)).includes('stats')) found.set(instance, { target: instance, client: '', path: join(root, 'llite', instance, 'stats') });
    }
  }
  return [...found.values()];
}

/** `llite.*.stats`: one file per client mount (target = the llite instance). */
export async function findLliteStatsFiles(paths: Paths): Promise<StatsFile[]> {
  const search = lliteSearch(paths);
  for (let step = search.next([]); ; step = search.next(await listDir(step.value))) if (step.done) return step.value;
}

/**
 * As findLliteStatsFiles, synchronously: for `jobio run`, which reads these pseudo-files (kernel
 * memory, never a server round trip) once before its command starts and has nothing else to do meanwhile.
 */
export function findLliteStatsFilesSync(paths: Paths): StatsFile[] {
  const search = lliteSearch(paths);
  for (let step = search.next([]); ; step = search.next(listDirSync(step.value))) if (step.done) return step.value;
}

export interface LustreMount {
  /** The file system name: `lustrefs` of `10.0.0.1@o2ib:/lustrefs/sub`. */
  readonly fs: string;
  /** The mount point, unescaped (`\040` is a space in the mount table). */
  readonly mount: string;
}

function unescapeMountField(text: string): string {
  return text.replace(/\\([0-7]{3})/g, (_, oct: string) => String.fromCharCode(parseInt(oct, 8)));
}

/** Lustre client mounts of a mount table (`/proc/mounts` format); other lines are ignored. */
export function parseLustreMounts(text: string): LustreMount[] {
  const mounts: LustreMount[] = [];
  for (const line of text.split('\n')) {
    const [device, mountPoint, fstype] = line.split(' ');
    if (fstype !== 'lustre' || device === undefined || mountPoint === undefined) continue;
    // `<mgsnid>[:<mgsnid>…]:/<fsname>[/<subdir>]`; a server target (`/dev/sdb` on /mnt/ost0) has no `:/`.
    const fs = /:\/([^/]+)/.exec(device)?.[1];
    if (fs === undefined) continue;
    mounts.push({ fs, mount: unescapeMountField(mountPoint) });
  }
  return mounts;
}

/** The Lustre client mounts of this host, from `<procfs>/mounts`; none when it cannot be read. */
export async function readLustreMounts(paths: Paths): Promise<LustreMount[]> {
  try {
    return parseLustreMounts(await readFile(procPath(paths, 'mounts'), 'latin1'));
  } catch {
    return [];
  }
}

/** As readLustreMounts, synchronously (see findLliteStatsFilesSync). */
export function readLustreMountsSync(paths: Paths): LustreMount[] {
  try {
    return parseLustreMounts(readFileSync(procPath(paths, 'mounts'), 'latin1'));
  } catch {
    return [];
  }
}
