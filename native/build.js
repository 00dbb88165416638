// Builds the native parts (C profiler, node-addon-api addons) with the machine's compiler.
// Each part is a folder under native/ with a Makefile (plain C) or binding.gyp (addon).
// Nothing is downloaded: node-gyp builds against the local Node headers.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const parts = readdirSync(here, { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => d.name)
  .sort();
for (const part of parts) {
  const dir = join(here, part);
  if (existsSync(join(dir, 'Makefile'))) {
    console.log(`jobio build: make -C native/${part}`);
    execFileSync('make', ['-C', dir, '--no-print-directory'], { stdio: 'inherit' });
  } else if (existsSync(join(dir, 'binding.gyp'))) {
    console.log(`jobio build: node-gyp rebuild in native/${part}`);
    const npmDir = dirname(process.env.npm_execpath ?? '');
    const gypBundled = join(npmDir, 'node_modules', 'node-gyp', 'bin', 'node-gyp.js');
    const gyp = existsSync(gypBundled) ? gypBundled : join(dirname(process.execPath), '..', 'lib', 'node_modules', 'npm', 'node_modules', 'node-gyp', 'bin', 'node-gyp.js');
    execFileSync(process.execPath, [gyp, 'rebuild', '--nodedir=' + (process.env.npm_config_nodedir || '/usr')], { cwd: dir, stdio: 'inherit' });
  }
}
