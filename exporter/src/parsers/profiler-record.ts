// Decoder of profiler frames: the bytes of one SOCK_SEQPACKET message (jobio_protocol.h) → a typed
// record, or the reason it was rejected. Pure and total: garbage of any shape returns a reason that
// the caller counts in jobio_profiler_records_rejected_total{reason}; it never throws.
//
// u64 counters become JavaScript numbers (exact below 2^53: 104 days of nanoseconds, 9 PB of bytes
// per process); the header's timestamps and sequence stay bigint because they are identities.
import {
  CALL_TYPES,
  CLASSES,
  DIRECTIONS,
  HEADER,
  KIND_MOUNT,
  KIND_PROCESS,
  MOUNT,
  POW2_BINS,
  PROCESS,
  SIZE_BINS,
  STDIO_FNS,
  WIRE_COMPONENTS,
  WIRE_MAGIC,
  WIRE_REASONS,
  WIRE_VERSION,
  type WireComponent,
  WIRE_VERSION_1,
  WIRE_VERSION_2,
  WIRE_VERSION_3,
  WIRE_VERSION_4,
  WIRE_VERSION_5,
  WIRE_VERSION_6,
} from './profiler-wire.js';

export type RejectReason = 'short' | 'bad_magic' | 'bad_version' | 'bad_kind' | 'bad_length' | 'bad_string';

export interface FrameHeader {
  readonly version: number;
  readonly flags: number;
  readonly sequence: bigint;
  /** Claimed by the sender: informational only (SO_PEERCRED is authoritative). */
  readonly claimedPid: number;
  readonly startNs: bigint;
  readonly nowNs: bigint;
}

export interface ProcessRecord {
  readonly kind: 'process';
  readonly header: FrameHeader;
  readonly jobid: string;
  readonly jobidSource: string;
  readonly exe: string;
  readonly runtimeNs: number;
  readonly droppedFrames: number;
  readonly ignoredCalls: number;
  readonly mountCount: number;
  readonly smallThreshold: number;
  readonly largeThreshold: number;
  readonly sampleEvery: number;
  /** socket calls whose peer address had no slot of its own in the library and went to `[network]` only (0 from senders before it) */
  readonly networkFolded?: number;
  /** Version 2 (zero in version 1 frames; optional for hand-made records): I/O seen but not counted, and the program an EXEC frame precedes. */
  readonly unseen?: ProcessUnseen;
  readonly execTarget?: string;
  /** children started by vfork/posix_spawn: how many in all, and the latest (at most PROCESS.spawnRing) */
  readonly spawnedTotal?: number;
  readonly spawned?: readonly { readonly pid: number; readonly name: string }[];
  /**
   * Version 6 (absent in older frames): the executable's full path as the process read it at
   * start-up, '' when unknown. Claimed by the sender: a label for the hints only, never evidence.
   */
  readonly exePath?: string;
}

export interface ProcessUnseen {
  /** io_uring rings set up: their I/O is not counted */
  readonly ioUringSetups: number;
  /** POSIX AIO requests: not counted */
  readonly posixAioCalls: number;
  /** libaio io_submit requests (counted as reads/writes) */
  readonly libaioIocbs: number;
  /** bytes of files mapped: what moves through the mappings is unknown */
  readonly mmapBytes: number;
}

/** Calls and estimated time per class (index = CLASSES order), and how many calls were timed. */
export interface CallStats {
  readonly calls: readonly number[];
  readonly timeNs: readonly number[];
  readonly sampled: number;
}

export interface SizeStats {
  readonly calls: number;
  readonly bytes: number;
  readonly timeNs: number;
}

export interface MountRecord {
  readonly kind: 'mount';
  readonly header: FrameHeader;
  readonly path: string;
  readonly fstype: string;
  readonly fsname: string;
  /** Whose calls (WIRE_COMPONENTS): absent for the program's own; a process sends one frame per mount and component. */
  readonly component?: WireComponent;
  /** Indexed like CALL_TYPES. */
  readonly calls: readonly CallStats[];
  /** [direction][size bin], indexed like DIRECTIONS and SIZE_BINS. */
  readonly sized: readonly (readonly SizeStats[])[];
  /** [direction][bin]: bin 0 = exactly 0 bytes, bin k = [2^(k-1), 2^k). */
  readonly pow2Calls: readonly (readonly number[])[];
  readonly pow2Bytes: readonly (readonly number[])[];
  /** Version 2 (zeros in version 1 frames), indexed like WIRE_REASONS and STDIO_FNS. */
  readonly reasonCalls?: readonly number[];
  readonly reasonTimeNs?: readonly number[];
  readonly stdioCalls?: readonly number[];
  readonly stdioBytes?: readonly number[];
  /**
   * Version 3 (zeros in older frames): the longest single timed call (ns, measured, not scaled) of
   * the interval since the process's previous snapshot, not cumulative. Per call type (CALL_TYPES),
   * and [direction][size bin] for the transfers that moved bytes.
   */
  readonly maxCallNs?: readonly number[];
  readonly maxSizedNs?: readonly (readonly number[])[];
  /**
   * Version 4 (absent in older frames): the calls made per call type (CALL_TYPES), cumulative,
   * whatever their class and whether it is decided yet. An open is decided at its close and a stat
   * when its path is opened or the process ends; `calls` counts them then, this when they were made.
   */
  readonly madeCalls?: readonly number[];
  /**
   * Version 5 (absent in older frames): the estimated time (ns) and the timed calls of the calls
   * made, per call type, counted when they were made: an open's time is in `calls[].timeNs` from its
   * close on, here from its making. At a normal exit they equal the sums over the classes.
   */
  readonly madeTimeNs?: readonly number[];
  readonly madeSampled?: readonly number[];
  /**
   * Version 7 (absent in older frames, whose library counted them red): the reads in the small size
   * bin that got fewer bytes than they asked for. They met the end of the file: green, and a part of
   * `sized[read][small]`, which the small reads (red) are the rest of.
   */
  readonly shortReads?: SizeStats;
}

export type ProfilerRecord = ProcessRecord | MountRecord;

export type DecodeResult = { readonly ok: true; readonly record: ProfilerRecord } | { readonly ok: false; readonly reason: RejectReason };

function u64(buf: Buffer, offset: number): number {
  return buf.readUInt32LE(offset) + buf.readUInt32LE(offset + 4) * 0x1_0000_0000;
}

/** A NUL-terminated string inside a fixed array; undefined when the array holds no NUL. */
function fixedString(buf: Buffer, offset: number, length: number): string | undefined {
  const end = buf.indexOf(0, offset);
  if (end < 0 || end >= offset + length) return undefined;
  return buf.toString('utf8', offset, end);
}

function reject(reason: RejectReason): DecodeResult {
  return { ok: false, reason };
}

function decodeProcess(buf: Buffer, header: FrameHeader): DecodeResult {
  const jobid = fixedString(buf, PROCESS.jobid, PROCESS.jobidLength);
  const jobidSource = fixedString(buf, PROCESS.jobid_source, PROCESS.jobidSourceLength);
  const exe = fixedString(buf, PROCESS.exe, PROCESS.exeLength);
  const v2 = header.version !== WIRE_VERSION_1;
  const execTarget = v2 ? fixedString(buf, PROCESS.exec_target, PROCESS.execTargetLength) : '';
  const v6 = header.version > WIRE_VERSION_5;
  const exePath = v6 ? fixedString(buf, PROCESS.exe_path, PROCESS.exePathLength) : '';
  if (jobid === undefined || jobidSource === undefined || exe === undefined || execTarget === undefined || exePath === undefined) return reject('bad_string');
  const ext = (offset: number): number => (v2 ? u64(buf, offset) : 0);
  const spawnedTotal = ext(PROCESS.spawned_total);
  const spawned: { pid: number; name: string }[] = [];
  for (let i = 0; v2 && i < Math.min(spawnedTotal, PROCESS.spawnRing); i++) {
    const at = PROCESS.spawned + i * PROCESS.spawnedEntrySize;
    const name = fixedString(buf, at + PROCESS.spawnedNameOffset, PROCESS.spawnedNameLength);
    if (name === undefined) return reject('bad_string');
    spawned.push({ pid: buf.readInt32LE(at), name });
  }
  return {
    ok: true,
    record: {
      kind: 'process',
      header,
      jobid,
      jobidSource,
      exe,
      runtimeNs: u64(buf, PROCESS.runtime_ns),
      droppedFrames: u64(buf, PROCESS.dropped_frames),
      ignoredCalls: u64(buf, PROCESS.ignored_calls),
      mountCount: buf.readUInt32LE(PROCESS.mount_count),
      smallThreshold: buf.readUInt32LE(PROCESS.small_threshold),
      largeThreshold: u64(buf, PROCESS.large_threshold),
      sampleEvery: buf.readUInt32LE(PROCESS.sample_every),
      networkFolded: buf.readUInt32LE(PROCESS.network_folded),
      unseen: { ioUringSetups: ext(PROCESS.io_uring_setups), posixAioCalls: ext(PROCESS.posix_aio_calls), libaioIocbs: ext(PROCESS.libaio_iocbs), mmapBytes: ext(PROCESS.mmap_bytes) },
      execTarget,
      spawnedTotal,
      spawned,
      ...(v6 ? { exePath } : {}),
    },
  };
}

function decodeMount(buf: Buffer, header: FrameHeader): DecodeResult {
  const path = fixedString(buf, MOUNT.path, MOUNT.pathLength);
  const fstype = fixedString(buf, MOUNT.fstype, MOUNT.fstypeLength);
  const fsname = fixedString(buf, MOUNT.fsname, MOUNT.fsnameLength);
  if (path === undefined || fstype === undefined || fsname === undefined || path === '') return reject('bad_string');
  const calls: CallStats[] = CALL_TYPES.map((_, c) => {
    const base = MOUNT.call + c * MOUNT.callStatsSize;
    const n = CLASSES.length;
    return {
      calls: CLASSES.map((_c, k) => u64(buf, base + k * 8)),
      timeNs: CLASSES.map((_c, k) => u64(buf, base + (n + k) * 8)),
      sampled: u64(buf, base + 2 * n * 8),
    };
  });
  const sized = DIRECTIONS.map((_, d) =>
    SIZE_BINS.map((_b, b) => {
      const base = MOUNT.sized + (d * SIZE_BINS.length + b) * MOUNT.sizeStatsSize;
      return { calls: u64(buf, base), bytes: u64(buf, base + 8), timeNs: u64(buf, base + 16) };
    }),
  );
  const pow2 = (start: number): number[][] => DIRECTIONS.map((_, d) => Array.from({ length: POW2_BINS }, (_b, i) => u64(buf, start + (d * POW2_BINS + i) * 8)));
  const v2 = header.version !== WIRE_VERSION_1;
  const ext = (start: number, n: number): number[] => Array.from({ length: n }, (_x, i) => (v2 ? u64(buf, start + i * 8) : 0));
  const v3 = v2 && header.version !== WIRE_VERSION_2;
  const max = (start: number, n: number): number[] => Array.from({ length: n }, (_x, i) => (v3 ? u64(buf, start + i * 8) : 0));
  const v4 = v3 && header.version !== WIRE_VERSION_3;
  const v5 = v4 && header.version !== WIRE_VERSION_4;
  const v7 = header.version > WIRE_VERSION_6;
  const perCall = (start: number): number[] => CALL_TYPES.map((_, c) => u64(buf, start + c * 8));
  const component = WIRE_COMPONENTS[buf.readUInt32LE(HEADER.reserved)] || undefined;
  return {
    ok: true,
    record: {
      kind: 'mount',
      header,
      path,
      fstype,
      fsname,
      ...(component !== undefined ? { component } : {}),
      calls,
      sized,
      pow2Calls: pow2(MOUNT.pow2_calls),
      pow2Bytes: pow2(MOUNT.pow2_bytes),
      reasonCalls: ext(MOUNT.reason_calls, WIRE_REASONS.length),
      reasonTimeNs: ext(MOUNT.reason_time_ns, WIRE_REASONS.length),
      stdioCalls: ext(MOUNT.stdio_calls, STDIO_FNS.length),
      stdioBytes: ext(MOUNT.stdio_bytes, STDIO_FNS.length),
      maxCallNs: max(MOUNT.max_call_ns, CALL_TYPES.length),
      maxSizedNs: DIRECTIONS.map((_, d) => max(MOUNT.max_sized_ns + d * SIZE_BINS.length * 8, SIZE_BINS.length)),
      ...(v4 ? { madeCalls: perCall(MOUNT.made_calls) } : {}),
      ...(v5 ? { madeTimeNs: perCall(MOUNT.made_time_ns), madeSampled: perCall(MOUNT.made_sampled) } : {}),
      ...(v7 ? { shortReads: { calls: u64(buf, MOUNT.short_reads), bytes: u64(buf, MOUNT.short_reads + 8), timeNs: u64(buf, MOUNT.short_reads + 16) } } : {}),
    },
  };
}

/** The exact size of a frame of this kind and version. */
function frameSize(kind: number, version: number): number {
  if (kind === KIND_PROCESS) return version === WIRE_VERSION_1 ? PROCESS.sizeV1 : version <= WIRE_VERSION_5 ? PROCESS.sizeV2 : PROCESS.size;
  const older: Record<number, number> = {
    [WIRE_VERSION_1]: MOUNT.sizeV1,
    [WIRE_VERSION_2]: MOUNT.sizeV2,
    [WIRE_VERSION_3]: MOUNT.sizeV3,
    [WIRE_VERSION_4]: MOUNT.sizeV4,
    [WIRE_VERSION_5]: MOUNT.sizeV5,
    [WIRE_VERSION_6]: MOUNT.sizeV5,
  };
  return older[version] ?? MOUNT.size;
}

/**
 * Decodes one message. Checks, in order: header present, magic, version (1 to 7), kind, exact
 * length (the version's struct size), strings.
 */
export function decodeFrame(buf: Buffer): DecodeResult {
  if (buf.length < HEADER.size) return reject('short');
  if (buf.readUInt32LE(HEADER.magic) !== WIRE_MAGIC) return reject('bad_magic');
  const version = buf.readUInt16LE(HEADER.version);
  if (version < WIRE_VERSION_1 || version > WIRE_VERSION) return reject('bad_version');
  const kind = buf.readUInt16LE(HEADER.kind);
  if (kind !== KIND_PROCESS && kind !== KIND_MOUNT) return reject('bad_kind');
  const expected = frameSize(kind, version);
  // Both the declared length and the received length must be the struct's exact size.
  if (buf.readUInt32LE(HEADER.length) !== expected || buf.length !== expected) return reject('bad_length');
  const header: FrameHeader = {
    version,
    flags: buf.readUInt32LE(HEADER.flags),
    sequence: buf.readBigUInt64LE(HEADER.sequence),
    claimedPid: buf.readInt32LE(HEADER.pid),
    startNs: buf.readBigUInt64LE(HEADER.start_ns),
    nowNs: buf.readBigUInt64LE(HEADER.now_ns),
  };
  return kind === KIND_PROCESS ? decodeProcess(buf, header) : decodeMount(buf, header);
}

/** Every reason the decoder can give, for pre-registering the rejected counter's label values. */
export const DECODE_REJECT_REASONS: readonly RejectReason[] = ['short', 'bad_magic', 'bad_version', 'bad_kind', 'bad_length', 'bad_string'];
