// Constants and field offsets of the profiler wire format, transcribed from
// native/profiler/include/jobio_protocol.h (the single source of truth). A test compiles a C program
// against that header and compares its sizeof/offsetof output with every number here.

export const WIRE_MAGIC = 0x4f49424a; // "JBIO" as little-endian bytes
export const WIRE_VERSION = 1;
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

export const HEADER = { magic: 0, version: 4, kind: 6, length: 8, flags: 12, sequence: 16, pid: 24, start_ns: 32, now_ns: 40, size: 48 } as const;

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
  size: 240,
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
  size: 3384,
} as const;
