#!/usr/bin/env node
// `npm run build`: webpack (AMD modules) then the static files each plugin folder needs in dist/:
// plugin.json with %VERSION% / %TODAY% filled in, logos, README, CHANGELOG and the repository's LICENSE
// (Grafana's plugin validator wants a license file in the plugin folder).
import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import webpack from 'webpack';
import config from './webpack.config.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const started = Date.now();

const stats = await new Promise((ok, fail) => webpack(config(process.env.JOBIO_BUILD_MODE ?? 'production')).run((err, s) => (err ? fail(err) : ok(s))));
if (stats.hasErrors()) {
  console.error(stats.toString('errors-only'));
  process.exit(1);
}
if (stats.hasWarnings()) {
  console.warn(stats.toString('errors-warnings'));
}

const today = new Date().toISOString().slice(0, 10);
for (const dir of ['', 'panel', 'datasource']) {
  const src = join(root, 'src', dir);
  const out = join(root, 'dist', dir);
  mkdirSync(out, { recursive: true });
  const json = readFileSync(join(src, 'plugin.json'), 'utf8').replaceAll('%VERSION%', pkg.version).replaceAll('%TODAY%', today);
  writeFileSync(join(out, 'plugin.json'), json);
  if (existsSync(join(src, 'img'))) {
    cpSync(join(src, 'img'), join(out, 'img'), { recursive: true });
  }
}
for (const file of ['README.md', 'CHANGELOG.md']) {
  cpSync(join(root, file), join(root, 'dist', file));
}
cpSync(join(root, '..', 'LICENSE'), join(root, 'dist', 'LICENSE'));
console.log(`built dist/ (module.js, panel/module.js, datasource/module.js) in ${Date.now() - started} ms`);
