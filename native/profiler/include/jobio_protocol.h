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
/* Version 2 appended struct jobio_process_ext and struct jobio_mount_ext to the two frames; version 3
 * appended struct jobio_mount_max to the MOUNT frame (the PROCESS frame is the same as in version 2),
 * version 4 struct jobio_mount_made (its calls), version 5 that struct's time_ns and sampled, version 6
 * struct jobio_process_path to the PROCESS frame (the MOUNT frame is the same as in version 5), version
 * 7 struct jobio_short_reads to the MOUNT frame (the PROCESS frame is the same as in version 6). A
 * receiver accepts every version, each with its own exact sizes (older frames simply lack the
 * extensions). */
#define JOBIO_WIRE_VERSION 7u
/* The receiver rejects (and counts) any message larger than this. */
#define JOBIO_WIRE_MAX_FRAME 16384u

/*
 * The profiler's defaults and the scheduler variables a job id is taken from, defined here once:
 * the library (native/profiler/src/core.c), the receiver's evidence capture (native/seqpacket) and,
 * as TypeScript copies, `jobio run` (exporter/src/run/run-options.ts) and the job resolver
 * (exporter/src/labels/process-job.ts); test/profiler-native/protocol-constants.test.ts reads this
 * header and checks that the copies agree.
 */
#define JOBIO_DEFAULT_SMALL_THRESHOLD 32768u     /* bytes (32 KiB): below it a transfer is small */
#define JOBIO_DEFAULT_LARGE_THRESHOLD 134217728u /* bytes (128 MiB): from it a transfer is large */
#define JOBIO_DEFAULT_SAMPLE_EVERY 16u           /* durations are measured for 1 call in 16 */
/* In order of precedence: the first one set names the job (an initialiser list of strings). */
#define JOBIO_JOBID_VARIABLES "SLURM_JOB_ID", "PBS_JOBID", "LSB_JOBID", "JOB_ID", "FLUX_JOB_ID"

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

/* Named size bins with the configured thresholds (defaults: JOBIO_DEFAULT_SMALL_THRESHOLD, _LARGE_THRESHOLD). */
enum jobio_size_bin { JOBIO_SIZE_SMALL = 0, JOBIO_SIZE_MEDIUM = 1, JOBIO_SIZE_LARGE = 2, JOBIO_SIZE_COUNT = 3 };

/* Power-of-two bins: bin 0 holds transfers of exactly 0 bytes; bin k (1..63) holds [2^(k-1), 2^k). */
#define JOBIO_POW2_BINS 64

/*
 * Why a call was red or yellow, for the classes the call type and size bins cannot tell apart
 * (version 2). The other reasons follow from the counts: a successful small transfer is counted in
 * the small size bin, a yellow seek is forward, a yellow sync is a sync, a yellow delete/fschange is
 * a metadata change, a yellow stat was used. Every failed call counts in exactly one failed_* reason.
 */
enum jobio_reason {
  JOBIO_REASON_FAILED_NOT_FOUND = 0,  /* red: failed with ENOENT or ENOTDIR */
  JOBIO_REASON_FAILED_PERMISSION = 1, /* red: failed with EACCES, EPERM or EROFS */
  JOBIO_REASON_FAILED_OTHER = 2,      /* red: failed with any other errno */
  JOBIO_REASON_OPEN_NOTHING = 3,      /* red: an open through which no byte moved */
  JOBIO_REASON_STAT_UNUSED = 4,       /* red: a stat of a path the process never opened */
  JOBIO_REASON_BACKWARD_SEEK = 5,     /* red: a seek backward */
  JOBIO_REASON_ZERO_SEEK = 6,         /* red: a seek to the offset it was at */
  JOBIO_REASON_OPEN_UNSEEN = 7,       /* yellow: an open whose bytes moved through mmap or async I/O */
  JOBIO_REASON_COUNT = 8
};

/* Application-level stdio calls (version 2), apart from what reaches the file system. */
enum jobio_stdio_fn {
  JOBIO_STDIO_FREAD = 0,   /* fread, fread_unlocked, __fread_chk */
  JOBIO_STDIO_FGETS = 1,   /* fgets, fgets_unlocked, __fgets_chk */
  JOBIO_STDIO_GETLINE = 2, /* getline, getdelim */
  JOBIO_STDIO_FGETC = 3,   /* fgetc, getc, getchar, fgetc_unlocked, getc_unlocked */
  JOBIO_STDIO_FSCANF = 4,  /* fscanf, vfscanf, scanf (bytes consumed are not known: 0) */
  JOBIO_STDIO_UNGETC = 5,  /* ungetc */
  JOBIO_STDIO_FWRITE = 6,  /* fwrite, fwrite_unlocked */
  JOBIO_STDIO_FPRINTF = 7, /* fprintf, vfprintf, printf, vprintf, __fprintf_chk, __vfprintf_chk, __printf_chk */
  JOBIO_STDIO_FPUTS = 8,   /* fputs, puts, fputs_unlocked */
  JOBIO_STDIO_FPUTC = 9,   /* fputc, putc, putchar, fputc_unlocked, putc_unlocked */
  JOBIO_STDIO_FFLUSH = 10, /* fflush (bytes: what it wrote) */
  JOBIO_STDIO_COUNT = 11
};

/* Whose calls a MOUNT frame holds (jobio_frame_header.reserved): a process sends one frame per
 * mount and component. The program's own (0), or a known library's inside the process. */
enum jobio_component {
  JOBIO_COMPONENT_PROGRAM = 0,
  JOBIO_COMPONENT_MPI_RUNTIME = 1,    /* made inside MPI_Init, MPI_Init_thread or MPI_Finalize */
  JOBIO_COMPONENT_PYTHON_IMPORTS = 2, /* a Python interpreter's calls on its modules' files (pyimports.h) */
  JOBIO_COMPONENT_MPI_IO = 3,         /* made inside an MPI_File_* call (the MPI-IO library's) */
  JOBIO_COMPONENT_SQLITE_JOURNAL = 4, /* SQLite's journals (-journal, -wal, -shm) in any process */
  JOBIO_COMPONENT_COUNT = 5
};

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
  uint32_t reserved;   /* MOUNT frames: enum jobio_component (0 in older senders); else 0 */
  uint64_t start_ns;   /* process (or post-fork child) start, CLOCK_REALTIME ns since the epoch */
  uint64_t now_ns;     /* when these totals were taken, CLOCK_REALTIME ns since the epoch */
};

/* Version 2: appended to the PROCESS frame. I/O the profiler saw happen but could not count. */
struct jobio_process_ext {
  uint64_t io_uring_setups;  /* io_uring rings set up (io_uring_setup, or a mapping of a ring): not counted */
  uint64_t posix_aio_calls;  /* aio_read/aio_write/lio_listio requests: not counted */
  uint64_t libaio_iocbs;     /* io_submit requests, counted as reads/writes with their bytes */
  uint64_t mmap_bytes;       /* length of the file mappings made: bytes moved through them are unknown */
  char exec_target[64];      /* flags & EXEC: basename of the program about to be exec'd */
  /* children started with vfork or posix_spawn (their own code never runs before their exec): the
   * last JOBIO_SPAWN_RING of them, entry (spawned_total - 1) % JOBIO_SPAWN_RING the newest; the
   * receiver learns which never said hello (not profiled) */
  uint64_t spawned_total;
  struct jobio_spawned {
    int32_t pid;
    char name[28]; /* basename of the program exec'd ("" if unknown) */
  } spawned[16];
};
#define JOBIO_SPAWN_RING 16

/*
 * Version 6: appended to the PROCESS frame. The full path of the executable as the process read it
 * once at start-up (/proc/self/exe), so that a process gone before the receiver reads its first frame
 * still names its program. A label for the hints only: the receiver prefers its own reading of
 * /proc/<pid>/exe and trusts nothing else to it. "" when unknown or longer than the array holds (a
 * cut path would name another file).
 */
#define JOBIO_EXE_PATH_MAX 256
struct jobio_process_path {
  char exe_path[JOBIO_EXE_PATH_MAX];
};

/* JOBIO_FRAME_PROCESS: who the process is, and process-wide figures. */
struct jobio_frame_process {
  struct jobio_frame_header header;
  char jobid[64];            /* from the first of JOBIO_JOBID_VARIABLES set; "" if none */
  char jobid_source[16];     /* the variable it came from, e.g. "SLURM_JOB_ID"; "" if none */
  char exe[64];              /* basename of the executable */
  uint64_t runtime_ns;       /* wall-clock run time so far (now_ns - start_ns, monotonic) */
  uint64_t dropped_frames;   /* frames this process could not send (no listener, socket full) */
  uint64_t ignored_calls;    /* calls on ignored file systems (proc, sysfs, pipes, sockets, ...) */
  uint32_t mount_count;      /* how many JOBIO_FRAME_MOUNT frames belong to this snapshot */
  uint32_t small_threshold;  /* bytes: below it a transfer is "small" (red) */
  uint64_t large_threshold;  /* bytes: at or above it a transfer is "large" */
  uint32_t sample_every;     /* durations are measured for 1 call in sample_every */
  /* socket calls whose peer address got no slot of its own (JOBIO_NETWORK=1, more peers than the
   * library keeps per process) and were counted on "[network]" only; saturates. Was a reserved 0,
   * so older senders report none. */
  uint32_t network_folded;
  struct jobio_process_ext ext; /* version 2 */
  struct jobio_process_path path; /* version 6 */
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

/* Version 2: appended to the MOUNT frame. */
struct jobio_mount_ext {
  uint64_t reason_calls[JOBIO_REASON_COUNT];
  uint64_t reason_time_ns[JOBIO_REASON_COUNT]; /* estimated, like time_ns */
  uint64_t stdio_calls[JOBIO_STDIO_COUNT];     /* application-level stdio calls on this mount's files */
  uint64_t stdio_bytes[JOBIO_STDIO_COUNT];     /* bytes those calls moved between the program and stdio */
};

/*
 * Version 3: appended to the MOUNT frame. The longest single timed call (its measured duration in
 * ns, not scaled by the sampling weight) since the process's previous snapshot: unlike every other
 * figure these are not cumulative but the maximum of the interval the frame closes, so a receiver
 * max-merges them (the largest of the frames of an interval is the interval's). A snapshot that
 * could not be sent takes its maxima with it (its counts arrive with the next one).
 */
struct jobio_mount_max {
  uint64_t call_ns[JOBIO_CALL_COUNT];                   /* per call type (failed and empty calls too) */
  uint64_t sized_ns[JOBIO_DIR_COUNT][JOBIO_SIZE_COUNT]; /* per direction and size bin (bytes moved) */
};

/*
 * Version 4: appended to the MOUNT frame. The calls made so far per call type, whatever their class
 * and whether it is decided yet: cumulative, like the call stats. An open's class is known at its
 * close and a successful stat's when the path is opened or the process ends, and only then is it
 * counted in call[].calls; here it counts when it was made, so a receiver puts it in the time frame
 * it happened in. Version 5 adds their estimated time and timed calls the same way (an open's time
 * is in call[].time_ns[class] from its close on, here from its making). For the call types decided
 * as they end (all but open, create and access) each is the sum of its call stats over the classes.
 * At a normal exit every call made is decided, so the sums over classes equal these (the time where
 * the estimate's bound, which scales every time counter alike, holds nothing back).
 */
struct jobio_mount_made {
  uint64_t calls[JOBIO_CALL_COUNT];
  uint64_t time_ns[JOBIO_CALL_COUNT]; /* version 5: estimated, like call[].time_ns */
  uint64_t sampled[JOBIO_CALL_COUNT]; /* version 5: like call[].sampled */
};

/*
 * Version 7: appended to the MOUNT frame. The reads in the small size bin that returned fewer bytes
 * than they asked for (0 < n < the count asked, a vector read's total, a stdio buffer fill's buffer):
 * on a regular file such a read met the end of the file, so its size says how much was left, not how
 * the program reads. They are green (in call[JOBIO_CALL_READ].calls[JOBIO_GREEN]) and stay in their
 * size and power-of-two bins; here are their calls, bytes and estimated time, so that a receiver can
 * tell them from the small reads (red, the small bin's rest). Cumulative. Older senders counted them
 * red with the other small reads.
 */
struct jobio_short_reads {
  uint64_t calls;
  uint64_t bytes;
  uint64_t time_ns; /* estimated, like time_ns */
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
  struct jobio_mount_ext ext; /* version 2 */
  struct jobio_mount_max max; /* version 3 */
  struct jobio_mount_made made; /* version 4 (calls), 5 (time_ns, sampled) */
  struct jobio_short_reads short_reads; /* version 7 */
};

/* Sizes of the older frames (without the later extensions), which receivers still accept. */
#define JOBIO_V1_PROCESS_SIZE 240u
#define JOBIO_V2_PROCESS_SIZE 856u /* versions 2 to 5 */
#define JOBIO_V1_MOUNT_SIZE 3384u
#define JOBIO_V2_MOUNT_SIZE 3688u /* the version 2 PROCESS frame is the version 3 and 4 one */
#define JOBIO_V3_MOUNT_SIZE 3840u
#define JOBIO_V4_MOUNT_SIZE 3944u /* the made calls without their time */
#define JOBIO_V5_MOUNT_SIZE 4152u /* versions 5 and 6 */

#ifdef __cplusplus
#define JOBIO_STATIC_ASSERT static_assert
#else
#define JOBIO_STATIC_ASSERT _Static_assert
#endif
JOBIO_STATIC_ASSERT(sizeof(struct jobio_frame_header) == 48, "header layout");
JOBIO_STATIC_ASSERT(JOBIO_V2_PROCESS_SIZE == JOBIO_V1_PROCESS_SIZE + sizeof(struct jobio_process_ext), "process layout v2");
JOBIO_STATIC_ASSERT(sizeof(struct jobio_frame_process) == JOBIO_V2_PROCESS_SIZE + sizeof(struct jobio_process_path), "process layout");
JOBIO_STATIC_ASSERT(JOBIO_V2_MOUNT_SIZE == JOBIO_V1_MOUNT_SIZE + sizeof(struct jobio_mount_ext), "mount layout v2");
JOBIO_STATIC_ASSERT(JOBIO_V3_MOUNT_SIZE == JOBIO_V2_MOUNT_SIZE + sizeof(struct jobio_mount_max), "mount layout v3");
JOBIO_STATIC_ASSERT(JOBIO_V4_MOUNT_SIZE == JOBIO_V3_MOUNT_SIZE + 8 * JOBIO_CALL_COUNT, "mount layout v4");
JOBIO_STATIC_ASSERT(JOBIO_V5_MOUNT_SIZE == JOBIO_V3_MOUNT_SIZE + sizeof(struct jobio_mount_made), "mount layout v5");
JOBIO_STATIC_ASSERT(sizeof(struct jobio_short_reads) == 24, "short reads layout");
JOBIO_STATIC_ASSERT(sizeof(struct jobio_frame_mount) == JOBIO_V5_MOUNT_SIZE + sizeof(struct jobio_short_reads), "mount layout");
JOBIO_STATIC_ASSERT(sizeof(struct jobio_frame_mount) <= JOBIO_WIRE_MAX_FRAME, "mount frame fits");

#endif /* JOBIO_PROTOCOL_H */
