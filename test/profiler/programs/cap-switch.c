/* Run as root by test/profiler/run-user-switch.test.ts: becomes nobody the way setpriv does, then
 * reads a file.
 *   argv[1]: a directory holding `data` (5 bytes).
 * It keeps its capabilities across setresuid (PR_SET_KEEPCAPS), raises its own thread's effective
 * ones again (capset, per thread: here the raw system call, as capability libraries make it) and
 * then calls setresgid, which glibc applies to every thread of the process: a thread without
 * CAP_SETGID fails it and glibc aborts the process. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/capability.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#define NOBODY 65534

int main(int argc, char **argv) {
  if (argc != 2) return 2;
  if (prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) != 0) return 3;
  if (setresuid(NOBODY, NOBODY, NOBODY) != 0) return 4;
  struct __user_cap_header_struct h = {_LINUX_CAPABILITY_VERSION_3, 0};
  struct __user_cap_data_struct d[2] = {{0, 0, 0}, {0, 0, 0}};
  if (syscall(SYS_capget, &h, d) != 0) return 5;
  d[0].effective = d[0].permitted;
  d[1].effective = d[1].permitted;
  if (syscall(SYS_capset, &h, d) != 0) return 6;
  if (setresgid(NOBODY, NOBODY, NOBODY) != 0) return 7;
  if (getuid() != NOBODY || getgid() != NOBODY) return 8;
  char path[4096], buf[16];
  snprintf(path, sizeof path, "%s/data", argv[1]);
  int fd = open(path, O_RDONLY);
  if (fd < 0 || read(fd, buf, sizeof buf) != 5 || close(fd) != 0) return 9;
  printf("done\n");
  return 0;
}
