// Finds and reads the job_stats pseudo-files of the Lustre targets on this host.
//
// The file is `<root>/{mdt,obdfilter}/<target>/job_stats`, where root depends on the version and on
// where lctl looks for parameters: /proc/fs/lustre (every version up to 2.17 for job_stats),
// /sys/fs/lustre and /sys/kernel/debug/lustre (parameters moved there over the 2.x series).
// Every root is taken from --path.procfs / --path.sysfs (a container with the host's /proc elsewhere),
// or from --path.lustre (a captured tree: <dir>/proc/fs/lustre, ...; the profiler keeps the real /proc).
// A target found under several roots is read once, from the first.
import { join } from 'node:path';
import { procPath, sysPath, type Paths } from '../util/paths.js';
import type { TargetReader, TargetRef } from '../lustre/jobstats-accumulator.js';
import { listDir, streamPseudoFile } from './pseudo-files.js';

export const JOBSTATS_KINDS = ['mdt', 'obdfilter'] as const;

export interface JobStatsFile {
  readonly ref: TargetRef;
  readonly path: string;
}

export function lustreRoots(paths: Paths): string[] {
  if (paths.lustre !== undefined) return [join(paths.lustre, 'proc/fs/lustre'), join(paths.lustre, 'sys/fs/lustre'), join(paths.lustre, 'sys/kernel/debug/lustre')];
  return [procPath(paths, 'fs', 'lustre'), sysPath(paths, 'fs', 'lustre'), sysPath(paths, 'kernel', 'debug', 'lustre')];
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

/** How one file's read ended. */
export type JobStatsReadOutcome = { readonly bytes: number; readonly truncated: boolean } | { readonly gone: true } | { readonly error: Error };

/**
 * Streams one file into `reader`, in bounded chunks, up to maxBytes (then the read is cut and the
 * reader told so). seq_file gives one consistent pass per open. A file gone meanwhile (target
 * unmounted) leaves the reader unused; a FIFO, device or failed read is an error for this target only.
 */
export async function readJobStatsFile(file: JobStatsFile, reader: TargetReader, maxBytes: number, signal?: AbortSignal, buffer?: Buffer): Promise<JobStatsReadOutcome> {
  try {
    const result = await streamPseudoFile(file.path, (chunk) => reader.push(chunk), { signal, maxBytes, ...(buffer ? { buffer } : {}) });
    reader.end(result.truncated);
    return result;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { gone: true };
    reader.fail();
    if (signal?.aborted) throw err;
    return { error: err as Error };
  }
}
