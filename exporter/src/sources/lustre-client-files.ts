// The Lustre client's own pseudo-files on a compute node: `llite/<instance>/stats`, one per mounted
// Lustre file system (the instance is `<fsname>-<superblock address>`, e.g. `lustrefs-ffff88105db50000`),
// under /proc/fs/lustre (up to 2.11), /sys/kernel/debug/lustre (2.12 on) or /sys/fs/lustre, looked up
// in every root as for the server files; and the mount table that says where each file system is mounted.
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { procPath, type Paths } from '../util/paths.js';
import { findTargets, lustreRoots } from './lustre-tree.js';
import { listDirSync } from '../util/pseudo-files.js';
import type { FoundStatsFiles } from './lustre-stats-files.js';

/** `llite.*.stats`: one file per client mount (target = the llite instance). */
export function findLliteStatsFiles(paths: Paths): Promise<FoundStatsFiles> {
  return findTargets(
    paths,
    ['llite'],
    ({ target, dir }, entries) => (entries.includes('stats') ? [{ target, client: '', path: join(dir, 'stats') }] : []),
    (_kind, instance) => instance,
  );
}

/**
 * The llite stats files, synchronously and without the error report: for `jobio run`, which reads
 * these pseudo-files (kernel memory, no server round trip) once before its command starts, and for
 * which an asynchronous walk cost a thread-pool hop per directory. A directory it cannot list hides
 * its mounts, as an unreadable file does.
 */
export function findLliteStatsFilesSync(paths: Paths): { target: string; path: string }[] {
  const found = new Map<string, string>();
  for (const root of lustreRoots(paths)) {
    const dir = join(root, 'llite');
    for (const instance of listQuietly(dir)) {
      if (!found.has(instance) && listQuietly(join(dir, instance)).includes('stats')) found.set(instance, join(dir, instance, 'stats'));
    }
  }
  return [...found].map(([target, path]) => ({ target, path }));
}

function listQuietly(dir: string): string[] {
  try {
    return listDirSync(dir);
  } catch {
    return [];
  }
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
