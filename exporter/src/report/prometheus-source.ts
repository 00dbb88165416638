// `jobio report JOBID --prometheus URL`: the report of a job from the series the exporters serve,
// running or finished (within the server's retention): the scheduler's header (jobio_job_info), the
// profiler's reasons per program (jobio_profiler_reason_*_total, the same reasons, programs and
// hints as a `jobio run` log) and what it could not see. Each counter is taken at its last sample in
// the look-back window (`last_over_time`), summed over the job's nodes: a finished job's series stop
// there. The file system's view (file-system.ts) comes from the job's jobio_lustre_jobstats_* series
// and needs no profiler. The job id goes into the queries through promString() only.
import { GAIN_THRESHOLD, reasonGain, reasonTiming, type ReasonTiming, type TimedCount } from '../profiler/diagnosis.js';
import type { DiagnosisJson, DiagnosisReasonJson, DiagnosisUnseenJson } from '../profiler/diagnosis-schema.js';
import { hintFor } from '../profiler/hints.js';
import { COMPONENTS, programOf, type Component } from '../profiler/programs.js';
import type { Reason } from '../profiler/reasons.js';
import { instantQuery, samplesQuery, TopSourceError, type PrometheusQueryOptions } from '../top/prometheus-source.js';
import { countsBegan, peakRate, type CounterSeries } from './peak-rate.js';
import { promString } from '../top/promql.js';
import { shownUrl } from '../top/url-credentials.js';
import { changeSpan, fileSystemView, jobStatsSamples, prometheusJobLoads, prometheusTargetLoad, targetFindings, withTimeAndPlace } from './file-system.js';
import { characterisationFromPrometheus } from './characterisation.js';
import { clientFromPrometheus } from './client.js';
import { findingsOf } from './findings.js';
import { isMetadataReason } from './why.js';
import { NoSeriesError, ReportError } from './log-source.js';
import { REPORT_SCHEMA, type ReportJson } from './report-schema.js';

export interface PrometheusReportOptions {
  readonly url: string;
  readonly jobid: string;
  /** How far back the job's series are looked for, ms. */
  readonly rangeMs: number;
  readonly timeoutMs: number;
  /** Evaluation time, s since the epoch (undefined: now). */
  readonly time?: number;
}

/** The small-transfer threshold the exporter's hints assume (the library's default; the series do not carry it). */
const SMALL_THRESHOLD = 32 * 1024;
/** Call types that are not metadata operations (as the log's `metadata` key counts them). */
const NOT_METADATA = 'read|write|seek';

type Labels = Record<string, string>;

/** "app" or "python3.11 [python-imports]" (metric-store.ts writes the program label so) → name and component. */
function programLabel(label: string): { name: string; component: Component | undefined } {
  const m = /^(.*) \[([a-z-]+)\]$/.exec(label);
  const component = COMPONENTS.find((c) => c === m?.[2]);
  return m?.[1] !== undefined && component !== undefined ? { name: m[1], component } : { name: label, component: undefined };
}

/** A Prometheus range in its largest whole unit (`30d`, `12h`, `90s`). */
function rangeText(ms: number): string {
  const s = Math.max(1, Math.round(ms / 1000));
  for (const [unit, n] of [
    ['d', 86_400],
    ['h', 3600],
    ['m', 60],
  ] as const)
    if (s % n === 0) return `${s / n}${unit}`;
  return `${s}s`;
}

export async function reportFromPrometheus(o: PrometheusReportOptions): Promise<ReportJson> {
  const q: PrometheusQueryOptions = { url: o.url, mode: 'job', intervalMs: 0, filters: {}, timeoutMs: o.timeoutMs, ...(o.time !== undefined ? { time: o.time } : {}) };
  const job = `jobid=${promString(o.jobid)}`;
  const range = rangeText(o.rangeMs);
  const last = (family: string, by: string, extra = ''): string => `sum by (${by}) (last_over_time(${family}{${job}${extra}}[${range}]))`;
  const value = (r: { value: [number, string] }): number => Number(r.value[1]);
  const run = async <T>(f: () => Promise<T>): Promise<T> => {
    try {
      return await f();
    } catch (err) {
      if (err instanceof TopSourceError) throw new ReportError(err.message);
      throw err;
    }
  };

  const [
    jobStats,
    [calls, bytes, seconds, runtime, classes, metadata, unseenProcs, unseenBytes, info, cpu, memory, runtimeSamples, metadataSamples, callsPerType, timedPerType, metadataMadeSamples, ioSeconds],
  ] = await run(() =>
    Promise.all([
      jobStatsSamples(q, o.jobid, range),
      Promise.all([
        instantQuery(q, last('jobio_profiler_reason_calls_total', 'mount, class, reason, program, role')),
        instantQuery(q, last('jobio_profiler_reason_bytes_total', 'mount, class, reason, program, role')),
        instantQuery(q, last('jobio_profiler_reason_seconds_total', 'mount, class, reason, program, role')),
        instantQuery(q, last('jobio_profiler_runtime_seconds_total', 'jobid')),
        instantQuery(q, last('jobio_profiler_calls_total', 'class')),
        instantQuery(q, last('jobio_profiler_calls_total', 'jobid', `,call!~"${NOT_METADATA}"`)),
        instantQuery(q, last('jobio_profiler_unseen_processes_total', 'kind')),
        instantQuery(q, last('jobio_profiler_unseen_bytes_total', 'kind')),
        instantQuery(q, `max by (instance, user, account, partition, job_name, work_dir) (last_over_time(jobio_job_info{${job}}[${range}]))`),
        instantQuery(q, `sum(last_over_time(jobio_job_cpu_user_seconds_total{${job}}[${range}])) + sum(last_over_time(jobio_job_cpu_system_seconds_total{${job}}[${range}]))`),
        instantQuery(q, `sum(max_over_time(jobio_job_memory_peak_bytes{${job}}[${range}]))`),
        samplesQuery(q, `jobio_profiler_runtime_seconds_total{${job}}[${range}]`),
        samplesQuery(q, `jobio_profiler_calls_total{${job},call!~"${NOT_METADATA}"}[${range}]`),
        instantQuery(q, last('jobio_profiler_calls_total', 'call')),
        instantQuery(q, last('jobio_profiler_timed_calls_total', 'call')),
        // the calls as they were made: an open counts in jobio_profiler_calls_total at its close
        samplesQuery(q, `jobio_profiler_calls_made_total{${job},call!~"${NOT_METADATA}"}[${range}]`),
        // the time of all the job's calls: the mean time a call, for a reason with too few timed calls of its own
        instantQuery(q, last('jobio_profiler_io_seconds_total', 'jobid')),
      ]),
    ]),
  );
  const fileSystem = await run(async () => {
    const view = await fileSystemView(jobStats, prometheusTargetLoad(q));
    return view === undefined ? undefined : withTimeAndPlace(view, jobStats, o.jobid, prometheusJobLoads(q));
  });
  const client = await run(() => clientFromPrometheus(q, job, range));
  const characterisation = fileSystem === undefined ? undefined : await run(() => characterisationFromPrometheus(q, o.jobid, jobStats));
  const profiled = runtime.length > 0;
  if (!profiled && info.length === 0 && fileSystem === undefined)
    throw new NoSeriesError(`Prometheus at ${shownUrl(o.url)} has no series of job ${o.jobid} in the last ${range} (neither jobio_profiler_*, jobio_lustre_jobstats_* nor jobio_job_info)`);
  if (!profiled && fileSystem === undefined)
    throw new ReportError(`job ${o.jobid} ran without the profiler and has no Lustre job_stats series (Prometheus at ${shownUrl(o.url)} has its jobio_job_info only): nothing to report on its I/O`);

  const key = (l: Labels): string => [l['mount'], l['class'], l['reason'], l['program'], l['role']].join('\0');
  const byKey = (rs: { metric: Labels; value: [number, string] }[]): Map<string, number> => new Map(rs.map((r) => [key(r.metric), value(r)]));
  const bytesOf = byKey(bytes);
  const secondsOf = byKey(seconds);
  const runtimeS = profiled ? value(runtime[0] as { value: [number, string] }) : 0;
  // The timed fraction per call type is the job's (the timed calls have no mount or program label);
  // an exporter older than the timed-calls series gives no bound (0), as before it.
  const perType = (rs: { metric: Labels; value: [number, string] }[]): Map<string, number> => new Map(rs.map((r) => [r.metric['call'] ?? '', value(r)]));
  const callsOfType = perType(callsPerType);
  const timedOfType = perType(timedPerType);
  const countOf = (call: string): TimedCount => ({ calls: callsOfType.get(call) ?? 0, timed: timedOfType.get(call) ?? 0 });
  // without the timed-calls series nothing says how precise a time is: taken as it is, as before them
  const timing = (timeS: number, n: number): ReasonTiming => (timedPerType.length > 0 ? reasonTiming(timeS * 1e9, n, countOf) : { errorNs: 0, reliable: true, fraction: 1 });
  const allCalls = { timeNs: ioSeconds.reduce((a, r) => a + value(r), 0) * 1e9, calls: callsPerType.reduce((a, r) => a + value(r), 0) };
  const raw = calls
    .filter((r) => value(r) > 0)
    .map((r) => {
      const l = r.metric;
      const { name, component } = programLabel(l['program'] ?? '');
      const program = programOf(name, '', component);
      const time = secondsOf.get(key(l)) ?? 0;
      const t = timing(time, value(r));
      // as in the log: a time resting on a few timed calls gives no share; its gain is judged from the
      // mean time of the job's calls
      const share = runtimeS > 0 && t.reliable ? time / runtimeS : null;
      const gain = reasonGain(time * 1e9, t, value(r), allCalls, runtimeS * 1e9);
      return { l, program, calls: value(r), bytes: bytesOf.get(key(l)) ?? 0, time, timeErrorNs: t.errorNs, share, gain };
    });
  const reasons: DiagnosisReasonJson[] = raw.map((r) => {
    const fewByteOpens = raw.find((o) => o.l['reason'] === 'open_few_bytes' && o.l['mount'] === r.l['mount'] && o.l['program'] === r.l['program'])?.calls ?? 0;
    const cls = r.l['class'] === 'yellow' ? 'yellow' : 'red';
    const reason = r.l['reason'] ?? 'unclassified';
    const mount = r.l['mount'] ?? '';
    const { family: _family, ...program } = r.program;
    return {
      class: cls,
      reason,
      mount,
      program,
      calls: r.calls,
      bytes: r.bytes,
      time: Math.round(r.time * 1e6),
      time_error: Math.round(r.timeErrorNs / 1000),
      share: r.share === null ? null : Math.round(r.share * 1e6) / 1e6,
      gain: r.gain,
      hint: hintFor(
        { cls, reason: reason as Reason, calls: r.calls, bytes: r.bytes, timeNs: r.time * 1e9 },
        { mount, small: SMALL_THRESHOLD, program: r.program, gain: r.gain, fewByteOpens, ...(r.share !== null ? { share: r.share } : {}) },
      ),
    };
  });
  // as the log orders them: gain first, then by calls
  reasons.sort((a, b) => Number(b.gain) - Number(a.gain) || b.calls - a.calls || b.bytes - a.bytes || a.reason.localeCompare(b.reason));

  const unseenBytesOf = new Map(unseenBytes.map((r) => [r.metric['kind'] ?? '', value(r)]));
  const unseen: DiagnosisUnseenJson[] = unseenProcs
    .filter((r) => value(r) > 0 || (unseenBytesOf.get(r.metric['kind'] ?? '') ?? 0) > 0)
    .map((r) => ({ kind: r.metric['kind'] ?? '', processes: value(r), bytes: unseenBytesOf.get(r.metric['kind'] ?? '') ?? 0, detail: `${value(r)} process(es) of kind ${r.metric['kind'] ?? ''}` }));
  const diagnosis: DiagnosisJson = { reasons, runtime: Math.round(runtimeS * 1e6), gain_threshold: GAIN_THRESHOLD, unseen };

  const metadataCalls = metadata.reduce((a, r) => a + value(r), 0);
  const counters = (m: typeof metadataSamples): CounterSeries[] => m.map((s) => ({ instance: s.metric['instance'] ?? '', samples: s.values.map(([t, v]) => [t, Number(v)] as const) }));
  // when the calls were made (an exporter before that series: when their class was decided)
  const rateSamples = metadataMadeSamples.length > 0 ? metadataMadeSamples : metadataSamples;
  const peakMetadataRate = Math.round(peakRate(counters(rateSamples), countsBegan(counters(runtimeSamples))) * 10) / 10;
  // a dominated metadata target is addressed to the program with the most metadata calls, if the profiler saw one
  const metadataProgram = reasons.filter((r) => isMetadataReason(r.reason)).sort((a, b) => b.calls - a.calls)[0]?.program ?? { name: '', path: '', role: 'job', label: 'your job' };
  const { findings, verdict } = findingsOf(
    { diagnosis, peakMetadataRate, metadataCalls, smallThreshold: SMALL_THRESHOLD },
    fileSystem === undefined ? [] : targetFindings(fileSystem, metadataProgram),
  );

  const classCalls = (name: string): number => value(classes.find((r) => r.metric['class'] === name) ?? { value: [0, '0'] });
  const total = classCalls('red') + classCalls('yellow') + classCalls('green');
  const cls = (name: string) => ({ calls: classCalls(name), calls_share: total > 0 ? Math.round((classCalls(name) / total) * 1e6) / 1e6 : 0 });
  // the profiler's samples bound the job; without them, the file system's first and last increase
  const times = profiled ? runtimeSamples.flatMap((s) => s.values.map(([t]) => t)) : changeSpan(jobStats);
  const start = times.length > 0 ? Math.min(...times) : 0;
  const end = times.length > 0 ? Math.max(...times) : 0;
  const one = (label: string): string => [...new Set(info.map((r) => r.metric[label] ?? '').filter((v) => v !== ''))].join(',');
  const nodes = [...new Set([...info.map((r) => r.metric['instance'] ?? ''), ...runtimeSamples.map((s) => s.metric['instance'] ?? '')].filter((v) => v !== ''))].sort();
  return {
    schema: REPORT_SCHEMA,
    source: { kind: 'prometheus', url: shownUrl(o.url), jobid: o.jobid, range, ...(o.time !== undefined ? { time: new Date(o.time * 1000).toISOString() } : {}) },
    verdict,
    header: {
      jobid: o.jobid,
      hostname: nodes.join(','),
      start: new Date(start * 1000).toISOString(),
      end: new Date(end * 1000).toISOString(),
      run_time: end - start,
      cpu_time: cpu.length > 0 ? value(cpu[0] as { value: [number, string] }) : null,
      peak_memory: memory.length > 0 ? value(memory[0] as { value: [number, string] }) : null,
      user: one('user'),
      account: one('account'),
      partition: one('partition'),
      job_name: one('job_name'),
      work_dir: one('work_dir'),
      nodes,
    },
    findings,
    application: {
      ...(profiled ? {} : { profiled: false }),
      red: cls('red'),
      yellow: cls('yellow'),
      green: cls('green'),
      calls: total,
      accumulated_run_time: runtimeS,
      gain_threshold: GAIN_THRESHOLD,
      peak_metadata_rate: peakMetadataRate,
      reasons: reasons.map((r) => ({ class: r.class, reason: r.reason, mount: r.mount, program: r.program, calls: r.calls, bytes: r.bytes, share: r.share, gain: r.gain })),
      unseen,
    },
    ...(fileSystem !== undefined ? { file_system: fileSystem } : {}),
    ...(client !== undefined ? { client } : {}),
    ...(characterisation !== undefined ? { characterisation } : {}),
  };
}
