/*
 * A known mix, classified by hand from the table in docs/profiler.md (small threshold 32768):
 *   1  stat("input")            ok, input opened later            -> access yellow
 *   2  stat("settings")         ok, never opened                  -> access red (at exit)
 *   3  access("missing")        fails                             -> access red
 *   4  open("input")            70000 bytes read through it        -> open green (at close)
 *   5  read 65536               65536 >= 32768                    -> read green
 *   6  read 65536 -> 4464       fewer than asked: end of file     -> read green
 *   7  read -> 0                0 bytes                           -> read green
 *   8  lseek(input, 0, SET)     backward (70000 -> 0)             -> seek red
 *   9  lseek(input, 1000, SET)  forward                           -> seek yellow
 *   10 close(input)                                               -> close green
 *   11 open("out", O_CREAT)     file did not exist, 1 MiB written  -> create green
 *   12 write 1048576                                               -> write green
 *   13 write 100 x 10                                              -> write red (10)
 *   14 fsync(out)               ok                                -> sync yellow
 *   15 close(out)                                                 -> close green
 *   16 open("log", O_CREAT|O_APPEND) new, 50 bytes               -> create yellow
 *   17 write 50                                                    -> write red
 *   18 close(log)                                                 -> close green
 *   19 open("missing")          fails                             -> open red
 *   20 open("input") again, nothing read                          -> open red (at close)
 *   21 close                                                      -> close green
 *   22 rename("out","final")    ok                                -> fschange yellow
 *   23 unlink("log")            ok                                -> delete yellow
 *   24 unlink("log")            fails                             -> delete red
 *   25 mmap(input)              ok                                -> mmap green (open of 25: yellow, its
 *                                                                    bytes moved unseen; close green)
 * Totals: red = access 2 + seek 1 + write 11 + open 2 + delete 1 = 17
 *         yellow = access 1 + seek 1 + sync 1 + create 1 + fschange 1 + delete 1 + open 1 = 7
 *         green = open 1 + read 3 + close 5 + create 1 + write 1 + mmap 1 = 12
 */
#include <sys/mman.h>

#include "t_util.h"

int main(int argc, char **argv) {
  t_init(argc, argv);
  struct stat st;
  CHECK(stat(P("input"), &st) == 0 && st.st_size == 70000);
  CHECK(stat(P("settings"), &st) == 0);
  CHECK(access(P("missing"), R_OK) == -1);
  int in = open(P("input"), O_RDONLY);
  CHECK(in >= 0);
  CHECK(read(in, t_buf, 65536) == 65536);
  CHECK(read(in, t_buf, 65536) == 4464);
  CHECK(read(in, t_buf, 65536) == 0);
  CHECK(lseek(in, 0, SEEK_SET) == 0);
  CHECK(lseek(in, 1000, SEEK_SET) == 1000);
  CHECK(close(in) == 0);
  int out = open(P("out"), O_CREAT | O_WRONLY | O_TRUNC, 0644);
  CHECK(out >= 0);
  CHECK(write(out, t_buf, 1048576) == 1048576);
  for (int i = 0; i < 10; i++) CHECK(write(out, t_buf, 100) == 100);
  CHECK(fsync(out) == 0);
  CHECK(close(out) == 0);
  int log = open(P("log"), O_CREAT | O_WRONLY | O_APPEND, 0644);
  CHECK(log >= 0 && write(log, t_buf, 50) == 50 && close(log) == 0);
  CHECK(open(P("missing"), O_RDONLY) == -1);
  in = open(P("input"), O_RDONLY);
  CHECK(in >= 0 && close(in) == 0);
  CHECK(rename(P("out"), P("final")) == 0);
  CHECK(unlink(P("log")) == 0);
  CHECK(unlink(P("log")) == -1);
  in = open(P("input"), O_RDONLY);
  void *m = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, in, 0);
  CHECK(m != MAP_FAILED && close(in) == 0);
  return 0;
}
