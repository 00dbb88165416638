/*
 * Test tool that produces profiler frames with the C header's own structs, so the TypeScript decoder
 * is checked against bytes laid out by a C compiler, not by our reading of the header.
 *
 *   frame-tool layout                      sizes and field offsets as JSON
 *   frame-tool dump                        known frames to stdout, each prefixed by its u32 length
 *   frame-tool send SOCKET SCENARIO [JOBID] [SOURCE]
 *                                          connect to a receiver and send a scenario:
 *     valid      two cumulative snapshots (scale 1, then scale 3 with FINAL) of one process on /data
 *     garbage    random bytes, wrong magic, bad version, unknown kind, short, truncated, oversized
 *                frames, then one valid snapshot (scale 1)
 *     hostile    a forger: FRAME_TOOL_ROUNDS (default 10) rounds, each for FRAME_TOOL_PROCESSES
 *                (default 64) invented processes (made-up start times) a process frame and
 *                FRAME_TOOL_MOUNTS (default 64) mount frames with made-up paths, counters alternating
 *                between ~1e18 and 1 (huge deltas, figures going up and down), a repeated old frame and
 *                the garbage frames; sends until the receiver hangs up, rounds 0 = endless
 *
 * With FRAME_TOOL_HOLD_MS=n, `send` waits n ms before closing (so the sender is alive when checked).
 * Field values follow fixed formulas of a scale s (see fill_mount) that the TypeScript tests repeat.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <signal.h>
#include <unistd.h>

#include "jobio_protocol.h"
#include "frames.h"

#define FIELD(type, name) printf("    \"%s\": %zu,\n", #name, offsetof(type, name))

static int layout(void) {
  printf("{\n  \"magic\": %u, \"version\": %u, \"maxFrame\": %u, \"pow2Bins\": %d,\n", JOBIO_WIRE_MAGIC, JOBIO_WIRE_VERSION, JOBIO_WIRE_MAX_FRAME, JOBIO_POW2_BINS);
  printf("  \"sizes\": {\"header\": %zu, \"process\": %zu, \"mount\": %zu, \"callStats\": %zu, \"sizeStats\": %zu},\n", sizeof(struct jobio_frame_header),
         sizeof(struct jobio_frame_process), sizeof(struct jobio_frame_mount), sizeof(struct jobio_call_stats), sizeof(struct jobio_size_stats));
  printf("  \"header\": {\n");
  FIELD(struct jobio_frame_header, magic); FIELD(struct jobio_frame_header, version); FIELD(struct jobio_frame_header, kind);
  FIELD(struct jobio_frame_header, length); FIELD(struct jobio_frame_header, flags); FIELD(struct jobio_frame_header, sequence);
  FIELD(struct jobio_frame_header, pid); FIELD(struct jobio_frame_header, reserved); FIELD(struct jobio_frame_header, start_ns);
  printf("    \"now_ns\": %zu\n  },\n  \"process\": {\n", offsetof(struct jobio_frame_header, now_ns));
  FIELD(struct jobio_frame_process, jobid); FIELD(struct jobio_frame_process, jobid_source); FIELD(struct jobio_frame_process, exe);
  FIELD(struct jobio_frame_process, runtime_ns); FIELD(struct jobio_frame_process, dropped_frames); FIELD(struct jobio_frame_process, ignored_calls);
  FIELD(struct jobio_frame_process, mount_count); FIELD(struct jobio_frame_process, small_threshold); FIELD(struct jobio_frame_process, large_threshold);
  FIELD(struct jobio_frame_process, sample_every); FIELD(struct jobio_frame_process, network_folded);
  printf("    \"io_uring_setups\": %zu,\n", offsetof(struct jobio_frame_process, ext.io_uring_setups));
  printf("    \"posix_aio_calls\": %zu,\n", offsetof(struct jobio_frame_process, ext.posix_aio_calls));
  printf("    \"libaio_iocbs\": %zu,\n", offsetof(struct jobio_frame_process, ext.libaio_iocbs));
  printf("    \"mmap_bytes\": %zu,\n", offsetof(struct jobio_frame_process, ext.mmap_bytes));
  printf("    \"exec_target\": %zu,\n", offsetof(struct jobio_frame_process, ext.exec_target));
  printf("    \"spawned_total\": %zu,\n", offsetof(struct jobio_frame_process, ext.spawned_total));
  printf("    \"spawned\": %zu,\n", offsetof(struct jobio_frame_process, ext.spawned));
  printf("    \"exe_path\": %zu\n  },\n  \"mount\": {\n", offsetof(struct jobio_frame_process, path.exe_path));
  FIELD(struct jobio_frame_mount, path); FIELD(struct jobio_frame_mount, fstype); FIELD(struct jobio_frame_mount, fsname);
  FIELD(struct jobio_frame_mount, call); FIELD(struct jobio_frame_mount, sized); FIELD(struct jobio_frame_mount, pow2_calls);
  FIELD(struct jobio_frame_mount, pow2_bytes);
  printf("    \"reason_calls\": %zu,\n", offsetof(struct jobio_frame_mount, ext.reason_calls));
  printf("    \"reason_time_ns\": %zu,\n", offsetof(struct jobio_frame_mount, ext.reason_time_ns));
  printf("    \"stdio_calls\": %zu,\n", offsetof(struct jobio_frame_mount, ext.stdio_calls));
  printf("    \"stdio_bytes\": %zu,\n", offsetof(struct jobio_frame_mount, ext.stdio_bytes));
  printf("    \"max_call_ns\": %zu,\n", offsetof(struct jobio_frame_mount, max.call_ns));
  printf("    \"max_sized_ns\": %zu,\n", offsetof(struct jobio_frame_mount, max.sized_ns));
  printf("    \"made_calls\": %zu,\n", offsetof(struct jobio_frame_mount, made.calls));
  printf("    \"made_time_ns\": %zu,\n", offsetof(struct jobio_frame_mount, made.time_ns));
  printf("    \"made_sampled\": %zu,\n", offsetof(struct jobio_frame_mount, made.sampled));
  printf("    \"short_reads\": %zu\n  },\n", offsetof(struct jobio_frame_mount, short_reads));
  printf("  \"v1\": {\"process\": %u, \"mount\": %u, \"reasonCount\": %d, \"stdioCount\": %d},\n", JOBIO_V1_PROCESS_SIZE, JOBIO_V1_MOUNT_SIZE, JOBIO_REASON_COUNT, JOBIO_STDIO_COUNT);
  printf("  \"v2\": {\"process\": %u, \"mount\": %u},\n", JOBIO_V2_PROCESS_SIZE, JOBIO_V2_MOUNT_SIZE);
  printf("  \"v3\": {\"mount\": %u},\n", JOBIO_V3_MOUNT_SIZE);
  printf("  \"v4\": {\"mount\": %u},\n", JOBIO_V4_MOUNT_SIZE);
  printf("  \"v5\": {\"mount\": %u},\n", JOBIO_V5_MOUNT_SIZE);
  printf("  \"enums\": {\"read\": %d, \"write\": %d, \"open\": %d, \"create\": %d, \"close\": %d, \"access\": %d, \"delete\": %d, \"fschange\": %d, \"mmap\": %d, \"seek\": %d, \"sync\": %d, \"connect\": %d, \"accept\": %d, \"callCount\": %d,\n",
         JOBIO_CALL_READ, JOBIO_CALL_WRITE, JOBIO_CALL_OPEN, JOBIO_CALL_CREATE, JOBIO_CALL_CLOSE, JOBIO_CALL_ACCESS, JOBIO_CALL_DELETE, JOBIO_CALL_FSCHANGE,
         JOBIO_CALL_MMAP, JOBIO_CALL_SEEK, JOBIO_CALL_SYNC, JOBIO_CALL_CONNECT, JOBIO_CALL_ACCEPT, JOBIO_CALL_COUNT);
  printf("    \"red\": %d, \"yellow\": %d, \"green\": %d, \"small\": %d, \"medium\": %d, \"large\": %d, \"dirRead\": %d, \"dirWrite\": %d,\n", JOBIO_RED, JOBIO_YELLOW,
         JOBIO_GREEN, JOBIO_SIZE_SMALL, JOBIO_SIZE_MEDIUM, JOBIO_SIZE_LARGE, JOBIO_DIR_READ, JOBIO_DIR_WRITE);
  printf("    \"kindProcess\": %d, \"kindMount\": %d, \"flagFinal\": %u, \"flagExec\": %u, \"componentMpiRuntime\": %d, \"componentPythonImports\": %d, \"componentCount\": %d}\n}\n",
         JOBIO_FRAME_PROCESS, JOBIO_FRAME_MOUNT, JOBIO_FLAG_FINAL, JOBIO_FLAG_EXEC, JOBIO_COMPONENT_MPI_RUNTIME, JOBIO_COMPONENT_PYTHON_IMPORTS,
         JOBIO_COMPONENT_COUNT);
  return 0;
}

static void put(const void *data, uint32_t len) {
  fwrite(&len, sizeof(len), 1, stdout);
  fwrite(data, 1, len, stdout);
}

static int dump(void) {
  static struct jobio_frame_process p;
  static struct jobio_frame_mount m;
  fill_process(&p, 1, 1, 0, "4242", "SLURM_JOB_ID");
  put(&p, sizeof(p));
  fill_mount(&m, 1, 2, 0);
  put(&m, sizeof(m));
  fill_process(&p, 3, 3, JOBIO_FLAG_FINAL, "", "");
  put(&p, sizeof(p));
  return fflush(stdout) == 0 ? 0 : 1;
}

static int sock;

static void sendit(const void *data, size_t len) {
  if (send(sock, data, len, 0) != (ssize_t)len) {
    if (errno == EPIPE || errno == ECONNRESET) exit(0); /* the receiver hung up (or closed us as over a limit) */
    perror("frame-tool: send");
  }
}

static void snapshot(uint64_t s, uint64_t *seq, uint32_t flags, const char *jobid, const char *source) {
  static struct jobio_frame_process p;
  static struct jobio_frame_mount m;
  fill_process(&p, s, (*seq)++, flags, jobid, source);
  sendit(&p, sizeof(p));
  fill_mount(&m, s, (*seq)++, flags);
  sendit(&m, sizeof(m));
}

static void garbage(void) {
  static unsigned char junk[JOBIO_WIRE_MAX_FRAME + 4096];
  static struct jobio_frame_process p;
  srand(7);
  for (size_t i = 0; i < sizeof(junk); i++) junk[i] = (unsigned char)rand();
  sendit(junk, 300);                         /* random bytes */
  fill_process(&p, 1, 1, 0, "4242", "SLURM_JOB_ID");
  p.header.magic = 0xdeadbeef;               /* wrong magic */
  sendit(&p, sizeof(p));
  fill_process(&p, 1, 1, 0, "4242", "SLURM_JOB_ID");
  p.header.version = 99;                     /* unknown version */
  sendit(&p, sizeof(p));
  p.header.version = JOBIO_WIRE_VERSION;
  p.header.kind = 77;                        /* unknown kind */
  sendit(&p, sizeof(p));
  p.header.kind = JOBIO_FRAME_PROCESS;
  sendit(&p, 20);                            /* shorter than a header */
  sendit(&p, sizeof(p) - 8);                 /* truncated process frame */
  memset(p.jobid, 'x', sizeof(p.jobid));     /* string without NUL */
  sendit(&p, sizeof(p));
  sendit(junk, sizeof(junk));                /* oversized */
}

static int env_int(const char *name, int fallback) {
  const char *v = getenv(name);
  return v ? atoi(v) : fallback;
}

static void hostile(const char *jobid, const char *source) {
  static struct jobio_frame_process p;
  static struct jobio_frame_mount m;
  int rounds = env_int("FRAME_TOOL_ROUNDS", 10), processes = env_int("FRAME_TOOL_PROCESSES", 64), mounts = env_int("FRAME_TOOL_MOUNTS", 64);
  for (int r = 0; rounds == 0 || r < rounds; r++) {
    uint64_t scale = (r % 2 == 0) ? 1000000000000000ULL : 1; /* x up to ~1300 per formula: ~1e18 */
    for (int i = 0; i < processes; i++) {
      uint64_t seq = (uint64_t)r * (uint64_t)(mounts + 1);
      fill_process(&p, scale, seq++, 0, jobid, source);
      p.header.start_ns = START_NS + (uint64_t)i;
      p.mount_count = (uint32_t)mounts;
      sendit(&p, sizeof(p));
      for (int k = 0; k < mounts; k++) {
        fill_mount(&m, scale, seq++, 0);
        m.header.start_ns = START_NS + (uint64_t)i;
        snprintf(m.path, sizeof(m.path), "/fake/%d/%d", i, k);
        sendit(&m, sizeof(m));
      }
      sendit(&p, sizeof(p)); /* an old sequence again */
    }
    garbage();
  }
}

int main(int argc, char **argv) {
  if (argc >= 2 && strcmp(argv[1], "layout") == 0) return layout();
  if (argc >= 2 && strcmp(argv[1], "dump") == 0) return dump();
  if (argc >= 4 && strcmp(argv[1], "send") == 0) {
    const char *jobid = argc >= 5 ? argv[4] : "4242";
    const char *source = argc >= 6 ? argv[5] : "SLURM_JOB_ID";
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", argv[2]);
    sock = socket(AF_UNIX, SOCK_SEQPACKET, 0);
    if (sock < 0 || connect(sock, (struct sockaddr *)&addr, sizeof(addr)) != 0) {
      perror("frame-tool: connect");
      return 1;
    }
    uint64_t seq = 0; /* numbered like the profiler (flush.c): the first frame is 0 */
    if (strcmp(argv[3], "valid") == 0) {
      snapshot(1, &seq, 0, jobid, source);
      snapshot(3, &seq, JOBIO_FLAG_FINAL, jobid, source);
    } else if (strcmp(argv[3], "hostile") == 0) {
      signal(SIGPIPE, SIG_IGN);
      hostile(jobid, source);
    } else if (strcmp(argv[3], "garbage") == 0) {
      garbage();
      snapshot(1, &seq, JOBIO_FLAG_FINAL, jobid, source);
    } else {
      fprintf(stderr, "frame-tool: unknown scenario %s\n", argv[3]);
      return 2;
    }
    /* Stay alive a while so the receiver can read /proc/<pid>/environ (job id verification). */
    const char *hold = getenv("FRAME_TOOL_HOLD_MS");
    if (hold) usleep((useconds_t)atoi(hold) * 1000);
    close(sock);
    return 0;
  }
  fprintf(stderr, "usage: frame-tool layout | dump | send SOCKET valid|garbage|hostile [JOBID] [SOURCE]\n");
  return 2;
}
