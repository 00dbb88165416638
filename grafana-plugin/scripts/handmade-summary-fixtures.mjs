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
  writeFileSync(
    join(out, `${name}.json`),
    `${JSON.stringify({ path: '/api/v1/query', params: { query, time }, status: 200, body: { status: 'success', data: { resultType: 'vector', result: vector(rows) } } }, null, 1)}\n`,
  );

mkdirSync(out, { recursive: true });
const job = summaryExprs('jobid', [], rangeSeconds);
write('summary-jobid-bytes', job.bytes, [
  [{ jobid: '7001', user: 'alice' }, 7650410496], // dd bs=1M: 48 MiB written and read back per run
  [{ jobid: '7002', user: 'bob' }, 18677760], // dd bs=512: many small writes
  [{ jobid: '7003', user: 'carol' }, 5636096], // python3: 64 KiB read per run
  [{ jobid: '7005', user: 'erin' }, 1342177280], // cp of a 16 MiB file
]);
// Reasons split each job's real red/yellow totals (from the capture) by fixed shares, so that they
// add up to what the summary shows.
const real = (name) => JSON.parse(readFileSync(join(root, 'src', '__fixtures__', 'prometheus-real', `${name}.json`), 'utf8')).body.data.result;
const totalOf = (rows, jobid, cls) => Number(rows.find((r) => r.metric.jobid === jobid && r.metric.class === cls)?.value[1] ?? 0);
const split = [
  ['7002', 'red', 'small_write', 1],
  ['7003', 'yellow', 'zero_seek', 0.95],
  ['7003', 'yellow', 'stat_unused', 0.05],
  ['7004', 'red', 'stat_unused', 0.98],
  ['7004', 'red', 'failed_call', 0.02],
  ['7001', 'red', 'open_nothing_transferred', 1],
];
for (const [suffix, source] of [
  ['calls', 'summary-jobid-calls'],
  ['seconds', 'summary-jobid-seconds'],
]) {
  const rows = real(source);
  const query = suffix === 'calls' ? job.reasonCalls : job.reasonSeconds;
  write(
    `summary-jobid-reason-${suffix}`,
    query,
    split.map(([jobid, cls, reason, share]) => [{ jobid, class: cls, reason }, totalOf(rows, jobid, cls) * share]),
  );
}
const mount = summaryExprs('mount', [{ label: 'jobid', values: ['7001'] }], rangeSeconds);
write('summary-mount-7001-bytes', mount.bytes, [
  [{ mount: '/dev/shm' }, 3825205248],
  [{ mount: '/' }, 3825205248],
]);
// An exporter without the reason breakdown: empty results, as Prometheus answers for an absent metric.
write('summary-mount-7001-reason-calls', mount.reasonCalls, []);
write('summary-mount-7001-reason-seconds', mount.reasonSeconds, []);
for (const [name, values] of [
  ['quote', ['x"} or vector(1) or {a="']],
  ['regex', ['7001', '.*']],
]) {
  const e = summaryExprs('jobid', [{ label: 'jobid', values }], rangeSeconds);
  write(`injection-summary-jobid-${name}-bytes`, e.bytes, name === 'regex' ? [[{ jobid: '7001', user: 'alice' }, 7650410496]] : []);
  write(`injection-summary-jobid-${name}-reason-calls`, e.reasonCalls, name === 'regex' ? [[{ jobid: '7001', class: 'red', reason: 'open_nothing_transferred' }, 79]] : []);
  write(`injection-summary-jobid-${name}-reason-seconds`, e.reasonSeconds, name === 'regex' ? [[{ jobid: '7001', class: 'red', reason: 'open_nothing_transferred' }, 0.002]] : []);
}
console.log(`wrote ${out}`);
