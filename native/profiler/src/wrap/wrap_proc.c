/*
 * Process lifecycle: exec (flush first, JOBIO_FLAG_EXEC), _exit/_Exit (final flush), vfork (the
 * child shares our memory: it must not touch any state), posix_spawn and the bypass environment.
 * fork needs no wrapper: pthread_atfork handlers (fork.c) reset the child.
 */
#include <stdarg.h>
#include <string.h>
#include <sys/syscall.h>

#include "base/real.h"
#include "base/state.h"
#include "base/sys.h"
#include "base/tls.h"
#include "process/fdtab.h"
#include "wrap/entry.h"
#include "wrap/exit.h"

extern char **environ;

static void jobio_basename_into(char *dst, size_t cap, const char *path) {
  const char *base = path;
  for (const char *p = path; p && *p; p++)
    if (*p == '/') base = p + 1;
  size_t i = 0;
  for (; base && base[i] && i + 1 < cap; i++) dst[i] = base[i];
  dst[i] = 0;
}

/* A child started by vfork or posix_spawn: remembered for the receiver (did it say hello?). */
static void jobio_note_spawned(pid_t pid, const char *path) {
  uint64_t n = __atomic_fetch_add(&jobio_g.spawned_total, 1, __ATOMIC_ACQ_REL);
  struct jobio_spawned *s = &jobio_g.spawned[n % JOBIO_SPAWN_RING];
  s->pid = pid;
  jobio_basename_into(s->name, sizeof s->name, path);
}

/* Before an exec replaces the image: decide what is pending and send the last snapshot, naming
 * the program about to run (the receiver learns whether its image says hello, i.e. is profiled).
 * In a vfork child (which shares our memory and must not touch our state) only the program's name
 * is left for the parent. */
static void jobio_before_exec_of(const char *path) {
  struct jobio_ctx c;
  if ((jobio_t.busy & JOBIO_BUSY_VFORK) && __atomic_load_n(&jobio_g.init_state, __ATOMIC_ACQUIRE) == 2 &&
      jobio_sys_getpid() != jobio_g.pid) {
    jobio_basename_into(jobio_g.vfork_target, sizeof jobio_g.vfork_target, path);
    return;
  }
  if (!jobio_begin_notime(&c)) return;
  jobio_basename_into(jobio_g.exec_target, sizeof jobio_g.exec_target, path);
  jobio_fds_mark_inherited(0); /* the new image moves bytes through what stays open (a redirection) */
  jobio_flush_final(JOBIO_FLAG_EXEC);
}

/* ---------------- bypass: mark the environment of a bypassed program's children ---------------- */
static char jobio_bypass_var[96];

static int jobio_env_count(char *const envp[], int *has_mark) {
  int n = 0;
  *has_mark = 0;
  if (!envp) return 0;
  for (; envp[n]; n++)
    if (strncmp(envp[n], "JOBIO_BYPASSED=", 15) == 0) *has_mark = 1;
  return n;
}

/* Copy envp into out (n + 2 slots) with JOBIO_BYPASSED=<program> added. */
static char *const *jobio_env_with_mark(char *const envp[], int n, char **out) {
  if (!jobio_bypass_var[0]) {
    const char *pre = "JOBIO_BYPASSED=";
    size_t i = 0, j = 0;
    for (; pre[i]; i++) jobio_bypass_var[i] = pre[i];
    for (; jobio_g.bypass_name[j] && i + 1 < sizeof jobio_bypass_var; j++) jobio_bypass_var[i++] = jobio_g.bypass_name[j];
    if (!j) jobio_bypass_var[i++] = '1';
    jobio_bypass_var[i] = 0;
  }
  for (int i = 0; i < n; i++) out[i] = envp[i];
  out[n] = jobio_bypass_var;
  out[n + 1] = NULL;
  return out;
}

#define JOBIO_MAX_ENV 8192
/* Is the environment to be changed for this exec? n entries, or -1 for "leave it". */
static int jobio_env_change(char *const envp[]) {
  if (!jobio_cfg.add_bypass_env || __atomic_load_n(&jobio_g.init_state, __ATOMIC_ACQUIRE) != 2) return -1;
  int has;
  int n = jobio_env_count(envp, &has);
  if (has || n > JOBIO_MAX_ENV) return -1;
  return n;
}

/* Make call_expr with `env`: envp as it is, or for a bypassed program's children a copy with the
 * mark, in this frame (a VLA, never malloc: this may run in a vfork child). */
#define JOBIO_ENV_CALL(envp, call_expr)                        \
  int n_ = jobio_env_change(envp);                             \
  if (n_ < 0) {                                                \
    char *const *env = (envp);                                 \
    return call_expr;                                          \
  }                                                            \
  char *marked_[n_ + 2];                                       \
  char *const *env = jobio_env_with_mark((envp), n_, marked_); \
  return call_expr;

/* ---------------- exec family ---------------- */
/* The last snapshot first (naming the program, path: NULL for fexecve), then the call with env.
 * execv and execvp are execve and execvpe with environ, as in glibc. */
#define JOBIO_EXEC(path, envp, call_expr) \
  jobio_before_exec_of(path);             \
  JOBIO_ENV_CALL(envp, call_expr)
JOBIO_EXPORT int execve(const char *path, char *const argv[], char *const envp[]) {
  JOBIO_EXEC(path, envp, REAL(execve)(path, argv, env))
}
JOBIO_EXPORT int execveat(int dirfd, const char *path, char *const argv[], char *const envp[], int fl) {
  JOBIO_EXEC(path, envp, REAL(execveat)(dirfd, path, argv, env, fl))
}
JOBIO_EXPORT int fexecve(int fd, char *const argv[], char *const envp[]) {
  JOBIO_EXEC(NULL, envp, REAL(fexecve)(fd, argv, env))
}
JOBIO_EXPORT int execv(const char *path, char *const argv[]) {
  JOBIO_EXEC(path, environ, REAL(execve)(path, argv, env))
}
JOBIO_EXPORT int execvp(const char *file, char *const argv[]) {
  JOBIO_EXEC(file, environ, REAL(execvpe)(file, argv, env))
}
JOBIO_EXPORT int execvpe(const char *file, char *const argv[], char *const envp[]) {
  JOBIO_EXEC(file, envp, REAL(execvpe)(file, argv, env))
}

/* execl*: gather the variadic arguments into an argv on the stack, as glibc does */
static int jobio_count_args(const char *arg, va_list ap) {
  int n = 1;
  if (!arg) return 0;
  while (va_arg(ap, const char *)) n++;
  return n;
}

enum jobio_execl_kind { JOBIO_EXECL, JOBIO_EXECLP, JOBIO_EXECLE };

/* The one gathering of execl, execlp and execle: arg and the rest of ap (up to its NULL, then
 * execle's envp) into an argv in this frame (a VLA, never malloc: this may run in a vfork child),
 * handed to execv, execvp or execve. */
static int jobio_execl_args(enum jobio_execl_kind kind, const char *path, const char *arg, va_list ap) {
  va_list count;
  va_copy(count, ap);
  int n = jobio_count_args(arg, count);
  va_end(count);
  char *argv[n + 1];
  argv[0] = (char *)arg;
  for (int i = 1; i <= n; i++) argv[i] = va_arg(ap, char *);
  argv[n] = NULL;
  if (kind == JOBIO_EXECLE) return execve(path, argv, va_arg(ap, char *const *));
  return kind == JOBIO_EXECLP ? execvp(path, argv) : execv(path, argv);
}

/* The variadic entry points: each hands its va_list to the gathering above. */
#define JOBIO_EXECL_ENTRY(name, kind)                                   \
  JOBIO_EXPORT int name(const char *path, const char *arg, ...) {       \
    va_list ap;                                                         \
    va_start(ap, arg);                                                  \
    int r = jobio_execl_args(kind, path, arg, ap);                      \
    va_end(ap);                                                         \
    return r;                                                           \
  }
JOBIO_EXECL_ENTRY(execl, JOBIO_EXECL)
JOBIO_EXECL_ENTRY(execlp, JOBIO_EXECLP) /* path: the file name, looked up in PATH */
JOBIO_EXECL_ENTRY(execle, JOBIO_EXECLE)

/* ---------------- posix_spawn: only the bypass environment (the parent's state is untouched) ---------------- */
/* search: posix_spawnp (the file looked up in PATH) */
static int jobio_spawn_env(int search, pid_t *pid, const char *path, const posix_spawn_file_actions_t *fa,
                           const posix_spawnattr_t *at, char *const argv[], char *const envp[]) {
  JOBIO_ENV_CALL(envp, (search ? REAL(posix_spawnp) : REAL(posix_spawn))(pid, path, fa, at, argv, env))
}

/* The child is noted (did its program say hello?): its pid is needed even if the caller's is NULL. */
static int jobio_spawn(int search, pid_t *pid, const char *path, const posix_spawn_file_actions_t *fa,
                       const posix_spawnattr_t *at, char *const argv[], char *const envp[]) {
  pid_t local;
  pid_t *p = pid ? pid : &local;
  int r = jobio_spawn_env(search, p, path, fa, at, argv, envp);
  struct jobio_ctx c;
  if (r == 0 && jobio_begin_notime(&c)) {
    jobio_note_spawned(*p, path);
    jobio_fds_mark_inherited(0);
  }
  return r;
}

JOBIO_EXPORT int posix_spawn(pid_t *pid, const char *path, const posix_spawn_file_actions_t *fa,
                             const posix_spawnattr_t *at, char *const argv[], char *const envp[]) {
  return jobio_spawn(0, pid, path, fa, at, argv, envp);
}
JOBIO_EXPORT int posix_spawnp(pid_t *pid, const char *file, const posix_spawn_file_actions_t *fa,
                              const posix_spawnattr_t *at, char *const argv[], char *const envp[]) {
  return jobio_spawn(1, pid, file, fa, at, argv, envp);
}

/* ---------------- _exit: destructors do not run, so flush here ---------------- */
/* sym: _exit or _Exit (the same in glibc; each is forwarded to its own name) */
static inline __attribute__((noreturn)) void jobio_exit_now(int sym, int status) {
  struct jobio_ctx c;
  if (jobio_begin_notime(&c)) jobio_flush_final(JOBIO_FLAG_FINAL);
  (sym == JOBIO_SYM__exit ? REAL(_exit) : REAL(_Exit))(status);
  syscall(SYS_exit_group, status);
  __builtin_unreachable();
}
JOBIO_EXPORT void _exit(int status) { jobio_exit_now(JOBIO_SYM__exit, status); }
JOBIO_EXPORT void _Exit(int status) { jobio_exit_now(JOBIO_SYM__Exit, status); }

/* ---------------- vfork ---------------- */
/*
 * The child of vfork runs on our memory and stack until it execs or _exits, so the wrapper must not
 * keep anything on the stack across the real vfork (the child's calls overwrite it): it marks the
 * thread (JOBIO_BUSY_VFORK: every wrapper then checks the pid and, in the child, only forwards),
 * keeps its return address in thread-local storage, calls the real vfork (which returns twice) and
 * puts the address back. In the parent, jobio_vfork_after notes the child (did its program say
 * hello?); in the child it does nothing at all. The parent clears the mark at its next call.
 */
void *jobio_vfork_prepare(void);
__attribute__((used)) void *jobio_vfork_prepare(void) {
  jobio_t.busy |= JOBIO_BUSY_VFORK;
  jobio_g.vfork_target[0] = 0;
  return (void *)REAL(vfork);
}

long jobio_vfork_after(long r);
__attribute__((used)) long jobio_vfork_after(long r) {
  if (r <= 0) return r; /* the child (0), or vfork failed (-1, errno set) */
  int saved = errno;
  if (__atomic_load_n(&jobio_g.init_state, __ATOMIC_ACQUIRE) == 2 && jobio_cfg.active && jobio_sys_getpid() == jobio_g.pid) {
    jobio_note_spawned((pid_t)r, jobio_g.vfork_target);
    jobio_fds_mark_inherited(1); /* the child may have dup2'd any of them before its exec */
  }
  errno = saved;
  return r;
}

#if defined(__x86_64__)
#define JOBIO_STR2(x) #x
#define JOBIO_STR(x) JOBIO_STR2(x)
__asm__(
    ".text\n"
    ".globl vfork\n"
    ".type vfork, @function\n"
    "vfork:\n"
    "  subq $8, %rsp\n"
    "  call jobio_vfork_prepare\n"
    "  addq $8, %rsp\n"
    "  popq %rcx\n"
    "  movq jobio_t@gottpoff(%rip), %rdx\n"
    "  movq %rcx, %fs:" JOBIO_STR(JOBIO_TLS_VFORK_RET) "(%rdx)\n"
    "  call *%rax\n"
    "  movq jobio_t@gottpoff(%rip), %rdx\n"
    "  pushq %fs:" JOBIO_STR(JOBIO_TLS_VFORK_RET) "(%rdx)\n"
    "  movslq %eax, %rdi\n"
    "  jmp jobio_vfork_after\n"
    ".size vfork, .-vfork\n");
#else
/* Elsewhere: fork semantics are a valid vfork (POSIX), and safe for us. */
JOBIO_EXPORT pid_t vfork(void) { return fork(); }
#endif
