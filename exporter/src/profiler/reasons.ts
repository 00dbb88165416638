// Why calls were red or yellow: the fixed, documented set of reasons (docs/profiler.md "Reasons"),
// each with calls, bytes, estimated time and a one-line hint a scientist can act on. Most reasons
// follow from the counts (a successful small transfer is in the small size bin, a yellow seek is
// forward ...); the library counts the others (WIRE_REASONS). Per class, the reasons' calls add up to
// the class's calls exactly: what a library older than the reasons could not explain is
// `unclassified`.
import { CALL_TYPES, CLASSES, SIZE_BINS, WIRE_REASONS, type WireReason } from '../parsers/profiler-wire.js';
import { slot, type Counters } from './counters.js';

export const REASONS = [
  // red
  'small_read',
  'small_write',
  'failed_not_found',
  'failed_permission',
  'failed_call',
  'open_nothing_transferred',
  'stat_unused',
  'backward_seek',
  'zero_seek',
  // yellow
  'open_few_bytes',
  'open_bytes_unseen',
  'stat_used',
  'forward_seek',
  'sync',
  'metadata_change',
  // either class: frames of a library without reasons (wire version 1)
  'unclassified',
] as const;
export type Reason = (typeof REASONS)[number];
export type ReasonClass = 'red' | 'yellow';

export interface ReasonFigure {
  readonly cls: ReasonClass;
  readonly reason: Reason;
  readonly calls: number;
  /** bytes moved by those calls (transfers only; 0 otherwise) */
  readonly bytes: number;
  /** estimated from sampled calls */
  readonly timeNs: number;
}

const RED = CLASSES.indexOf('red');
const YELLOW = CLASSES.indexOf('yellow');
const SMALL = SIZE_BINS.indexOf('small');
const call = (name: (typeof CALL_TYPES)[number]): number => CALL_TYPES.indexOf(name);
const wire = (name: WireReason): number => WIRE_REASONS.indexOf(name);

/**
 * The reasons of one mount's counts (zero ones left out). `network`: the `[network]` pseudo mount,
 * where small transfers are green (so they are no reason).
 */
export function reasonsOf(v: Counters, network = false): ReasonFigure[] {
  const at = (i: number): number => v[i] ?? 0;
  const out: ReasonFigure[] = [];
  const add = (cls: ReasonClass, reason: Reason, calls: number, bytes: number, timeNs: number): void => {
    if (calls > 0) out.push({ cls, reason, calls, bytes, timeNs: Math.max(0, timeNs) });
  };
  const fromWire = (cls: ReasonClass, reason: WireReason): void => add(cls, reason, at(slot.reasonCalls(wire(reason))), 0, at(slot.reasonTimeNs(wire(reason))));
  const classOf = (names: (typeof CALL_TYPES)[number][], k: number): [number, number] =>
    names.reduce<[number, number]>((s, n) => [s[0] + at(slot.calls(call(n), k)), s[1] + at(slot.timeNs(call(n), k))], [0, 0]);

  if (!network) {
    add('red', 'small_read', at(slot.sizedCalls(0, SMALL)), at(slot.sizedBytes(0, SMALL)), at(slot.sizedTimeNs(0, SMALL)));
    add('red', 'small_write', at(slot.sizedCalls(1, SMALL)), at(slot.sizedBytes(1, SMALL)), at(slot.sizedTimeNs(1, SMALL)));
  }
  for (const r of ['failed_not_found', 'failed_permission', 'failed_call', 'open_nothing_transferred', 'stat_unused', 'backward_seek', 'zero_seek'] as const) fromWire('red', r);

  const unseen = at(slot.reasonCalls(wire('open_bytes_unseen')));
  const unseenTime = at(slot.reasonTimeNs(wire('open_bytes_unseen')));
  const [opens, openTime] = classOf(['open', 'create'], YELLOW);
  add('yellow', 'open_few_bytes', opens - unseen, 0, openTime - unseenTime);
  fromWire('yellow', 'open_bytes_unseen');
  const yellow = (reason: Reason, names: (typeof CALL_TYPES)[number][]): void => {
    const [n, t] = classOf(names, YELLOW);
    add('yellow', reason, n, 0, t);
  };
  yellow('stat_used', ['access']);
  yellow('forward_seek', ['seek']);
  yellow('sync', ['sync']);
  yellow('metadata_change', ['delete', 'fschange']);

  // whatever the counts hold beyond the reasons (frames of a library without reasons)
  for (const [cls, k] of [
    ['red', RED],
    ['yellow', YELLOW],
  ] as const) {
    const [n, t] = classOf([...CALL_TYPES], k);
    const explained = out.filter((f) => f.cls === cls).reduce((s, f) => s + f.calls, 0);
    const explainedTime = out.filter((f) => f.cls === cls).reduce((s, f) => s + f.timeNs, 0);
    add(cls, 'unclassified', n - explained, 0, t - explainedTime);
  }
  return out;
}

const SIZE_UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
export function size(bytes: number): string {
  let v = bytes;
  let u = 0;
  while (v >= 1024 && u < SIZE_UNITS.length - 1) {
    v /= 1024;
    u++;
  }
  return u === 0 ? `${Math.round(v)} B` : `${v.toFixed(v < 10 ? 1 : 0)} ${SIZE_UNITS[u]}`;
}
const count = (n: number): string => Math.round(n).toLocaleString('en-US');

/** The one-line hint of a reason, with its figures (mount: where it happened; small: the threshold). */
export function hintFor(f: ReasonFigure, mount: string, small: number): string {
  const n = count(f.calls);
  const avg = f.calls > 0 ? size(f.bytes / f.calls) : '0 B';
  switch (f.reason) {
    case 'small_read':
      return `${n} reads of ${avg} on average on ${mount}: read in blocks of at least ${size(small)} (a larger buffer, setvbuf for stdio) or use MPI-IO collective reads`;
    case 'small_write':
      return `${n} writes of ${avg} on average on ${mount}: buffer to at least 1 MiB before writing (a larger buffer, setvbuf for stdio) or use MPI-IO collective writes`;
    case 'failed_not_found':
      return `${n} calls on ${mount} failed with "no such file or directory": check the paths; probing search paths costs a metadata round trip each`;
    case 'failed_permission':
      return `${n} calls on ${mount} failed with "permission denied" or "read-only file system": check modes and where the job writes`;
    case 'failed_call':
      return `${n} calls on ${mount} failed (other errors): check the program's error messages; strace -f shows each failing call`;
    case 'open_nothing_transferred':
      return `${n} opens on ${mount} moved no byte: do not open files you do not read or write (to test for existence, stat once and remember it); directories opened to be listed (find, fts) count here too, as their listing is not counted: walk the tree once`;
    case 'stat_unused':
      return `${n} stats on ${mount} of paths never opened: cache the answers instead of asking the file system again`;
    case 'backward_seek':
      return `${n} backward seeks on ${mount}: read sequentially, or read the range you need once and keep it in memory`;
    case 'zero_seek':
      return `${n} seeks on ${mount} to the offset the file was already at, position queries (lseek(fd, 0, SEEK_CUR): Python's open(), ftell, tell()) included: remove the ones your code makes, each is a system call; fewer opens mean fewer queries`;
    case 'open_few_bytes':
      return `${n} opens on ${mount} moved less than ${size(small)} each: pack small files into one (HDF5, a tar or zip archive, a database) or keep files open`;
    case 'open_bytes_unseen':
      return `${n} opens on ${mount} moved their bytes through mmap or asynchronous I/O, which are not counted: their volume is unknown`;
    case 'stat_used':
      return `${n} stats on ${mount} of files then used: usually fine; on a parallel file system each is a metadata server round trip`;
    case 'forward_seek':
      return `${n} forward seeks on ${mount} (skipping data): read contiguous ranges, or fewer larger reads at offsets (pread)`;
    case 'sync':
      return `${n} syncs on ${mount}: sync once at the end or at checkpoints, not after every write`;
    case 'metadata_change':
      return `${n} renames, deletes, mkdirs, chmods or truncates on ${mount}: batch them; on a parallel file system each is a metadata server operation`;
    case 'unclassified':
      return `${n} calls on ${mount} reported by a profiler library older than this jobio: no reason recorded`;
  }
}
