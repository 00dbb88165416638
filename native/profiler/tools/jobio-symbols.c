/*
 * Enumerates the profiler's declaration table (src/base/symbols.def), one name per line, and with
 * --check LIB verifies that LIB exports each of them (dlsym) and resolves nothing else by that
 * table. Used by test/profiler-native to prove the table, the version script and the library agree.
 */
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <string.h>

static const char *const names[] = {
#define JOBIO_SYM(name, ret, params) #name,
#include "base/symbols.def"
#undef JOBIO_SYM
};

int main(int argc, char **argv) {
  size_t n = sizeof names / sizeof names[0];
  if (argc == 3 && strcmp(argv[1], "--check") == 0) {
    void *h = dlopen(argv[2], RTLD_NOW | RTLD_LOCAL);
    if (!h) {
      fprintf(stderr, "cannot load %s: %s\n", argv[2], dlerror());
      return 2;
    }
    struct link_map *lm = NULL;
    if (dlinfo(h, RTLD_DI_LINKMAP, &lm) != 0 || !lm) return 2;
    int bad = 0;
    for (size_t i = 0; i < n; i++) {
      void *p = dlsym(h, names[i]);
      Dl_info info;
      /* the definition must be the library's own, not one of its dependencies' */
      if (!p || !dladdr(p, &info) || !info.dli_fname || strcmp(info.dli_fname, lm->l_name) != 0) {
        printf("missing %s\n", names[i]);
        bad++;
      }
    }
    printf("%zu symbols, %d missing\n", n, bad);
    return bad ? 1 : 0;
  }
  for (size_t i = 0; i < n; i++) puts(names[i]);
  return 0;
}
