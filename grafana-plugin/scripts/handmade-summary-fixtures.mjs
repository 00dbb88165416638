#!/usr/bin/env node
// Writes hand-made Prometheus responses (src/__fixtures__/prometheus-handmade/) for the summary's
// volume and red/yellow reason queries, on the time range of the real captures. Hand-made because the
// reason series do not exist in the exporter yet and the profiler byte counters were not captured with
// the rest; the PromQL is the plugin's own (src/datasource/promql/build.ts), so the data source sends
// exactly these queries. Figures follow the capture scenario's programs (see README.md there).
//   node scripts/handmade-summary-fixtures.mjs
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'src', '__fixtures__', 'prometheus-handmade');
const manifest = JSON.parse(readFileSync(join(root, 'src', '__fixtures__', 'prometheus-real', 'manifest.json'), 'utf8'));
const bundle = join(out, '.build.mjs');
await build({ entryPoints: [join(root, 'src/datasource/promql/build.ts')], bundle: true, format: 'esm', platform: 'node', outfile: bundle, logLevel: 'error' });
const { summaryExprs } = await import(pathToFileURL(bundle).href);
(await import('node:fs')).rmSync(bundle);

const rangeSeconds = (manifest.toMs - manifest.fromMs) / 1000;
const time = manifest.toMs / 1000;
const vector = (rows) => rows.map(([metric, v]) => ({ metric, value: [time, String(v)] }));
const write = (name, query, rows) =>
  writeFileSync(join(out, `${name}.json`), `${JSON.stringify({ path: '/api/v1/query', params: { query, time }, status: 200, body: { status: 'success', data: { resultType: 'vector', result: vector(rows) } } }, null, 1)}\n`);

mkdirSync(out, { recursive: true });
const job = summaryExprs('jobid', [], rangeSeconds);
write('summary-jobid-bytes', job.bytes, [
  [{ jobid: '7001', user: 'alice' }, 7650410496], // dd bs=1M: 48 MiB written and read back per run
  [{ jobid: '7002', user: 'bob' }, 18677760], // dd bs=512: many small writes
  [{ jobid: '7003', user: 'carol' }, 5636096], // python3: 64 KiB read per run
  [{ jobid: '7005', user: 'erin' }, 1342177280], // cp of a 16 MiB file
]);
write('summary-jobid-reason-calls', job.reasonCalls, [
  [{ jobid: '7002', class: 'red', reason: 'small_write' }, 36480],
  [{ jobid: '7003', class: 'yellow', reason: 'zero_seek' }, 17200],
  [{ jobid: '7003', class: 'yellow', reason: 'stat_unused' }, 86],
  [{ jobid: '7004', class: 'red', reason: 'stat_unused' }, 17114],
  [{ jobid: '7004', class: 'red', reason: 'failed_call' }, 258],
  [{ jobid: '7001', class: 'red', reason: 'open_nothing_transferred' }, 79],
]);
write('summary-jobid-reason-seconds', job.reasonSeconds, [
  [{ jobid: '7002', class: 'red', reason: 'small_write' }, 1.92],
  [{ jobid: '7003', class: 'yellow', reason: 'zero_seek' }, 0.031],
  [{ jobid: '7003', class: 'yellow', reason: 'stat_unused' }, 0.0009],
  [{ jobid: '7004', class: 'red', reason: 'stat_unused' }, 0.44],
  [{ jobid: '7004', class: 'red', reason: 'failed_call' }, 0.006],
  [{ jobid: '7001', class: 'red', reason: 'open_nothing_transferred' }, 0.002],
]);
const mount = summaryExprs('mount', [{ label: 'jobid', values: ['7001'] }], rangeSeconds);
write('summary-mount-7001-bytes', mount.bytes, [
  [{ mount: '/dev/shm' }, 3825205248],
  [{ mount: '/' }, 3825205248],
]);
// An exporter without the reason breakdown: empty results, as Prometheus answers for an absent metric.
write('summary-mount-7001-reason-calls', mount.reasonCalls, []);
write('summary-mount-7001-reason-seconds', mount.reasonSeconds, []);
for (const [name, values] of [['quote', ['x"} or vector(1) or {a="']], ['regex', ['7001', '.*']]]) {
  const e = summaryExprs('jobid', [{ label: 'jobid', values }], rangeSeconds);
  write(`injection-summary-jobid-${name}-bytes`, e.bytes, name === 'regex' ? [[{ jobid: '7001', user: 'alice' }, 7650410496]] : []);
  write(`injection-summary-jobid-${name}-reason-calls`, e.reasonCalls, name === 'regex' ? [[{ jobid: '7001', class: 'red', reason: 'open_nothing_transferred' }, 79]] : []);
  write(`injection-summary-jobid-${name}-reason-seconds`, e.reasonSeconds, name === 'regex' ? [[{ jobid: '7001', class: 'red', reason: 'open_nothing_transferred' }, 0.002]] : []);
}
console.log(`wrote ${out}`);
