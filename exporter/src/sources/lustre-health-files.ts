// Finds and reads the Lustre server files of the lustre_health collector, under the roots of
// lustre-tree.ts, named as `lctl get_param` names them so that both sources are read one way:
//   <root>/osd-{ldiskfs,zfs}/<target>/{kbytes,files}*   osd-ldiskfs.<target>.kbytestotal
//   <root>/health_check                                 health_check
//   <root>/{obdfilter,mdt}/<target>/recovery_status      obdfilter.<target>.recovery_status
// Versions put them in different roots (/proc/fs/lustre up to 2.10, /sys/fs/lustre later for the
// one-value files); the first root holding a target's file wins, as for every Lustre collector.
import { join } from 'node:path';
import type { Paths } from '../util/paths.js';
import { CAPACITY_FILES, type LctlParam } from '../parsers/lustre-health.js';
import { findTargets, lustreRoots, type UnlistedDir } from './lustre-tree.js';
import { readPseudoFile } from './pseudo-files.js';

/** The osd kinds whose targets report capacity. */
export const OSD_KINDS = ['osd-ldiskfs', 'osd-zfs'] as const;

/** The `lctl get_param` patterns of the same files. */
export const HEALTH_LCTL_ARGS = [...OSD_KINDS.flatMap((k) => CAPACITY_FILES.map((f) => `${k}.*.${f}`)), 'health_check', 'obdfilter.*.recovery_status', 'mdt.*.recovery_status'];

interface HealthFile {
  readonly param: string;
  readonly path: string;
}

export interface HealthFilesRead {
  readonly params: LctlParam[];
  /** Files that exist but could not be read (EACCES, EIO, not a regular file). */
  readonly unreadable: { readonly path: string; readonly error: Error }[];
  readonly unlisted: UnlistedDir[];
}

async function findHealthFiles(paths: Paths): Promise<{ files: HealthFile[]; unlisted: UnlistedDir[] }> {
  const capacity = await findTargets(paths, OSD_KINDS, ({ kind, target, dir }, entries) =>
    CAPACITY_FILES.filter((f) => entries.includes(f)).map((f) => ({ param: `${kind}.${target}.${f}`, path: join(dir, f) })),
  );
  const recovery = await findTargets(paths, ['obdfilter', 'mdt'], ({ kind, target, dir }, entries) =>
    entries.includes('recovery_status') ? [{ param: `${kind}.${target}.recovery_status`, path: join(dir, 'recovery_status') }] : [],
  );
  const health = lustreRoots(paths).map((root) => ({ param: 'health_check', path: join(root, 'health_check') }));
  return { files: [...capacity.files, ...recovery.files, ...health], unlisted: [...capacity.unlisted, ...recovery.unlisted] };
}

/** Reads every file found; health_check from the first root that has one. A file gone meanwhile is skipped. */
export async function readHealthFiles(paths: Paths, signal?: AbortSignal): Promise<HealthFilesRead> {
  const { files, unlisted } = await findHealthFiles(paths);
  const params: LctlParam[] = [];
  const unreadable: { path: string; error: Error }[] = [];
  let haveHealth = false;
  for (const file of files) {
    if (file.param === 'health_check' && haveHealth) continue;
    signal?.throwIfAborted();
    try {
      params.push({ name: file.param, text: (await readPseudoFile(file.path, { signal, maxBytes: 1 << 16 })).toString('latin1') });
      if (file.param === 'health_check') haveHealth = true;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') continue;
      if (signal?.aborted) throw err;
      unreadable.push({ path: file.path, error: err as Error });
    }
  }
  return { params, unreadable, unlisted };
}
