/* execl, execlp, execle (argv[2] says which): the variadic arguments reach the new image as they
 * were given, and execle's envp is its whole environment. phase 1: create f, write red 2 (left open),
 * then exec self with "phase2 MODE a" "b c". phase 2 checks what it got (exit 99 if wrong), then
 * creates g, writes red 3 and closes it. */
#include "t_util.h"

extern char **environ;

int main(int argc, char **argv) {
  t_init(argc, argv);
  CHECK(argc >= 3);
  if (strcmp(argv[2], "phase2") == 0) {
    CHECK(argc == 6);
    CHECK(strcmp(argv[4], "a") == 0 && strcmp(argv[5], "b c") == 0);
    if (strcmp(argv[3], "execle") == 0) {
      const char *mark = getenv("T_MARK");
      CHECK(mark && strcmp(mark, "execle") == 0);
      int n = 0;
      while (environ[n]) n++;
      CHECK(n == 3); /* LD_PRELOAD, JOBIO_SOCKET, T_MARK: nothing inherited */
    } else {
      CHECK(getenv("T_MARK") == NULL);
    }
    t_create_write_close("g", 3, 10);
    return 0;
  }
  int fd = open(P("f"), O_CREAT | O_WRONLY | O_TRUNC, 0644);
  CHECK(fd >= 0);
  for (int i = 0; i < 2; i++) CHECK(write(fd, t_buf, 100) == 100);
  const char *mode = argv[2];
  if (strcmp(mode, "execl") == 0) {
    execl("/proc/self/exe", argv[0], argv[1], "phase2", mode, "a", "b c", (char *)NULL);
  } else if (strcmp(mode, "execlp") == 0) {
    execlp("/proc/self/exe", argv[0], argv[1], "phase2", mode, "a", "b c", (char *)NULL);
  } else if (strcmp(mode, "execle") == 0) {
    static char preload[4200], sock[4200];
    snprintf(preload, sizeof preload, "LD_PRELOAD=%s", getenv("LD_PRELOAD") ? getenv("LD_PRELOAD") : "");
    snprintf(sock, sizeof sock, "JOBIO_SOCKET=%s", getenv("JOBIO_SOCKET") ? getenv("JOBIO_SOCKET") : "");
    char *const envp[] = {preload, sock, "T_MARK=execle", NULL};
    execle("/proc/self/exe", argv[0], argv[1], "phase2", mode, "a", "b c", (char *)NULL, envp);
  }
  return 98;
}
