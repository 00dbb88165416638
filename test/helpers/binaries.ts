// Finds the system programs the end-to-end tests need. A missing one FAILS the test with a clear
// message (CI installs them through .ci/run); it never silently skips.
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

export function requireBinary(name: string, apt: string = name): string {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // keep looking
    }
  }
  throw new Error(`${name} is not installed: this test needs it (Debian: apt-get install -y ${apt}; .ci/run installs it)`);
}
