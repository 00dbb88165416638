// Finds and reads the Lustre plain stats pseudo-files of the server targets on this host:
//   <root>/obdfilter/<target>/stats, <root>/mdt/<target>/md_stats           (lustre_stats)
//   <root>/{obdfilter,mdt}/<target>/exports/<nid>/stats                       (lustre_exports)
// under the roots of lustre-tree.ts (/proc/fs/lustre, /sys/fs/lustre, /sys/kernel/debug/lustre).
import { join } from 'node:path';
import type { Paths } from '../util/paths.js';
import { findTargets, type FoundTargets } from './lustre-tree.js';
import { listDir, readPseudoFile } from '../util/pseudo-files.js';

export interface StatsFile {
  readonly target: string;
  /** The client NID for export stats, '' for a target's own stats. */
  readonly client: string;
  readonly path: string;
}

export type StatsRead = (StatsFile & { readonly data: Buffer }) | (StatsFile & { readonly error: Error });

/** What the stats collectors find: their files, and the directories that could not be listed. */
export type FoundStatsFiles = FoundTargets<StatsFile>;

const TARGET_STATS_FILE: Readonly<Record<string, string>> = { obdfilter: 'stats', mdt: 'md_stats' };

/** `obdfilter.*.stats` and `mdt.*.md_stats`: one file per target (targets keyed by name alone). */
export function findTargetStatsFiles(paths: Paths): Promise<FoundStatsFiles> {
  return findTargets(
    paths,
    ['obdfilter', 'mdt'],
    ({ kind, target, dir }, entries) => {
      const file = TARGET_STATS_FILE[kind] ?? '';
      return entries.includes(file) ? [{ target, client: '', path: join(dir, file) }] : [];
    },
    (_kind, target) => target,
  );
}

/** `{obdfilter,mdt}.*.exports.*.stats`: one file per target and client. */
export function findExportStatsFiles(paths: Paths): Promise<FoundStatsFiles> {
  return findTargets(paths, ['obdfilter', 'mdt'], async ({ target, dir }) => {
    const exports = join(dir, 'exports');
    // `exports/clear` is a write-only control file, not a client.
    return (await listDir(exports)).filter((nid) => nid !== 'clear' && nid.includes('@')).map((nid) => ({ target, client: nid, path: join(exports, nid, 'stats') }));
  });
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
