// Finds the system programs the end-to-end tests need. A missing one FAILS the test with a clear
// message (CI installs them through .ci/run); it never silently skips.
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

/** The first executable `name` in PATH, then in `extraDirs` (sbin programs for a non-root PATH). */
export function findBinary(name: string, extraDirs: readonly string[] = []): string | undefined {
  for (const dir of [...(process.env.PATH ?? '').split(delimiter), ...extraDirs]) {
    if (!dir) continue;
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // keep looking
    }
  }
  return undefined;
}

export function requireBinary(name: string, apt: string = name): string {
  const found = findBinary(name);
  if (found !== undefined) return found;
  throw new Error(`${name} is not installed: this test needs it (Debian: apt-get install -y ${apt}; .ci/run installs it)`);
}
