// The strace oracle of the tests that compare the profiler with real programs: reads the output of
// `strace -f -ff -y -o PREFIX` (one PREFIX.<pid> file per process and thread, so no call is split
// across lines) into calls, and counts them per directory.
import { readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';

export const STRACE_CALLS = [
  'read',
  'pread64',
  'readv',
  'preadv',
  'preadv2',
  'write',
  'pwrite64',
  'writev',
  'pwritev',
  'pwritev2',
  'copy_file_range',
  'sendfile',
  'splice',
  'open',
  'openat',
  'creat',
  'newfstatat',
  'fstat',
  'statx',
  'lstat',
  'stat',
  'access',
  'faccessat',
  'faccessat2',
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

/** One finished call: `write(3</tmp/x>, "..."..., 4096) = 4096`. */
export interface StraceCall {
  readonly name: string;
  readonly args: string;
  readonly ret: number;
  /** The paths of the file-descriptor arguments, in order (what `-y` prints inside `<>`). */
  readonly fds: readonly (string | undefined)[];
}

/** Every finished call in the PREFIX.<pid> files (lines of other shapes, such as exits, are skipped). */
export function readStraceCalls(prefix: string): StraceCall[] {
  const calls: StraceCall[] = [];
  const files = readdirSync(dirname(prefix)).filter((f) => f.startsWith(basename(prefix) + '.'));
  for (const f of files) {
    for (const line of readFileSync(join(dirname(prefix), f), 'utf8').split('\n')) {
      const m = /^(\w+)\((.*)\)\s+= (-?\d+)/.exec(line);
      if (!m) continue;
      const [, name = '', args = '', retText = ''] = m;
      calls.push({ name, args, ret: Number(retText), fds: [...args.matchAll(/(?:^|, )(\d+)<([^>]*)>/g)].map((x) => x[2]) });
    }
  }
  return calls;
}

/** Counts the calls on files under `dir` in every PREFIX.<pid> file; cwd resolves relative paths. */
export function parseStrace(prefix: string, dir: string, cwd: string): Oracle {
  const o: Oracle = { reads: 0, readBytes: 0, writes: 0, writeBytes: 0, opens: 0, stats: 0 };
  const inDir = (p: string | undefined): boolean => !!p && (p === dir || p.startsWith(dir + '/'));
  for (const { name, args, ret, fds } of readStraceCalls(prefix)) {
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
  return o;
}
