/* The stdio cost benchmark's program: N calls of one stdio function on a file in DIR.
 * Usage: stdio-calls DIR fwrite|fputc|fprintf|fputs|fgets|fgetc|fread N
 * Run under valgrind --tool=callgrind with and without the profiler preloaded, at two values of N:
 * the slope (instructions per call) minus the plain program's slope is the profiler's cost per call
 * (docs/BENCHMARKS.md, "Profiler: stdio"). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
  if (argc != 4) return 2;
  char path[4096];
  snprintf(path, sizeof path, "%s/stdio-calls.dat", argv[1]);
  const char *fn = argv[2];
  long n = atol(argv[3]);
  int reading = !strcmp(fn, "fgets") || !strcmp(fn, "fgetc") || !strcmp(fn, "fread");
  if (reading) {
    FILE *w = fopen(path, "w");
    if (!w) return 1;
    for (long i = 0; i < n; i++) fputs("nineteen bytes...\n", w);
    fclose(w);
  }
  FILE *f = fopen(path, reading ? "r" : "w");
  if (!f) return 1;
  char buf[64];
  long sum = 0;
  for (long i = 0; i < n; i++) {
    if (!strcmp(fn, "fwrite")) sum += (long)fwrite("twenty bytes, this..", 1, 20, f);
    else if (!strcmp(fn, "fputc")) sum += fputc('x', f);
    else if (!strcmp(fn, "fprintf")) sum += fprintf(f, "%ld %s\n", i, "abc");
    else if (!strcmp(fn, "fputs")) sum += fputs("nineteen bytes...\n", f);
    else if (!strcmp(fn, "fgets")) sum += fgets(buf, sizeof buf, f) != NULL;
    else if (!strcmp(fn, "fgetc")) sum += fgetc(f);
    else if (!strcmp(fn, "fread")) sum += (long)fread(buf, 1, 19, f);
  }
  fclose(f);
  return sum == -1;
}
