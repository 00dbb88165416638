// Constants and field offsets of the profiler wire format, transcribed from
// native/profiler/include/jobio_protocol.h (the single source of truth). A test compiles a C program
// against that header and compares its sizeof/offsetof output with every number here.

export const WIRE_MAGIC = 0x4f49424a; // "JBIO" as little-endian bytes
/**
 * Version 2 appended the process and mount extensions, version 3 the mount frame's maxima, version 4
 * its calls made per call type, version 5 their estimated time and timed calls, version 6 the process
 * frame's executable path, version 7 the mount frame's short reads; version 1 to 6 frames (without
 * them) are still accepted.
 */
export const WIRE_VERSION = 7;
export const WIRE_VERSION_6 = 6;
export const WIRE_VERSION_5 = 5;
export const WIRE_VERSION_4 = 4;
export const WIRE_VERSION_3 = 3;
export const WIRE_VERSION_2 = 2;
export const WIRE_VERSION_1 = 1;
export const WIRE_MAX_FRAME = 16384;

export const KIND_PROCESS = 1;
export const KIND_MOUNT = 2;

export const FLAG_FINAL = 0x1;
export const FLAG_EXEC = 0x2;

/** enum jobio_call, in wire order. */
export const CALL_TYPES = ['read', 'write', 'open', 'create', 'close', 'access', 'delete', 'fschange', 'mmap', 'seek', 'sync', 'connect', 'accept'] as const;
export type CallType = (typeof CALL_TYPES)[number];

/** enum jobio_class, in wire order. */
export const CLASSES = ['red', 'yellow', 'green'] as const;
export type IoClass = (typeof CLASSES)[number];

/** enum jobio_dir, in wire order. */
export const DIRECTIONS = ['read', 'write'] as const;
export type Direction = (typeof DIRECTIONS)[number];

/** enum jobio_size_bin, in wire order. */
export const SIZE_BINS = ['small', 'medium', 'large'] as const;
export type SizeBin = (typeof SIZE_BINS)[number];

export const POW2_BINS = 64;

/**
 * enum jobio_reason, in wire order: the reasons of red/yellow calls that the call counts cannot tell
 * apart (names as the exporter and the diagnosis record use them).
 */
export const WIRE_REASONS = ['failed_not_found', 'failed_permission', 'failed_call', 'open_nothing_transferred', 'stat_unused', 'backward_seek', 'zero_seek', 'open_bytes_unseen'] as const;
export type WireReason = (typeof WIRE_REASONS)[number];

/** enum jobio_stdio_fn, in wire order: application-level stdio call groups (named after their main function). */
export const STDIO_FNS = ['fread', 'fgets', 'getline', 'fgetc', 'fscanf', 'ungetc', 'fwrite', 'fprintf', 'fputs', 'fputc', 'fflush'] as const;
export type StdioFn = (typeof STDIO_FNS)[number];

export const HEADER = { magic: 0, version: 4, kind: 6, length: 8, flags: 12, sequence: 16, pid: 24, reserved: 28, start_ns: 32, now_ns: 40, size: 48 } as const;

/**
 * enum jobio_component: whose calls a MOUNT frame holds (its header's `reserved` word; 0 in older
 * senders). Index = wire value; '' = the program's own. A value not listed here counts as the program's.
 */
export const WIRE_COMPONENTS = ['', 'mpi-runtime', 'python-imports', 'mpi-io', 'sqlite-journal'] as const;
/** A component a MOUNT frame can carry (not the program's own). */
export type WireComponent = Exclude<(typeof WIRE_COMPONENTS)[number], ''>;

export const PROCESS = {
  jobid: 48,
  jobidLength: 64,
  jobid_source: 112,
  jobidSourceLength: 16,
  exe: 128,
  exeLength: 64,
  runtime_ns: 192,
  dropped_frames: 200,
  ignored_calls: 208,
  mount_count: 216,
  small_threshold: 220,
  large_threshold: 224,
  sample_every: 232,
  network_folded: 236,
  /** struct jobio_process_ext (version 2) */
  io_uring_setups: 240,
  posix_aio_calls: 248,
  libaio_iocbs: 256,
  mmap_bytes: 264,
  exec_target: 272,
  execTargetLength: 64,
  spawned_total: 336,
  spawned: 344,
  spawnedEntrySize: 32,
  spawnedNameOffset: 4,
  spawnedNameLength: 28,
  spawnRing: 16,
  /** struct jobio_process_path (version 6) */
  exe_path: 856,
  exePathLength: 256,
  sizeV1: 240,
  /** versions 2 to 5 */
  sizeV2: 856,
  size: 1112,
} as const;

export const MOUNT = {
  path: 48,
  pathLength: 256,
  fstype: 304,
  fstypeLength: 32,
  fsname: 336,
  fsnameLength: 128,
  call: 464,
  callStatsSize: 56,
  sized: 1192,
  sizeStatsSize: 24,
  pow2_calls: 1336,
  pow2_bytes: 2360,
  /** struct jobio_mount_ext (version 2): reason_calls, reason_time_ns, stdio_calls, stdio_bytes */
  reason_calls: 3384,
  reason_time_ns: 3448,
  stdio_calls: 3512,
  stdio_bytes: 3600,
  /** struct jobio_mount_max (version 3): the longest timed call per call type, then per direction and size bin */
  max_call_ns: 3688,
  max_sized_ns: 3792,
  /** struct jobio_mount_made (version 4): the calls made per call type, decided or not */
  made_calls: 3840,
  /** version 5: the estimated time and the timed calls of the calls made, per call type */
  made_time_ns: 3944,
  made_sampled: 4048,
  /** struct jobio_short_reads (version 7): the small bin's reads that got fewer bytes than they asked for (calls, bytes, time) */
  short_reads: 4152,
  sizeV1: 3384,
  sizeV2: 3688,
  sizeV3: 3840,
  sizeV4: 3944,
  /** versions 5 and 6 */
  sizeV5: 4152,
  size: 4176,
} as const;
