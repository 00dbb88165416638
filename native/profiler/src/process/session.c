/*
 * A job started by a Mistral-style script: the script sets MISTRAL_* variables and LD_PRELOAD and
 * runs the job, with no `jobio run` around it. The first preloaded process (no JOBIO_SOCKET in its
 * environment yet) starts the session that `jobio run` would have been, once per job:
 *   - Mistral's variables the library needs are given their jobio names (jobio's own names win);
 *   - a SOCK_SEQPACKET socket is bound and listening in a private directory (0700) before anything
 *     is sent, so no record waits on the session: the kernel queues connections and frames while
 *     Node starts;
 *   - beside it, as `jobio run` has, a socket any user may reach where a process the private one
 *     refuses (it runs as another user) says so, to be counted (jobio_listen_refused);
 *   - a detached process (its own session, not our child: a shell's `wait` must not wait for it)
 *     runs `jobio run --attach FD,PIDS[,FD] -- PROGRAM` on those sockets; it writes the same log as
 *     `jobio run` and ends when the process Mistral's wait_pid names has exited;
 *   - JOBIO_SOCKET, JOBIO_REFUSED_SOCKET and the run's other variables are set in this process's
 *     environment, which its children inherit: they join the session instead of starting one (on
 *     this node: JOBIO_SESSION_HOST names it, and a process on another node starts that node's
 *     session).
 * The jobio command is $JOBIO_COMMAND, else bin/jobio.js of the checkout this library was built in
 * (three directories above native/profiler/build/libjobio.so). Nothing here waits for the session;
 * the one wait is for the intermediate process, which only forks and exits. On failure the job runs
 * unprofiled (JOBIO_DISABLE=1, inherited) with one line in the error log.
 */
#include <dlfcn.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/utsname.h>
#include <sys/wait.h>

#include "process/session.h"

#include "base/config.h"
#include "base/log.h"
#include "base/state.h"
#include "base/sys.h"

extern char **environ;

/* Mistral's default list of programs left out (with their children), as the exporter's own. */
static const char *const jobio_mistral_notrace[] = {"blaunch", "bsub",      "lsgrun", "lsrun", "pbsdsh",
                                                    "pbs_tmrsh", "qsub", "qrsh",   "sbatch", "srun"};

static void jobio_u64(char *out, size_t cap, unsigned long long v) { snprintf(out, cap, "%llu", v); }

static const char *jobio_env(const char *name) {
  const char *v = getenv(name);
  return v && *v ? v : NULL;
}

/* The library's own file calls go straight to the kernel: the libc names are its wrappers. */
static int jobio_unlink(const char *path, int flags) { return (int)syscall(SYS_unlinkat, AT_FDCWD, path, flags); }

/* Mistral's variable `from` under jobio's name `to`, unless `to` is set already. */
static void jobio_alias(const char *from, const char *to) {
  const char *v = jobio_env(from);
  if (v && !jobio_env(to)) setenv(to, v, 1);
}

/* Appends the `len` bytes at `s` to the comma list out[0..*n), if they fit with the terminator. */
static void jobio_list_append(char *out, size_t size, size_t *n, const char *s, size_t len) {
  if (*n + len + 2 >= size) return;
  if (*n) out[(*n)++] = ',';
  memcpy(out + *n, s, len);
  *n += len;
}

/* Does the comma list hold "-name" (Mistral's removal of a default entry)? */
static int jobio_removed(const char *list, const char *name) {
  size_t n = strlen(name);
  const char *p = list, *s, *e;
  while (jobio_list_word(&p, &s, &e))
    if (*s == '-' && (size_t)(e - s - 1) == n && memcmp(s + 1, name, n) == 0) return 1;
  return 0;
}

/* MISTRAL_NOTRACE_PROGRAMS: its names and the default list but for its `-name` entries, children
 * left out too; the launchers it does not name are traced. */
static void jobio_notrace(void) {
  const char *list = jobio_env("MISTRAL_NOTRACE_PROGRAMS");
  if (!list || jobio_env("JOBIO_EXCLUDE")) return;
  char out[4096];
  size_t n = 0;
  const char *p = list, *s, *e;
  while (jobio_list_word(&p, &s, &e))
    if (*s != '-') jobio_list_append(out, sizeof out, &n, s, (size_t)(e - s));
  for (size_t i = 0; i < sizeof jobio_mistral_notrace / sizeof *jobio_mistral_notrace; i++) {
    const char *name = jobio_mistral_notrace[i];
    if (!jobio_removed(list, name)) jobio_list_append(out, sizeof out, &n, name, strlen(name));
  }
  out[n] = 0;
  setenv("JOBIO_EXCLUDE", out, 1);
  setenv("JOBIO_EXCLUDE_CHILDREN", "1", 1);
  setenv("JOBIO_TRACE_SCHEDULER", "1", 1);
}

/* MISTRAL_PROFILE_SMALL_IO: a size as `jobio run` reads it (4096, 32k, 32KiB; units of 1024). */
static void jobio_small_io(void) {
  const char *v = jobio_env("MISTRAL_PROFILE_SMALL_IO");
  if (!v || jobio_env("JOBIO_SMALL_THRESHOLD")) return;
  char *end = NULL;
  unsigned long long x = strtoull(v, &end, 10);
  static const struct {
    const char *unit;
    unsigned shift;
  } units[] = {{"", 0}, {"b", 0}, {"k", 10}, {"kb", 10}, {"kib", 10}, {"m", 20}, {"mb", 20}, {"mib", 20}, {"g", 30}, {"gb", 30}, {"gib", 30}};
  for (size_t i = 0; end && end != v && i < sizeof units / sizeof *units; i++) {
    if (strcasecmp(end, units[i].unit) != 0 || x == 0 || x > (1ull << 40) >> units[i].shift) continue;
    char buf[24];
    snprintf(buf, sizeof buf, "%llu", x << units[i].shift);
    setenv("JOBIO_SMALL_THRESHOLD", buf, 1);
    return;
  }
  /* the session reads the same variable and says what is wrong with it */
}

/* duration-sampling.sample 0, Mistral's default with a configuration file: the factor chosen from
 * the cost of reading the clock as `jobio run` chooses it (exporter/src/run/sampling.ts: every call
 * timed at 100 ns or less, else one in cost/100; at most 1000 a second above 1 us), measured here
 * (at most 20 batches of 100 reads) because the library runs before the session reads the file.
 * The session takes the library's figure; a factor the file gives is the start script's to set. */
static void jobio_clock_sampling(void) {
  if (!jobio_env("MISTRAL_CONFIG") || jobio_env("JOBIO_SAMPLE_EVERY")) return;
  uint64_t best = UINT64_MAX;
  for (int b = 0; b < 20 && best > 100; b++) {
    uint64_t start = jobio_now();
    for (int i = 0; i < 100; i++) (void)jobio_now();
    uint64_t per = (jobio_now() - start) / 100;
    if (per < best) best = per;
  }
  char buf[24];
  jobio_u64(buf, sizeof buf, best <= 100 ? 1 : (best + 99) / 100);
  setenv("JOBIO_SAMPLE_EVERY", buf, 1);
  if (best > 1000 && !jobio_env("JOBIO_SAMPLE_MAX_PER_SEC")) setenv("JOBIO_SAMPLE_MAX_PER_SEC", "1000", 1);
}

/* The jobio command: $JOBIO_COMMAND, else bin/jobio.js three directories above this library. */
static int jobio_command(char *out, size_t cap) {
  const char *v = jobio_env("JOBIO_COMMAND");
  if (v) {
    jobio_copy(out, cap, v);
    return strlen(v) < cap;
  }
  Dl_info info;
  if (!dladdr((void *)&jobio_session_start, &info) || !info.dli_fname) return 0;
  char dir[PATH_MAX];
  if (!realpath(info.dli_fname, dir)) return 0;
  char *slash = strrchr(dir, '/');
  if (!slash) return 0;
  *slash = 0;
  return snprintf(out, cap, "%s/../../../bin/jobio.js", dir) < (int)cap;
}

/* A new directory `prefix`XXXXXX of mode `dir_mode` in the session's base directory and a socket
 * `name` of mode `sock_mode` in it, bound and listening: the descriptor (its path in `path`), or -1. */
static int jobio_listen_in(const char *prefix, mode_t dir_mode, const char *name, mode_t sock_mode, char *path, size_t cap) {
  const char *base = jobio_env("MISTRAL_OUTPUT_DIRECTORY");
  if (!base) base = jobio_env("TMPDIR");
  if (!base) base = "/tmp";
  char dir[PATH_MAX];
  if (snprintf(dir, sizeof dir, "%s/%sXXXXXX", base, prefix) >= (int)sizeof dir || !mkdtemp(dir)) return -1;
  struct sockaddr_un sa;
  memset(&sa, 0, sizeof sa);
  sa.sun_family = AF_UNIX;
  if (snprintf(path, cap, "%s/%s", dir, name) >= (int)cap || strlen(path) >= sizeof sa.sun_path ||
      syscall(SYS_fchmodat, AT_FDCWD, dir, dir_mode) != 0) {
    jobio_unlink(dir, AT_REMOVEDIR);
    return -1;
  }
  memcpy(sa.sun_path, path, strlen(path));
  int fd = (int)syscall(SYS_socket, AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  int on = 1;
  /* as the receiver does: every message carries its sender's credentials (SO_PEERCRED trust) */
  if (fd >= 0 && syscall(SYS_setsockopt, fd, SOL_SOCKET, SO_PASSCRED, &on, sizeof on) == 0 &&
      syscall(SYS_bind, fd, &sa, sizeof sa) == 0 && syscall(SYS_fchmodat, AT_FDCWD, path, sock_mode) == 0 && syscall(SYS_listen, fd, 512) == 0)
    return fd;
  if (fd >= 0) jobio_sys_close(fd);
  jobio_unlink(path, 0);
  jobio_unlink(dir, AT_REMOVEDIR);
  return -1;
}

/* A private directory (0700) and a socket in it, bound and listening: the descriptor, or -1. */
static int jobio_listen(char *path, size_t cap) { return jobio_listen_in("jobio-run-", 0700, "profiler.sock", 0600, path, cap); }

/* Beside it, as `jobio run` makes them: a directory any user may enter but not list (0711) and a
 * socket any user may reach (0666), where a process the private socket refuses (it runs as another
 * user: a child forked after its parent changed user) says so, to be counted. -1 when it cannot be
 * made: the session says such processes are not counted. */
static int jobio_listen_refused(char *path, size_t cap) { return jobio_listen_in("jobio-refused-", 0711, "refused.sock", 0666, path, cap); }

/* Removes the socket at `path` and its directory. */
static void jobio_unlisten(char *path) {
  jobio_unlink(path, 0);
  char *slash = strrchr(path, '/');
  if (slash) *slash = 0;
  jobio_unlink(path, AT_REMOVEDIR);
}

/* This process's environment without LD_PRELOAD (the session is Node, not a profiled program). */
static char **jobio_session_env(void) {
  size_t n = 0;
  while (environ[n]) n++;
  char **env = malloc((n + 1) * sizeof *env);
  if (!env) return NULL;
  size_t k = 0;
  for (size_t i = 0; i < n; i++)
    if (strncmp(environ[i], "LD_PRELOAD=", 11) != 0) env[k++] = environ[i];
  env[k] = NULL;
  return env;
}

/* Starts the session, detached: an intermediate process makes its own session, forks the session
 * process and exits at once (reaped here), so the session is not this process's child. Raw system
 * calls only after the fork: no atfork handler, no lock of this process is touched. */
static int jobio_spawn(const char *cmd, char *const argv[], char *const envp[], int listen_fd, int refused_fd) {
  const char *err = jobio_cfg.error_log[0] ? jobio_cfg.error_log : "/dev/null";
  long pid = syscall(SYS_clone, SIGCHLD, 0, 0, 0, 0);
  if (pid < 0) return -1;
  if (pid == 0) {
    syscall(SYS_setsid);
    if (syscall(SYS_clone, SIGCHLD, 0, 0, 0, 0) != 0) syscall(SYS_exit_group, 0);
    /* the listening sockets on descriptors 3 and 4 first: the descriptors opened next cannot take
     * them (the refused processes' socket moved out of the way of the first if it sits on 3) */
    if (refused_fd == 3) refused_fd = (int)jobio_sys_fcntl(3, F_DUPFD_CLOEXEC, 5);
    if (listen_fd == 3) jobio_sys_fcntl(3, F_SETFD, 0);
    else if (syscall(SYS_dup3, listen_fd, 3, 0) < 0) syscall(SYS_exit_group, 127);
    if (refused_fd == 4) jobio_sys_fcntl(4, F_SETFD, 0);
    else if (refused_fd >= 0 && syscall(SYS_dup3, refused_fd, 4, 0) < 0) syscall(SYS_exit_group, 127);
    int in = (int)jobio_sys_open(AT_FDCWD, "/dev/null", O_RDONLY, 0);
    int out = (int)jobio_sys_open(AT_FDCWD, err, O_WRONLY | O_APPEND | O_CREAT, 0644);
    if (out < 0) out = (int)jobio_sys_open(AT_FDCWD, "/dev/null", O_WRONLY, 0);
    if (in > 0) syscall(SYS_dup3, in, 0, 0);
    if (out >= 0 && out != 1) syscall(SYS_dup3, out, 1, 0);
    if (out >= 0 && out != 2) syscall(SYS_dup3, out, 2, 0);
    sigset_t none;
    sigemptyset(&none);
    syscall(SYS_rt_sigprocmask, SIG_SETMASK, &none, NULL, sizeof(long));
    syscall(SYS_execve, cmd, argv, envp);
    static const char msg[] = "jobio: cannot run the session command (JOBIO_COMMAND, or bin/jobio.js beside the library): the job is not profiled\n";
    jobio_sys_write(2, msg, sizeof msg - 1);
    syscall(SYS_exit_group, 127);
  }
  int status = 0;
  while (syscall(SYS_wait4, pid, &status, 0, NULL) < 0 && errno == EINTR) {
  }
  return 0;
}

void jobio_session_start(void) {
  int saved = errno;
  if (!jobio_env("MISTRAL_LOG") && !jobio_env("MISTRAL_CONFIG")) return;
  /* A session of this job on another node (srun carries the environment along) is not joined: the
   * first process here starts this node's. A JOBIO_SOCKET without JOBIO_SESSION_HOST (jobio run, the
   * exporter) is always joined. */
  struct utsname node;
  const char *host = jobio_env("JOBIO_SESSION_HOST");
  int elsewhere = host && syscall(SYS_uname, &node) == 0 && strcmp(host, node.nodename) != 0;
  if (jobio_env("JOBIO_SOCKET") && !elsewhere) return;
  const char *d = jobio_env("JOBIO_DISABLE");
  if (d && strcmp(d, "0") != 0 && strcmp(d, "false") != 0 && strcmp(d, "no") != 0) return;
  const char *err_log = jobio_env("MISTRAL_ERR_LOG");
  if (err_log && strcmp(err_log, "syslog") != 0) jobio_alias("MISTRAL_ERR_LOG", "JOBIO_ERROR_LOG");
  jobio_copy(jobio_cfg.error_log, sizeof jobio_cfg.error_log, getenv("JOBIO_ERROR_LOG"));
  jobio_alias("MISTRAL_VOLUMES", "JOBIO_VOLUMES");
  jobio_alias("MISTRAL_BYPASS_PROGRAMS", "JOBIO_BYPASS");
  jobio_alias("MISTRAL_BYPASS_DISABLE", "JOBIO_BYPASS_DISABLE");
  jobio_notrace();
  jobio_small_io();
  jobio_clock_sampling();

  char cmd[PATH_MAX], sock[PATH_MAX], refused_sock[PATH_MAX], exe[PATH_MAX];
  cmd[0] = 0;
  const char *why = NULL;
  int fd = -1, refused_fd = -1;
  char **envp = NULL;
  if (!jobio_command(cmd, sizeof cmd) || syscall(SYS_faccessat, AT_FDCWD, cmd, X_OK, 0) != 0)
    why = "cannot start a jobio session: no jobio command (set JOBIO_COMMAND); the job is not profiled:";
  else if ((fd = jobio_listen(sock, sizeof sock)) < 0)
    why = "cannot start a jobio session: no socket in MISTRAL_OUTPUT_DIRECTORY or TMPDIR; the job is not profiled:";
  if (!why) {
    /* the run's variables, as `jobio run` gives its command: one-second snapshots from a flush
     * thread, on the session's clock (its start in whole milliseconds) */
    char origin[24], attach[128];
    jobio_u64(origin, sizeof origin, jobio_now_real() / 1000000ull * 1000000ull);
    setenv("JOBIO_SOCKET", sock, 1);
    if (syscall(SYS_uname, &node) == 0) setenv("JOBIO_SESSION_HOST", node.nodename, 1);
    setenv("JOBIO_TIMEFRAME", "1", 1);
    setenv("JOBIO_FLUSH_THREAD", "1", 1);
    setenv("JOBIO_FRAME_ORIGIN_NS", origin, 1);
    pid_t self = jobio_sys_getpid(), parent = getppid(), group = getpgid(0), parent_group = getpgid(parent);
    /* a group that cannot be read (another session's) stands as this process's own */
    if (group < 0) group = self;
    if (parent_group < 0) parent_group = group;
    /* the sixth field: the refused processes' socket, on descriptor 4, when it could be made */
    refused_fd = jobio_listen_refused(refused_sock, sizeof refused_sock);
    if (refused_fd >= 0) setenv("JOBIO_REFUSED_SOCKET", refused_sock, 1);
    else unsetenv("JOBIO_REFUSED_SOCKET"); /* not another run's */
    snprintf(attach, sizeof attach, refused_fd >= 0 ? "3,%d,%d,%d,%d,4" : "3,%d,%d,%d,%d", (int)self, (int)parent, (int)group, (int)parent_group);
    long n = syscall(SYS_readlink, "/proc/self/exe", exe, sizeof exe - 1);
    exe[n > 0 ? n : 0] = 0;
    char *argv[] = {cmd, "run", "--attach", attach, "--", exe[0] ? exe : program_invocation_name, NULL};
    envp = jobio_session_env();
    if (!envp || jobio_spawn(cmd, argv, envp, fd, refused_fd) != 0) why = "cannot start a jobio session: fork failed; the job is not profiled:";
  }
  free(envp);
  if (fd >= 0) jobio_sys_close(fd); /* the session holds the listening sockets now */
  if (refused_fd >= 0) jobio_sys_close(refused_fd);
  if (why && fd >= 0) jobio_unlisten(sock);
  if (why && refused_fd >= 0) jobio_unlisten(refused_sock);
  if (why) {
    jobio_log_line(why, cmd, 0, 0);
    unsetenv("JOBIO_SOCKET");
    unsetenv("JOBIO_REFUSED_SOCKET");
    setenv("JOBIO_DISABLE", "1", 1); /* inherited: one line per job, not per process */
  }
  errno = saved;
}
