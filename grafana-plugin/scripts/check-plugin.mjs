#!/usr/bin/env node
// Offline plugin.json checker for dist/ (Grafana's plugin validator needs the network; this checks
// what it would check that matters here): ids and types, the app's includes against the nested
// plugins, logos and modules present, AMD modules asking only for shared libraries,
// grafanaDependency a valid semver range, %VERSION%/%TODAY% filled in, README/CHANGELOG/LICENSE shipped.
//
//   node scripts/check-plugin.mjs [distDir]     exit 0 when every check passes
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { EXTERNALS } from './webpack.config.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const dist = resolve(process.argv[2] ?? join(root, 'dist'));
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

const EXPECTED = [
  { dir: '', id: 'jobio-jobio-app', type: 'app' },
  { dir: 'panel', id: 'jobio-jobio-panel', type: 'panel' },
  { dir: 'datasource', id: 'jobio-jobio-datasource', type: 'datasource' },
];
const ID = /^([a-z0-9]+)-([a-z0-9]+(?:-[a-z0-9]+)*)-(app|panel|datasource)$/;
const SEMVER = /^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/;
const COMPARATOR = /^(?:>=|<=|>|<|=|\^|~)?v?\d+(?:\.(?:\d+|x|\*)){0,2}(?:-[0-9A-Za-z.-]+)?$/;

/** A semver range as npm writes them: comparator sets joined by ||, comparators by spaces, or a hyphen range. */
export function isSemverRange(range) {
  if (typeof range !== 'string' || range.trim() === '') {
    return false;
  }
  return range.split('||').every((set) => {
    const parts = set.trim().split(/\s+/);
    if (parts.length === 3 && parts[1] === '-') {
      return COMPARATOR.test(parts[0]) && COMPARATOR.test(parts[2]);
    }
    return parts.length > 0 && parts.every((p) => COMPARATOR.test(p));
  });
}

/** The dependency list of a webpack AMD module: define(["a","b",…], …). */
export function amdDependencies(source) {
  const m = /^define\((\[[^\]]*\])/.exec(source);
  return m ? JSON.parse(m[1]) : undefined;
}

export function checkDist(distDir) {
  const problems = [];
  const passed = [];
  const check = (ok, what) => (ok ? passed.push(what) : problems.push(what));
  const plugins = {};
  for (const want of EXPECTED) {
    const dir = join(distDir, want.dir);
    const file = join(dir, 'plugin.json');
    const label = want.dir ? `${want.dir}/plugin.json` : 'plugin.json';
    if (!existsSync(file)) {
      problems.push(`${label}: missing`);
      continue;
    }
    const text = readFileSync(file, 'utf8');
    let json;
    try {
      json = JSON.parse(text);
    } catch (e) {
      problems.push(`${label}: not JSON (${e.message})`);
      continue;
    }
    plugins[want.type] = json;
    check(json.id === want.id, `${label}: id is ${want.id} (got ${json.id})`);
    const idParts = ID.exec(json.id ?? '');
    check(Boolean(idParts) && idParts[3] === json.type, `${label}: id "${json.id}" has the form <org>-<name>-<type> matching type "${json.type}"`);
    check(json.type === want.type, `${label}: type is ${want.type}`);
    check(typeof json.name === 'string' && json.name.length > 0, `${label}: has a name`);
    check(!text.includes('%VERSION%') && !text.includes('%TODAY%'), `${label}: %VERSION% and %TODAY% replaced`);
    check(json.info?.version === pkg.version && SEMVER.test(json.info.version), `${label}: info.version ${json.info?.version} is package.json's ${pkg.version}`);
    check(/^\d{4}-\d{2}-\d{2}$/.test(json.info?.updated ?? ''), `${label}: info.updated is a date`);
    check(Boolean(json.info?.author?.name && json.info?.description && Array.isArray(json.info?.keywords)), `${label}: info has author, description, keywords`);
    for (const size of ['small', 'large']) {
      const logo = json.info?.logos?.[size];
      check(Boolean(logo) && existsSync(join(dir, logo)), `${label}: logo ${size} "${logo}" exists in dist`);
    }
    check(isSemverRange(json.dependencies?.grafanaDependency), `${label}: grafanaDependency "${json.dependencies?.grafanaDependency}" is a semver range`);
    check(Array.isArray(json.dependencies?.plugins ?? []), `${label}: dependencies.plugins is a list`);
    const modulePath = join(dir, 'module.js');
    if (!existsSync(modulePath)) {
      problems.push(`${label}: module.js missing`);
      continue;
    }
    const source = readFileSync(modulePath, 'utf8');
    const deps = amdDependencies(source);
    check(Array.isArray(deps), `${label}: module.js is an AMD module (define([...]))`);
    const unknown = (deps ?? []).filter((d) => d !== 'module' && !EXTERNALS.includes(d));
    check(unknown.length === 0, `${label}: module.js asks only for shared libraries (extra: ${unknown.join(', ') || 'none'})`);
    check(!/console\.log\(/.test(source), `${label}: module.js has no console.log`);
  }
  const app = plugins.app;
  if (app) {
    const includes = app.includes ?? [];
    for (const type of ['panel', 'datasource']) {
      const nested = plugins[type];
      const inc = includes.find((i) => i.type === type);
      check(Boolean(inc) && nested && inc.name === nested.name, `plugin.json: app includes the ${type} "${nested?.name}" (include: ${JSON.stringify(inc)})`);
      const org = (id) => ID.exec(id ?? '')?.[1];
      check(nested && org(nested.id) === org(app.id), `${type}: same org as the app`);
      check(nested && nested.dependencies?.grafanaDependency === app.dependencies?.grafanaDependency, `${type}: grafanaDependency equals the app's`);
    }
    for (const inc of includes) {
      check(['dashboard', 'page', 'panel', 'datasource'].includes(inc.type), `plugin.json: include type "${inc.type}" is known`);
      if (inc.type === 'page') {
        check(typeof inc.path === 'string' && inc.path.startsWith(`/a/${app.id}`), `plugin.json: page path ${inc.path} is under /a/${app.id}`);
      }
    }
  }
  for (const file of ['README.md', 'CHANGELOG.md', 'LICENSE']) {
    check(existsSync(join(distDir, file)), `dist/${file} present`);
  }
  return { passed, problems };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { passed, problems } = checkDist(dist);
  for (const p of passed) {
    console.log(`ok - ${p}`);
  }
  for (const p of problems) {
    console.log(`not ok - ${p}`);
  }
  console.log(`${passed.length} passed, ${problems.length} failed`);
  process.exitCode = problems.length === 0 ? 0 : 1;
}
