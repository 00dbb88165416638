// Finds a file of the jobio checkout (native build outputs) from this module's location, which is
// exporter/src/profiler when run from source (tsx) and dist/profiler when run from the build.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The absolute path of `relative` under the first ancestor directory holding it, or undefined. */
export function findRepoFile(relative: string, from: string = dirname(fileURLToPath(import.meta.url))): string | undefined {
  for (let dir = from; ; dir = dirname(dir)) {
    const candidate = join(dir, relative);
    if (existsSync(candidate)) return candidate;
    if (dirname(dir) === dir) return undefined;
  }
}

/** A native addon built by `npm run build` (`relative` under the checkout), or an Error telling how to build it. */
export function requireRepoAddon(relative: string, what: string): unknown {
  const path = findRepoFile(relative);
  if (!path) throw new Error(`the ${what} addon is not built (${relative} not found): run \`npm run build\` in the jobio checkout`);
  return createRequire(import.meta.url)(path);
}
