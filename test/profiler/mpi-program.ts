// The MPI test programs (test/profiler/programs/*.c), built with Open MPI's compiler wrapper into a
// directory of the test's: one way for every test that runs them under mpirun.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { requireBinary } from '../helpers/binaries.js';

/**
 * mpirun's options for the tests: more ranks than cores, as root (test containers), and the self and
 * tcp transports only, so that no shared-memory segment lands on /dev/shm beside the job's files.
 */
export const MPIRUN_LOCAL: readonly string[] = ['--oversubscribe', '--allow-run-as-root', '--mca', 'btl', 'self,tcp'];

/** Open MPI refuses to start as root without both. */
export const MPI_AS_ROOT_ENV: Readonly<Record<string, string>> = { OMPI_ALLOW_RUN_AS_ROOT: '1', OMPI_ALLOW_RUN_AS_ROOT_CONFIRM: '1' };

/** Compiles programs/<name>.c into <dir>/<name>, warnings as errors, and returns the program's path. */
export function buildMpiProgram(name: string, dir: string): string {
  const mpicc = requireBinary('mpicc', 'libopenmpi-dev');
  const program = join(dir, name);
  execFileSync(mpicc, ['-std=gnu11', '-O1', '-Wall', '-Wextra', '-Werror', fileURLToPath(new URL(`programs/${name}.c`, import.meta.url)), '-o', program]);
  return program;
}
