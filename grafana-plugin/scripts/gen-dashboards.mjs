#!/usr/bin/env node
// Writes the provisioned dashboards (../dashboards/*.json at the repository root): cluster file
// system, job, host/GPU. Classic dashboard JSON; every metric named is in docs/metrics.md.
//   node scripts/gen-dashboards.mjs
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const out = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', 'dashboards');
const PROM = { type: 'prometheus', uid: '${prometheus}' };
const JOBIO = { type: 'jobio-jobio-datasource', uid: '${jobio}' };

let nextId = 1;
function panel(title, type, gridPos, targets, extra = {}) {
  return { id: nextId++, type, title, gridPos, datasource: targets[0]?.datasource ?? PROM, targets, options: {}, fieldConfig: { defaults: {}, overrides: [] }, ...extra };
}
const prom = (refId, expr, extra = {}) => ({ refId, datasource: PROM, expr, ...extra });
const jobio = (refId, query) => ({ refId, datasource: JOBIO, ...query });
const unit = (u) => ({ fieldConfig: { defaults: { unit: u }, overrides: [] } });

const dsVars = [
  { name: 'prometheus', label: 'Prometheus', type: 'datasource', query: 'prometheus', current: {}, hide: 0 },
  { name: 'jobio', label: 'jobio', type: 'datasource', query: 'jobio-jobio-datasource', current: {}, hide: 0 },
];
const jobioVar = (name, label, kind, filters, multi) => ({
  name,
  label,
  type: 'query',
  datasource: JOBIO,
  query: { kind, filters },
  definition: filters ? `${kind}(${Object.entries(filters).map(([k, v]) => `${k}=${v}`).join(', ')})` : kind,
  refresh: 2,
  multi,
  includeAll: multi,
  sort: 1,
  current: {},
  hide: 0,
});

function dashboard(uid, title, description, variables, panels, time = { from: 'now-6h', to: 'now' }) {
  return {
    uid,
    title,
    description,
    tags: ['jobio'],
    editable: true,
    schemaVersion: 39,
    version: 1,
    refresh: '1m',
    time,
    timezone: 'browser',
    templating: { list: [...dsVars, ...variables] },
    annotations: { list: [] },
    links: [{ title: 'jobio', type: 'dashboards', tags: ['jobio'], asDropdown: true }],
    panels,
  };
}

function cluster() {
  nextId = 1;
  const t = 'target=~"$target"';
  return dashboard(
    'jobio-cluster',
    'jobio / Cluster file system',
    'Which job and which user is loading the shared file system: per-target rates, the density of per-user rates (click a cell to drill down to its users), top talkers.',
    [jobioVar('target', 'Target', 'targets', undefined, true), jobioVar('user', 'User', 'users', undefined, true)],
    [
      panel('Operations per target', 'timeseries', { h: 8, w: 12, x: 0, y: 0 }, [prom('A', `sum by (target) (rate(jobio_lustre_jobstats_operations_total{${t}}[$__rate_interval]))`, { legendFormat: '{{target}}' })], unit('ops')),
      panel('Bandwidth per target (write up, read down)', 'timeseries', { h: 8, w: 12, x: 12, y: 0 }, [
        prom('A', `sum by (target) (rate(jobio_lustre_jobstats_write_bytes_total{${t}}[$__rate_interval]))`, { legendFormat: '{{target}} write' }),
        prom('B', `-sum by (target) (rate(jobio_lustre_jobstats_read_bytes_total{${t}}[$__rate_interval]))`, { legendFormat: '{{target}} read' }),
      ], unit('Bps')),
      panel(
        'Density of per-job operation rates per target, every job counted (click a cell: its jobs; click a job: $user)',
        'jobio-jobio-panel',
        { h: 12, w: 24, x: 0, y: 8 },
        [
          // Drill-down members: the jobs with their own series; the counts: the exporter's, over every job (B).
          prom('A', `sum by (target, user, jobid) (rate(jobio_lustre_jobstats_operations_total{${t},jobid!="_other"}[$__rate_interval]))`, { legendFormat: '{{target}} {{user}} {{jobid}}' }),
          prom('B', `sum by (decade) (jobio_lustre_jobstats_rate_jobs{${t},class="operations"})`, { legendFormat: '{{decade}}' }),
        ],
        { options: { view: 'heatmap', heatmap: { unit: 'ops', listLabels: 'target,user,jobid', drillVariable: 'user', drillLabel: 'user', showNoData: true, colorScheme: 'viridis' } } },
      ),
      panel('Top users by bytes (selected users)', 'table', { h: 9, w: 8, x: 0, y: 20 }, [jobio('A', { queryType: 'topTalkers', dimension: 'user', metric: 'bytes', limit: 10, instant: true, filters: { target: '$target', user: '$user' } })]),
      panel('Top jobs by operations (selected users)', 'table', { h: 9, w: 8, x: 8, y: 20 }, [jobio('A', { queryType: 'topTalkers', dimension: 'jobid', metric: 'operations', limit: 10, instant: true, filters: { target: '$target', user: '$user' } })]),
      panel('Top operations', 'table', { h: 9, w: 8, x: 16, y: 20 }, [jobio('A', { queryType: 'topTalkers', dimension: 'operation', metric: 'operations', limit: 10, instant: true, filters: { target: '$target', user: '$user' } })]),
      panel('Trend change per target (short 5m vs long 1h average; change = ±1)', 'timeseries', { h: 8, w: 16, x: 0, y: 29 }, [jobio('A', { queryType: 'trend', metric: 'operations', shortWindow: '5m', longWindow: '1h', changeRatio: 2, filters: { target: '$target' } })]),
      panel('Jobstats identifier quality', 'bargauge', { h: 8, w: 8, x: 16, y: 29 }, [prom('A', `sum by (quality) (jobio_lustre_jobstats_entries{${t}})`, { legendFormat: '{{quality}}', instant: true })]),
    ],
  );
}

function job() {
  nextId = 1;
  const j = 'jobid="$job"';
  return dashboard(
    'jobio-job',
    'jobio / Job',
    'Is this job’s I/O healthy? Red/yellow/green summary from the profiler, characterisation from Lustre jobstats.',
    [jobioVar('user', 'User', 'users', undefined, false), jobioVar('job', 'Job', 'jobs', { user: '$user' }, false)],
    [
      panel('I/O summary by mount (profiler)', 'jobio-jobio-panel', { h: 8, w: 12, x: 0, y: 0 }, [jobio('A', { queryType: 'summary', groupBy: 'mount', filters: { jobid: '$job' } })], { options: { view: 'summary', summary: { groupBy: 'mount', rollupRule: 'threshold', rollupBasis: 'time', redAt: 50, yellowAt: 50, ignoreBelow: 0, sortBy: 'red', maxGroups: 50, callsRefId: 'A', secondsRefId: 'B' } } }),
      panel('I/O summary of $user’s jobs (standard Prometheus queries)', 'jobio-jobio-panel', { h: 8, w: 12, x: 12, y: 0 }, [
        prom('A', 'sum by (jobid, class) (increase(jobio_profiler_calls_total{user="$user"}[$__range]))', { instant: true }),
        prom('B', 'sum by (jobid, class) (increase(jobio_profiler_io_seconds_total{user="$user"}[$__range]))', { instant: true }),
      ], { options: { view: 'summary', summary: { groupBy: 'jobid', rollupRule: 'threshold', rollupBasis: 'time', redAt: 50, yellowAt: 50, ignoreBelow: 0, sortBy: 'red', maxGroups: 50, callsRefId: 'A', secondsRefId: 'B' } } }),
      panel('Characterisation over the job’s life (c = 1 MiB per interval)', 'table', { h: 6, w: 24, x: 0, y: 8 }, [jobio('A', { queryType: 'characterisation', interval: '1m', thresholdBytes: 1048576, filters: { jobid: '$job' } })]),
      panel('Job bandwidth per target', 'timeseries', { h: 8, w: 12, x: 0, y: 14 }, [
        prom('A', `sum by (target) (rate(jobio_lustre_jobstats_write_bytes_total{${j}}[$__rate_interval]))`, { legendFormat: '{{target}} write' }),
        prom('B', `sum by (target) (rate(jobio_lustre_jobstats_read_bytes_total{${j}}[$__rate_interval]))`, { legendFormat: '{{target}} read' }),
      ], unit('Bps')),
      panel('Job metadata operations', 'timeseries', { h: 8, w: 12, x: 12, y: 14 }, [prom('A', `sum by (operation) (rate(jobio_lustre_jobstats_operations_total{${j}}[$__rate_interval]))`, { legendFormat: '{{operation}}' })], unit('ops')),
      panel('Profiler calls by class', 'timeseries', { h: 8, w: 12, x: 0, y: 22 }, [prom('A', `sum by (class) (rate(jobio_profiler_calls_total{${j}}[$__rate_interval]))`, { legendFormat: '{{class}}' })], unit('ops')),
      panel('Profiler bytes by size bin', 'timeseries', { h: 8, w: 12, x: 12, y: 22 }, [
        prom('A', `sum by (size) (rate(jobio_profiler_write_bytes_total{${j}}[$__rate_interval]))`, { legendFormat: 'write {{size}}' }),
        prom('B', `sum by (size) (rate(jobio_profiler_read_bytes_total{${j}}[$__rate_interval]))`, { legendFormat: 'read {{size}}' }),
      ], unit('Bps')),
      panel('CPU and memory (cgroup)', 'timeseries', { h: 8, w: 24, x: 0, y: 30 }, [
        prom('A', `sum(rate(jobio_job_cpu_user_seconds_total{${j}}[$__rate_interval]))`, { legendFormat: 'CPU user (cores)' }),
        prom('B', `sum(rate(jobio_job_cpu_system_seconds_total{${j}}[$__rate_interval]))`, { legendFormat: 'CPU system (cores)' }),
        prom('C', `sum(jobio_job_memory_bytes{${j}}) / 1e9`, { legendFormat: 'memory (GB)' }),
      ]),
    ],
  );
}

function hostGpu() {
  nextId = 1;
  const g = 'instance=~"$instance"';
  return dashboard(
    'jobio-host-gpu',
    'jobio / Host and GPU',
    'Was the GPU job waiting on I/O? GPU metrics beside the profiler’s I/O time on the same host.',
    [
      { name: 'instance', label: 'Host', type: 'query', datasource: PROM, query: { query: 'label_values(jobio_build_info, instance)', refId: 'v' }, definition: 'label_values(jobio_build_info, instance)', refresh: 2, multi: false, includeAll: false, current: {}, hide: 0 },
      jobioVar('job', 'Job', 'jobs', undefined, true),
    ],
    [
      panel('GPU utilisation', 'timeseries', { h: 8, w: 12, x: 0, y: 0 }, [prom('A', `jobio_gpu_utilization_ratio{${g}}`, { legendFormat: 'GPU {{gpu}}' })], unit('percentunit')),
      panel('Profiler I/O time by class (jobs on this host)', 'timeseries', { h: 8, w: 12, x: 12, y: 0 }, [prom('A', `sum by (class) (rate(jobio_profiler_io_seconds_total{${g}, jobid=~"$job"}[$__rate_interval]))`, { legendFormat: '{{class}}' })], unit('s')),
      panel('GPU memory used / total', 'timeseries', { h: 8, w: 8, x: 0, y: 8 }, [
        prom('A', `jobio_gpu_memory_used_bytes{${g}}`, { legendFormat: 'GPU {{gpu}} used' }),
        prom('B', `jobio_gpu_memory_total_bytes{${g}}`, { legendFormat: 'GPU {{gpu}} total' }),
      ], unit('bytes')),
      panel('GPU power and temperature', 'timeseries', { h: 8, w: 8, x: 8, y: 8 }, [
        prom('A', `jobio_gpu_power_watts{${g}}`, { legendFormat: 'GPU {{gpu}} W' }),
        prom('B', `jobio_gpu_temperature_celsius{${g}}`, { legendFormat: 'GPU {{gpu}} °C' }),
      ]),
      panel('PCIe traffic', 'timeseries', { h: 8, w: 8, x: 16, y: 8 }, [
        prom('A', `rate(jobio_gpu_pcie_receive_bytes_total{${g}}[$__rate_interval])`, { legendFormat: 'GPU {{gpu}} rx' }),
        prom('B', `rate(jobio_gpu_pcie_transmit_bytes_total{${g}}[$__rate_interval])`, { legendFormat: 'GPU {{gpu}} tx' }),
      ], unit('Bps')),
      panel('Energy over the range', 'stat', { h: 6, w: 8, x: 0, y: 16 }, [prom('A', `sum by (gpu) (increase(jobio_gpu_energy_joules_total{${g}}[$__range]))`, { legendFormat: 'GPU {{gpu}}', instant: true })], unit('joule')),
      panel('Jobs on GPUs', 'table', { h: 6, w: 8, x: 8, y: 16 }, [prom('A', `jobio_gpu_job_info{${g}} * on (instance, gpu) group_left (name) jobio_gpu_info{${g}}`, { instant: true, format: 'table' })]),
      panel('Profiler I/O summary of these jobs', 'jobio-jobio-panel', { h: 6, w: 8, x: 16, y: 16 }, [jobio('A', { queryType: 'summary', groupBy: 'jobid', filters: { jobid: '$job' } })], { options: { view: 'summary', summary: { groupBy: 'jobid', rollupRule: 'threshold', rollupBasis: 'time', redAt: 50, yellowAt: 50, ignoreBelow: 0, sortBy: 'red', maxGroups: 20, callsRefId: 'A', secondsRefId: 'B' } } }),
    ],
  );
}

// --- Lustre client view and profiler coverage (collector lustre_client, rules jobio-client-coverage.yml) ---
// Self-contained additions: each appends its panels (and variable) below a dashboard's existing ones.
const bottom = (d) => Math.max(0, ...d.panels.map((p) => p.gridPos.y + p.gridPos.h));
const clientBytes = (sel) => `rate(jobio_lustre_client_read_bytes_total{${sel}}[$__rate_interval]) + rate(jobio_lustre_client_write_bytes_total{${sel}}[$__rate_interval])`;

/** Cluster: density of per-node client bandwidth and metadata rates; a cell → its nodes → $client_node → its jobs → job dashboard. */
function withClientDensity(d) {
  const y = bottom(d);
  const heat = (unitName) => ({ view: 'heatmap', heatmap: { unit: unitName, listLabels: 'instance,jobid', drillVariable: 'client_node', drillLabel: 'instance', showNoData: true, colorScheme: 'viridis' } });
  d.templating.list.push({ name: 'client_node', label: 'Client node', type: 'query', datasource: PROM, query: { query: 'label_values(jobio_lustre_client_mount_info, instance)', refId: 'v' }, definition: 'label_values(jobio_lustre_client_mount_info, instance)', refresh: 2, multi: true, includeAll: true, current: {}, hide: 0 });
  d.panels.push(
    panel('Density of per-node Lustre client bandwidth (click a cell: its nodes; click a node: $client_node)', 'jobio-jobio-panel', { h: 10, w: 12, x: 0, y }, [prom('A', `sum by (instance, jobid) (${clientBytes('')})`, { legendFormat: '{{instance}} {{jobid}}' })], { options: heat('Bps') }),
    panel('Density of per-node Lustre client metadata rates (click a cell: its nodes; click a node: $client_node)', 'jobio-jobio-panel', { h: 10, w: 12, x: 12, y }, [prom('A', 'sum by (instance, jobid) (rate(jobio_lustre_client_operations_total{operation!~"read|write"}[$__rate_interval]))', { legendFormat: '{{instance}} {{jobid}}' })], { options: heat('ops') }),
    panel('Lustre client bandwidth of $client_node by job (click a series: the job dashboard)', 'timeseries', { h: 8, w: 24, x: 0, y: y + 10 }, [prom('A', `sum by (instance, jobid) (${clientBytes('instance=~"$client_node"')})`, { legendFormat: '{{instance}} {{jobid}}' })], {
      fieldConfig: { defaults: { unit: 'Bps', links: [{ title: 'Job ${__field.labels.jobid}', url: '/d/jobio-job/jobio-job?var-job=${__field.labels.jobid}&${__url_time_range}' }] }, overrides: [] },
    }),
  );
  return d;
}

/** Job: the share of the job's Lustre client bytes the profiler saw, per mount (the coverage rule's formula). */
function withCoverage(d) {
  const y = bottom(d);
  const j = 'jobid="$job"';
  const prof = (dir) => `sum by (mount) (rate(jobio_profiler_${dir}_bytes_total{${j}}[$__rate_interval]))`;
  const client = `sum by (mount) (${clientBytes(j)})`;
  d.panels.push(
    panel('Profiler coverage: share of the job’s Lustre client bytes the profiler saw (below 50 %: see docs/lustre.md)', 'timeseries', { h: 8, w: 16, x: 0, y }, [
      prom('A', `(${prof('read')} + ${prof('write')} or ${prof('read')} or ${prof('write')} or ${client} * 0) / (${client} > 0)`, { legendFormat: '{{mount}}' }),
    ], { fieldConfig: { defaults: { unit: 'percentunit', min: 0, thresholds: { mode: 'absolute', steps: [{ color: 'red', value: null }, { color: 'green', value: 0.5 }] }, custom: { thresholdsStyle: { mode: 'line' } } }, overrides: [] } }),
    panel('Lustre client bytes of the job’s nodes (client view)', 'timeseries', { h: 8, w: 8, x: 16, y }, [prom('A', `sum by (mount) (${clientBytes(j)})`, { legendFormat: '{{mount}}' })], unit('Bps')),
  );
  return d;
}

mkdirSync(out, { recursive: true });
for (const [file, d] of [['cluster-filesystem.json', withClientDensity(cluster())], ['job.json', withCoverage(job())], ['host-gpu.json', hostGpu()]]) {
  writeFileSync(join(out, file), `${JSON.stringify(d, null, 2)}\n`);
  console.log(`wrote dashboards/${file} (${d.panels.length} panels)`);
}
