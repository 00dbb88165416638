/*
 * jobio-dump: a minimal receiver for the profiler's frames (include/jobio_protocol.h).
 *
 *   jobio-dump SOCKET_PATH [--raw FILE] [--no-accept]
 *
 * Listens on a SOCK_SEQPACKET Unix socket, takes pid/uid/gid of every connection from SO_PEERCRED,
 * validates each frame (magic, version, kind, length) and keeps the latest frame per process
 * incarnation (peer pid + start_ns) and mount, with the largest of its frames' maxima (each frame's
 * are those of the interval since the one before). On SIGTERM or SIGINT it drains what is queued and
 * prints the final totals as JSON on stdout, then exits 0. "listening" on stderr says it is ready.
 * --raw FILE appends every accepted frame to FILE as [u32 length][frame bytes] (for decoder tests).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "../include/jobio_protocol.h"

#define MAX_CONN 1024
#define MAX_PROC 4096
#define MAX_MOUNT 64

struct mount_rec {
  int used;
  struct jobio_frame_mount f;
};
struct proc_rec {
  int used;
  pid_t peer_pid;
  uid_t uid;
  gid_t gid;
  uint64_t start_ns;
  uint64_t frames;
  uint64_t max_seq;
  uint32_t flags_seen;
  int have_process;
  struct jobio_frame_process p;
  struct mount_rec mounts[MAX_MOUNT];
};
struct conn {
  int fd;
  struct ucred cred;
};

static volatile sig_atomic_t stop_flag;
static struct conn conns[MAX_CONN];
static int nconns;
static struct proc_rec *procs;
static int nprocs;
static uint64_t rejected[6];
static const char *reject_names[6] = {"short", "oversized", "magic", "version", "kind", "length"};
static uint64_t accepted_frames, connections;
static FILE *raw;
static int no_accept;

static const char *call_names[JOBIO_CALL_COUNT] = {"read",   "write",  "open", "create", "close",   "access", "delete",
                                                   "fschange", "mmap", "seek", "sync",   "connect", "accept"};
static const char *size_names[JOBIO_SIZE_COUNT] = {"small", "medium", "large"};
static const char *dir_names[JOBIO_DIR_COUNT] = {"read", "write"};

/* The maxima of two intervals: the larger of each. */
static void max_into(struct jobio_mount_max *acc, const struct jobio_mount_max *m) {
  uint64_t *a = (uint64_t *)(void *)acc;
  const uint64_t *b = (const uint64_t *)(const void *)m;
  for (size_t i = 0; i < sizeof *acc / 8; i++)
    if (b[i] > a[i]) a[i] = b[i];
}

static void on_signal(int sig) {
  (void)sig;
  stop_flag = 1;
}

static struct proc_rec *proc_for(pid_t pid, uint64_t start_ns, const struct ucred *cr) {
  for (int i = 0; i < nprocs; i++)
    if (procs[i].peer_pid == pid && procs[i].start_ns == start_ns) return &procs[i];
  if (nprocs >= MAX_PROC) return NULL;
  struct proc_rec *p = &procs[nprocs++];
  memset(p, 0, sizeof *p);
  p->used = 1;
  p->peer_pid = pid;
  p->uid = cr->uid;
  p->gid = cr->gid;
  p->start_ns = start_ns;
  return p;
}

static void handle_frame(struct conn *c, const unsigned char *buf, size_t len) {
  struct jobio_frame_header h;
  if (len < sizeof h) {
    rejected[0]++;
    return;
  }
  if (len > JOBIO_WIRE_MAX_FRAME) {
    rejected[1]++;
    return;
  }
  memcpy(&h, buf, sizeof h);
  if (h.magic != JOBIO_WIRE_MAGIC) {
    rejected[2]++;
    return;
  }
  if (h.version != JOBIO_WIRE_VERSION) {
    rejected[3]++;
    return;
  }
  size_t want = h.kind == JOBIO_FRAME_PROCESS ? sizeof(struct jobio_frame_process)
                : h.kind == JOBIO_FRAME_MOUNT ? sizeof(struct jobio_frame_mount)
                                              : 0;
  if (!want) {
    rejected[4]++;
    return;
  }
  if (h.length != len || len != want) {
    rejected[5]++;
    return;
  }
  accepted_frames++;
  if (raw) {
    uint32_t l = (uint32_t)len;
    fwrite(&l, sizeof l, 1, raw);
    fwrite(buf, 1, len, raw);
  }
  struct proc_rec *p = proc_for(c->cred.pid, h.start_ns, &c->cred);
  if (!p) return;
  p->frames++;
  if (h.sequence >= p->max_seq) {
    p->max_seq = h.sequence;
    p->flags_seen = h.flags;
  }
  if (h.kind == JOBIO_FRAME_PROCESS) {
    struct jobio_frame_process f;
    memcpy(&f, buf, sizeof f);
    if (!p->have_process || f.header.sequence >= p->p.header.sequence) p->p = f;
    p->have_process = 1;
  } else {
    struct jobio_frame_mount *f = malloc(sizeof *f);
    if (!f) return;
    memcpy(f, buf, sizeof *f);
    f->path[sizeof f->path - 1] = 0;
    f->fstype[sizeof f->fstype - 1] = 0;
    f->fsname[sizeof f->fsname - 1] = 0;
    struct mount_rec *m = NULL;
    for (int i = 0; i < MAX_MOUNT && !m; i++)
      if (p->mounts[i].used && strcmp(p->mounts[i].f.path, f->path) == 0 && p->mounts[i].f.header.reserved == f->header.reserved) m = &p->mounts[i];
    for (int i = 0; i < MAX_MOUNT && !m; i++)
      if (!p->mounts[i].used) m = &p->mounts[i];
    if (m && m->used) max_into(&f->max, &m->f.max);
    if (m && (!m->used || f->header.sequence >= m->f.header.sequence)) {
      m->f = *f;
      m->used = 1;
    } else if (m) {
      max_into(&m->f.max, &f->max);
    }
    free(f);
  }
}

static void drain_conn(struct conn *c) {
  static unsigned char buf[65536];
  for (;;) {
    ssize_t n = recv(c->fd, buf, sizeof buf, MSG_DONTWAIT | MSG_TRUNC);
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) return;
      close(c->fd);
      c->fd = -1;
      return;
    }
    if (n == 0) {
      close(c->fd);
      c->fd = -1;
      return;
    }
    if ((size_t)n > sizeof buf) {
      rejected[1]++;
      continue;
    }
    handle_frame(c, buf, (size_t)n);
  }
}

static void accept_all(int lfd) {
  for (;;) {
    int fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) return;
    struct ucred cr;
    socklen_t l = sizeof cr;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &l) != 0 || nconns >= MAX_CONN) {
      close(fd);
      continue;
    }
    connections++;
    conns[nconns].fd = fd;
    conns[nconns].cred = cr;
    nconns++;
  }
}

static void compact(void) {
  int w = 0;
  for (int i = 0; i < nconns; i++) {
    if (conns[i].fd >= 0) conns[w++] = conns[i];
  }
  nconns = w;
}

static void json_str(const char *s) {
  putchar('"');
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    if (*p == '"' || *p == '\\')
      printf("\\%c", *p);
    else if (*p < 0x20)
      printf("\\u%04x", *p);
    else
      putchar(*p);
  }
  putchar('"');
}

static void print_calls(const struct jobio_call_stats *cs) {
  printf("{");
  for (int c = 0; c < JOBIO_CALL_COUNT; c++) {
    const struct jobio_call_stats *s = &cs[c];
    printf("%s\"%s\":{\"red\":%llu,\"yellow\":%llu,\"green\":%llu,\"time_ns\":[%llu,%llu,%llu],\"sampled\":%llu}",
           c ? "," : "", call_names[c], (unsigned long long)s->calls[0], (unsigned long long)s->calls[1],
           (unsigned long long)s->calls[2], (unsigned long long)s->time_ns[0], (unsigned long long)s->time_ns[1],
           (unsigned long long)s->time_ns[2], (unsigned long long)s->sampled);
  }
  printf("}");
}

static void print_sizes(const struct jobio_size_stats s[JOBIO_DIR_COUNT][JOBIO_SIZE_COUNT]) {
  printf("{");
  for (int d = 0; d < JOBIO_DIR_COUNT; d++) {
    printf("%s\"%s\":{", d ? "," : "", dir_names[d]);
    for (int b = 0; b < JOBIO_SIZE_COUNT; b++)
      printf("%s\"%s\":{\"calls\":%llu,\"bytes\":%llu,\"time_ns\":%llu}", b ? "," : "", size_names[b],
             (unsigned long long)s[d][b].calls, (unsigned long long)s[d][b].bytes, (unsigned long long)s[d][b].time_ns);
    printf("}");
  }
  printf("}");
}

/* Sum of the call stats over mounts (the largest of the maxima). */
static void add_mount(struct jobio_frame_mount *acc, const struct jobio_frame_mount *m) {
  uint64_t *a = (uint64_t *)(void *)acc->call;
  const uint64_t *b = (const uint64_t *)(const void *)m->call;
  size_t n = (offsetof(struct jobio_frame_mount, max) - offsetof(struct jobio_frame_mount, call)) / 8;
  for (size_t i = 0; i < n; i++) a[i] += b[i];
  max_into(&acc->max, &m->max);
  for (int c = 0; c < JOBIO_CALL_COUNT; c++) {
    acc->made.calls[c] += m->made.calls[c];
    acc->made.time_ns[c] += m->made.time_ns[c];
    acc->made.sampled[c] += m->made.sampled[c];
  }
  acc->short_reads.calls += m->short_reads.calls;
  acc->short_reads.bytes += m->short_reads.bytes;
  acc->short_reads.time_ns += m->short_reads.time_ns;
}

static void print_mount_body(const struct jobio_frame_mount *f) {
  printf("\"calls\":");
  print_calls(f->call);
  printf(",\"sizes\":");
  print_sizes(f->sized);
  printf(",\"pow2\":{");
  for (int d = 0; d < JOBIO_DIR_COUNT; d++) {
    printf("%s\"%s\":[", d ? "," : "", dir_names[d]);
    int first = 1;
    for (int b = 0; b < JOBIO_POW2_BINS; b++) {
      if (!f->pow2_calls[d][b]) continue;
      printf("%s[%d,%llu,%llu]", first ? "" : ",", b, (unsigned long long)f->pow2_calls[d][b],
             (unsigned long long)f->pow2_bytes[d][b]);
      first = 0;
    }
    printf("]");
  }
  printf("}");
  static const char *const reasons[JOBIO_REASON_COUNT] = {"failed_not_found", "failed_permission", "failed_call",
                                                          "open_nothing_transferred", "stat_unused", "backward_seek",
                                                          "zero_seek", "open_bytes_unseen"};
  static const char *const fns[JOBIO_STDIO_COUNT] = {"fread", "fgets", "getline", "fgetc", "fscanf", "ungetc",
                                                     "fwrite", "fprintf", "fputs", "fputc", "fflush"};
  printf(",\"reasons\":{");
  int first = 1;
  for (int r = 0; r < JOBIO_REASON_COUNT; r++) {
    if (!f->ext.reason_calls[r]) continue;
    printf("%s\"%s\":%llu", first ? "" : ",", reasons[r], (unsigned long long)f->ext.reason_calls[r]);
    first = 0;
  }
  printf("},\"stdio\":{");
  first = 1;
  for (int k = 0; k < JOBIO_STDIO_COUNT; k++) {
    if (!f->ext.stdio_calls[k]) continue;
    printf("%s\"%s\":[%llu,%llu]", first ? "" : ",", fns[k], (unsigned long long)f->ext.stdio_calls[k],
           (unsigned long long)f->ext.stdio_bytes[k]);
    first = 0;
  }
  printf("},\"max_ns\":{");
  first = 1;
  for (int c = 0; c < JOBIO_CALL_COUNT; c++) {
    if (!f->max.call_ns[c]) continue;
    printf("%s\"%s\":%llu", first ? "" : ",", call_names[c], (unsigned long long)f->max.call_ns[c]);
    first = 0;
  }
  for (int d = 0; d < JOBIO_DIR_COUNT; d++)
    for (int b = 0; b < JOBIO_SIZE_COUNT; b++) {
      if (!f->max.sized_ns[d][b]) continue;
      printf("%s\"%s_%s\":%llu", first ? "" : ",", dir_names[d], size_names[b], (unsigned long long)f->max.sized_ns[d][b]);
      first = 0;
    }
  /* the calls made, whatever their class and whether it is decided yet (version 4) */
  printf("},\"made\":{");
  first = 1;
  for (int c = 0; c < JOBIO_CALL_COUNT; c++) {
    if (!f->made.calls[c]) continue;
    printf("%s\"%s\":%llu", first ? "" : ",", call_names[c], (unsigned long long)f->made.calls[c]);
    first = 0;
  }
  /* their estimated time and timed calls, counted as they were made (version 5) */
  printf("},\"made_time\":{");
  first = 1;
  for (int c = 0; c < JOBIO_CALL_COUNT; c++) {
    if (!f->made.sampled[c] && !f->made.time_ns[c]) continue;
    printf("%s\"%s\":[%llu,%llu]", first ? "" : ",", call_names[c], (unsigned long long)f->made.time_ns[c],
           (unsigned long long)f->made.sampled[c]);
    first = 0;
  }
  /* the small bin's reads that met the end of the file (version 7): calls, bytes, estimated time */
  printf("},\"short_reads\":[%llu,%llu,%llu]", (unsigned long long)f->short_reads.calls, (unsigned long long)f->short_reads.bytes,
         (unsigned long long)f->short_reads.time_ns);
}

static void print_json(void) {
  static struct jobio_frame_mount total;
  memset(&total, 0, sizeof total);
  uint64_t ignored = 0, dropped = 0;
  printf("{\"connections\":%llu,\"frames\":%llu,\"rejected\":{", (unsigned long long)connections,
         (unsigned long long)accepted_frames);
  for (int i = 0; i < 6; i++) printf("%s\"%s\":%llu", i ? "," : "", reject_names[i], (unsigned long long)rejected[i]);
  printf("},\"processes\":[");
  for (int i = 0; i < nprocs; i++) {
    struct proc_rec *p = &procs[i];
    static struct jobio_frame_mount ptotal;
    memset(&ptotal, 0, sizeof ptotal);
    printf("%s{\"pid\":%d,\"uid\":%u,\"gid\":%u,\"start_ns\":%llu,\"frames\":%llu,\"sequence\":%llu,\"final\":%s,\"exec\":%s",
           i ? "," : "", (int)p->peer_pid, (unsigned)p->uid, (unsigned)p->gid, (unsigned long long)p->start_ns,
           (unsigned long long)p->frames, (unsigned long long)p->max_seq,
           (p->flags_seen & JOBIO_FLAG_FINAL) ? "true" : "false", (p->flags_seen & JOBIO_FLAG_EXEC) ? "true" : "false");
    if (p->have_process) {
      struct jobio_frame_process *f = &p->p;
      f->jobid[sizeof f->jobid - 1] = f->jobid_source[sizeof f->jobid_source - 1] = f->exe[sizeof f->exe - 1] = 0;
      printf(",\"claimed_pid\":%d,\"exe\":", (int)f->header.pid);
      json_str(f->exe);
      printf(",\"jobid\":");
      json_str(f->jobid);
      printf(",\"jobid_source\":");
      json_str(f->jobid_source);
      printf(",\"runtime_ns\":%llu,\"dropped_frames\":%llu,\"ignored_calls\":%llu,\"mount_count\":%u,"
             "\"small_threshold\":%u,\"large_threshold\":%llu,\"sample_every\":%u,\"network_folded\":%u",
             (unsigned long long)f->runtime_ns, (unsigned long long)f->dropped_frames,
             (unsigned long long)f->ignored_calls, f->mount_count, f->small_threshold,
             (unsigned long long)f->large_threshold, f->sample_every, f->network_folded);
      f->ext.exec_target[sizeof f->ext.exec_target - 1] = 0;
      printf(",\"io_uring_setups\":%llu,\"posix_aio_calls\":%llu,\"libaio_iocbs\":%llu,\"mmap_bytes\":%llu,\"exec_target\":",
             (unsigned long long)f->ext.io_uring_setups, (unsigned long long)f->ext.posix_aio_calls,
             (unsigned long long)f->ext.libaio_iocbs, (unsigned long long)f->ext.mmap_bytes);
      json_str(f->ext.exec_target);
      ignored += f->ignored_calls;
      dropped += f->dropped_frames;
    }
    printf(",\"mounts\":[");
    int first = 1;
    for (int m = 0; m < MAX_MOUNT; m++) {
      if (!p->mounts[m].used) continue;
      const struct jobio_frame_mount *f = &p->mounts[m].f;
      printf("%s{\"path\":", first ? "" : ",");
      json_str(f->path);
      printf(",\"fstype\":");
      json_str(f->fstype);
      printf(",\"fsname\":");
      json_str(f->fsname);
      /* whose calls: the program's own, or a component's (enum jobio_component) */
      static const char *const components[JOBIO_COMPONENT_COUNT] = {"", "mpi-runtime", "python-imports", "mpi-io", "sqlite-journal"};
      printf(",\"component\":\"%s\",", f->header.reserved < JOBIO_COMPONENT_COUNT ? components[f->header.reserved] : "");
      print_mount_body(f);
      printf("}");
      first = 0;
      add_mount(&ptotal, f);
      add_mount(&total, f);
    }
    printf("],\"totals\":{");
    print_mount_body(&ptotal);
    printf("}}");
  }
  printf("],\"totals\":{\"ignored_calls\":%llu,\"dropped_frames\":%llu,", (unsigned long long)ignored,
         (unsigned long long)dropped);
  print_mount_body(&total);
  printf("}}\n");
  fflush(stdout);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: jobio-dump SOCKET_PATH [--raw FILE]\n");
    return 2;
  }
  const char *path = argv[1];
  for (int i = 2; i < argc; i++) {
    if (strcmp(argv[i], "--raw") == 0 && i + 1 < argc) raw = fopen(argv[++i], "ab");
    if (strcmp(argv[i], "--no-accept") == 0) no_accept = 1; /* a stalled exporter: backlog fills */
  }
  procs = calloc(MAX_PROC, sizeof *procs);
  if (!procs) return 1;
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigaction(SIGTERM, &sa, NULL);
  sigaction(SIGINT, &sa, NULL);
  signal(SIGPIPE, SIG_IGN);

  int lfd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  struct sockaddr_un sun;
  memset(&sun, 0, sizeof sun);
  sun.sun_family = AF_UNIX;
  if (strlen(path) >= sizeof sun.sun_path) {
    fprintf(stderr, "jobio-dump: socket path too long\n");
    return 2;
  }
  strcpy(sun.sun_path, path);
  unlink(path);
  if (lfd < 0 || bind(lfd, (struct sockaddr *)&sun, sizeof sun) != 0 || listen(lfd, no_accept ? 0 : 512) != 0) {
    perror("jobio-dump: listen");
    return 1;
  }
  fprintf(stderr, "listening\n");
  fflush(stderr);

  struct pollfd pfd[MAX_CONN + 1];
  while (!stop_flag) {
    pfd[0].fd = no_accept ? -1 : lfd;
    pfd[0].events = POLLIN;
    for (int i = 0; i < nconns; i++) {
      pfd[i + 1].fd = conns[i].fd;
      pfd[i + 1].events = POLLIN;
    }
    int n = poll(pfd, (nfds_t)nconns + 1, 100);
    if (n < 0 && errno != EINTR) break;
    if (n <= 0) continue;
    if (pfd[0].revents) accept_all(lfd);
    for (int i = 0; i < nconns; i++)
      if (pfd[i + 1].revents && conns[i].fd >= 0) drain_conn(&conns[i]);
    compact();
  }
  /* drain: pending connections and queued frames */
  for (int round = 0; round < 3; round++) {
    if (!no_accept) accept_all(lfd);
    for (int i = 0; i < nconns; i++)
      if (conns[i].fd >= 0) drain_conn(&conns[i]);
    compact();
  }
  close(lfd);
  unlink(path);
  if (raw) fclose(raw);
  print_json();
  return 0;
}
