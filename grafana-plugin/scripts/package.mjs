#!/usr/bin/env node
// `npm run package` (at the repository root or in grafana-plugin/): the plugin archive Grafana installs.
// Builds dist/ (scripts/build.mjs), refuses to package it unless the offline plugin checker passes, then
// writes <app id>-<version>.zip holding one folder named after the app id, as `grafana cli plugins install`
// and Grafana's plugin validator expect: plugin.json, module.js, README.md, CHANGELOG.md, LICENSE, img/,
// and the nested panel/ and datasource/ plugins.
//
//   node scripts/package.mjs [--out DIR] [--no-build]     default DIR: grafana-plugin/release/
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkDist } from './check-plugin.mjs';
import { zip } from './zip.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');

function usage(message) {
  console.error(`jobio package: ${message}\nusage: node scripts/package.mjs [--out DIR] [--no-build]`);
  process.exit(2);
}

function parseArgs(argv) {
  const options = { out: join(root, 'release'), build: true };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--no-build') {
      options.build = false;
    } else if (arg === '--out') {
      const value = argv[++i];
      if (!value) {
        usage('--out needs a directory');
      }
      options.out = resolve(value);
    } else if (arg.startsWith('--out=')) {
      options.out = resolve(arg.slice('--out='.length));
    } else {
      usage(`unknown argument ${arg}`);
    }
  }
  return options;
}

/** Every file and folder under dir, folders before their contents, sorted, as paths relative to dir. */
function walk(dir, base = dir) {
  const found = [];
  for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      found.push({ path, rel: relative(base, path), dir: true });
      found.push(...walk(path, base));
    } else if (entry.isFile()) {
      found.push({ path, rel: relative(base, path), dir: false });
    } else {
      throw new Error(`${path}: neither a file nor a folder (a link?); dist/ should hold only build outputs`);
    }
  }
  return found;
}

/** The archive's entries: the folder named after the plugin id first (Grafana's installer names the plugin folder after the first entry), then dist/'s contents under it. */
export function archiveEntries(distDir, pluginId) {
  const top = { name: `${pluginId}/`, mtime: statSync(distDir).mtime, mode: 0o40755 };
  const rest = walk(distDir).map((f) => {
    const name = `${pluginId}/${f.rel.split(sep).join('/')}${f.dir ? '/' : ''}`;
    const mtime = statSync(f.path).mtime;
    return f.dir ? { name, mtime, mode: 0o40755 } : { name, mtime, mode: 0o100644, data: readFileSync(f.path) };
  });
  return [top, ...rest];
}

function main() {
  const options = parseArgs(process.argv.slice(2));
  if (options.build) {
    if (!existsSync(join(root, 'node_modules', 'webpack'))) {
      console.error('jobio package: grafana-plugin/node_modules is missing: run "npm ci --prefix grafana-plugin" first');
      process.exit(1);
    }
    const built = spawnSync(process.execPath, [join(root, 'scripts', 'build.mjs')], { cwd: root, stdio: 'inherit' });
    if (built.status !== 0) {
      console.error(`jobio package: the build failed (exit ${built.status}); nothing packaged`);
      process.exit(1);
    }
  }
  if (!existsSync(join(dist, 'plugin.json'))) {
    console.error('jobio package: grafana-plugin/dist/ has no plugin.json: build it first (drop --no-build)');
    process.exit(1);
  }
  const { problems } = checkDist(dist);
  if (problems.length > 0) {
    console.error(`jobio package: dist/ fails the plugin checks, nothing packaged:\n${problems.map((p) => `  not ok - ${p}`).join('\n')}`);
    process.exit(1);
  }
  const plugin = JSON.parse(readFileSync(join(dist, 'plugin.json'), 'utf8'));
  const archive = zip(archiveEntries(dist, plugin.id));
  mkdirSync(options.out, { recursive: true });
  const file = join(options.out, `${plugin.id}-${plugin.info.version}.zip`);
  writeFileSync(file, archive);
  console.log(`wrote ${file} (${archive.length} bytes): unzip it into Grafana's plugins folder, or`);
  console.log(`  grafana cli --pluginUrl ${file} plugins install ${plugin.id}`);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main();
}
