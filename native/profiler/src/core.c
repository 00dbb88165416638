/*
 * Initialisation: the process-wide configuration (from the environment) and state, filled once,
 * from the constructor or lazily from the first wrapper that runs (a wrapper may run before our
 * constructor). The other concerns live in files of their own (docs/architecture.md, "The profiler").
 */
#include <dlfcn.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "jobio.h"

struct jobio_config jobio_cfg = {
    .small = JOBIO_DEFAULT_SMALL_THRESHOLD,
    .large = JOBIO_DEFAULT_LARGE_THRESHOLD,
    .sample_every = JOBIO_DEFAULT_SAMPLE_EVERY,
    .timeframe_ns = 10000000000ull,
};
struct jobio_state jobio_g;

/* ---------------- configuration ---------------- */
static uint64_t jobio_env_u64(const char *name, uint64_t def, uint64_t min, uint64_t max) {
  const char *v = getenv(name);
  if (!v || !*v) return def;
  char *end = NULL;
  unsigned long long x = strtoull(v, &end, 10);
  if (!end || *end || x < min || x > max) {
    jobio_log_line("ignoring invalid value of", name, 0, 0);
    return def;
  }
  return x;
}

static int jobio_env_flag(const char *name) {
  const char *v = getenv(name);
  return v && *v && strcmp(v, "0") != 0 && strcmp(v, "false") != 0 && strcmp(v, "no") != 0;
}

static void jobio_copy(char *dst, size_t cap, const char *src) {
  size_t i = 0;
  if (src)
    for (; src[i] && i + 1 < cap; i++) dst[i] = src[i];
  dst[i] = 0;
}

/* Is `name` one of the comma-separated words of `list`? */
static int jobio_in_list(const char *list, const char *name) {
  if (!list || !name || !*name) return 0;
  size_t n = strlen(name);
  const char *p = list;
  while (*p) {
    while (*p == ',' || *p == ' ') p++;
    const char *s = p;
    while (*p && *p != ',') p++;
    const char *e = p;
    while (e > s && e[-1] == ' ') e--;
    if ((size_t)(e - s) == n && memcmp(s, name, n) == 0) return 1;
  }
  return 0;
}

/* Scheduler and launcher commands: not traced unless JOBIO_TRACE_SCHEDULER=1 (their children are). */
static const char jobio_scheduler_cmds[] =
    "srun,sbatch,salloc,squeue,scontrol,scancel,sacct,sinfo,sattach,sbcast,sstat,sprio,sshare,"
    "qsub,qstat,qdel,qalter,qhold,qrls,bsub,bjobs,bkill,bqueues,flux,mpirun,mpiexec,orterun,prterun,"
    "hydra_pmi_proxy,pmi_proxy";

static void jobio_read_config(void) {
  jobio_cfg.debug = jobio_env_flag("JOBIO_DEBUG");
  jobio_copy(jobio_cfg.error_log, sizeof jobio_cfg.error_log, getenv("JOBIO_ERROR_LOG"));
  jobio_copy(jobio_cfg.socket_path, sizeof jobio_cfg.socket_path, getenv("JOBIO_SOCKET"));
  const char *sp = getenv("JOBIO_SOCKET");
  if (sp && strlen(sp) >= sizeof jobio_cfg.socket_path) {
    jobio_log_line("JOBIO_SOCKET path too long, not sending:", sp, 0, 0);
    jobio_cfg.socket_path[0] = 0;
  }
  jobio_cfg.small = jobio_env_u64("JOBIO_SMALL_THRESHOLD", JOBIO_DEFAULT_SMALL_THRESHOLD, 1, 1ull << 40);
  jobio_cfg.large = jobio_env_u64("JOBIO_LARGE_THRESHOLD", JOBIO_DEFAULT_LARGE_THRESHOLD, 1, 1ull << 62);
  if (jobio_cfg.large < jobio_cfg.small) jobio_cfg.large = jobio_cfg.small;
  jobio_cfg.sample_every = (uint32_t)jobio_env_u64("JOBIO_SAMPLE_EVERY", JOBIO_DEFAULT_SAMPLE_EVERY, 1, 1u << 30);
  jobio_cfg.max_per_sec = (uint32_t)jobio_env_u64("JOBIO_SAMPLE_MAX_PER_SEC", 0, 0, 1u << 30);
  jobio_cfg.timeframe_ns = jobio_env_u64("JOBIO_TIMEFRAME", 10, 1, 86400 * 365) * 1000000000ull;
  jobio_cfg.network = jobio_env_flag("JOBIO_NETWORK");
  jobio_period_base = jobio_cfg.sample_every;
  jobio_binoff_init();
}

static void jobio_read_identity(void) {
  char buf[PATH_MAX];
  long n = syscall(SYS_readlink, "/proc/self/exe", buf, sizeof buf - 1);
  if (n > 0) {
    buf[n] = 0;
    const char *base = strrchr(buf, '/');
    jobio_copy(jobio_g.exe, sizeof jobio_g.exe, base ? base + 1 : buf);
  } else {
    jobio_copy(jobio_g.exe, sizeof jobio_g.exe, program_invocation_short_name);
  }
  static const char *const vars[] = {JOBIO_JOBID_VARIABLES};
  jobio_g.jobid[0] = jobio_g.jobid_source[0] = 0;
  for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
    const char *v = getenv(vars[i]);
    if (v && *v) {
      jobio_copy(jobio_g.jobid, sizeof jobio_g.jobid, v);
      jobio_copy(jobio_g.jobid_source, sizeof jobio_g.jobid_source, vars[i]);
      break;
    }
  }
}

/* Decide whether this process is traced (JOBIO_DISABLE, JOBIO_EXCLUDE, JOBIO_BYPASS, schedulers). */
static void jobio_decide_active(void) {
  const char *argv0 = program_invocation_short_name;
  const char *exe = jobio_g.exe;
  jobio_cfg.active = 1;
  jobio_cfg.add_bypass_env = 0;
  if (jobio_env_flag("JOBIO_DISABLE")) {
    jobio_cfg.active = 0;
    jobio_debug("disabled by JOBIO_DISABLE", NULL);
    return;
  }
  const char *by = getenv("JOBIO_BYPASSED");
  if (by && *by) {
    /* a descendant of a bypassed program: the whole subtree is left alone */
    jobio_cfg.active = 0;
    jobio_debug("not traced: descendant of bypassed", by);
    return;
  }
  const char *bypass = getenv("JOBIO_BYPASS");
  if (jobio_in_list(bypass, exe) || jobio_in_list(bypass, argv0)) {
    jobio_cfg.active = 0;
    jobio_cfg.add_bypass_env = !jobio_env_flag("JOBIO_TRACE_CHILDREN");
    jobio_copy(jobio_g.bypass_name, sizeof jobio_g.bypass_name, jobio_in_list(bypass, exe) ? exe : argv0);
    jobio_debug("not traced: bypassed", jobio_g.bypass_name);
    return;
  }
  const char *ex = getenv("JOBIO_EXCLUDE");
  if (jobio_in_list(ex, exe) || jobio_in_list(ex, argv0)) {
    jobio_cfg.active = 0;
    jobio_debug("not traced: excluded", exe);
    return;
  }
  if (!jobio_env_flag("JOBIO_TRACE_SCHEDULER") &&
      (jobio_in_list(jobio_scheduler_cmds, exe) || jobio_in_list(jobio_scheduler_cmds, argv0))) {
    jobio_cfg.active = 0;
    jobio_debug("not traced: scheduler command", exe);
  }
}

/* ---------------- init ---------------- */
void jobio_init(int from_constructor) {
  int expected = 0;
  if (!__atomic_compare_exchange_n(&jobio_g.init_state, &expected, 1, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) return;
  int saved = errno;
  jobio_t.busy++;
  jobio_resolve_all();
  jobio_read_config();
  jobio_read_identity();
  jobio_decide_active();
  jobio_g.pid = jobio_sys_getpid();
  jobio_g.start_rt_ns = jobio_now_real();
  jobio_g.start_mono_ns = jobio_now();
  jobio_g.next_flush_ns = jobio_g.start_mono_ns + jobio_cfg.timeframe_ns;
  jobio_set_next_tick();
  jobio_g.from_constructor = from_constructor;
  if (jobio_cfg.active) {
    jobio_fdtab_init();
    jobio_mounts_init();
    jobio_stats_reset();
    jobio_threads_init();
    jobio_fork_handlers_install();
    if (!jobio_fds) jobio_cfg.active = 0;
  }
  jobio_debug(from_constructor ? "initialised from the constructor" : "initialised lazily from a wrapper",
              jobio_g.exe);
  __atomic_store_n(&jobio_g.init_state, 2, __ATOMIC_RELEASE);
  if (jobio_cfg.active) jobio_flush_hello(); /* met by the receiver while alive (job id verification) */
  jobio_t.busy--;
  errno = saved;
}

__attribute__((constructor)) static void jobio_constructor(void) { jobio_init(1); }
