// A small C project (three sources, a header, a Makefile) for the tests that profile a real build:
// one definition, so every test compiles the same code with the same rules.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

const FILES: Record<string, string> = {
  Makefile: 'OBJS = main.o util.o calc.o\nprog: $(OBJS)\n\tcc -o prog $(OBJS)\n%.o: %.c util.h\n\tcc -O1 -c $< -o $@\n',
  'util.h': 'int util(int);\nint calc(int);\n',
  'main.c': '#include <stdio.h>\n#include "util.h"\nint main(void) { printf("%d\\n", util(2) + calc(3)); return 0; }\n',
  'util.c': '#include "util.h"\nint util(int x) { return x * 7; }\n',
  'calc.c': '#include "util.h"\nint calc(int x) { return x + 11; }\n',
};

/** Writes the project into dir: `make` builds ./prog (which prints 28) from main.c, util.c and calc.c. */
export function writeCProject(dir: string): void {
  for (const [f, text] of Object.entries(FILES)) writeFileSync(join(dir, f), text);
}
