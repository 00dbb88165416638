// Filesystem roots, node_exporter style: every path a collector reads is built from one of these,
// so the whole exporter runs against captured fixtures (`--path.procfs=test/fixtures/...`).
import { join, isAbsolute } from 'node:path';

export interface Paths {
  readonly procfs: string;
  readonly sysfs: string;
  readonly rootfs: string;
  /**
   * --path.lustre: a tree holding the Lustre parameter files only (`proc/fs/lustre`, `sys/fs/lustre`,
   * `sys/kernel/debug/lustre`), such as a capture. Unset: they are read under procfs and sysfs. Kept
   * apart because procfs also serves the profiler's checks of live processes.
   */
  readonly lustre?: string | undefined;
}

export const defaultPaths: Paths = { procfs: '/proc', sysfs: '/sys', rootfs: '/' };

export function procPath(paths: Paths, ...parts: string[]): string {
  return join(paths.procfs, ...parts);
}

export function sysPath(paths: Paths, ...parts: string[]): string {
  return join(paths.sysfs, ...parts);
}

/** A host path as seen through --path.rootfs (for /etc/passwd, cgroup mounts, ...). */
export function rootPath(paths: Paths, path: string): string {
  return isAbsolute(path) ? join(paths.rootfs, path) : join(paths.rootfs, path);
}
