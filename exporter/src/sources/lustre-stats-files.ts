// Finds and reads the Lustre plain stats pseudo-files of the server targets on this host:
//   <root>/obdfilter/<target>/stats, <root>/mdt/<target>/md_stats           (lustre_stats)
//   <root>/{obdfilter,mdt}/<target>/exports/<nid>/stats                       (lustre_exports)
// under the same roots as job_stats (lustre-jobstats-files.ts: /proc/fs/lustre, /sys/fs/lustre,
// /sys/kernel/debug/lustre, from --path.procfs/--path.sysfs). Versions moved these files between the
// roots independently, so each file is looked up in every root; the first root holding it wins.
import { join } from 'node:path';
import type { Paths } from '../util/paths.js';
import { lustreRoots } from './lustre-jobstats-files.js';
import { listDir, readPseudoFile } from './pseudo-files.js';

export interface StatsFile {
  readonly target: string;
  /** The client NID for export stats, '' for a target's own stats. */
  readonly client: string;
  readonly path: string;
}

export type StatsRead = (StatsFile & { readonly data: Buffer }) | (StatsFile & { readonly error: Error });

/** `obdfilter.*.stats` and `mdt.*.md_stats`: one file per target. */
export async function findTargetStatsFiles(paths: Paths): Promise<StatsFile[]> {
  const found = new Map<string, StatsFile>();
  for (const root of lustreRoots(paths)) {
    for (const [kind, file] of [['obdfilter', 'stats'], ['mdt', 'md_stats']] as const) {
      for (const target of await listDir(join(root, kind))) {
        if (found.has(target)) continue;
        if ((await listDir(join(root, kind, target))).includes(file)) found.set(target, { target, client: '', path: join(root, kind, target, file) });
      }
    }
  }
  return [...found.values()];
}

/** `{obdfilter,mdt}.*.exports.*.stats`: one file per target and client. */
export async function findExportStatsFiles(paths: Paths): Promise<StatsFile[]> {
  const found = new Map<string, StatsFile>();
  for (const root of lustreRoots(paths)) {
    for (const kind of ['obdfilter', 'mdt'] as const) {
      for (const target of await listDir(join(root, kind))) {
        const exports = join(root, kind, target, 'exports');
        for (const nid of await listDir(exports)) {
          // `exports/clear` is a write-only control file, not a client.
          if (nid === 'clear' || !nid.includes('@')) continue;
          const key = `${target}\u0000${nid}`;
          if (!found.has(key)) found.set(key, { target, client: nid, path: join(exports, nid, 'stats') });
        }
      }
    }
  }
  return [...found.values()];
}

/**
 * Reads each file whole (one consistent seq_file pass; a few KB, bounded all the same); a file gone
 * meanwhile is skipped; a FIFO, device or oversized file is an error of that file only.
 */
export async function* readStatsFiles(files: readonly StatsFile[], signal?: AbortSignal): AsyncGenerator<StatsRead> {
  for (const file of files) {
    signal?.throwIfAborted();
    try {
      yield { ...file, data: await readPseudoFile(file.path, { signal }) };
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') continue; // client evicted / target unmounted meanwhile
      if (signal?.aborted) throw err;
      yield { ...file, error: err as Error };
    }
  }
}
