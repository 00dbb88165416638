/*
 * Mount attribution. /proc/self/mountinfo is read once at start and again (at most once a second)
 * when a device appears that no known mount has. A file is attributed by its st_dev when exactly
 * one mount has that device, otherwise by the longest mount-point prefix of its absolute path
 * (relative paths are joined to the cached working directory, lexically normalised). Pseudo file
 * systems are "ignored": their calls only add to ignored_calls. The table is append-only, so
 * readers never lock; mounts that disappear are marked gone.
 *
 * Lookups cost the same whatever the number of mounts: an index rebuilt with the table (mounts by
 * device, mounts by mount-point path, and which mount-point lengths exist) answers a device with one
 * hash probe and a path with one probe per '/' of the path whose prefix length some mount point has,
 * longest first. A thread also keeps its last directory (struct jobio_dir_cache): the next path in
 * it costs a compare of the directory's hash, taken in the one walk over the path (base/pathwalk.h). While the index is rebuilt (at most once a second) readers scan the table.
 *
 * With JOBIO_NETWORK=1 the table starts with pseudo mounts that no path or device matches: entry 0
 * is "[network]", the socket I/O of peers without an entry of their own, and entries 1 to
 * JOBIO_NET_PEERS are taken by the first peer addresses of the process, "[network] 10.1.2.3"
 * (net_peers.c names them). A peer entry is claimed by its address hash with one compare-and-swap,
 * so the wrappers never lock to find or add one.
 *
 * Volumes (JOBIO_VOLUMES: a file of absolute directory paths, one a line) are directories treated as
 * mount points: each is an entry of the mount that holds it, with that mount's id, device, type and
 * source but its own path. A device that holds a volume is then shared by several entries, so its
 * files are attributed by the longest prefix among them: a file below a volume counts there.
 */
#include <limits.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>

#include "process/mounts.h"

#include "base/log.h"
#include "base/state.h"
#include "base/sys.h"
#include "base/tls.h"

struct jobio_mount {
  uint64_t dev;
  int32_t id;
  int32_t slot; /* stats slot, -1 until the first counted call */
  uint16_t pathlen;
  uint8_t ignored;
  uint8_t gone;
  uint8_t seen;
  uint8_t named;     /* path, fstype and source are written (a peer entry is named after its claim) */
  uint8_t volume;    /* a directory of JOBIO_VOLUMES: never in mountinfo, never gone */
  uint64_t peer_key; /* network peer entries: hash of the peer address, 0 while free */
  char path[256];
  char fstype[32];
  char source[128];
};

/* File systems whose calls are not I/O to storage (documented in docs/profiler.md). tmpfs is NOT here. */
static const char *const jobio_ignored_fs[] = {
    "proc",       "sysfs",     "devpts",   "devtmpfs", "pipefs",      "sockfs",  "cgroup",  "cgroup2",
    "debugfs",    "tracefs",   "securityfs", "bpf",    "mqueue",      "anon_inodefs", "pstore", "configfs",
    "fusectl",    "hugetlbfs", "autofs",   "binfmt_misc", "efivarfs", "rpc_pipefs", "nsfs", "selinuxfs",
    "nfsd",       "devfs",     "usbfs",    NULL};

static struct jobio_mount *jobio_mounts;
static uint32_t jobio_mount_count;
uint32_t jobio_mount_gen = 1; /* bumped when the table changes: invalidates the per-thread device caches */

/* Each thread's last directory (mounts.h): not in its counting block, which this layer does not see;
 * every use checks it against the mount generation and the working directory. */
__thread struct jobio_dir_cache jobio_dir_cache __attribute__((tls_model("initial-exec")));
static int16_t jobio_slot_mounts[JOBIO_MAX_SLOTS];
/* A component's slots (struct jobio_frame_header.reserved): slot -> the program's slot of the same
 * mount it is a component's twin of (-1: a slot of the program's own) and that component, and the
 * program's slot -> its twin per component (-1: none yet). */
static int16_t jobio_slot_base[JOBIO_MAX_SLOTS];
static uint8_t jobio_slot_comp[JOBIO_MAX_SLOTS];
static int16_t jobio_slot_twin[JOBIO_COMPONENT_COUNT][JOBIO_MAX_SLOTS];
static uint32_t jobio_slot_next;
static pthread_mutex_t jobio_mount_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t jobio_last_refresh;
static int jobio_net_mount = -1;
static char *jobio_mi_buf;
#define JOBIO_MI_BUF 65536

static char jobio_cwd[PATH_MAX];
uint32_t jobio_cwd_seq;

/* The lookup index: open-addressing tables of mount indexes (-1 free) by device and by mount-point
 * path, and bit L of jobio_ix_lens set when a mount point is L bytes long. jobio_ix_seq is odd while
 * the table or the index changes (it starts odd: no index yet); a reader that sees it odd, or
 * changed after its lookup, scans the table instead (a seqlock: readers never wait). */
#define JOBIO_IX_BITS 11 /* 2048 entries, twice JOBIO_MAX_MOUNTS: probe chains stay short */
#define JOBIO_IX_SIZE (1u << JOBIO_IX_BITS)
_Static_assert(JOBIO_IX_SIZE >= 2 * JOBIO_MAX_MOUNTS, "the index keeps a free entry on every chain");
static int16_t jobio_ix_dev[JOBIO_IX_SIZE];
static int16_t jobio_ix_path[JOBIO_IX_SIZE];
uint64_t jobio_ix_lens[4];
static uint32_t jobio_ix_seq = 1;

static int jobio_is_ignored_fs(const char *fstype) {
  for (int i = 0; jobio_ignored_fs[i]; i++)
    if (strcmp(fstype, jobio_ignored_fs[i]) == 0) return 1;
  return 0;
}

static void jobio_unescape(char *s) {
  char *w = s;
  for (char *r = s; *r;) {
    if (r[0] == '\\' && r[1] >= '0' && r[1] <= '7' && r[2] >= '0' && r[2] <= '7' && r[3] >= '0' && r[3] <= '7') {
      *w++ = (char)((r[1] - '0') * 64 + (r[2] - '0') * 8 + (r[3] - '0'));
      r += 4;
    } else {
      *w++ = *r++;
    }
  }
  *w = 0;
}

static void jobio_copyz(char *dst, size_t cap, const char *src) {
  size_t i = 0;
  for (; src[i] && i + 1 < cap; i++) dst[i] = src[i];
  dst[i] = 0;
}

static unsigned long jobio_parse_ul(const char *s, const char **end) {
  unsigned long v = 0;
  while (*s >= '0' && *s <= '9') v = v * 10 + (unsigned long)(*s++ - '0');
  if (end) *end = s;
  return v;
}

static void jobio_mount_line(char *line) {
  char *tok[40];
  int n = 0;
  for (char *p = line; *p && n < 40;) {
    while (*p == ' ') p++;
    if (!*p) break;
    tok[n++] = p;
    while (*p && *p != ' ') p++;
    if (*p) *p++ = 0;
  }
  if (n < 7) return;
  int sep = -1;
  for (int i = 6; i < n; i++)
    if (strcmp(tok[i], "-") == 0) {
      sep = i;
      break;
    }
  if (sep < 0 || sep + 2 >= n) return;
  int id = (int)jobio_parse_ul(tok[0], NULL);
  const char *e;
  unsigned long maj = jobio_parse_ul(tok[2], &e);
  unsigned long min = *e == ':' ? jobio_parse_ul(e + 1, NULL) : 0;
  jobio_unescape(tok[4]);
  jobio_unescape(tok[sep + 2]);
  uint32_t count = __atomic_load_n(&jobio_mount_count, __ATOMIC_ACQUIRE);
  for (uint32_t i = 0; i < count; i++) {
    struct jobio_mount *m = &jobio_mounts[i];
    if (m->id == id && strcmp(m->path, tok[4]) == 0) {
      m->seen = 1;
      return;
    }
  }
  if (count >= JOBIO_MAX_MOUNTS) return;
  struct jobio_mount *m = &jobio_mounts[count];
  m->id = id;
  m->dev = makedev(maj, min);
  m->slot = -1;
  jobio_copyz(m->path, sizeof m->path, tok[4]);
  m->pathlen = (uint16_t)strlen(m->path);
  jobio_copyz(m->fstype, sizeof m->fstype, tok[sep + 1]);
  jobio_copyz(m->source, sizeof m->source, tok[sep + 2]);
  m->ignored = (uint8_t)jobio_is_ignored_fs(m->fstype);
  m->gone = 0;
  m->seen = 1;
  m->named = 1;
  __atomic_store_n(&jobio_mount_count, count + 1, __ATOMIC_RELEASE);
}

#define JOBIO_HASH_MUL 0x9E3779B97F4A7C15ull
static inline uint32_t jobio_ix_dev_hash(uint64_t dev) { return (uint32_t)((dev * JOBIO_HASH_MUL) >> (64 - JOBIO_IX_BITS)); }

/* Hash of p[0, len), eight bytes a round (the last round byte by byte: p may end at len). */
static uint32_t jobio_ix_path_hash(const char *p, size_t len) {
  uint64_t h = (len + 1) * JOBIO_HASH_MUL, w;
  size_t i = 0;
  for (; i + 8 <= len; i += 8) {
    memcpy(&w, p + i, 8);
    h = (h ^ w) * JOBIO_HASH_MUL;
    h ^= h >> 29;
  }
  w = 0;
  for (unsigned k = 0; i < len; i++, k += 8) w |= (uint64_t)(unsigned char)p[i] << k;
  h = (h ^ w) * JOBIO_HASH_MUL;
  return (uint32_t)(h >> (64 - JOBIO_IX_BITS));
}

static void jobio_ix_put(int16_t *tab, uint32_t h, int i) {
  while (__atomic_load_n(&tab[h], __ATOMIC_RELAXED) >= 0) h = (h + 1) & (JOBIO_IX_SIZE - 1);
  __atomic_store_n(&tab[h], (int16_t)i, __ATOMIC_RELAXED);
}

/* The writer's side (under jobio_mount_lock): readers scan from here until jobio_ix_end. */
static void jobio_ix_begin(void) {
  __atomic_store_n(&jobio_ix_seq, jobio_ix_seq | 1, __ATOMIC_RELAXED);
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
}

/* Rebuild the index from the table (gone mounts and network pseudo mounts left out) and publish it. */
static void jobio_ix_end(void) {
  for (uint32_t j = 0; j < JOBIO_IX_SIZE; j++) {
    __atomic_store_n(&jobio_ix_dev[j], (int16_t)-1, __ATOMIC_RELAXED);
    __atomic_store_n(&jobio_ix_path[j], (int16_t)-1, __ATOMIC_RELAXED);
  }
  uint64_t lens[4] = {0, 0, 0, 0};
  uint32_t count = __atomic_load_n(&jobio_mount_count, __ATOMIC_ACQUIRE);
  for (uint32_t i = 0; i < count; i++) {
    struct jobio_mount *m = &jobio_mounts[i];
    if (m->gone || m->id < 0) continue;
    jobio_ix_put(jobio_ix_dev, jobio_ix_dev_hash(m->dev), (int)i);
    jobio_ix_put(jobio_ix_path, jobio_ix_path_hash(m->path, m->pathlen), (int)i);
    if (m->pathlen < 256) lens[m->pathlen >> 6] |= 1ull << (m->pathlen & 63);
  }
  for (int k = 0; k < 4; k++) __atomic_store_n(&jobio_ix_lens[k], lens[k], __ATOMIC_RELAXED);
  __atomic_store_n(&jobio_ix_seq, (jobio_ix_seq | 1) + 1, __ATOMIC_RELEASE);
}

/* Reader's side: the index's version to check after the lookup, or 0 when it cannot be used. */
static inline uint32_t jobio_ix_enter(void) {
  uint32_t s = __atomic_load_n(&jobio_ix_seq, __ATOMIC_ACQUIRE);
  return s & 1 ? 0 : s;
}
static inline int jobio_ix_valid(uint32_t s) {
  __atomic_thread_fence(__ATOMIC_ACQUIRE);
  return __atomic_load_n(&jobio_ix_seq, __ATOMIC_RELAXED) == s;
}

/* Read mountinfo (caller holds jobio_mount_lock and the guard). */
static void jobio_mounts_read(void) {
  if (!jobio_mi_buf) jobio_mi_buf = jobio_sys_mmap(JOBIO_MI_BUF);
  if (!jobio_mounts || !jobio_mi_buf) return;
  int fd = (int)jobio_sys_open(AT_FDCWD, "/proc/self/mountinfo", O_RDONLY | O_CLOEXEC, 0);
  if (fd < 0) {
    jobio_log("cannot open /proc/self/mountinfo, errno", errno);
    return;
  }
  jobio_ix_begin();
  uint32_t count = __atomic_load_n(&jobio_mount_count, __ATOMIC_ACQUIRE);
  for (uint32_t i = 0; i < count; i++) jobio_mounts[i].seen = jobio_mounts[i].id < 0 || jobio_mounts[i].volume;
  size_t have = 0;
  for (;;) {
    long n = jobio_sys_read(fd, jobio_mi_buf + have, JOBIO_MI_BUF - 1 - have);
    if (n <= 0) break;
    have += (size_t)n;
    jobio_mi_buf[have] = 0;
    char *start = jobio_mi_buf;
    char *nl;
    while ((nl = memchr(start, '\n', have - (size_t)(start - jobio_mi_buf)))) {
      *nl = 0;
      jobio_mount_line(start);
      start = nl + 1;
    }
    size_t rest = have - (size_t)(start - jobio_mi_buf);
    if (rest == JOBIO_MI_BUF - 1) rest = 0; /* a line longer than the buffer: skipped */
    memmove(jobio_mi_buf, start, rest);
    have = rest;
  }
  jobio_sys_close(fd);
  count = __atomic_load_n(&jobio_mount_count, __ATOMIC_ACQUIRE);
  for (uint32_t i = 0; i < count; i++) jobio_mounts[i].gone = !jobio_mounts[i].seen;
  jobio_ix_end();
  __atomic_add_fetch(&jobio_mount_gen, 1, __ATOMIC_RELEASE);
}

static void jobio_cwd_read(void) {
  char buf[PATH_MAX];
  long n = syscall(SYS_getcwd, buf, sizeof buf);
  if (n <= 0 || buf[0] != '/') buf[0] = 0;
  __atomic_add_fetch(&jobio_cwd_seq, 1, __ATOMIC_ACQ_REL);
  memcpy(jobio_cwd, buf, strlen(buf) + 1);
  __atomic_add_fetch(&jobio_cwd_seq, 1, __ATOMIC_ACQ_REL);
}

void jobio_cwd_changed(void) {
  int saved = errno;
  jobio_guard_enter();
  jobio_cwd_read();
  jobio_guard_leave();
  errno = saved;
}

/* Name a network pseudo mount: "[network]", or "[network] ADDRESS" for a peer's own entry. */
static void jobio_net_name(struct jobio_mount *m, const char *address) {
  static const char prefix[] = "[network]";
  memcpy(m->path, prefix, sizeof prefix);
  if (address[0]) {
    m->path[sizeof prefix - 1] = ' ';
    jobio_copyz(m->path + sizeof prefix, sizeof m->path - sizeof prefix, address);
  }
  jobio_copyz(m->fstype, sizeof m->fstype, "socket");
  jobio_copyz(m->source, sizeof m->source, "network");
  __atomic_store_n(&m->named, 1, __ATOMIC_RELEASE);
}

static size_t jobio_abs_path(const char *path, char *out, size_t cap);
static int jobio_longest_prefix(const char *abs, size_t n, int only_dev, uint64_t dev);

/* One line of the volumes file: an absolute directory below a known mount becomes an entry of it. */
static void jobio_volume_line(char *line) {
  size_t n = strlen(line);
  while (n > 0 && (line[n - 1] == ' ' || line[n - 1] == '\t' || line[n - 1] == '\r')) line[--n] = 0;
  while (*line == ' ' || *line == '\t') line++;
  if (!*line || *line == '#') return;
  char abs[PATH_MAX];
  if (*line != '/' || !jobio_abs_path(line, abs, sizeof abs) || strlen(abs) >= sizeof jobio_mounts[0].path) {
    jobio_log("JOBIO_VOLUMES: not an absolute path (or too long), ignored:", (long)n);
    return;
  }
  int mi = jobio_longest_prefix(abs, strlen(abs), 0, 0);
  uint32_t count = __atomic_load_n(&jobio_mount_count, __ATOMIC_ACQUIRE);
  if (mi < 0 || strcmp(jobio_mounts[mi].path, abs) == 0 || count >= JOBIO_MAX_MOUNTS) return; /* a mount already */
  for (uint32_t i = 0; i < count; i++)
    if (jobio_mounts[i].volume && strcmp(jobio_mounts[i].path, abs) == 0) return; /* listed twice */
  const struct jobio_mount *in = &jobio_mounts[mi];
  struct jobio_mount *m = &jobio_mounts[count];
  m->id = in->id;
  m->dev = in->dev;
  m->slot = -1;
  jobio_copyz(m->path, sizeof m->path, abs);
  m->pathlen = (uint16_t)strlen(m->path);
  jobio_copyz(m->fstype, sizeof m->fstype, in->fstype);
  jobio_copyz(m->source, sizeof m->source, in->source);
  m->ignored = in->ignored;
  m->gone = 0;
  m->seen = 1;
  m->named = 1;
  m->volume = 1;
  __atomic_store_n(&jobio_mount_count, count + 1, __ATOMIC_RELEASE);
}

/* The volumes file named by JOBIO_VOLUMES, read once after mountinfo (caller holds jobio_mount_lock
 * and the guard); its first JOBIO_MI_BUF bytes. An unreadable file is logged, and nothing changes. */
static void jobio_volumes_read(void) {
  const char *file = jobio_cfg.volumes;
  if (!*file || !jobio_mounts || !jobio_mi_buf) return;
  int fd = (int)jobio_sys_open(AT_FDCWD, file, O_RDONLY | O_CLOEXEC, 0);
  if (fd < 0) {
    jobio_log("cannot open JOBIO_VOLUMES, errno", errno);
    return;
  }
  size_t have = 0;
  for (;;) {
    long n = jobio_sys_read(fd, jobio_mi_buf + have, JOBIO_MI_BUF - 1 - have);
    if (n <= 0) break;
    have += (size_t)n;
  }
  jobio_sys_close(fd);
  jobio_mi_buf[have] = 0;
  jobio_ix_begin();
  for (char *start = jobio_mi_buf; start < jobio_mi_buf + have;) {
    char *nl = memchr(start, '\n', have - (size_t)(start - jobio_mi_buf));
    if (nl) *nl = 0;
    jobio_volume_line(start);
    if (!nl) break;
    start = nl + 1;
  }
  jobio_ix_end(); /* the volumes are mount points for the lookup too */
  __atomic_add_fetch(&jobio_mount_gen, 1, __ATOMIC_RELEASE);
}

void jobio_mounts_init(void) {
  for (int i = 0; i < JOBIO_MAX_SLOTS; i++) {
    jobio_slot_mounts[i] = jobio_slot_base[i] = -1;
    for (int c = 0; c < JOBIO_COMPONENT_COUNT; c++) jobio_slot_twin[c][i] = -1;
  }
  jobio_mounts = jobio_sys_mmap(sizeof(struct jobio_mount) * JOBIO_MAX_MOUNTS);
  if (!jobio_mounts) return;
  if (jobio_cfg.network) {
    for (int i = 0; i <= JOBIO_NET_PEERS; i++) {
      struct jobio_mount *m = &jobio_mounts[i];
      m->id = -1;
      m->dev = ~0ull;
      m->slot = -1;
      m->gone = 0;
      m->seen = 1;
      m->pathlen = 0; /* never a prefix */
    }
    jobio_net_name(&jobio_mounts[0], "");
    jobio_net_mount = 0;
    jobio_mount_count = JOBIO_NET_PEERS + 1;
  }
  pthread_mutex_lock(&jobio_mount_lock);
  jobio_mounts_read();
  jobio_volumes_read();
  pthread_mutex_unlock(&jobio_mount_lock);
  jobio_last_refresh = jobio_now_coarse();
  jobio_cwd_read();
}

void jobio_mounts_after_fork(void) { pthread_mutex_init(&jobio_mount_lock, NULL); }

/* Re-read mountinfo, at most once a second, never waiting for another thread doing it. */
static int jobio_mounts_refresh(void) {
  uint64_t now = jobio_now_coarse();
  if (now - __atomic_load_n(&jobio_last_refresh, __ATOMIC_RELAXED) < 1000000000ull) return 0;
  if (pthread_mutex_trylock(&jobio_mount_lock) != 0) return 0;
  jobio_last_refresh = now;
  jobio_mounts_read();
  pthread_mutex_unlock(&jobio_mount_lock);
  jobio_debug("mount table refreshed", NULL);
  return 1;
}

static int jobio_mount_slot(int mi) {
  if (mi < 0) return -1;
  struct jobio_mount *m = &jobio_mounts[mi];
  if (m->ignored) return -1;
  int32_t s = __atomic_load_n(&m->slot, __ATOMIC_ACQUIRE);
  if (s >= 0) return s;
  uint32_t ns = __atomic_fetch_add(&jobio_slot_next, 1, __ATOMIC_RELAXED);
  if (ns >= JOBIO_MAX_SLOTS) {
    jobio_log("more active mounts than slots; counting as ignored:", mi);
    return -1;
  }
  jobio_slot_mounts[ns] = (int16_t)mi;
  int32_t expected = -1;
  if (!__atomic_compare_exchange_n(&m->slot, &expected, (int32_t)ns, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
    jobio_slot_mounts[ns] = -1; /* another thread won; this slot stays unused */
    return expected;
  }
  return (int)ns;
}

int jobio_network_slot(void) { return jobio_net_mount >= 0 ? jobio_mount_slot(jobio_net_mount) : -1; }

/*
 * The slot of the peer whose address hashes to `key` (never 0): its entry, claimed on first sight
 * and named by name(arg, buf, cap). -1 when every peer entry is taken by other addresses (or no stats
 * slot is left): the caller counts it on "[network]". Two threads meeting a new peer at once both
 * see the one entry the first compare-and-swap gave it.
 */
int jobio_peer_slot(uint64_t key, void (*name)(const void *arg, char *buf, size_t cap), const void *arg) {
  if (jobio_net_mount < 0 || !jobio_mounts) return -1;
  for (int i = 1; i <= JOBIO_NET_PEERS; i++) {
    struct jobio_mount *m = &jobio_mounts[i];
    uint64_t have = __atomic_load_n(&m->peer_key, __ATOMIC_ACQUIRE);
    if (have == 0 && __atomic_compare_exchange_n(&m->peer_key, &have, key, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
      char address[sizeof m->path - sizeof "[network] "];
      name(arg, address, sizeof address);
      jobio_net_name(m, address);
      return jobio_mount_slot(i);
    }
    if (have == key) return jobio_mount_slot(i);
  }
  return -1;
}

/* The component's slot of the mount of the program's slot `slot`, claimed on first use (a slot of
 * its own, so its counts go in frames of their own); `slot` itself when no slot is left or when it
 * already is a component's (the first component to claim a call keeps it). */
int jobio_component_twin(int slot, int component) {
  if (slot < 0 || slot >= JOBIO_MAX_SLOTS || jobio_slot_base[slot] >= 0 || component <= 0 || component >= JOBIO_COMPONENT_COUNT) return slot;
  int16_t twin = __atomic_load_n(&jobio_slot_twin[component][slot], __ATOMIC_ACQUIRE);
  if (twin >= 0) return twin;
  uint32_t ns = __atomic_fetch_add(&jobio_slot_next, 1, __ATOMIC_RELAXED);
  if (ns >= JOBIO_MAX_SLOTS) return slot;
  jobio_slot_base[ns] = (int16_t)slot;
  jobio_slot_comp[ns] = (uint8_t)component;
  __atomic_store_n(&jobio_slot_mounts[ns], __atomic_load_n(&jobio_slot_mounts[slot], __ATOMIC_RELAXED), __ATOMIC_RELEASE);
  int16_t expected = -1;
  if (!__atomic_compare_exchange_n(&jobio_slot_twin[component][slot], &expected, (int16_t)ns, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
    jobio_slot_mounts[ns] = -1; /* another thread won; this slot stays unused */
    return expected;
  }
  return (int)ns;
}

/* The directory SQLite opens to sync the creation of the journal `path` (its unix VFS's
 * openDirectory): the path up to its last '/', "/" when that is the first byte, "." when none. */
static uint64_t jobio_sqlite_dir_hash(const char *path, size_t len) {
  const char *slash = memrchr(path, '/', len);
  if (!slash) return jobio_pw_hash(".");
  return slash == path ? jobio_pw_hash("/") : jobio_pw_hash_n(path, (size_t)(slash - path));
}

int jobio_component_other(int slot, const char *path, const struct jobio_pathwalk *pw, uint32_t sqlite, int opening) {
  if (slot < 0) return slot;
  if (__atomic_load_n(&jobio_g.mpi_runtime, __ATOMIC_RELAXED)) return jobio_component_twin(slot, JOBIO_COMPONENT_MPI_RUNTIME);
  struct jobio_tls *t = &jobio_t;
  if (t->mpi_io) return jobio_component_twin(slot, JOBIO_COMPONENT_MPI_IO);
  if (sqlite) {
    /* A rollback journal or write-ahead log opened with O_CREAT through its walked path: SQLite
     * syncs the directory that holds it after the file's first sync, by opening it (the thread's
     * next open of that directory's path is the journal's, and the calls on its descriptor with
     * it). SQLite asks for that sync only when it opens the file to create it (O_CREAT): a stat or
     * access of the name, an open without O_CREAT, a deletion or a failed call expects nothing. */
    if (sqlite == JOBIO_PW_SQLITE_SYNCED && opening == JOBIO_OPENS_CREAT && pw && path) {
      uint64_t dir = jobio_sqlite_dir_hash(path, pw->len);
      if (!t->sqlite_dir) jobio_component_gate_add(1);
      t->sqlite_dir = dir;
    }
    return jobio_component_twin(slot, JOBIO_COMPONENT_SQLITE_JOURNAL);
  }
  if (t->sqlite_dir && opening && pw && pw->hash == t->sqlite_dir) {
    t->sqlite_dir = 0;
    jobio_component_gate_add(-1);
    return jobio_component_twin(slot, JOBIO_COMPONENT_SQLITE_JOURNAL);
  }
  /* (the import rule's suffix test and directory table: a process that is no Python interpreter never comes here) */
  if (jobio_g.python && jobio_python_import_path(path)) return jobio_component_twin(slot, JOBIO_COMPONENT_PYTHON_IMPORTS);
  return slot;
}

int jobio_component_slot(int slot, const char *path) {
  uint32_t sqlite = path ? jobio_pw_sqlite(jobio_pw_last(path, strlen(path))) : 0;
  if ((__atomic_load_n(&jobio_g.component_gate, __ATOMIC_RELAXED) || sqlite) && slot >= 0) return jobio_component_other(slot, path, NULL, sqlite, 0);
  return slot;
}

int jobio_slot_component(int slot) {
  return slot >= 0 && slot < JOBIO_MAX_SLOTS && jobio_slot_base[slot] >= 0 ? jobio_slot_comp[slot] : JOBIO_COMPONENT_PROGRAM;
}

int jobio_slot_mount(int slot, const char **path, const char **fstype, const char **source) {
  if (slot < 0 || slot >= JOBIO_MAX_SLOTS) return 0;
  int mi = jobio_slot_mounts[slot];
  if (mi < 0 || !jobio_mounts) return 0;
  struct jobio_mount *m = &jobio_mounts[mi];
  int own = jobio_slot_base[slot] >= 0 ? jobio_slot_base[slot] : slot;
  if (__atomic_load_n(&m->slot, __ATOMIC_ACQUIRE) != own) return 0;
  if (!__atomic_load_n(&m->named, __ATOMIC_ACQUIRE)) return 0; /* a peer being named: its counts go next time */
  *path = m->path;
  *fstype = m->fstype;
  *source = m->source;
  return 1;
}

/* Mounts with this device, by scanning the table: the number of them; *first the first one. */
static int jobio_by_dev_scan(uint64_t dev, int *first) {
  int n = 0;
  uint32_t count = __atomic_load_n(&jobio_mount_count, __ATOMIC_ACQUIRE);
  *first = -1;
  for (uint32_t i = 0; i < count; i++) {
    struct jobio_mount *m = &jobio_mounts[i];
    if (m->dev == dev && !m->gone && m->id >= 0) {
      if (n++ == 0) *first = (int)i;
    }
  }
  return n;
}

/* Mounts with this device: the number of them; *first the first one (from the index when it can). */
static int jobio_by_dev(uint64_t dev, int *first) {
  uint32_t s = jobio_ix_enter();
  if (s) {
    int n = 0, f = -1, i;
    for (uint32_t j = jobio_ix_dev_hash(dev); (i = __atomic_load_n(&jobio_ix_dev[j], __ATOMIC_RELAXED)) >= 0;
         j = (j + 1) & (JOBIO_IX_SIZE - 1)) {
      struct jobio_mount *m = &jobio_mounts[i];
      if (m->dev == dev && !m->gone) {
        n++;
        if (f < 0 || i < f) f = i;
      }
    }
    if (jobio_ix_valid(s)) {
      *first = f;
      return n;
    }
  }
  return jobio_by_dev_scan(dev, first);
}

/* Longest mount-point prefix of an absolute path by scanning the table (only mounts with `dev` if
 * only_dev); of mounts on the same point, the last mounted. */
static int jobio_longest_prefix_scan(const char *abs, int only_dev, uint64_t dev) {
  int best = -1, best_len = -1;
  uint32_t count = __atomic_load_n(&jobio_mount_count, __ATOMIC_ACQUIRE);
  for (uint32_t i = 0; i < count; i++) {
    struct jobio_mount *m = &jobio_mounts[i];
    if (m->gone || m->id < 0 || (only_dev && m->dev != dev)) continue;
    int len = m->pathlen;
    if (len < best_len) continue;
    if (len == 1 && m->path[0] == '/') {
      /* the root mount matches every absolute path */
    } else if (strncmp(abs, m->path, (size_t)len) != 0 || (abs[len] != 0 && abs[len] != '/')) {
      continue;
    }
    best = (int)i;
    best_len = len;
  }
  return best;
}

/* The last mounted of the mounts on the point abs[0, len), from the index; -1 if none. */
static int jobio_ix_point(const char *abs, size_t len, int only_dev, uint64_t dev) {
  if (!jobio_ix_has_len(len)) return -1;
  int best = -1, i;
  for (uint32_t j = jobio_ix_path_hash(abs, len); (i = __atomic_load_n(&jobio_ix_path[j], __ATOMIC_RELAXED)) >= 0;
       j = (j + 1) & (JOBIO_IX_SIZE - 1)) {
    struct jobio_mount *m = &jobio_mounts[i];
    if (i > best && m->pathlen == len && !m->gone && (!only_dev || m->dev == dev) && memcmp(m->path, abs, len) == 0)
      best = i;
  }
  return best;
}

/* Longest mount-point prefix of an absolute, normalised path of n bytes: the path itself, then the
 * prefix before each '/', longest first, then the root (from the index when it can). */
static int jobio_longest_prefix(const char *abs, size_t n, int only_dev, uint64_t dev) {
  uint32_t s = jobio_ix_enter();
  if (s) {
    int best = -1;
    for (size_t len = n; len > 1 && best < 0;) {
      if (jobio_ix_has_len(len)) best = jobio_ix_point(abs, len, only_dev, dev);
      const char *slash = memrchr(abs, '/', len);
      len = slash ? (size_t)(slash - abs) : 0;
    }
    if (best < 0) best = jobio_ix_point("/", 1, only_dev, dev);
    if (jobio_ix_valid(s)) return best;
  }
  return jobio_longest_prefix_scan(abs, only_dev, dev);
}

/* Join to the working directory and normalise "." and ".." lexically: the length written to out,
 * 0 if not possible. An absolute path is read in place; components are found with strchrnul. */
static size_t jobio_abs_path(const char *path, char *out, size_t cap) {
  char tmp[PATH_MAX * 2];
  const char *p = path;
  if (path[0] != '/') {
    size_t n = 0;
    for (int tries = 0;; tries++) {
      uint32_t s1 = __atomic_load_n(&jobio_cwd_seq, __ATOMIC_ACQUIRE);
      size_t len = strnlen(jobio_cwd, PATH_MAX - 1);
      memcpy(tmp, jobio_cwd, len);
      uint32_t s2 = __atomic_load_n(&jobio_cwd_seq, __ATOMIC_ACQUIRE);
      if ((s1 == s2 && !(s1 & 1)) || tries > 100) {
        n = len;
        break;
      }
    }
    if (n == 0) return 0;
    tmp[n++] = '/';
    size_t plen = strnlen(path, PATH_MAX);
    if (n + plen + 1 > sizeof tmp) return 0;
    memcpy(tmp + n, path, plen);
    tmp[n + plen] = 0;
    p = tmp;
  }
  /* normalise into out */
  size_t w = 0;
  while (*p) {
    while (*p == '/') p++;
    if (!*p) break;
    const char *s = p;
    p = strchrnul(p, '/');
    size_t len = (size_t)(p - s);
    if (len == 1 && s[0] == '.') continue;
    if (len == 2 && s[0] == '.' && s[1] == '.') {
      while (w > 0 && out[w - 1] != '/') w--;
      if (w > 0) w--;
      continue;
    }
    if (w + len + 2 > cap) return 0;
    out[w++] = '/';
    memcpy(out + w, s, len);
    w += len;
  }
  if (w == 0) out[w++] = '/';
  out[w] = 0;
  return w;
}

#define JOBIO_NO_PATH (-2) /* jobio_mount_of_path: the path could not be made absolute */

/* The lookup of jobio_mount_of_path when the cache does not answer (with the large buffers, kept out
 * of the cached path's stack frame), and the cache filled from it (c: NULL when the path cannot be kept). */
static __attribute__((noinline)) int jobio_mount_of_path_slow(const char *path, struct jobio_dir_cache *c,
                                                              const struct jobio_pathwalk *pw, uint32_t cwd) {
  uint32_t gen = __atomic_load_n(&jobio_mount_gen, __ATOMIC_ACQUIRE);
  char abs[PATH_MAX];
  size_t alen = jobio_abs_path(path, abs, sizeof abs);
  if (!alen) return JOBIO_NO_PATH;
  int mi = jobio_longest_prefix(abs, alen, 0, 0);
  size_t llen = pw->len - pw->klen;
  /* kept when the answer is the directory's (the path is not itself the mount point found), and a
   * relative directory only with the working directory it was joined to (unchanged since) */
  int keep = c && pw->dirhash && alen > llen && (mi < 0 || jobio_mounts[mi].pathlen < alen) &&
             (cwd == 0 || (!(cwd & 1) && __atomic_load_n(&jobio_cwd_seq, __ATOMIC_ACQUIRE) == cwd));
  if (keep) {
    c->gen = gen;
    c->cwd_seq = cwd;
    c->mount = mi;
    c->slot = jobio_mount_slot(mi);
    c->klen = pw->klen;
    c->abslen = (uint32_t)(alen - llen - 1);
    c->dirhash = pw->dirhash;
  }
  return mi;
}

/* The mount of a walked path (absolute or relative to the working directory) the cache does not know
 * (-1: none), the cache filled from it when it can be. */
int jobio_mount_walked(const char *path, const struct jobio_pathwalk *pw) {
  uint32_t cwd = path[0] == '/' ? 0 : __atomic_load_n(&jobio_cwd_seq, __ATOMIC_ACQUIRE);
  return jobio_mount_of_path_slow(path, jobio_dir_plain(path, pw) ? &jobio_dir_cache : NULL, pw, cwd);
}

/*
 * The mount of a path that is absolute or relative to the working directory (-1: none), through the
 * thread's directory cache (mounts.h, jobio_dir_cached).
 */
static int jobio_mount_of_path(const char *path, struct jobio_pathwalk *pw) {
  jobio_pw_walk(path, pw);
  struct jobio_dir_cache *c = jobio_dir_cached(path, pw);
  return c ? c->mount : jobio_mount_walked(path, pw);
}

/* Of several mounts with this device (bind mounts), the one on the path (-1: none of them). */
static __attribute__((noinline)) int jobio_mount_of_path_dev(const char *path, uint64_t dev) {
  char abs[PATH_MAX];
  size_t alen = jobio_abs_path(path, abs, sizeof abs);
  if (!alen) return JOBIO_NO_PATH;
  return jobio_longest_prefix(abs, alen, 1, dev);
}

/*
 * The stats slot for a path and/or device: >= 0 slot, -1 ignored, -3 a socket to count as network,
 * JOBIO_SLOT_AT_DIRFD the mount of the directory descriptor the path is relative to.
 * have_mode: mode is known (a successful stat/fstat), so special files are recognised.
 */
/* (pw: the walk of the path when the lookup made one, else left alone) */
static int jobio_slot_of(int have_dev, uint64_t dev, int dirfd, const char *path, int have_mode, mode_t mode, struct jobio_pathwalk *pw) {
  if (!jobio_mounts) return -1;
  if (have_mode) {
    mode_t type = mode & S_IFMT;
    if (type == S_IFSOCK) return jobio_cfg.network ? -3 : -1;
    if (type == S_IFIFO || type == 0) return -1;
  }
  struct jobio_tls *t = &jobio_t;
  uint32_t gen = __atomic_load_n(&jobio_mount_gen, __ATOMIC_ACQUIRE);
  int first = -1, ndev = 0;
  if (have_dev) {
    if (t->dev_cache == dev && t->dev_cache_gen == gen) return t->dev_cache_slot;
    ndev = jobio_by_dev(dev, &first);
    if (ndev == 1) {
      int slot = jobio_mount_slot(first);
      t->dev_cache = dev;
      t->dev_cache_slot = slot;
      t->dev_cache_gen = gen;
      return slot;
    }
    if (ndev == 0 && jobio_mounts_refresh()) {
      ndev = jobio_by_dev(dev, &first);
      if (ndev == 1) return jobio_mount_slot(first);
    }
  }
  if (path && path[0] != '/' && dirfd != AT_FDCWD) {
    /* relative to a directory descriptor: that directory's mount */
    if (ndev > 1) return jobio_mount_slot(first);
    return JOBIO_SLOT_AT_DIRFD;
  }
  if (path && path[0] && ndev == 0) {
    int mi = jobio_mount_of_path(path, pw);
    if (mi != JOBIO_NO_PATH) return jobio_mount_slot(mi);
  }
  if (path && path[0] && ndev > 1) {
    int mi = jobio_mount_of_path_dev(path, dev);
    if (mi != JOBIO_NO_PATH) return jobio_mount_slot(mi >= 0 ? mi : first);
  }
  if (ndev >= 1) return jobio_mount_slot(first);
  /* nothing to go by: the root file system */
  return jobio_mount_slot(jobio_longest_prefix("/", 1, 0, 0));
}

int jobio_slot_walked_slow(const char *path, const struct jobio_pathwalk *pw, int opening) {
  if (!jobio_mounts) return -1;
  int mi = jobio_mount_walked(path, pw);
  if (mi == JOBIO_NO_PATH) mi = jobio_longest_prefix("/", 1, 0, 0); /* nothing to go by: the root file system */
  return jobio_component_walked_as(jobio_mount_slot(mi), path, pw, opening);
}

int jobio_slot_for(int have_dev, uint64_t dev, int dirfd, const char *path, int have_mode, mode_t mode) {
  /* a path the mount lookup walked has its name tested from that walk, not from a second pass */
  struct jobio_pathwalk pw;
  pw.len = UINT32_MAX;
  int slot = jobio_slot_of(have_dev, dev, dirfd, path, have_mode, mode, &pw);
  return pw.len != UINT32_MAX ? jobio_component_walked_as(slot, path, &pw, 0) : jobio_component_slot(slot, path);
}

/* Slot of an open descriptor given its fstat: by device, else by its /proc/self/fd path. */
int jobio_slot_for_fd(int fd, const struct stat *st) {
  mode_t type = st->st_mode & S_IFMT;
  if (type == S_IFSOCK) return jobio_cfg.network ? -3 : -1;
  if (type == S_IFIFO || type == 0) return -1;
  int first;
  int n = jobio_mounts ? jobio_by_dev(st->st_dev, &first) : 0;
  if (n == 1) return jobio_slot_for(1, st->st_dev, AT_FDCWD, NULL, 1, st->st_mode);
  char link[64], target[PATH_MAX];
  size_t k = 0;
  const char *pre = "/proc/self/fd/";
  while (pre[k]) {
    link[k] = pre[k];
    k++;
  }
  char num[16];
  int nd = 0;
  unsigned v = (unsigned)fd;
  do {
    num[nd++] = (char)('0' + v % 10);
    v /= 10;
  } while (v);
  while (nd) link[k++] = num[--nd];
  link[k] = 0;
  long len = syscall(SYS_readlink, link, target, sizeof target - 1);
  if (len > 0 && target[0] == '/') {
    target[len] = 0;
    return jobio_slot_for(1, st->st_dev, AT_FDCWD, target, 1, st->st_mode);
  }
  return jobio_slot_for(1, st->st_dev, AT_FDCWD, NULL, 1, st->st_mode);
}
