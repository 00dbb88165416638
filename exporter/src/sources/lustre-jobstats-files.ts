// Finds and reads the job_stats pseudo-files of the Lustre targets on this host.
//
// The file is `<root>/{mdt,obdfilter}/<target>/job_stats`, where root depends on the version and on
// where lctl looks for parameters: /proc/fs/lustre (every version up to 2.17 for job_stats),
// /sys/fs/lustre and /sys/kernel/debug/lustre (parameters moved there over the 2.x series).
// Every root is taken from --path.procfs / --path.sysfs so tests run on fixture trees. A target found
// under several roots is read once, from the first.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { procPath, sysPath, type Paths } from '../util/paths.js';
import type { TargetRef } from '../lustre/jobstats-accumulator.js';

export const JOBSTATS_KINDS = ['mdt', 'obdfilter'] as const;

export interface JobStatsFile {
  readonly ref: TargetRef;
  readonly path: string;
}

export type JobStatsRead = { readonly ref: TargetRef; readonly path: string; readonly data: Buffer } | { readonly ref: TargetRef; readonly path: string; readonly error: Error };

export function lustreRoots(paths: Paths): string[] {
  return [procPath(paths, 'fs', 'lustre'), sysPath(paths, 'fs', 'lustre'), sysPath(paths, 'kernel', 'debug', 'lustre')];
}

async function listDir(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir)).sort();
  } catch {
    return []; // no such layout on this host
  }
}

/** The job_stats files present, one per target. */
export async function findJobStatsFiles(paths: Paths): Promise<JobStatsFile[]> {
  const found = new Map<string, JobStatsFile>();
  for (const root of lustreRoots(paths)) {
    for (const kind of JOBSTATS_KINDS) {
      for (const name of await listDir(join(root, kind))) {
        const key = `${kind}/${name}`;
        if (found.has(key)) continue;
        const path = join(root, kind, name, 'job_stats');
        // Listing a target's directory is cheap; it tells us the target has job_stats at all.
        if ((await listDir(join(root, kind, name))).includes('job_stats')) found.set(key, { ref: { kind, name }, path });
      }
    }
  }
  return [...found.values()];
}

/** Reads each file whole, in one call (seq_file gives one consistent pass), one after another. */
export async function* readJobStatsFiles(files: readonly JobStatsFile[], signal?: AbortSignal): AsyncGenerator<JobStatsRead> {
  for (const file of files) {
    signal?.throwIfAborted();
    try {
      yield { ...file, data: await readFile(file.path, { signal }) };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') continue; // the target went away meanwhile
      if (signal?.aborted) throw err;
      yield { ...file, error: err as Error };
    }
  }
}
