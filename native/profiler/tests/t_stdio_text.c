/* stdio text functions, mixed with POSIX calls on the same files: the profiler's read/write calls
 * and bytes must equal strace's (buffer fills and flushes), and the application-level stdio calls
 * are counted apart. argv[2] (optional) is the number of lines. Output on stdout: a checksum. */
#include <stdarg.h>

#include "t_util.h"

static int vf(FILE *f, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int r = vfprintf(f, fmt, ap);
  va_end(ap);
  return r;
}

int main(int argc, char **argv) {
  t_init(argc, argv);
  int lines = argc > 2 ? atoi(argv[2]) : 3000;
  FILE *f = fopen(P("t.txt"), "w");
  CHECK(f);
  for (int i = 0; i < lines; i++) {
    CHECK(fprintf(f, "line %d %s\n", i, "abcdefghij") > 0);
    CHECK(fputs("fputs text\n", f) >= 0);
    CHECK(fputc('a', f) == 'a');
    CHECK(putc('\n', f) == '\n');
    CHECK(vf(f, "%05d\n", i) == 6);
    CHECK(fwrite("twenty bytes here..", 1, 20, f) == 20);
    CHECK(fputc('\n', f) == '\n');
  }
  CHECK(fwrite(t_buf, 1, 10000, f) == 10000); /* a large request: written partly directly */
  CHECK(fputc('\n', f) == '\n');
  CHECK(fflush(f) == 0);
  int fd = fileno(f);
  CHECK(write(fd, "posix write\n", 12) == 12); /* POSIX on the same descriptor */
  CHECK(fprintf(f, "tail %d\n", 1) == 7);
  CHECK(fclose(f) == 0);

  f = fopen(P("t.txt"), "r");
  CHECK(f);
  char buf[256];
  unsigned long sum = 0;
  char *line = NULL;
  size_t cap = 0;
  int n, k = 0;
  while (fgets(buf, sizeof buf, f)) {
    sum += strlen(buf);
    int c = fgetc(f);
    if (c == EOF) break;
    CHECK(ungetc(c, f) == c);
    if (getline(&line, &cap, f) < 0) break;
    sum += strlen(line);
    if (getdelim(&line, &cap, '\n', f) < 0) break;
    sum += strlen(line);
    if (fscanf(f, "%d", &n) == 1) sum += (unsigned)n;
    c = getc(f);
    if (c != EOF) sum += (unsigned)c;
    if (++k % 100 == 0 && fread(buf, 1, 100, f) == 100) sum += 100;
  }
  free(line);
  CHECK(fread(t_buf, 1, 50000, f) < 50000); /* at the end: nothing */
  CHECK(fclose(f) == 0);

  /* a big fread straight into the buffer (direct block reads), then stdout to a file if redirected */
  f = fopen(P("t.txt"), "r");
  CHECK(f);
  size_t got = fread(t_buf, 1, 100000, f);
  CHECK(got > 0);
  CHECK(fclose(f) == 0);
  printf("sum %lu got %zu\n", sum, got);
  puts("puts line");
  putchar('\n');
  return 0;
}
