/*
 * jobio profiler -> exporter wire format. THE single source of truth for the record layout:
 * the C profiler writes these structs, the TypeScript decoder (exporter/src/parsers/profiler-record.ts)
 * reads them, and a test decodes bytes produced by this header's C code so the two cannot drift.
 *
 * Transport: one Unix SOCK_SEQPACKET connection per process (path from $JOBIO_SOCKET); every message
 * is exactly one frame. The receiver takes pid/uid/gid from SO_PEERCRED, never from the frame.
 *
 * Frames carry CUMULATIVE per-process totals (since the process started, or since fork for a child),
 * so a lost frame only delays counts; the receiver keeps the latest frame per (process, mount) and
 * adds the difference to its own totals.
 *
 * Layout rules: little-endian (the host order on every platform jobio runs on), fixed-size fields,
 * natural alignment with explicit padding, no pointers. Strings are NUL-padded fixed arrays and are
 * always NUL-terminated within their array.
 */
#ifndef JOBIO_PROTOCOL_H
#define JOBIO_PROTOCOL_H

#include <stdint.h>

#define JOBIO_WIRE_MAGIC 0x4f49424aU /* "JBIO" read as little-endian bytes 'J','B','I','O' */
#define JOBIO_WIRE_VERSION 1u
/* The receiver rejects (and counts) any message larger than this. */
#define JOBIO_WIRE_MAX_FRAME 16384u

/* Frame kinds. */
enum jobio_frame_kind {
  JOBIO_FRAME_PROCESS = 1, /* struct jobio_frame_process: identity and process-wide totals */
  JOBIO_FRAME_MOUNT = 2,   /* struct jobio_frame_mount: totals of one process on one mount point */
};

/* Call types (docs/profiler.md "Classification"). `metadata` is derived: every type but read, write, seek. */
enum jobio_call {
  JOBIO_CALL_READ = 0,
  JOBIO_CALL_WRITE = 1,
  JOBIO_CALL_OPEN = 2,
  JOBIO_CALL_CREATE = 3,  /* an open that created the file */
  JOBIO_CALL_CLOSE = 4,
  JOBIO_CALL_ACCESS = 5,  /* stat family and access */
  JOBIO_CALL_DELETE = 6,  /* unlink, rmdir is fschange */
  JOBIO_CALL_FSCHANGE = 7,/* rename, mkdir, rmdir, chmod, truncate, ... */
  JOBIO_CALL_MMAP = 8,
  JOBIO_CALL_SEEK = 9,
  JOBIO_CALL_SYNC = 10,
  JOBIO_CALL_CONNECT = 11,
  JOBIO_CALL_ACCEPT = 12,
  JOBIO_CALL_COUNT = 13
};

/* Red / yellow / green. */
enum jobio_class { JOBIO_RED = 0, JOBIO_YELLOW = 1, JOBIO_GREEN = 2, JOBIO_CLASS_COUNT = 3 };

/* Transfer directions for the size histograms. */
enum jobio_dir { JOBIO_DIR_READ = 0, JOBIO_DIR_WRITE = 1, JOBIO_DIR_COUNT = 2 };

/* Named size bins with the configured thresholds (default small < 32 KiB <= medium < 128 MiB <= large). */
enum jobio_size_bin { JOBIO_SIZE_SMALL = 0, JOBIO_SIZE_MEDIUM = 1, JOBIO_SIZE_LARGE = 2, JOBIO_SIZE_COUNT = 3 };

/* Power-of-two bins: bin 0 holds transfers of exactly 0 bytes; bin k (1..63) holds [2^(k-1), 2^k). */
#define JOBIO_POW2_BINS 64

/* Frame flags (jobio_frame_header.flags). */
#define JOBIO_FLAG_FINAL 0x1u   /* the process is ending (exit, _exit) */
#define JOBIO_FLAG_EXEC 0x2u    /* sent just before an exec replaces the image */

/* Every frame starts with this header. */
struct jobio_frame_header {
  uint32_t magic;      /* JOBIO_WIRE_MAGIC */
  uint16_t version;    /* JOBIO_WIRE_VERSION */
  uint16_t kind;       /* enum jobio_frame_kind */
  uint32_t length;     /* whole frame length in bytes, header included */
  uint32_t flags;      /* JOBIO_FLAG_* */
  uint64_t sequence;   /* per-process, increases by one per frame sent or dropped */
  int32_t pid;         /* claimed pid: informational only, SO_PEERCRED is authoritative */
  uint32_t reserved;
  uint64_t start_ns;   /* process (or post-fork child) start, CLOCK_REALTIME ns since the epoch */
  uint64_t now_ns;     /* when these totals were taken, CLOCK_REALTIME ns since the epoch */
};

/* JOBIO_FRAME_PROCESS: who the process is, and process-wide figures. */
struct jobio_frame_process {
  struct jobio_frame_header header;
  char jobid[64];            /* from SLURM_JOB_ID, PBS_JOBID, LSB_JOBID, JOB_ID, FLUX_JOB_ID; "" if none */
  char jobid_source[16];     /* the variable it came from, e.g. "SLURM_JOB_ID"; "" if none */
  char exe[64];              /* basename of the executable */
  uint64_t runtime_ns;       /* wall-clock run time so far (now_ns - start_ns, monotonic) */
  uint64_t dropped_frames;   /* frames this process could not send (no listener, socket full) */
  uint64_t ignored_calls;    /* calls on ignored file systems (proc, sysfs, pipes, sockets, ...) */
  uint32_t mount_count;      /* how many JOBIO_FRAME_MOUNT frames belong to this snapshot */
  uint32_t small_threshold;  /* bytes: below it a transfer is "small" (red) */
  uint64_t large_threshold;  /* bytes: at or above it a transfer is "large" */
  uint32_t sample_every;     /* durations are measured for 1 call in sample_every */
  uint32_t reserved;
};

/* Per call type: calls and estimated time per class. */
struct jobio_call_stats {
  uint64_t calls[JOBIO_CLASS_COUNT];
  uint64_t time_ns[JOBIO_CLASS_COUNT]; /* estimated: sampled durations scaled by sample_every */
  uint64_t sampled;                    /* calls whose duration was actually measured */
};

/* Per direction and size bin: calls, bytes, estimated time. */
struct jobio_size_stats {
  uint64_t calls;
  uint64_t bytes;
  uint64_t time_ns;
};

/* JOBIO_FRAME_MOUNT: the cumulative totals of one process on one mount point. */
struct jobio_frame_mount {
  struct jobio_frame_header header;
  char path[256];    /* mount point, e.g. "/lustre/scratch"; "*" never appears here */
  char fstype[32];   /* e.g. "lustre", "ext4", "nfs4", "tmpfs" */
  char fsname[128];  /* mount source, e.g. "10.0.0.1@tcp:/scratch" or "/dev/sda1" */
  struct jobio_call_stats call[JOBIO_CALL_COUNT];
  struct jobio_size_stats sized[JOBIO_DIR_COUNT][JOBIO_SIZE_COUNT];
  uint64_t pow2_calls[JOBIO_DIR_COUNT][JOBIO_POW2_BINS];
  uint64_t pow2_bytes[JOBIO_DIR_COUNT][JOBIO_POW2_BINS];
};

#ifdef __cplusplus
#define JOBIO_STATIC_ASSERT static_assert
#else
#define JOBIO_STATIC_ASSERT _Static_assert
#endif
JOBIO_STATIC_ASSERT(sizeof(struct jobio_frame_header) == 48, "header layout");
JOBIO_STATIC_ASSERT(sizeof(struct jobio_frame_process) == 48 + 64 + 16 + 64 + 8 * 3 + 4 * 2 + 8 + 4 * 2, "process layout");
JOBIO_STATIC_ASSERT(sizeof(struct jobio_frame_mount) <= JOBIO_WIRE_MAX_FRAME, "mount frame fits");

#endif /* JOBIO_PROTOCOL_H */
