// The strace oracle of the tests that compare the profiler with real programs: reads the output of
// `strace -f -ff -y -o PREFIX` (one PREFIX.<pid> file per process and thread, so no call is split
// across lines) into calls, and counts them per directory.
import { readdirSync, readFileSync, realpathSync } from 'node:fs';
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
  /** The process (or thread) that made it: the PREFIX.<pid> file's suffix. */
  readonly pid: number;
  /** When it started, in seconds since the epoch (strace -ttt); NaN without -ttt. */
  readonly t: number;
}

/** Every finished call in the PREFIX.<pid> files (lines of other shapes, such as exits, are skipped; a
 * leading -ttt timestamp is read into `t`). */
export function readStraceCalls(prefix: string): StraceCall[] {
  const calls: StraceCall[] = [];
  const files = readdirSync(dirname(prefix)).filter((f) => f.startsWith(basename(prefix) + '.'));
  for (const f of files) {
    const pid = Number(f.slice(basename(prefix).length + 1));
    for (const line of readFileSync(join(dirname(prefix), f), 'utf8').split('\n')) {
      const m = /^(?:(\d+\.\d+) )?(\w+)\((.*)\)\s+= (-?\d+)/.exec(line);
      if (!m) continue;
      const [, time, name = '', args = '', retText = ''] = m;
      calls.push({ name, args, ret: Number(retText), fds: [...args.matchAll(/(?:^|, )(\d+)<([^>]*)>/g)].map((x) => x[2]), pid, t: time === undefined ? NaN : Number(time) });
    }
  }
  return calls;
}

/** The calls strace must also trace for `withPrograms` to know each call's program. */
export const PROCESS_CALLS = ['execve', 'clone', 'clone3', 'fork', 'vfork'];

/**
 * strace's arguments before the command: every process and thread (-f) in its own file `prefix.PID`
 * (-ff, what readStraceCalls reads), descriptors with their paths (-y), no signal lines;
 * `timestamps` adds -ttt (each call's time, for the frame tests).
 */
export function straceArgs(prefix: string, calls: readonly string[], timestamps = false): string[] {
  return ['-f', '-ff', '-qq', ...(timestamps ? ['-ttt'] : []), '-y', '-e', `trace=${calls.join(',')}`, '-e', 'signal=none', '-o', prefix];
}

/** The process of each thread id: a clone with CLONE_THREAD makes a thread of the caller's process. */
export function processOfThreads(calls: readonly StraceCall[]): (tid: number) => number {
  const processOf = new Map<number, number>();
  for (const c of [...calls].sort((a, b) => a.t - b.t)) {
    if (/^clone3?$/.test(c.name) && c.ret > 0 && /CLONE_THREAD/.test(c.args)) processOf.set(c.ret, processOf.get(c.pid) ?? c.pid);
  }
  return (tid) => processOf.get(tid) ?? tid;
}

/**
 * Each call with the program that made it, named as the profiler names it: the base name of the
 * executable (`/proc/self/exe`, so links resolved: `cc` is `x86_64-linux-gnu-gcc-12`). A process's
 * program is its parent's at the clone that made it, until its own successful execve. Needs the
 * PROCESS_CALLS traced; `cwd` resolves a relative execve path.
 */
export function withPrograms(calls: readonly StraceCall[], cwd: string): (StraceCall & { program: string })[] {
  const byPid = new Map<number, StraceCall[]>();
  for (const c of calls) {
    const list = byPid.get(c.pid);
    if (list) list.push(c);
    else byPid.set(c.pid, [c]);
  }
  const parentAt = new Map<number, { pid: number; index: number }>();
  for (const [pid, list] of byPid) {
    list.forEach((c, index) => {
      if (/^(clone3?|v?fork)$/.test(c.name) && c.ret > 0) parentAt.set(c.ret, { pid, index });
    });
  }
  const exe = (c: StraceCall): string => basename(realpathSync(resolve(cwd, /^"([^"]*)"/.exec(c.args)?.[1] ?? '')));
  const programs = new Map<number, string[]>();
  /** the program of each call of pid, in order */
  const timeline = (pid: number): string[] => {
    const known = programs.get(pid);
    if (known) return known;
    const parent = parentAt.get(pid);
    let program = parent ? (timeline(parent.pid)[parent.index] ?? '(unknown)') : '(unknown)';
    const out = (byPid.get(pid) ?? []).map((c) => {
      if (c.name === 'execve' && c.ret === 0) program = exe(c);
      return program;
    });
    programs.set(pid, out);
    return out;
  };
  return [...byPid].flatMap(([pid, list]) => list.map((c, i) => ({ ...c, program: timeline(pid)[i] ?? '(unknown)' })));
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

/** The library's default small threshold (bytes): a transfer below it is small. */
const SMALL = 32768;

/**
 * The bytes a read (or copy_file_range) asked for, from strace's arguments: the count (read's last,
 * pread64's third, copy_file_range's fifth), a vector's iov_len total (0: not known). The buffers' contents are
 * quoted strings, taken out first (they may hold ", ").
 */
export function askedOf(name: string, args: string): number {
  const bare = args.replace(/"(?:[^"\\]|\\.)*"(?:\.\.\.)?/g, '""');
  // (preadv2 with RWF_NOWAIT returns what the page cache holds: short before the end too, so not known)
  if (name === 'preadv2' && /RWF_NOWAIT/.test(bare)) return 0;
  if (/^p?readv2?$/.test(name)) return [...bare.matchAll(/iov_len=(\d+)/g)].reduce((s, m) => s + Number(m[1]), 0);
  const parts = bare.split(', ');
  const at = name === 'read' ? parts.length - 1 : name === 'pread64' ? 2 : name === 'copy_file_range' ? 4 : -1;
  return Number(parts[at] ?? 0) || 0;
}

/** A side's transfers, and those green: the ends of files (0 bytes and short reads) and the big ones. */
export const transfersOf = (x: Verdicts['reads']): number => x.small + x.short + x.eof + x.big + x.failed;
export const greenOf = (x: Verdicts['reads']): number => x.eof + x.short + x.big;

/** What strace says about the transfers and opens on dir: the oracle of the classes. */
export interface Verdicts {
  /** short: a small read that got fewer bytes than it asked for (it met the end of the file: green) */
  reads: { small: number; short: number; eof: number; big: number; failed: number };
  writes: { small: number; short: number; eof: number; big: number; failed: number };
  opens: number;
  failedOpens: number;
  /** opens with O_EXCL (creates that must make a new file: mkstemp's) */
  exclOpens: number;
}

/** strace's transfers and opens on files under dir; cwd: the processes' working directory (relative paths). */
export function straceVerdicts(calls: readonly StraceCall[], dir: string, cwd = dir): Verdicts {
  const side = (): Verdicts['reads'] => ({ small: 0, short: 0, eof: 0, big: 0, failed: 0 });
  const v: Verdicts = { reads: side(), writes: side(), opens: 0, failedOpens: 0, exclOpens: 0 };
  const inDir = (p: string | undefined): boolean => !!p && (p === dir || p.startsWith(dir + '/'));
  // asked: the bytes a read asked for (writes: 0), so that a small one that got less is `short`
  const add = (s: Verdicts['reads'], ret: number, asked = 0): void => {
    if (ret < 0) s.failed++;
    else if (ret === 0) s.eof++;
    else if (ret < SMALL && ret < asked) s.short++;
    else if (ret < SMALL) s.small++;
    else s.big++;
  };
  for (const { name, args, ret, fds } of calls) {
    if (/^(read|pread64|readv|preadv2?)$/.test(name) && inDir(fds[0])) add(v.reads, ret, askedOf(name, args));
    else if (/^(write|pwrite64|writev|pwritev2?)$/.test(name) && inDir(fds[0])) add(v.writes, ret);
    else if (name === 'copy_file_range' || name === 'splice' || name === 'sendfile') {
      const [src, dst] = name === 'sendfile' ? [fds[1], fds[0]] : [fds[0], fds[1]];
      // a copy that failed is one failed call: the write's (the library counts no read for it); only
      // copy_file_range's length is what the source can give (splice and sendfile also stop at a
      // full pipe or socket)
      if (inDir(src) && ret >= 0) add(v.reads, ret, name === 'copy_file_range' ? askedOf(name, args) : 0);
      if (inDir(dst)) add(v.writes, ret);
    } else if (/^(open|openat|creat)$/.test(name)) {
      const path = /"([^"]*)"/.exec(args)?.[1] ?? '';
      const at = /^AT_FDCWD<([^>]*)>/.exec(args)?.[1] ?? /^\d+<([^>]*)>/.exec(args)?.[1] ?? cwd;
      if (inDir(resolve(at, path))) {
        v.opens++;
        if (ret < 0) v.failedOpens++;
        else if (/O_EXCL/.test(args)) v.exclOpens++;
      }
    }
  }
  return v;
}

/** strace's stat-family calls on dir (by path, or on a descriptor of a file in it); cwd as for straceVerdicts. */
export function straceStats(calls: readonly StraceCall[], dir: string, cwd = dir): { ok: number; failed: number } {
  const s = { ok: 0, failed: 0 };
  for (const { name, args, ret, fds } of calls) {
    if (!STATS.has(name)) continue;
    const path = /"([^"]*)"/.exec(args)?.[1];
    const at = /^AT_FDCWD<([^>]*)>/.exec(args)?.[1] ?? /^\d+<([^>]*)>/.exec(args)?.[1] ?? cwd;
    const target = path === undefined || path === '' ? fds[0] : resolve(at, path);
    if (target && (target === dir || target.startsWith(dir + '/'))) s[ret < 0 ? 'failed' : 'ok']++;
  }
  return s;
}

/**
 * The calls without the profiler's own that strace also sees in a profiled run: before an open with
 * O_CREAT (not O_EXCL) the library asks whether the path exists (a newfstatat of the same path, just
 * before the open on the same thread), to count the open as a create or not.
 */
export function withoutLibraryProbes(calls: readonly StraceCall[]): StraceCall[] {
  const own = new Set<number>();
  const last = new Map<number, number>();
  const pathOf = (c: StraceCall | undefined): string | undefined => (c ? /"([^"]*)"/.exec(c.args)?.[1] : undefined);
  calls.forEach((c, i) => {
    const prev = last.get(c.pid);
    if (prev !== undefined && /^open(at)?$/.test(c.name) && /O_CREAT/.test(c.args) && !/O_EXCL/.test(c.args) && calls[prev]?.name === 'newfstatat' && pathOf(calls[prev]) === pathOf(c)) own.add(prev);
    last.set(c.pid, i);
  });
  return calls.filter((_, i) => !own.has(i));
}
