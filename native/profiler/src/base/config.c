/*
 * Configuration from the environment and the decision whether this process is traced: read once
 * per process (at init, so once per exec), never on a call's path.
 */
#include <dlfcn.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/config.h"

#include "base/log.h"
#include "base/state.h"
#include "base/pyimports.h"

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

void jobio_copy(char *dst, size_t cap, const char *src) {
  size_t i = 0;
  if (src)
    for (; src[i] && i + 1 < cap; i++) dst[i] = src[i];
  dst[i] = 0;
}

/* The one reading of every list (JOBIO_BYPASS, JOBIO_EXCLUDE, JOBIO_TRACE_SCHEDULER, the scheduler
 * commands, MISTRAL_NOTRACE_PROGRAMS): see config.h. */
int jobio_list_word(const char **p, const char **s, const char **e) {
  const char *q = *p;
  while (*q == ',' || *q == ' ') q++;
  if (!*q) return 0;
  *s = q;
  while (*q && *q != ',') q++;
  const char *end = q;
  while (end > *s && end[-1] == ' ') end--;
  *e = end;
  *p = q;
  return 1;
}

/* Is `name` one of the comma-separated words of `list`? */
static int jobio_in_list(const char *list, const char *name) {
  if (!list || !name || !*name) return 0;
  size_t n = strlen(name);
  const char *s, *e;
  for (const char *p = list; jobio_list_word(&p, &s, &e);)
    if ((size_t)(e - s) == n && memcmp(s, name, n) == 0) return 1;
  return 0;
}

/* The full path of this program (/proc/self/exe), for path and directory entries of the lists. */
static char jobio_exe_path[PATH_MAX];
/* The file exec'd (AT_EXECFN), resolved, and its base name: for a script, the script itself, where
 * /proc/self/exe and argv[0] name its interpreter. Empty when it is not known. */
static char jobio_execfn_path[PATH_MAX];

const char *jobio_program_path(void) { return jobio_exe_path; }
static char jobio_execfn_base[256];

/* Does the absolute path `path` equal the entry [s, e), or lie below it (a directory: every
 * program under it matches)? A trailing '/' on the entry is allowed. */
static int jobio_path_under(const char *s, const char *e, const char *path) {
  while (e - s > 1 && e[-1] == '/') e--;
  size_t n = (size_t)(e - s);
  if (!path || path[0] != '/' || strncmp(path, s, n) != 0) return 0;
  return path[n] == 0 || path[n] == '/' || (n == 1 && s[0] == '/');
}

/* Does the entry [s, e), or the path it resolves to through links, hold `path` (resolved)? The kernel
 * gives the resolved path (/usr/bin/dd), while a user names the one they type (/bin/dd, where /bin
 * links to /usr/bin on merged-/usr systems). Resolving happens at init only (once per exec). */
static int jobio_entry_holds(const char *s, const char *e, const char *path) {
  if (!path[0]) return 0;
  if (jobio_path_under(s, e, path)) return 1;
  char entry[PATH_MAX], resolved[PATH_MAX];
  size_t n = (size_t)(e - s);
  if (n >= sizeof entry) return 0;
  memcpy(entry, s, n);
  entry[n] = 0;
  int saved = errno;
  int ok = realpath(entry, resolved) != NULL;
  errno = saved;
  return ok && jobio_path_under(resolved, resolved + strlen(resolved), path);
}

/* Is this program in the comma-separated `list`? A word without '/' is compared with the base name
 * of /proc/self/exe, of argv[0] and of the file exec'd (a script's own name); a word starting with
 * '/' is a full path or a directory, compared (as given and resolved through links) with the full
 * path of /proc/self/exe and of the file exec'd, and (as given) with an absolute argv[0]. Decided
 * once per exec (at init). */
static const char *jobio_program_in_list(const char *list) {
  if (!list) return NULL;
  const char *argv0 = program_invocation_short_name, *argv0_full = program_invocation_name;
  if (jobio_in_list(list, jobio_g.exe)) return jobio_g.exe;
  if (jobio_in_list(list, argv0)) return argv0;
  if (jobio_in_list(list, jobio_execfn_base)) return jobio_execfn_base;
  const char *s, *e;
  for (const char *p = list; jobio_list_word(&p, &s, &e);) {
    if (*s != '/') continue;
    if (jobio_entry_holds(s, e, jobio_exe_path)) return jobio_g.exe;
    if (jobio_path_under(s, e, argv0_full)) return argv0;
    if (jobio_entry_holds(s, e, jobio_execfn_path)) return jobio_execfn_base;
  }
  return NULL;
}

/* JOBIO_TRACE_SCHEDULER: `1` traces every scheduler command; a list of names traces those only. */
static int jobio_scheduler_traced(const char *name) {
  const char *v = getenv("JOBIO_TRACE_SCHEDULER");
  if (!v || !*v || !strcmp(v, "0") || !strcmp(v, "false") || !strcmp(v, "no")) return 0;
  if (!strcmp(v, "1") || !strcmp(v, "true") || !strcmp(v, "yes") || !strcmp(v, "on")) return 1;
  return jobio_in_list(v, name);
}

/* Scheduler and launcher commands: not traced unless JOBIO_TRACE_SCHEDULER=1 or names them (their
 * children are). */
static const char jobio_scheduler_cmds[] =
    "srun,sbatch,salloc,squeue,scontrol,scancel,sacct,sinfo,sattach,sbcast,sstat,sprio,sshare,"
    "qsub,qstat,qdel,qalter,qhold,qrls,bsub,bjobs,bkill,bqueues,flux,mpirun,mpiexec,orterun,prterun,"
    "hydra_pmi_proxy,pmi_proxy";

void jobio_read_config(void) {
  jobio_cfg.debug = jobio_env_flag("JOBIO_DEBUG");
  jobio_copy(jobio_cfg.error_log, sizeof jobio_cfg.error_log, getenv("JOBIO_ERROR_LOG"));
  jobio_copy(jobio_cfg.volumes, sizeof jobio_cfg.volumes, getenv("JOBIO_VOLUMES"));
  jobio_copy(jobio_cfg.socket_path, sizeof jobio_cfg.socket_path, getenv("JOBIO_SOCKET"));
  const char *sp = getenv("JOBIO_SOCKET");
  if (sp && strlen(sp) >= sizeof jobio_cfg.socket_path) {
    jobio_log_line("JOBIO_SOCKET path too long, not sending:", sp, 0, 0);
    jobio_cfg.socket_path[0] = 0;
  }
  const char *rp = getenv("JOBIO_REFUSED_SOCKET");
  if (rp && strlen(rp) < sizeof jobio_cfg.refused_socket_path)
    jobio_copy(jobio_cfg.refused_socket_path, sizeof jobio_cfg.refused_socket_path, rp);
  jobio_cfg.small = jobio_env_u64("JOBIO_SMALL_THRESHOLD", JOBIO_DEFAULT_SMALL_THRESHOLD, 1, 1ull << 40);
  jobio_cfg.large = jobio_env_u64("JOBIO_LARGE_THRESHOLD", JOBIO_DEFAULT_LARGE_THRESHOLD, 1, 1ull << 62);
  if (jobio_cfg.large < jobio_cfg.small) jobio_cfg.large = jobio_cfg.small;
  jobio_cfg.sample_every = (uint32_t)jobio_env_u64("JOBIO_SAMPLE_EVERY", JOBIO_DEFAULT_SAMPLE_EVERY, 1, 1u << 30);
  jobio_cfg.max_per_sec = (uint32_t)jobio_env_u64("JOBIO_SAMPLE_MAX_PER_SEC", 0, 0, 1u << 30);
  const char *tf = getenv("JOBIO_TIMEFRAME");
  if (tf && strcmp(tf, "no") == 0)
    jobio_cfg.timeframe_ns = 1ull << 62; /* no periodic snapshot: at exec and exit only */
  else
    jobio_cfg.timeframe_ns = jobio_env_u64("JOBIO_TIMEFRAME", 10, 1, 86400 * 365) * 1000000000ull;
  jobio_cfg.network = jobio_env_flag("JOBIO_NETWORK");
  jobio_cfg.flush_thread = jobio_env_flag("JOBIO_FLUSH_THREAD");
  jobio_cfg.frame_origin_ns = jobio_env_u64("JOBIO_FRAME_ORIGIN_NS", 0, 0, UINT64_MAX / 2);
}

void jobio_read_identity(void) {
  char buf[PATH_MAX];
  long n = syscall(SYS_readlink, "/proc/self/exe", buf, sizeof buf - 1);
  if (n > 0) {
    buf[n] = 0;
    jobio_copy(jobio_exe_path, sizeof jobio_exe_path, buf);
    const char *base = strrchr(buf, '/');
    jobio_copy(jobio_g.exe, sizeof jobio_g.exe, base ? base + 1 : buf);
  } else {
    jobio_copy(jobio_g.exe, sizeof jobio_g.exe, program_invocation_short_name);
  }
  jobio_g.python = jobio_python_exe(jobio_g.exe);
  if (jobio_g.python) jobio_component_gate_add(1);
  jobio_execfn_path[0] = jobio_execfn_base[0] = 0;
  const char *execfn = (const char *)getauxval(AT_EXECFN);
  int saved = errno;
  if (execfn) {
    const char *base = strrchr(execfn, '/');
    jobio_copy(jobio_execfn_base, sizeof jobio_execfn_base, base ? base + 1 : execfn);
    if (realpath(execfn, buf)) jobio_copy(jobio_execfn_path, sizeof jobio_execfn_path, buf);
  }
  errno = saved;
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

/* Container launchers call unshare(CLONE_NEWUSER), which fails in a process with a second thread:
 * they get no flush thread (process/flusher.c). (A program that changes user, setpriv among them,
 * needs no entry: its flush thread is ended before the change, wrap/wrap_cred.c.) */
static const char jobio_single_threaded_cmds[] =
    "apptainer,singularity,starter,starter-suid,bwrap,unshare,nsenter,podman,crun,runc,conmon,enroot,"
    "ch-run,newuidmap,newgidmap,sudo,su";

/* Decide whether this process is traced (JOBIO_DISABLE, JOBIO_EXCLUDE, JOBIO_BYPASS, schedulers). */
void jobio_decide_active(void) {
  const char *argv0 = program_invocation_short_name;
  const char *exe = jobio_g.exe;
  if (jobio_in_list(jobio_single_threaded_cmds, exe) || jobio_in_list(jobio_single_threaded_cmds, argv0))
    jobio_cfg.flush_thread = 0;
  jobio_cfg.active = 1;
  jobio_cfg.add_bypass_env = 0;
  if (jobio_env_flag("JOBIO_DISABLE")) {
    jobio_cfg.active = 0;
    jobio_debug("disabled by JOBIO_DISABLE", NULL);
    return;
  }
  /* JOBIO_BYPASS_DISABLE names a variable whose presence turns tracing back on below a bypassed
   * program (a workflow manager's own I/O left out, the jobs it starts with their id set traced). */
  const char *reenable = getenv("JOBIO_BYPASS_DISABLE");
  const char *reenabled = reenable && *reenable ? getenv(reenable) : NULL;
  const char *by = reenabled ? NULL : getenv("JOBIO_BYPASSED");
  if (reenabled) jobio_debug("bypass turned off by", reenable);
  if (by && *by) {
    /* a descendant of a bypassed program: the whole subtree is left alone */
    jobio_cfg.active = 0;
    jobio_debug("not traced: descendant of bypassed", by);
    return;
  }
  /* A bypassed program, and an excluded one with JOBIO_EXCLUDE_CHILDREN=1, hands the marker on:
   * its children are not traced either, unless JOBIO_TRACE_CHILDREN=1. */
  const char *name = reenabled ? NULL : jobio_program_in_list(getenv("JOBIO_BYPASS"));
  if (name) {
    jobio_cfg.active = 0;
    jobio_cfg.add_bypass_env = !jobio_env_flag("JOBIO_TRACE_CHILDREN");
    jobio_copy(jobio_g.bypass_name, sizeof jobio_g.bypass_name, name);
    jobio_debug("not traced: bypassed", jobio_g.bypass_name);
    return;
  }
  name = jobio_program_in_list(getenv("JOBIO_EXCLUDE"));
  if (name) {
    jobio_cfg.active = 0;
    jobio_cfg.add_bypass_env = jobio_env_flag("JOBIO_EXCLUDE_CHILDREN") && !jobio_env_flag("JOBIO_TRACE_CHILDREN");
    jobio_copy(jobio_g.bypass_name, sizeof jobio_g.bypass_name, name);
    jobio_debug("not traced: excluded", exe);
    return;
  }
  /* A launcher is often a link (Open MPI's mpirun -> orterun): naming either name traces it. */
  int sched = jobio_in_list(jobio_scheduler_cmds, exe) || jobio_in_list(jobio_scheduler_cmds, argv0);
  if (sched && !jobio_scheduler_traced(exe) && !jobio_scheduler_traced(argv0)) {
    jobio_cfg.active = 0;
    jobio_debug("not traced: scheduler command", exe);
  }
}

