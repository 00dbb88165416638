// Where a command would be found, as a shell looks for it: a name with a slash as given, otherwise the
// first directory of PATH holding it.
import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';

/** The program's path if it is runnable (a path, or a name found in PATH), else undefined. */
export function findProgram(name: string): string | undefined {
  if (name.includes('/')) return existsSync(name) ? name : undefined;
  for (const dir of (process.env['PATH'] ?? '').split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, name);
    if (existsSync(candidate)) return candidate;
  }
  return undefined;
}
