// The MPI test programs (test/profiler/programs/*.c), built with Open MPI's compiler wrapper into a
// directory of the test's: one way for every test that runs them under mpirun.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { requireBinary } from '../helpers/binaries.js';

/** Compiles programs/<name>.c into <dir>/<name>, warnings as errors, and returns the program's path. */
export function buildMpiProgram(name: string, dir: string): string {
  const mpicc = requireBinary('mpicc', 'libopenmpi-dev');
  const program = join(dir, name);
  execFileSync(mpicc, ['-std=gnu11', '-O1', '-Wall', '-Wextra', '-Werror', fileURLToPath(new URL(`programs/${name}.c`, import.meta.url)), '-o', program]);
  return program;
}
