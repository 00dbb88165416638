// Parses `strace -f -ff -y -o PREFIX` output into per-directory call counts, the oracle the
// real-program tests compare the profiler with.
import { readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';

export const STRACE_CALLS = [
  'read', 'pread64', 'readv', 'preadv', 'preadv2',
  'write', 'pwrite64', 'writev', 'pwritev', 'pwritev2',
  'copy_file_range', 'sendfile', 'splice',
  'open', 'openat', 'creat',
  'newfstatat', 'fstat', 'statx', 'lstat', 'stat', 'access', 'faccessat', 'faccessat2',
];

export interface Oracle {
  reads: number;
  readBytes: number;
  writes: number;
  writeBytes: number;
  opens: number;
  stats: number;
}

const READS = new Set(['read', 'pread64', 'readv', 'preadv', 'preadv2']);
const WRITES = new Set(['write', 'pwrite64', 'writev', 'pwritev', 'pwritev2']);
const OPENS = new Set(['open', 'openat', 'creat']);
const STATS = new Set(['newfstatat', 'fstat', 'statx', 'lstat', 'stat', 'access', 'faccessat', 'faccessat2']);

/** Counts the calls on files under `dir` in every PREFIX.<pid> file; cwd resolves relative paths. */
export function parseStrace(prefix: string, dir: string, cwd: string): Oracle {
  const o: Oracle = { reads: 0, readBytes: 0, writes: 0, writeBytes: 0, opens: 0, stats: 0 };
  const inDir = (p: string | undefined): boolean => !!p && (p === dir || p.startsWith(dir + '/'));
  const files = readdirSync(dirname(prefix)).filter((f) => f.startsWith(basename(prefix) + '.'));
  for (const f of files) {
    for (const line of readFileSync(join(dirname(prefix), f), 'utf8').split('\n')) {
      const m = /^(\w+)\((.*)\)\s+= (-?\d+)/.exec(line);
      if (!m) continue;
      const [, name, args, retText] = m as unknown as [string, string, string, string];
      const ret = Number(retText);
      const fds = [...args.matchAll(/(?:^|, )(\d+)<([^>]*)>/g)].map((x) => x[2]);
      if (READS.has(name)) {
        if (inDir(fds[0])) {
          o.reads++;
          if (ret > 0) o.readBytes += ret;
        }
      } else if (WRITES.has(name)) {
        if (inDir(fds[0])) {
          o.writes++;
          if (ret > 0) o.writeBytes += ret;
        }
      } else if (name === 'copy_file_range' || name === 'splice' || name === 'sendfile') {
        const [src, dst] = name === 'sendfile' ? [fds[1], fds[0]] : [fds[0], fds[1]];
        if (inDir(src) && ret >= 0) {
          o.reads++;
          o.readBytes += ret;
        }
        if (inDir(dst)) {
          o.writes++;
          if (ret > 0) o.writeBytes += ret;
        }
      } else if (OPENS.has(name)) {
        const path = /"([^"]*)"/.exec(args)?.[1];
        const base = /^AT_FDCWD<([^>]*)>/.exec(args)?.[1] ?? /^(\d+)<([^>]*)>/.exec(args)?.[2] ?? cwd;
        if (path !== undefined && inDir(resolve(base, path))) o.opens++;
      } else if (STATS.has(name)) {
        const path = /"([^"]*)"/.exec(args)?.[1];
        if (path === '' || path === undefined) {
          if (inDir(fds[0])) o.stats++;
        } else {
          const base = /^AT_FDCWD<([^>]*)>/.exec(args)?.[1] ?? /^(\d+)<([^>]*)>/.exec(args)?.[2] ?? cwd;
          if (inDir(resolve(base, path))) o.stats++;
        }
      }
    }
  }
  return o;
}
