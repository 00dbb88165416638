// Finds and reads the Lustre server files of the lustre_health collector, under the roots of
// lustre-tree.ts, named as `lctl get_param` names them so that both sources are read one way:
//   <root>/osd-{ldiskfs,zfs}/<target>/{kbytes,files}*   osd-ldiskfs.<target>.kbytestotal
//   <root>/health_check                                 health_check
//   <root>/{obdfilter,mdt}/<target>/recovery_status      obdfilter.<target>.recovery_status
//   <root>/ldlm/namespaces/<namespace>/lock_count        ldlm.namespaces.<namespace>.lock_count
//                                                       (server namespaces only: mdt-/filter-<target>_UUID)
//   <root>/{osd-*,obdfilter}/<target>/brw_stats         osd-ldiskfs.<target>.brw_stats (obdfilter up to 2.10)
//   <root>/{ost/OSS,mds/MDS,mgs/MGS,ldlm/services}/<service>/{stats,threads_*}   ost.OSS.ost_io.stats
//                                                       (stats and threads_* looked up apart: debugfs and sysfs on 2.12+)
//   <root>/osc/<fs>-OST<idx>-osc-<instance>/{rpc_stats,state}   osc.<device>.rpc_stats (a client's view
//                                                       of each OST; looked up apart, as their roots may differ)
// Versions put them in different roots (/proc/fs/lustre up to 2.10, /sys/fs/lustre later for the
// one-value files); the first root holding a target's file wins, as for every Lustre collector.
import { join } from 'node:path';
import type { Paths } from '../util/paths.js';
import { CAPACITY_FILES, LDLM_FILES, namespaceTarget, SERVICE_GROUPS, THREAD_FILES, type LctlParam } from '../parsers/lustre-health.js';
import { oscTarget } from '../parsers/lustre-osc.js';
import { findTargets, lustreRoots, type UnlistedDir } from './lustre-tree.js';
import { readPseudoFile } from '../util/pseudo-files.js';
import { forEachLimited } from '../util/for-each-limited.js';

/** The files read of each OSC of a client. */
export const OSC_FILES = ['rpc_stats', 'state'] as const;

/** The osd kinds whose targets report capacity. */
export const OSD_KINDS = ['osd-ldiskfs', 'osd-zfs'] as const;

/** The `lctl get_param` patterns of the same files. */
export const HEALTH_LCTL_ARGS = [
  ...OSD_KINDS.flatMap((k) => CAPACITY_FILES.map((f) => `${k}.*.${f}`)),
  'health_check',
  'obdfilter.*.recovery_status',
  'mdt.*.recovery_status',
  ...LDLM_FILES.map((f) => `ldlm.namespaces.*.${f}`),
  ...OSD_KINDS.map((k) => `${k}.*.brw_stats`),
  'obdfilter.*.brw_stats',
  ...SERVICE_GROUPS.flatMap((g) => [`${g}.*.stats`, ...THREAD_FILES.map((f) => `${g}.*.${f}`)]),
  ...OSC_FILES.map((f) => `osc.*.${f}`),
];

/** `ost/OSS` → `ost.OSS`: the dotted name lctl gives a directory. */
const dotted = (kind: string) => kind.replace(/\//g, '.');

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
    [...CAPACITY_FILES, 'brw_stats'].filter((f) => entries.includes(f)).map((f) => ({ param: `${kind}.${target}.${f}`, path: join(dir, f) })),
  );
  const recovery = await findTargets(paths, ['obdfilter', 'mdt'], ({ kind, target, dir }, entries) =>
    (kind === 'obdfilter' ? ['recovery_status', 'brw_stats'] : ['recovery_status']).filter((f) => entries.includes(f)).map((f) => ({ param: `${kind}.${target}.${f}`, path: join(dir, f) })),
  );
  const ldlm = await findTargets(paths, ['ldlm/namespaces'], ({ target: namespace, dir }, entries) =>
    namespaceTarget(namespace) === undefined ? [] : LDLM_FILES.filter((f) => entries.includes(f)).map((f) => ({ param: `ldlm.namespaces.${namespace}.${f}`, path: join(dir, f) })),
  );
  const serviceDirs = SERVICE_GROUPS.map((g) => g.replace(/\./g, '/'));
  const serviceStats = await findTargets(paths, serviceDirs, ({ kind, target, dir }, entries) =>
    entries.includes('stats') ? [{ param: `${dotted(kind)}.${target}.stats`, path: join(dir, 'stats') }] : [],
  );
  const serviceThreads = await findTargets(paths, serviceDirs, ({ kind, target, dir }, entries) =>
    THREAD_FILES.filter((f) => entries.includes(f)).map((f) => ({ param: `${dotted(kind)}.${target}.${f}`, path: join(dir, f) })),
  );
  const osc = await Promise.all(
    OSC_FILES.map((file) =>
      findTargets(paths, ['osc'], ({ target: device, dir }, entries) => (oscTarget(device) !== undefined && entries.includes(file) ? [{ param: `osc.${device}.${file}`, path: join(dir, file) }] : [])),
    ),
  );
  const health = lustreRoots(paths).map((root) => ({ param: 'health_check', path: join(root, 'health_check') }));
  const found = [capacity, recovery, ldlm, serviceStats, serviceThreads, ...osc];
  return { files: [...found.flatMap((f) => f.files), ...health], unlisted: found.flatMap((f) => f.unlisted) };
}

/** Files read at once: small sysfs files each wait on libuv's 4-thread pool, shared with the other collectors. */
const READ_LANES = 4;

/** Reads every file found, a few at a time, in their order; health_check from the first root that has one. A file gone meanwhile is skipped. */
export async function readHealthFiles(paths: Paths, signal?: AbortSignal): Promise<HealthFilesRead> {
  const { files, unlisted } = await findHealthFiles(paths);
  const texts: (string | undefined)[] = new Array<string | undefined>(files.length);
  const unreadable: { path: string; error: Error }[] = [];
  await forEachLimited(
    files.map((file, i) => ({ file, i })),
    READ_LANES,
    async ({ file, i }) => {
      signal?.throwIfAborted();
      try {
        texts[i] = (await readPseudoFile(file.path, { signal, maxBytes: 1 << 16 })).toString('latin1');
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code === 'ENOENT' || code === 'ENOTDIR') return;
        if (signal?.aborted) throw err;
        unreadable.push({ path: file.path, error: err as Error });
      }
    },
  );
  const params: LctlParam[] = [];
  let haveHealth = false;
  files.forEach((file, i) => {
    const text = texts[i];
    if (text === undefined || (file.param === 'health_check' && haveHealth)) return;
    if (file.param === 'health_check') haveHealth = true;
    params.push({ name: file.param, text });
  });
  return { params, unreadable, unlisted };
}
