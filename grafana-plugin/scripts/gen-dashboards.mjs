#!/usr/bin/env node
// Writes the provisioned dashboards (../dashboards/*.json at the repository root): cluster file
// system, job, host/GPU. Classic dashboard JSON; every metric named is in docs/metrics.md or is a
// recording rule of provisioning/prometheus/rules/jobio-recording.yml.
//
// Grafana 11.0 and later, graceful degradation: the core views (rates, bandwidth, top jobs and users,
// GPU, CPU/memory) and every template variable use only the standard Prometheus data source; the jobio
// panel and data source add the density heatmap, the red/yellow/green summary, characterisation and
// trend. Aggregating panels read the recording rules (5 m rates computed once by Prometheus), so a
// cluster view does not sum thousands of raw series on every refresh.
//
// Every panel has a description (what it shows, how to read it; a test checks), every table with a
// jobid column links each job to the job dashboard (jobTable/jobLinks), and titles never name a
// multi-value variable (it would read "All"). To add panels: append them with `bottom(d)` as the
// with… functions below do.
//   node scripts/gen-dashboards.mjs
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

// `--out DIR` writes elsewhere (a test compares that with the committed dashboards).
const outFlag = process.argv.indexOf('--out');
const out = outFlag > 0 ? resolve(process.argv[outFlag + 1] ?? '.') : resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', 'dashboards');
const PROM = { type: 'prometheus', uid: '${prometheus}' };
const JOBIO = { type: 'jobio-jobio-datasource', uid: '${jobio}' };

let nextId = 1;
/** A panel; `extra` carries its `description` (required by the tests) and any options. */
function panel(title, type, gridPos, targets, extra = {}) {
  return { id: nextId++, type, title, gridPos, datasource: targets[0]?.datasource ?? PROM, targets, options: {}, fieldConfig: { defaults: {}, overrides: [] }, ...extra };
}
/** `extra` with a description added (merged, so unit() and table() results keep theirs). */
const about = (description, extra = {}) => ({ ...extra, description });
const prom = (refId, expr, extra = {}) => ({ refId, datasource: PROM, expr, ...extra });
const jobio = (refId, query) => ({ refId, datasource: JOBIO, ...query });
// The summary panel's options in full, as Grafana stores them: the panel's defaults (DEFAULT_SUMMARY in
// src/panel/types.ts) with a panel's own choices over them.
const SUMMARY_DEFAULTS = {
  groupBy: 'jobid',
  rollupRule: 'threshold',
  rollupBasis: 'time',
  redAt: 50,
  yellowAt: 50,
  ignoreBelow: 0,
  sortBy: 'red',
  maxGroups: 50,
  callsRefId: 'A',
  secondsRefId: 'B',
  bytesRefId: 'C',
  jobDashboard: 'jobio-job',
};
const summaryOptions = (choices = {}) => ({ options: { view: 'summary', summary: { ...SUMMARY_DEFAULTS, ...choices } } });
const unit = (u) => ({ fieldConfig: { defaults: { unit: u }, overrides: [] } });
/** A second y axis on the right for the series of one query (its own unit). */
const rightAxis = (refId, u) => ({
  matcher: { id: 'byFrameRefID', options: refId },
  properties: [
    { id: 'unit', value: u },
    { id: 'custom.axisPlacement', value: 'right' },
  ],
});
/** The job dashboard for the job of a table row (its user too, when the row has one). */
const JOB_URL = '/d/jobio-job/jobio-job?var-jobid=${__value.raw}&var-user=${__data.fields.user}&${__url_time_range}';
/** A field override: each value of the `jobid` column opens that job's dashboard. */
const jobLinks = (field = 'jobid') => ({
  matcher: { id: 'byName', options: field },
  properties: [{ id: 'links', value: [{ title: 'Open job ${__value.raw}', url: JOB_URL }] }],
});
/** Instant table of a Prometheus query, label columns kept, the value named; job ids link to the job dashboard. */
const table = (valueName, u) => ({
  fieldConfig: { defaults: { unit: u }, overrides: [{ matcher: { id: 'byName', options: 'Value' }, properties: [{ id: 'displayName', value: valueName }] }, jobLinks()] },
  transformations: [{ id: 'organize', options: { excludeByName: { Time: true } } }],
});

// The provisioned data sources (provisioning/grafana/datasources/jobio.yaml) by uid, so the dashboards
// never follow a site's default data source; any other of the same type can be chosen in the menu.
const PROVISIONED = { prometheus: { uid: 'jobio-prometheus', name: 'Prometheus (jobio)' }, jobio: { uid: 'jobio', name: 'jobio' } };
const dsVars = [
  { name: 'prometheus', label: 'Prometheus', type: 'datasource', query: 'prometheus', current: { text: PROVISIONED.prometheus.name, value: PROVISIONED.prometheus.uid }, hide: 0 },
  { name: 'jobio', label: 'jobio', type: 'datasource', query: 'jobio-jobio-datasource', current: { text: PROVISIONED.jobio.name, value: PROVISIONED.jobio.uid }, hide: 0 },
];
/** Grafana's variable sort: job ids in numeric order, newest (largest) first. */
const NUMERIC_DESC = 4;
/** Template variable from the standard Prometheus data source (label_values), so it works without the jobio plugin. */
const promVar = (name, label, metricSelector, labelName, multi) => {
  const q = `label_values(${metricSelector}, ${labelName})`;
  const sort = labelName === 'jobid' ? NUMERIC_DESC : 1;
  return { name, label, type: 'query', datasource: PROM, query: { query: q, refId: `${name}-values` }, definition: q, refresh: 2, multi, includeAll: multi, sort, current: {}, hide: 0 };
};
// Recording rules (provisioning/prometheus/rules/jobio-recording.yml): 5 m rates per job and target.
/** The per-job density heatmap (operations): a cell lists its jobs (target, user, jobid); a click narrows
 * the dashboard to a user, a job links to its job dashboard. Shared by the class and per-operation views. */
const JOB_DENSITY_OPTIONS = {
  view: 'heatmap',
  heatmap: { unit: 'ops', listLabels: 'target,user,jobid', drillVariable: 'user', drillLabel: 'user', jobLabel: 'jobid', jobDashboard: 'jobio-job', showNoData: true, colorScheme: 'viridis' },
};

const R = {
  jobOps: 'jobid_target_operation:jobio_lustre_jobstats_operations:rate5m',
  jobRead: 'jobid_target:jobio_lustre_jobstats_read_bytes:rate5m',
  jobWrite: 'jobid_target:jobio_lustre_jobstats_write_bytes:rate5m',
  targetOps: 'target:jobio_lustre_jobstats_operations:rate5m',
  targetRead: 'target:jobio_lustre_jobstats_read_bytes:rate5m',
  targetWrite: 'target:jobio_lustre_jobstats_write_bytes:rate5m',
  jobCalls: 'jobid_class:jobio_profiler_calls:rate5m',
  jobIoSeconds: 'jobid_class:jobio_profiler_io_seconds:rate5m',
};
/** Both byte rates of a selector in one instant vector (distinct __name__, so no duplicate label sets). */
const bothBytes = (read, write, sel) => `{__name__=~"${read}|${write}", ${sel}}`;
// Every job has jobstats or profiler series; both carry jobid and user.
const JOB_SERIES = '{__name__=~"jobio_lustre_jobstats_operations_total|jobio_profiler_calls_total"';

// Annotations (Prometheus queries of the dashboard's data source; a series' run of samples is a region).
const annotation = (name, iconColor, expr, titleFormat, textFormat, tagKeys) => ({
  name,
  datasource: PROM,
  enable: true,
  hide: false,
  iconColor,
  expr,
  step: '1m',
  titleFormat,
  textFormat,
  tagKeys,
  useValueForTime: false,
});
/** jobio's alerts while they fire (ALERTS, the series Prometheus writes for each active alert), `sel` narrowing them. */
const alertAnnotation = (sel) =>
  annotation(
    'jobio alerts firing',
    'red',
    `ALERTS{alertstate="firing", alertname=~"Jobio.*"${sel}}`,
    '{{alertname}}',
    '{{alertname}} {{jobid}} {{user}} {{target}}',
    'alertname,severity,jobid,target',
  );

function dashboard(uid, title, description, variables, panels, time = { from: 'now-6h', to: 'now' }, annotations = []) {
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
    annotations: { list: annotations },
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
    [promVar('target', 'Target', 'jobio_lustre_jobstats_entries', 'target', true), promVar('user', 'User', `jobio_lustre_jobstats_operations_total{${t}}`, 'user', true)],
    [
      panel(
        'Operations per target (5 m rate)',
        'timeseries',
        { h: 8, w: 12, x: 0, y: 0 },
        [prom('A', `sum by (target) (${R.targetOps}{${t}})`, { legendFormat: '{{target}}' })],
        about(
          'Requests per second on each Lustre target (MDTs: metadata; OSTs: data), summed over every job from jobstats, 5-minute rate. A target far above the others is where to look first.',
          unit('ops'),
        ),
      ),
      panel(
        'Bandwidth per target (5 m rate; write up, read down)',
        'timeseries',
        { h: 8, w: 12, x: 12, y: 0 },
        [prom('A', `sum by (target) (${R.targetWrite}{${t}})`, { legendFormat: '{{target}} write' }), prom('B', `-sum by (target) (${R.targetRead}{${t}})`, { legendFormat: '{{target}} read' })],
        about('Bytes per second written (above zero) and read (below zero) on each target, every job summed, 5-minute rate.', unit('Bps')),
      ),
      panel(
        'Density of per-job operation rates per target, every job counted (click a cell: its jobs; click a job: sets User)',
        'jobio-jobio-panel',
        { h: 12, w: 24, x: 0, y: 8 },
        [
          // Drill-down members: the jobs with their own series; the counts: the exporter's, over every job (B).
          prom('A', `sum by (target, user, jobid) (${R.jobOps}{${t},jobid!="_other"})`, { legendFormat: '{{target}} {{user}} {{jobid}}' }),
          prom('B', `sum by (decade) (jobio_lustre_jobstats_rate_jobs{${t},class="operations"})`, { legendFormat: '{{decade}}' }),
        ],
        {
          // Steps on the density window's ends (30 s by default): two replicas hold the same window there.
          interval: '30s',
          options: JOB_DENSITY_OPTIONS,
          description:
            'Time across, decades of per-job request rate up (1–10/s, 10–100/s …); a cell’s colour is how many jobs ran at that rate then (the exporter counts every job, those folded into _other included). Click a cell for its jobs, largest first, each with a link to its job dashboard; click a job (or “Set”) to narrow the tables below to its user.',
        },
      ),
      panel(
        'Top users by bytes now (5 m rate, selected users)',
        'table',
        { h: 9, w: 8, x: 0, y: 20 },
        [prom('A', `topk(10, sum by (user) (${bothBytes(R.jobRead, R.jobWrite, `${t}, user=~"$user"`)}))`, { instant: true, format: 'table' })],
        about('The 10 users moving the most bytes per second now (read plus write, 5-minute rate), among the users selected above.', table('bytes/s', 'Bps')),
      ),
      panel(
        'Top jobs by operations now (5 m rate, selected users)',
        'table',
        { h: 9, w: 8, x: 8, y: 20 },
        [prom('A', `topk(10, sum by (jobid, user) (${R.jobOps}{${t}, user=~"$user"}))`, { instant: true, format: 'table' })],
        about('The 10 jobs making the most requests per second now (5-minute rate), with their users. Click a job id to open its job dashboard.', table('operations/s', 'ops')),
      ),
      panel(
        'Top operations now (5 m rate)',
        'table',
        { h: 9, w: 8, x: 16, y: 20 },
        [prom('A', `topk(10, sum by (operation) (${R.jobOps}{${t}, user=~"$user"}))`, { instant: true, format: 'table' })],
        about('Which Lustre operations (open, getattr, write …) the selected users make most now, per second (5-minute rate).', table('operations/s', 'ops')),
      ),
      panel(
        'Trend change per target (short 5m vs long 1h average; change = ±1)',
        'timeseries',
        { h: 8, w: 16, x: 0, y: 29 },
        [jobio('A', { queryType: 'trend', metric: 'operations', shortWindow: '5m', longWindow: '1h', changeRatio: 2, filters: { target: '$target' } })],
        about(
          'Each target’s request rate averaged over 5 minutes against its 1-hour average (jobio data source): the change series is +1 when the short average rises above twice the long one, −1 when it falls below half, 0 otherwise.',
        ),
      ),
      panel(
        'Jobstats identifier quality',
        'bargauge',
        { h: 8, w: 8, x: 16, y: 29 },
        [prom('A', `sum by (quality, uid_class) (jobio_lustre_jobstats_entries{${t}})`, { legendFormat: '{{quality}} {{uid_class}}', instant: true })],
        about(
          'job_stats entries in the last read, by whether their identifier matched the jobid_name format: correct, missing_jobid (a format with %j but no job id) or malformed (their load goes to jobid="_other"); and by whose they are: system (uid up to --collector.lustre_jobstats.system-uid-max, default 999: root, daemons), non_system (the users whose jobs matter) or none (no uid in the id). Many malformed entries mean the servers’ jobid_var or jobid_name does not match the exporter’s --collector.lustre_jobstats.jobid-format; many missing_jobid non_system entries mean users’ jobs that cannot be named.',
        ),
      ),
    ],
    undefined,
    [alertAnnotation('')],
  );
}

function job() {
  nextId = 1;
  const j = 'jobid="$jobid"';
  return dashboard(
    'jobio-job',
    'jobio / Job',
    'Is this job’s I/O healthy? Red/yellow/green summary from the profiler, characterisation from Lustre jobstats.',
    [promVar('user', 'User', `${JOB_SERIES}}`, 'user', false), promVar('jobid', 'Job', `${JOB_SERIES}, user="$user"}`, 'jobid', false)],
    [
      panel(
        'I/O summary by mount (profiler)',
        'jobio-jobio-panel',
        { h: 8, w: 12, x: 0, y: 0 },
        [jobio('A', { queryType: 'summary', groupBy: 'mount', filters: { jobid: '$jobid' } })],
        about(
          'The job’s I/O calls as the profiler classified them, per mount: the share of I/O time and of calls that was red (bad: tiny, failed, zero-byte …), yellow and green, with the status letter R/Y/G. Hover a row for the figures and the reasons behind the red and yellow calls. Empty when the job ran without the profiler (jobio run, or LD_PRELOAD of libjobio).',
          summaryOptions({ groupBy: 'mount' }),
        ),
      ),
      panel(
        'I/O summary of $user’s jobs (standard Prometheus queries; click a job to open it)',
        'jobio-jobio-panel',
        { h: 8, w: 12, x: 12, y: 0 },
        [
          prom('A', 'sum by (jobid, user, class) (increase(jobio_profiler_calls_total{user="$user"}[$__range]))', { instant: true }),
          prom('B', 'sum by (jobid, user, class) (increase(jobio_profiler_io_seconds_total{user="$user"}[$__range]))', { instant: true }),
          // Read and write series differ only by name: tagged apart before `or` (increase drops the name).
          prom(
            'C',
            'sum by (jobid, user) (label_replace(increase(jobio_profiler_read_bytes_total{user="$user"}[$__range]), "direction", "read", "", "") or label_replace(increase(jobio_profiler_write_bytes_total{user="$user"}[$__range]), "direction", "write", "", ""))',
            { instant: true },
          ),
        ],
        about(
          'Every profiled job of the user over the time range, worst first: status (R, Y, G), volume, the shares of I/O time and calls by class. Plain Prometheus queries, so it works without the jobio data source. Click a job to open it here.',
          summaryOptions(),
        ),
      ),
      panel(
        'Characterisation over the job’s life (c = 1 MiB per interval)',
        'table',
        { h: 6, w: 24, x: 0, y: 8 },
        [jobio('A', { queryType: 'characterisation', interval: '1m', thresholdBytes: 1048576, filters: { jobid: '$jobid' } })],
        about(
          'From the servers’ view (jobstats, every Lustre target): total volume, peak bandwidth and IOPS, I/O intensity (the share of 1-minute intervals in which some server moved more than 1 MiB for the job), burstiness, parallel intensity P (1: all its servers work in each I/O interval, 0: one at a time) and the same three for reads and for writes apart.',
        ),
      ),
      panel(
        'Job bandwidth per target (5 m rate)',
        'timeseries',
        { h: 8, w: 12, x: 0, y: 14 },
        [prom('A', `sum by (target) (${R.jobWrite}{${j}})`, { legendFormat: '{{target}} write' }), prom('B', `sum by (target) (${R.jobRead}{${j}})`, { legendFormat: '{{target}} read' })],
        about(
          'Bytes per second the job wrote and read on each Lustre target (jobstats, 5-minute rate). One OST carrying all of a large read while the others idle means an unstriped file.',
          unit('Bps'),
        ),
      ),
      panel(
        'Job operations by type (5 m rate)',
        'timeseries',
        { h: 8, w: 12, x: 12, y: 14 },
        [prom('A', `sum by (operation) (${R.jobOps}{${j}})`, { legendFormat: '{{operation}}' })],
        about(
          'The job’s requests per second on the Lustre servers by operation (open, close, getattr … and read, write), jobstats, 5-minute rate: thousands of opens or getattrs a second are a metadata storm.',
          unit('ops'),
        ),
      ),
      panel(
        'Profiler calls by class (5 m rate)',
        'timeseries',
        { h: 8, w: 12, x: 0, y: 22 },
        [prom('A', `sum by (class) (${R.jobCalls}{${j}})`, { legendFormat: '{{class}}' })],
        about('I/O calls per second the profiler counted in the job, by red/yellow/green class (5-minute rate).', unit('ops')),
      ),
      panel(
        'Profiler bytes by size bin',
        'timeseries',
        { h: 8, w: 12, x: 12, y: 22 },
        [
          prom('A', `sum by (size) (rate(jobio_profiler_write_bytes_total{${j}}[$__rate_interval]))`, { legendFormat: 'write {{size}}' }),
          prom('B', `sum by (size) (rate(jobio_profiler_read_bytes_total{${j}}[$__rate_interval]))`, { legendFormat: 'read {{size}}' }),
        ],
        about(
          'Bytes per second the job’s processes wrote and read, by transfer size: small (below 32 KiB), medium, large (128 MiB and more). Much volume in small transfers is the tiny-I/O pattern.',
          unit('Bps'),
        ),
      ),
      panel(
        'CPU (cgroup; cores busy)',
        'timeseries',
        { h: 8, w: 12, x: 0, y: 30 },
        [
          prom('A', `sum(rate(jobio_job_cpu_user_seconds_total{${j}}[$__rate_interval]))`, { legendFormat: 'user' }),
          prom('B', `sum(rate(jobio_job_cpu_system_seconds_total{${j}}[$__rate_interval]))`, { legendFormat: 'system' }),
        ],
        about('CPU time the job’s cgroup used per second, user and system stacked: the number of cores kept busy. Low CPU while the I/O panels are busy means the job waits on I/O.', {
          fieldConfig: { defaults: { unit: 'short', custom: { axisLabel: 'cores', stacking: { mode: 'normal', group: 'A' }, fillOpacity: 20 } }, overrides: [] },
        }),
      ),
      panel(
        'Memory (cgroup)',
        'timeseries',
        { h: 8, w: 12, x: 12, y: 30 },
        [prom('A', `sum(jobio_job_memory_bytes{${j}})`, { legendFormat: 'now' }), prom('B', `sum(jobio_job_memory_peak_bytes{${j}})`, { legendFormat: 'peak' })],
        about('Memory of the job’s cgroup (page cache included), summed over its nodes, and its peak.', unit('bytes')),
      ),
      panel(
        'Why calls were red or yellow, by program (profiler; calls in the time range)',
        'table',
        { h: 8, w: 16, x: 0, y: 38 },
        [prom('A', `sort_desc(sum by (program, role, class, reason, mount) (increase(jobio_profiler_reason_calls_total{${j}}[$__range])) > 0)`, { instant: true, format: 'table' })],
        about(
          'The job’s red and yellow calls in the time range by the reason for their class, the program that made them (its role: the job’s own code, a runtime, a library, a tool or a shell) and the mount, most first.',
          table('calls', 'short'),
        ),
      ),
      panel(
        'Not seen by the profiler (processes, mapped bytes)',
        'table',
        { h: 8, w: 8, x: 16, y: 38 },
        [
          prom('A', `sum by (kind) (increase(jobio_profiler_unseen_processes_total{${j}}[$__range])) > 0`, { instant: true, format: 'table' }),
          prom('B', `sum by (kind) (increase(jobio_profiler_unseen_bytes_total{${j}}[$__range])) > 0`, { instant: true, format: 'table' }),
        ],
        {
          description:
            'What the profiler could not see in the job over the time range: processes not profiled (static or setuid programs, a cleared environment), processes using asynchronous I/O (io_uring, POSIX AIO) or file mappings, and the length of the files mapped. Their I/O is missing from the panels above.',
          fieldConfig: {
            defaults: { unit: 'short' },
            overrides: [
              { matcher: { id: 'byName', options: 'Value #A' }, properties: [{ id: 'displayName', value: 'processes' }] },
              {
                matcher: { id: 'byName', options: 'Value #B' },
                properties: [
                  { id: 'displayName', value: 'bytes out of sight' },
                  { id: 'unit', value: 'bytes' },
                ],
              },
            ],
          },
          // one row per kind: the processes and, for file mappings, the mapped bytes beside them
          transformations: [
            { id: 'merge', options: {} },
            { id: 'organize', options: { excludeByName: { Time: true } } },
          ],
        },
      ),
    ],
    undefined,
    [
      alertAnnotation(', jobid="$jobid"'),
      // The job's run as the scheduler saw it: jobio_job_info exists from the job's start to its end (a region).
      annotation('Job running (scheduler)', 'blue', 'max by (jobid) (jobio_job_info{jobid="$jobid"})', 'job {{jobid}}', 'job {{jobid}} running (jobio_job_info)', 'jobid'),
    ],
  );
}

/** Moves every panel of a dashboard down by `h` rows (to put a header above them). */
function shiftDown(d, h) {
  for (const p of d.panels) {
    p.gridPos = { ...p.gridPos, y: p.gridPos.y + h };
  }
  return d;
}

/** Job: a header from jobio_job_info (collector job_info): who ran it, in which account and where, and when it ran. */
function withJobHeader(d) {
  const info = 'jobio_job_info{jobid="$jobid"}';
  const noInfo = 'no jobio_job_info for this job: the job_info collector (docs/schedulers.md) runs on no node of it';
  shiftDown(d, 4);
  d.panels.unshift(
    panel(
      'Job $jobid (scheduler metadata)',
      'table',
      { h: 4, w: 16, x: 0, y: 0 },
      [prom('A', `max by (jobid, user, account, partition, job_name, work_dir) (last_over_time(${info}[$__range]))`, { instant: true, format: 'table' })],
      about('Who ran the job, in which account and partition, under which name and in which directory, from the job_info collector on its nodes (the prolog’s job spool, or squeue).', {
        fieldConfig: { defaults: { noValue: noInfo }, overrides: [jobLinks()] },
        transformations: [
          {
            id: 'organize',
            options: {
              excludeByName: { Time: true, Value: true },
              indexByName: { jobid: 0, user: 1, account: 2, partition: 3, job_name: 4, work_dir: 5 },
              renameByName: { job_name: 'name', work_dir: 'working directory' },
            },
          },
        ],
      }),
    ),
    panel(
      'Seen running (first and last sample in the range)',
      'stat',
      { h: 4, w: 8, x: 16, y: 0 },
      [
        prom('A', `min(min_over_time(timestamp(${info})[$__range:1m])) * 1000`, { instant: true, legendFormat: 'first seen' }),
        prom('B', `max(max_over_time(timestamp(${info})[$__range:1m])) * 1000`, { instant: true, legendFormat: 'last seen' }),
      ],
      about(
        'When jobio_job_info of the job was first and last sampled in the time range: its start and, for a job that ended, its end (to the scrape interval). Also drawn as a region on the time series (annotation “Job running”).',
        {
          fieldConfig: { defaults: { unit: 'dateTimeAsIso', noValue: '–' }, overrides: [] },
          options: { reduceOptions: { calcs: ['lastNotNull'], fields: '', values: false }, textMode: 'value_and_name', colorMode: 'none', graphMode: 'none' },
        },
      ),
    ),
  );
  return d;
}

function hostGpu() {
  nextId = 1;
  const g = 'instance="$instance"';
  return dashboard(
    'jobio-host-gpu',
    'jobio / Host and GPU',
    'Was the GPU job waiting on I/O? GPU metrics beside the profiler’s I/O time on the same host.',
    [
      {
        name: 'instance',
        label: 'Host',
        type: 'query',
        datasource: PROM,
        query: { query: 'label_values(jobio_build_info, instance)', refId: 'v' },
        definition: 'label_values(jobio_build_info, instance)',
        refresh: 2,
        multi: false,
        includeAll: false,
        current: {},
        hide: 0,
      },
      promVar('jobid', 'Job', `${JOB_SERIES}, ${g}}`, 'jobid', true),
    ],
    [
      panel(
        'GPU utilisation',
        'timeseries',
        { h: 8, w: 12, x: 0, y: 0 },
        [prom('A', `jobio_gpu_utilization_ratio{${g}}`, { legendFormat: 'GPU {{gpu}}' })],
        about(
          'Share of time each GPU of the host had a kernel running (NVML). Read it beside the I/O time on the right: a GPU idle while I/O time is high is a job waiting on I/O.',
          unit('percentunit'),
        ),
      ),
      panel(
        'Profiler I/O time by class (jobs on this host; seconds in I/O per second)',
        'timeseries',
        { h: 8, w: 12, x: 12, y: 0 },
        [prom('A', `sum by (class) (rate(jobio_profiler_io_seconds_total{${g}, jobid=~"$jobid"}[$__rate_interval]))`, { legendFormat: '{{class}}' })],
        about(
          'Seconds spent in I/O calls per second by the selected jobs’ processes on this host, by red/yellow/green class (estimated from sampled call durations): 2 means two processes in I/O all the time.',
          {
            fieldConfig: { defaults: { unit: 'suffix: s/s', custom: { axisLabel: 'I/O seconds per second' } }, overrides: [] },
          },
        ),
      ),
      panel(
        'GPU memory used / total',
        'timeseries',
        { h: 8, w: 8, x: 0, y: 8 },
        [prom('A', `jobio_gpu_memory_used_bytes{${g}}`, { legendFormat: 'GPU {{gpu}} used' }), prom('B', `jobio_gpu_memory_total_bytes{${g}}`, { legendFormat: 'GPU {{gpu}} total' })],
        about('Memory used on each GPU against its total (NVML).', unit('bytes')),
      ),
      panel(
        'GPU power (left) and temperature (right)',
        'timeseries',
        { h: 8, w: 8, x: 8, y: 8 },
        [prom('A', `jobio_gpu_power_watts{${g}}`, { legendFormat: 'GPU {{gpu}} power' }), prom('B', `jobio_gpu_temperature_celsius{${g}}`, { legendFormat: 'GPU {{gpu}} temperature' })],
        about('Power draw of each GPU in watts (left axis) and its temperature in °C (right axis), from NVML.', {
          fieldConfig: { defaults: { unit: 'watt' }, overrides: [rightAxis('B', 'celsius')] },
        }),
      ),
      panel(
        'PCIe traffic',
        'timeseries',
        { h: 8, w: 8, x: 16, y: 8 },
        [
          prom('A', `rate(jobio_gpu_pcie_receive_bytes_total{${g}}[$__rate_interval])`, { legendFormat: 'GPU {{gpu}} rx' }),
          prom('B', `rate(jobio_gpu_pcie_transmit_bytes_total{${g}}[$__rate_interval])`, { legendFormat: 'GPU {{gpu}} tx' }),
        ],
        about('Bytes per second each GPU received from and sent to the host over PCIe (NVML throughput samples integrated by the exporter).', unit('Bps')),
      ),
      panel(
        'Energy over the range',
        'stat',
        { h: 6, w: 8, x: 0, y: 16 },
        [prom('A', `sum by (gpu) (increase(jobio_gpu_energy_joules_total{${g}}[$__range]))`, { legendFormat: 'GPU {{gpu}}', instant: true })],
        about('Energy each GPU used over the dashboard’s time range, in joules (NVML’s energy counter).', unit('joule')),
      ),
      panel(
        'Jobs on GPUs',
        'table',
        { h: 6, w: 8, x: 8, y: 16 },
        [prom('A', `jobio_gpu_job_info{${g}} * on (instance, gpu) group_left (name) jobio_gpu_info{${g}}`, { instant: true, format: 'table' })],
        about('The jobs with processes on each GPU of the host now, with the GPU’s model. Click a job id to open its job dashboard.', {
          fieldConfig: { defaults: {}, overrides: [jobLinks()] },
          transformations: [{ id: 'organize', options: { excludeByName: { Time: true, Value: true, __name__: true } } }],
        }),
      ),
      panel(
        'Profiler I/O summary of these jobs',
        'jobio-jobio-panel',
        { h: 6, w: 8, x: 16, y: 16 },
        [jobio('A', { queryType: 'summary', groupBy: 'jobid', filters: { jobid: '$jobid' } })],
        about(
          'The red/yellow/green summary of the selected jobs’ profiled I/O (status R/Y/G, user, volume, time and call shares); click a job to open its job dashboard.',
          summaryOptions({ maxGroups: 20 }),
        ),
      ),
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
  const heat = (unitName) => ({
    view: 'heatmap',
    heatmap: { unit: unitName, listLabels: 'instance,jobid', drillVariable: 'client_node', drillLabel: 'instance', showNoData: true, colorScheme: 'viridis' },
  });
  d.templating.list.push({
    name: 'client_node',
    label: 'Client node',
    type: 'query',
    datasource: PROM,
    query: { query: 'label_values(jobio_lustre_client_mount_info, instance)', refId: 'v' },
    definition: 'label_values(jobio_lustre_client_mount_info, instance)',
    refresh: 2,
    multi: true,
    includeAll: true,
    current: {},
    hide: 0,
  });
  d.panels.push(
    panel(
      'Density of per-node Lustre client bandwidth (click a cell: its nodes; click a node: sets Client node)',
      'jobio-jobio-panel',
      { h: 10, w: 12, x: 0, y },
      [prom('A', `sum by (instance, jobid) (${clientBytes('')})`, { legendFormat: '{{instance}} {{jobid}}' })],
      about(
        'From the compute nodes’ Lustre clients (llite stats): how many nodes moved data at each decade of bytes per second, over time. Click a cell for its nodes and their jobs; click a node to show it in the panel below.',
        { options: heat('Bps') },
      ),
    ),
    panel(
      'Density of per-node Lustre client metadata rates (click a cell: its nodes; click a node: sets Client node)',
      'jobio-jobio-panel',
      { h: 10, w: 12, x: 12, y },
      [prom('A', 'sum by (instance, jobid) (rate(jobio_lustre_client_operations_total{operation!~"read|write"}[$__rate_interval]))', { legendFormat: '{{instance}} {{jobid}}' })],
      about(
        'From the compute nodes’ Lustre clients: how many nodes made metadata requests (every llite operation but read and write) at each decade of rate, over time. Click a cell for its nodes; click a node to show it below.',
        {
          options: heat('ops'),
        },
      ),
    ),
    panel(
      'Lustre client bandwidth of the selected client nodes by job (click a series: the job dashboard)',
      'timeseries',
      { h: 8, w: 24, x: 0, y: y + 10 },
      [prom('A', `sum by (instance, jobid) (${clientBytes('instance=~"$client_node"')})`, { legendFormat: '{{instance}} {{jobid}}' })],
      {
        description: 'Lustre client bytes per second (read plus write) of the nodes chosen in the Client node variable, one series per node and job. Click a series to open its job’s dashboard.',
        fieldConfig: {
          defaults: { unit: 'Bps', links: [{ title: 'Job ${__field.labels.jobid}', url: '/d/jobio-job/jobio-job?var-jobid=${__field.labels.jobid}&${__url_time_range}' }] },
          overrides: [],
        },
      },
    ),
  );
  return d;
}

/** Job: the share of the job's Lustre client bytes the profiler saw, per mount (the coverage rule's formula). */
function withCoverage(d) {
  const y = bottom(d);
  const j = 'jobid="$jobid"';
  const prof = (dir) => `sum by (mount) (rate(jobio_profiler_${dir}_bytes_total{${j}}[$__rate_interval]))`;
  const client = `sum by (mount) (${clientBytes(j)})`;
  d.panels.push(
    panel(
      'Profiler coverage: share of the job’s Lustre client bytes the profiler saw (below 50 %: see docs/lustre.md)',
      'timeseries',
      { h: 8, w: 16, x: 0, y },
      [prom('A', `(${prof('read')} + ${prof('write')} or ${prof('read')} or ${prof('write')} or ${client} * 0) / (${client} > 0)`, { legendFormat: '{{mount}}' })],
      {
        description:
          'The profiler’s read and write bytes over the Lustre client’s (llite) for the job’s nodes, per mount. Below the 50 % line the profiler misses most of the job’s I/O: static or Go binaries, mmap, io_uring, or processes started without LD_PRELOAD.',
        fieldConfig: {
          defaults: {
            unit: 'percentunit',
            min: 0,
            thresholds: {
              mode: 'absolute',
              steps: [
                { color: 'red', value: null },
                { color: 'green', value: 0.5 },
              ],
            },
            custom: { thresholdsStyle: { mode: 'line' } },
          },
          overrides: [],
        },
      },
    ),
    panel(
      'Lustre client bytes of the job’s nodes (client view)',
      'timeseries',
      { h: 8, w: 8, x: 16, y },
      [prom('A', `sum by (mount) (${clientBytes(j)})`, { legendFormat: '{{mount}}' })],
      about('Bytes per second the Lustre clients of the job’s nodes moved, per mount (llite stats, credited to the node’s job).', unit('Bps')),
    ),
  );
  return d;
}

// --- Scheduler metadata (collector job_info): which project (account) is loading the file system ---
/** Cluster: an $account variable and the load per account; jobs without jobio_job_info are not in these panels. */
function withAccounts(d) {
  const y = bottom(d);
  const t = 'target=~"$target"';
  // One info series per job and node: max by (jobid, account) makes it one per job for the join.
  const info = 'max by (jobid, account) (jobio_job_info{account=~"$account"})';
  d.templating.list.push({ ...promVar('account', 'Account', 'jobio_job_info', 'account', true), allValue: '.*' });
  d.panels.push(
    panel(
      'Operations per account (5 m rate; jobs with scheduler metadata)',
      'timeseries',
      { h: 8, w: 12, x: 0, y },
      [prom('A', `sum by (account) (sum by (jobid) (${R.jobOps}{${t}}) * on (jobid) group_left (account) ${info})`, { legendFormat: '{{account}}' })],
      about('Requests per second on the selected targets summed by the Slurm account (project) of each job, for the jobs that have jobio_job_info (collector job_info).', unit('ops')),
    ),
    panel(
      'Top jobs of the selected accounts by operations now (5 m rate)',
      'table',
      { h: 8, w: 12, x: 12, y },
      [prom('A', `topk(10, sum by (jobid, user) (${R.jobOps}{${t}}) * on (jobid) group_left (account) ${info})`, { instant: true, format: 'table' })],
      about('The 10 jobs of the selected accounts making the most requests now, with user and account. Click a job id to open its job dashboard.', table('operations/s', 'ops')),
    ),
  );
  return d;
}

// --- The population of jobs (El Sayed et al., PDSW-DISCS 2016): per direction, over all jobs of the range ---
const SLIDES_TABLE = { interval: '1m', thresholdsBytes: [0, 131072, 1048576], quantile: 0.8 };
/** Cluster: the percentile table of I, ρ, P and the distributions of volume and peak bandwidth over the jobs. */
function withPopulation(d) {
  const y = bottom(d);
  const population = (view) => [jobio('A', { queryType: 'population', populationView: view, ...SLIDES_TABLE, filters: { target: '$target' } })];
  const bars = (u) => ({
    options: { xField: 'from', showValue: 'never', stacking: 'none', legend: { showLegend: true, displayMode: 'list', placement: 'bottom' } },
    fieldConfig: {
      defaults: {},
      overrides: [
        { matcher: { id: 'byName', options: 'from' }, properties: [{ id: 'unit', value: u }] },
        { matcher: { id: 'byRegexp', options: '.* cumulative' }, properties: [{ id: 'custom.hideFrom', value: { viz: true, legend: true, tooltip: false } }] },
      ],
    },
  });
  d.panels.push(
    panel(
      'Jobs of the range: I, ρ, P that 80 % of the jobs are at or below, per direction and threshold c',
      'table',
      { h: 7, w: 12, x: 0, y },
      population('percentiles'),
      about(
        'Over every job with jobstats on the selected targets in the time range (1-minute intervals), reads and writes apart: the I/O intensity I (share of intervals in which some server moved more than c bytes of that direction), burstiness ρ (near 1: short bursts, long pauses) and parallel intensity P (1: every server of the job works in each I/O interval; 0: one at a time) that 80 % of the jobs stay at or below, at c = 0, 128 KiB and 1 MiB. A job counts in a direction when it moved any byte of it; the last row is how many did.',
      ),
    ),
    panel(
      'Jobs of the range: volume and peak bandwidth per direction',
      'table',
      { h: 7, w: 12, x: 12, y },
      population('summary'),
      about(
        'Per direction over the jobs of the range: how many moved data, the total, the largest job, the volume 80 % of the jobs stay at or below, the share of the volume moved by the largest 20 %, and the peak bandwidth (largest 1-minute sum over the job’s servers) that 80 % of the jobs stay at or below.',
      ),
    ),
    panel(
      'Jobs by volume (per power of two)',
      'barchart',
      { h: 8, w: 12, x: 0, y: y + 7 },
      population('volume'),
      about(
        'How many jobs of the range read (and wrote) between 2^k and 2^(k+1) bytes, per k; the cumulative share of the jobs is in the tooltip. A few jobs far right moving most of the data is the usual picture.',
        bars('bytes'),
      ),
    ),
    panel(
      'Jobs by peak bandwidth (per power of two)',
      'barchart',
      { h: 8, w: 12, x: 12, y: y + 7 },
      population('bandwidth'),
      about(
        'How many jobs of the range reached a peak read (and write) bandwidth between 2^k and 2^(k+1) bytes per second, over 1-minute intervals summed over the job’s servers; the cumulative share of the jobs is in the tooltip.',
        bars('Bps'),
      ),
    ),
  );
  return d;
}

/** Job: the study's table for this one job (its own I, ρ, P per direction and c). */
function withJobDirections(d) {
  const y = bottom(d);
  d.panels.push(
    panel(
      'Reads and writes apart: I, ρ, P of this job at c = 0, 128 KiB, 1 MiB',
      'table',
      { h: 6, w: 24, x: 0, y },
      [jobio('A', { queryType: 'population', populationView: 'percentiles', ...SLIDES_TABLE, filters: { jobid: '$jobid' } })],
      about(
        'The job’s I/O intensity I, burstiness ρ and parallel intensity P for reads alone and for writes alone, at three thresholds c per 1-minute interval. The characterisation above merges both directions: steady writes hide bursty reads there, not here. A column is empty when the job did not move data in that direction.',
      ),
    ),
  );
  return d;
}

// --- Density per operation (jobio_lustre_jobstats_operation_rate_jobs: a fixed set of operations) ---
/** Cluster: an $operation variable and the density of per-job rates of that one operation, drill-down as the class's. */
function withOperationDensity(d) {
  const y = bottom(d);
  const t = 'target=~"$target"';
  d.templating.list.push({ ...promVar('operation', 'Operation', 'jobio_lustre_jobstats_operation_rate_jobs', 'operation', false), current: { text: 'setattr', value: 'setattr' } });
  d.panels.push(
    panel(
      'Density of per-job $operation rates per target, every job counted (click a cell: its jobs)',
      'jobio-jobio-panel',
      { h: 12, w: 24, x: 0, y },
      [
        prom('A', `sum by (target, user, jobid) (${R.jobOps}{${t},operation="$operation",jobid!="_other"})`, { legendFormat: '{{target}} {{user}} {{jobid}}' }),
        prom('B', `sum by (decade) (jobio_lustre_jobstats_operation_rate_jobs{${t},operation="$operation"})`, { legendFormat: '{{decade}}' }),
      ],
      {
        interval: '30s',
        options: JOB_DENSITY_OPTIONS,
        description:
          'The density above for one operation (the Operation variable: open, close, mknod, unlink, getattr, setattr, getxattr, setxattr, mkdir, rmdir, rename, link, statfs, sync, read, write, punch): time across, decades of per-job request rate of that operation up, a cell’s colour the number of jobs (every job counted by the exporter). A setattr storm on an MDT or a read storm on an OST shows as a cell high up; click it for its jobs, largest first, with links to their job dashboards.',
      },
    ),
  );
  return d;
}

// --- Latency (rules jobio-latency.yml): server time per request, from job_stats (Lustre 2.14+) ---
/** Cluster: mean service time per request by target and operation, and per target against its load. */
function withLatency(d) {
  const y = bottom(d);
  const t = 'target=~"$target"';
  d.panels.push(
    panel(
      'Server time per request, by target and operation (5 m mean)',
      'timeseries',
      { h: 8, w: 12, x: 0, y },
      [prom('A', `target_operation:jobio_lustre_jobstats_operation_latency_seconds:mean5m{${t}}`, { legendFormat: '{{target}} {{operation}}' })],
      about(
        'How long the servers took, on average, for one request of each operation on each selected target (job_stats latency sums over request counts, 5-minute window; Lustre 2.14 and later, empty before). A rise on one target for every operation points at the server; a rise of one operation everywhere at the workload.',
        unit('s'),
      ),
    ),
    panel(
      'Server time per request against the request rate, by target',
      'timeseries',
      { h: 8, w: 12, x: 12, y },
      [
        prom('A', `target:jobio_lustre_jobstats_operation_latency_seconds:mean5m{${t}}`, { legendFormat: '{{target}} time per request' }),
        prom('B', `target:jobio_lustre_jobstats_operations:rate5m{${t}}`, { legendFormat: '{{target}} requests/s' }),
      ],
      about(
        'Each target’s mean time per request (left) and its request rate (right axis). Time per request rising while the rate stays flat is the JobioTargetSlowerAtSameLoad alert: the server, not the jobs.',
        { fieldConfig: { defaults: { unit: 's' }, overrides: [rightAxis('B', 'reqps')] } },
      ),
    ),
  );
  return d;
}

/** Job: the servers' time per request of this job, by operation. */
function withJobLatency(d) {
  const y = bottom(d);
  d.panels.push(
    panel(
      'Server time per request of this job, by operation (5 m mean)',
      'timeseries',
      { h: 8, w: 24, x: 0, y },
      [prom('A', 'jobid_operation:jobio_lustre_jobstats_operation_latency_seconds:mean5m{jobid="$jobid"}', { legendFormat: '{{operation}}' })],
      about(
        'How long the Lustre servers took, on average, for one of this job’s requests of each operation, over all its targets (job_stats latency, Lustre 2.14 and later). Compare with the cluster dashboard’s per-target view: slow for everyone means a busy or failing server, slow for this job only means its own pattern (small synchronous writes, contended files).',
        unit('s'),
      ),
    ),
  );
  return d;
}

// --- Server capacity and health (collector lustre_health, rules jobio-lustre-health.yml) ---
// Cluster: one row per file system, repeated over $fs, with how full its targets are, how soon they
// will be full, and whether its servers are healthy and its targets out of recovery. Last on the
// dashboard: a row holds every panel below it.
function withFsHealth(d) {
  const y = bottom(d);
  const f = 'fs=~"$fs"';
  d.templating.list.push({ ...promVar('fs', 'File system', 'jobio_lustre_target_size_bytes', 'fs', true), allValue: '.+' });
  const percentUsed = (refId, ratio) => prom(refId, `1 - ${ratio}{${f}}`, { legendFormat: '{{target}}', instant: true });
  const fullGauge = {
    fieldConfig: {
      defaults: {
        unit: 'percentunit',
        min: 0,
        max: 1,
        thresholds: {
          mode: 'absolute',
          steps: [
            { color: 'green', value: null },
            { color: 'orange', value: 0.8 },
            { color: 'red', value: 0.95 },
          ],
        },
      },
      overrides: [],
    },
    options: { orientation: 'horizontal', displayMode: 'gradient' },
  };
  d.panels.push(
    {
      id: nextId++,
      type: 'row',
      title: 'File system $fs: capacity and health',
      description: 'One row per file system (the File system variable): how full its targets are, when they will be full, and whether its servers and targets are healthy.',
      gridPos: { h: 1, w: 24, x: 0, y },
      collapsed: false,
      repeat: 'fs',
      datasource: PROM,
      panels: [],
    },
    panel(
      'Space used per target',
      'bargauge',
      { h: 8, w: 8, x: 0, y: y + 1 },
      [percentUsed('A', 'target:jobio_lustre_target_avail:ratio')],
      about(
        'Share of each target’s space no longer available to clients (1 − kbytesavail / kbytestotal). Orange from 80 %, red from 95 % (the JobioLustreTargetNearlyFull alert fires below 5 % available).',
        fullGauge,
      ),
    ),
    panel(
      'Inodes used per target',
      'bargauge',
      { h: 8, w: 8, x: 8, y: y + 1 },
      [percentUsed('A', 'target:jobio_lustre_target_files_free:ratio')],
      about('Share of each target’s inodes in use (1 − filesfree / filestotal): files on an MDT, objects on an OST. A full MDT refuses new files even with space free.', fullGauge),
    ),
    panel(
      'Servers and targets not well (now)',
      'table',
      { h: 8, w: 8, x: 16, y: y + 1 },
      [
        prom('A', `max by (instance, target, status) (jobio_lustre_target_recovery_status{${f}, status!="COMPLETE", status!="INACTIVE"} == 1)`, { instant: true, format: 'table' }),
        prom('B', `min by (instance) (jobio_lustre_health_check_healthy == 0 and on (instance) jobio_lustre_target_size_bytes{${f}})`, { instant: true, format: 'table' }),
      ],
      about('Targets of the file system in recovery (RECOVERING, WAITING, WAITING_FOR_CLIENTS: their I/O waits) and servers whose health_check is not healthy (value 0). Empty when all is well.', {
        transformations: [
          { id: 'merge', options: {} },
          { id: 'organize', options: { excludeByName: { Time: true, Value: true } } },
        ],
      }),
    ),
    panel(
      'Space available and time to full',
      'timeseries',
      { h: 8, w: 12, x: 0, y: y + 9 },
      [
        prom('A', `sum by (fs) (jobio_lustre_target_avail_bytes{${f}, target=~".*-OST.*"})`, { legendFormat: 'available on the OSTs' }),
        prom('B', `min by (fs) (target:jobio_lustre_target_avail_bytes:seconds_to_full{${f}})`, { legendFormat: 'soonest target full in' }),
      ],
      about('Bytes still available to clients on all the file system’s OSTs, and (right axis) how soon its fastest-filling target will be full at its 6-hour trend; no line when nothing is filling.', {
        fieldConfig: { defaults: { unit: 'bytes' }, overrides: [rightAxis('B', 's')] },
      }),
    ),
    panel(
      'Inodes free and time to full',
      'timeseries',
      { h: 8, w: 12, x: 12, y: y + 9 },
      [
        prom('A', `sum by (fs) (jobio_lustre_target_files_free{${f}, target=~".*-MDT.*"})`, { legendFormat: 'free on the MDTs' }),
        prom('B', `min by (fs) (target:jobio_lustre_target_files_free:seconds_to_full{${f}})`, { legendFormat: 'soonest target out of inodes in' }),
      ],
      about('Inodes still free on the file system’s MDTs (how many more files it can hold), and (right axis) how soon its fastest-filling target runs out at its 6-hour trend.', {
        fieldConfig: { defaults: { unit: 'short' }, overrides: [rightAxis('B', 's')] },
      }),
    ),
    // brw_stats: how the OSTs' disks serve the bulk I/O (Prometheus histograms with Lustre's fixed buckets).
    panel(
      'Disk I/O time per target (99th percentile)',
      'timeseries',
      { h: 8, w: 8, x: 0, y: y + 17 },
      [
        prom('A', `histogram_quantile(0.99, sum by (target, operation, le) (rate(jobio_lustre_target_brw_disk_io_seconds_bucket{${f}}[$__rate_interval])))`, {
          legendFormat: '{{target}} {{operation}}',
        }),
      ],
      about(
        'The time within which 99 % of each target’s disk I/Os completed (brw_stats “I/O time”), reads and writes apart, at Lustre’s power-of-two millisecond buckets. A target far above the others has a slow or degraded disk; all of them high, a storage back end at its limit.',
        unit('s'),
      ),
    ),
    panel(
      'Disk I/O time (how many I/Os per bucket)',
      'bargauge',
      { h: 8, w: 8, x: 8, y: y + 17 },
      [prom('A', `sum by (le) (increase(jobio_lustre_target_brw_disk_io_seconds_bucket{${f}}[$__range]))`, { legendFormat: '{{le}}', format: 'heatmap', instant: true })],
      about(
        'Disk I/Os of all the file system’s targets in the time range by how long each took (bar: up to that many seconds, above the bar before), reads and writes together: the shape behind the percentile. A second hump far right is a slow device.',
        { options: { orientation: 'vertical', displayMode: 'basic' }, fieldConfig: { defaults: { unit: 'short' }, overrides: [] } },
      ),
    ),
    panel(
      'Pages per bulk RPC (how many RPCs per size)',
      'bargauge',
      { h: 8, w: 8, x: 16, y: y + 17 },
      [prom('A', `sum by (le) (increase(jobio_lustre_target_brw_rpc_pages_bucket{${f}}[$__range]))`, { legendFormat: '{{le}}', format: 'heatmap', instant: true })],
      about(
        'Bulk read and write RPCs the file system’s targets served in the time range by their size in pages (brw_stats “pages per bulk r/w”; a page is usually 4 KiB, 256 pages 1 MiB). Most RPCs at 1–4 pages: clients send small I/O, which costs the servers per RPC.',
        { options: { orientation: 'vertical', displayMode: 'basic' }, fieldConfig: { defaults: { unit: 'short' }, overrides: [] } },
      ),
    ),
  );
  return d;
}

// --- Servers' network and request queues (collectors lustre_lnet and lustre_health) ---
// Cluster: a second row per file system, repeated over $fs, after its capacity and health row. LNet
// and service series carry no fs label (a server's network and services serve all its targets), so
// the row keeps the servers that hold a target of the file system.
function withServerLoad(d) {
  const y = bottom(d);
  const servers = 'on (instance) group by (instance) (jobio_lustre_target_size_bytes{fs=~"$fs"})';
  const ofServers = (expr) => `${expr} and ${servers}`;
  const rate = (metric) => `sum by (instance) (rate(${metric}[$__rate_interval]))`;
  const merged = (rename) => ({
    transformations: [
      { id: 'merge', options: {} },
      { id: 'organize', options: { excludeByName: { Time: true }, renameByName: rename } },
    ],
  });
  d.panels.push(
    {
      id: nextId++,
      type: 'row',
      title: 'File system $fs: servers’ network and request queues',
      description: 'One row per file system (the File system variable): LNet traffic, drops and interfaces of the servers holding its targets, and how long their services keep requests waiting.',
      gridPos: { h: 1, w: 24, x: 0, y },
      collapsed: false,
      repeat: 'fs',
      datasource: PROM,
      panels: [],
    },
    panel(
      'LNet traffic per server',
      'timeseries',
      { h: 8, w: 8, x: 0, y: y + 1 },
      [
        prom('A', ofServers(rate('jobio_lnet_sent_bytes_total')), { legendFormat: '{{instance}} sent' }),
        prom('B', ofServers(rate('jobio_lnet_received_bytes_total')), { legendFormat: '{{instance}} received' }),
        prom('C', ofServers(`${rate('jobio_lnet_sent_messages_total')} + ${rate('jobio_lnet_received_messages_total')}`), { legendFormat: '{{instance}} messages' }),
      ],
      about(
        'Bytes each server of the file system sent and received over LNet per second (all its targets and clients together), and (right axis) LNet messages sent and received per second. Many messages for few bytes: small RPCs or metadata.',
        {
          fieldConfig: { defaults: { unit: 'Bps' }, overrides: [rightAxis('C', 'short')] },
        },
      ),
    ),
    panel(
      'LNet drops and errors per server',
      'timeseries',
      { h: 8, w: 8, x: 8, y: y + 1 },
      [
        prom('A', ofServers('instance:jobio_lnet_dropped_messages:rate5m'), { legendFormat: '{{instance}} dropped' }),
        prom('B', ofServers('instance:jobio_lnet_errors:rate5m'), { legendFormat: '{{instance}} errors and failed sends' }),
      ],
      about(
        'LNet messages each server dropped, and its LNet errors with failed sends (with lnetctl: timeouts, unreachable peers, aborted sends), per second over 5 minutes. Above 1 per second the JobioLnetDropsRising or JobioLnetErrorsRising alert fires: clients time out and resend, which a job sees as stalls.',
        unit('short'),
      ),
    ),
    panel(
      'LNet interfaces (now)',
      'table',
      { h: 8, w: 8, x: 16, y: y + 1 },
      [
        prom('A', ofServers('max by (instance, net, nid) (jobio_lnet_ni_up)'), { instant: true, format: 'table' }),
        prom('B', ofServers('min by (instance, net, nid) (jobio_lnet_ni_health_value)'), { instant: true, format: 'table' }),
        prom('C', ofServers('sum by (instance, net, nid) (increase(jobio_lnet_ni_dropped_messages_total[1h]))'), { instant: true, format: 'table' }),
      ],
      about(
        'Each local network interface (NI) of the servers, as lnetctl reports it (--collector.lustre_lnet.lnetctl): up (1) or down (0), its health (1000 healthy; LNet lowers it on failures and sends elsewhere) and the messages it dropped in the last hour. A down NI or a health below 1000 fires JobioLnetNiDown.',
        merged({ 'Value #A': 'up', 'Value #B': 'health', 'Value #C': 'dropped (1 h)' }),
      ),
    ),
    panel(
      'Request wait per service',
      'timeseries',
      { h: 8, w: 8, x: 0, y: y + 9 },
      [prom('A', ofServers('service:jobio_lustre_service_request_wait_seconds:mean5m'), { legendFormat: '{{instance}} {{service}}' })],
      about(
        'How long a request waited in each service’s queue before a thread took it, the mean over 5 minutes (ost_io: bulk reads and writes, ost: object operations, mdt: metadata, ldlm_canceld: lock cancels …). Above 100 ms for 10 minutes the JobioLustreServiceRequestWaitHigh alert fires: every job on the file system waits that long per RPC.',
        unit('s'),
      ),
    ),
    panel(
      'Request queue depth per service',
      'timeseries',
      { h: 8, w: 8, x: 8, y: y + 9 },
      [prom('A', ofServers('service:jobio_lustre_service_request_queue_depth:mean5m'), { legendFormat: '{{instance}} {{service}}' })],
      about(
        'How many requests were already queued when a request reached each service, the mean over 5 minutes. Above 16 for 10 minutes the JobioLustreServiceQueueDeep alert fires: the service has fewer threads than its load needs, or its disks are slow.',
        unit('short'),
      ),
    ),
    panel(
      'Service threads: busy, started, most (now)',
      'table',
      { h: 8, w: 8, x: 16, y: y + 9 },
      [
        prom('A', ofServers('sum by (instance, service) (rate(jobio_lustre_service_request_active_total[5m])) / (sum by (instance, service) (rate(jobio_lustre_service_requests_total[5m])) > 0)'), {
          instant: true,
          format: 'table',
        }),
        prom('B', ofServers('max by (instance, service) (jobio_lustre_service_threads)'), { instant: true, format: 'table' }),
        prom('C', ofServers('max by (instance, service) (jobio_lustre_service_threads_max)'), { instant: true, format: 'table' }),
      ],
      about(
        'Per service: requests being handled when a request arrived (mean over 5 minutes: the threads busy), threads started and the most it may start (threads_max). Busy near started and started at the most: the service is out of threads and requests queue.',
        merged({ 'Value #A': 'busy (5 m mean)', 'Value #B': 'threads started', 'Value #C': 'threads max' }),
      ),
    ),
  );
  return d;
}

mkdirSync(out, { recursive: true });
for (const [file, d] of [
  ['cluster-filesystem.json', withServerLoad(withFsHealth(withLatency(withPopulation(withOperationDensity(withAccounts(withClientDensity(cluster())))))))],
  ['job.json', withJobLatency(withJobDirections(withCoverage(withJobHeader(job()))))],
  ['host-gpu.json', hostGpu()],
]) {
  writeFileSync(join(out, file), `${JSON.stringify(d, null, 2)}\n`);
  console.log(`wrote dashboards/${file} (${d.panels.length} panels)`);
}
