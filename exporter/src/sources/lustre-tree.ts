// Where the Lustre pseudo-files of this host are, for every Lustre collector: the roots lctl looks
// in, and the per-target files under them (`<root>/<kind>/<target>/<file>`).
//
// The roots depend on the version and on where lctl looks for parameters: /proc/fs/lustre (every
// version up to 2.17 for job_stats), /sys/fs/lustre and /sys/kernel/debug/lustre (parameters moved
// there over the 2.x series). Every root is taken from --path.procfs / --path.sysfs (a container with
// the host's /proc elsewhere), or from --path.lustre (a captured tree: <dir>/proc/fs/lustre, ...; the
// profiler keeps the real /proc). Versions moved files between the roots independently, so each file
// is looked up in every root; the first root holding a target wins.
//
// Errors: a directory that does not exist is a layout this host does not have (nothing found). One that
// exists but cannot be listed (EACCES, EIO) is not absence: it is reported, with the target when it is
// a target's directory, so the collector counts it, fails that target's read (its series are kept) and,
// for a directory above the targets, keeps every target it did not see rather than forget them.
import { join } from 'node:path';
import { procPath, sysPath, type Paths } from '../util/paths.js';
import { listDir } from '../util/pseudo-files.js';

export function lustreRoots(paths: Paths): string[] {
  if (paths.lustre !== undefined) return [join(paths.lustre, 'proc/fs/lustre'), join(paths.lustre, 'sys/fs/lustre'), join(paths.lustre, 'sys/kernel/debug/lustre')];
  return [procPath(paths, 'fs', 'lustre'), sysPath(paths, 'fs', 'lustre'), sysPath(paths, 'kernel', 'debug', 'lustre')];
}

/** A target directory: `kind` (`obdfilter`, `mdt`, `llite`), its name, and its path. */
export interface TargetDir {
  readonly kind: string;
  readonly target: string;
  readonly dir: string;
}

/** A directory that exists but could not be listed: a target's (`target` set) or one above the targets. */
export interface UnlistedDir {
  readonly dir: string;
  readonly target?: TargetDir;
  readonly error: Error;
}

export interface FoundTargets<F> {
  readonly files: F[];
  readonly unlisted: UnlistedDir[];
}

/**
 * Walks `<root>/<kind>/<target>/` for each kind in every root; `pick` lists what the collector reads
 * in one target directory (given the directory's entries; it may list deeper itself). A target is
 * taken from the first root where `pick` finds something, by `key` (kind and name unless given).
 * `known` may give a target directory's files without listing it (what the last walk found there and
 * the collector then read): the caller treats a file gone by its read as absent, as a listing would.
 */
export async function findTargets<F>(
  paths: Paths,
  kinds: readonly string[],
  pick: (target: TargetDir, entries: readonly string[]) => Promise<F[]> | F[],
  key: (kind: string, target: string) => string = (kind, target) => `${kind}/${target}`,
  known: (dir: string) => readonly F[] | undefined = () => undefined,
): Promise<FoundTargets<F>> {
  const files: F[] = [];
  const unlisted: UnlistedDir[] = [];
  const taken = new Set<string>();
  for (const root of lustreRoots(paths)) {
    for (const kind of kinds) {
      let targets: string[];
      try {
        targets = await listDir(join(root, kind));
      } catch (err) {
        unlisted.push({ dir: join(root, kind), error: err as Error });
        continue;
      }
      for (const name of targets) {
        const k = key(kind, name);
        if (taken.has(k)) continue;
        const dir = join(root, kind, name);
        const kept = known(dir);
        if (kept !== undefined) {
          files.push(...kept);
          taken.add(k);
          continue;
        }
        const target: TargetDir = { kind, target: name, dir };
        try {
          const picked = await pick(target, await listDir(target.dir));
          if (picked.length === 0) continue;
          files.push(...picked);
        } catch (err) {
          unlisted.push({ dir: target.dir, target, error: err as Error });
        }
        taken.add(k);
      }
    }
  }
  return { files, unlisted };
}
