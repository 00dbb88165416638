// The JSON of `jobio report --json`: the one definition of its shape (documented in docs/report.md).
// Stable: fields are only ever added; a change of meaning gets a new `schema` string. Field names are
// snake_case like the `jobio run` log; times are in seconds and rates per second (a report is read by
// people and scripts, not summed like the log's microseconds).
import type { DiagnosisUnseenJson, ProgramRef } from '../profiler/diagnosis-schema.js';

/** The schema string of this shape. */
export const REPORT_SCHEMA = 'jobio-report/1';

export const SEVERITIES = ['high', 'medium', 'low'] as const;
export type Severity = (typeof SEVERITIES)[number];

/**
 * What made a finding's severity: its share of the run time, the metadata load it put on the file
 * system (profiler), or the job's share of one server target's load (the file system's own job_stats).
 */
export type SeverityCause = 'run_time' | 'metadata_rate' | 'target_load';

export interface ReportLogSourceJson {
  readonly kind: 'log';
  /** The log file as given on the command line. */
  readonly file: string;
  /** Non-empty lines read. */
  readonly lines: number;
  /** Lines that were not a JSON object (skipped, and said on stderr). */
  readonly malformed_lines: number;
}

export interface ReportPrometheusSourceJson {
  readonly kind: 'prometheus';
  /** The server's URL, a password in it shown as ***. */
  readonly url: string;
  readonly jobid: string;
  /** The look-back window the job's series were looked for in (`2592000s`). */
  readonly range: string;
  /** The evaluation time, RFC 3339 UTC, when one was given (--time; always in a stored summary); absent: the server's now. */
  readonly time?: string;
}

/** A summary stored at the job's end (`jobio report JOBID --summary`, the Slurm EpilogSlurmctld), read back. */
export interface ReportStoredSourceJson {
  readonly kind: 'stored';
  /** The summary file read. */
  readonly file: string;
  /** Where the stored report came from when it was made. */
  readonly stored: ReportPrometheusSourceJson;
}

export type ReportSourceJson = ReportLogSourceJson | ReportPrometheusSourceJson | ReportStoredSourceJson;

/** How a source is said to people (the text's `from:` line, the page's `source` row). */
export function sourceText(s: ReportSourceJson): string {
  const prometheus = (p: ReportPrometheusSourceJson): string => `Prometheus ${p.url}, the last ${p.range}${p.time !== undefined ? ` before ${p.time}` : ''}`;
  if (s.kind === 'log') return s.file;
  if (s.kind === 'prometheus') return prometheus(s);
  return `the summary stored at the job's end, ${s.file} (from ${prometheus(s.stored)})`;
}

export interface ReportVerdictJson {
  /** "nothing to change", or "2 findings: 1 high, 1 low". */
  readonly text: string;
  readonly findings: number;
  readonly high: number;
  readonly medium: number;
  readonly low: number;
  /** Reasons with red or yellow calls that cost too little to be findings ("nothing to gain"). */
  readonly nothing_to_gain: number;
}

export interface ReportHeaderJson {
  /** The job id of the log's records ('' outside a batch job). */
  readonly jobid: string;
  /** The log's host; from Prometheus the nodes, comma-separated. */
  readonly hostname: string;
  /** RFC 3339, UTC; from Prometheus the first and last samples of the job's profiler series. */
  readonly start: string;
  readonly end: string;
  /** Wall clock of the profiled command, s. */
  readonly run_time: number;
  /** CPU time (user + system) of the command's process tree, s; null when the log has no `resources` total. */
  readonly cpu_time: number | null;
  /**
   * Largest memory of the job: from a log, the largest sampled resident memory of the process tree;
   * from Prometheus, the job cgroups' peaks summed over its nodes. Bytes; null when unknown.
   */
  readonly peak_memory: number | null;
  /** From the scheduler (jobio_job_info): '' when unknown (always from a log); several values comma-separated. */
  readonly user: string;
  readonly account: string;
  readonly partition: string;
  readonly job_name: string;
  readonly work_dir: string;
  /** The hosts the job's series came from (a log: its host). */
  readonly nodes: readonly string[];
}

/** How a severity cause is said to people. */
export const CAUSE_TEXT: Readonly<Record<SeverityCause, string>> = { run_time: 'run time', metadata_rate: 'metadata load', target_load: 'load on the file system' };

export interface ReportFindingJson {
  readonly severity: Severity;
  /** Which cost decided the severity (the larger of the two). */
  readonly severity_from: SeverityCause;
  readonly class: 'red' | 'yellow';
  /** docs/profiler.md "Reasons"; `target_load` for a job that dominates a metadata target (severity_from `target_load`). */
  readonly reason: string;
  /** The mount the calls went to; for `target_load` the file system's name (the target's prefix). */
  readonly mount: string;
  /** The Lustre target of a `target_load` finding (`fs-MDT0000`); absent on the profiler's reasons. */
  readonly target?: string;
  /** Who made the calls (the hint is addressed to them): the job's code, a runtime, a library, a tool, a shell. */
  readonly program: ProgramRef;
  readonly calls: number;
  readonly bytes: number;
  /** Estimated time in the calls, s, and the half-width of its 95 % interval. */
  readonly time: number;
  readonly time_error: number;
  /** time / the processes' accumulated run time (0–1); null when times are not reported. */
  readonly share: number | null;
  /**
   * Metadata operations per second this reason put on the file system at the job's busiest second
   * (the job's peak metadata rate times this reason's part of its metadata calls); null for reasons
   * that are not metadata operations (small transfers, seeks).
   */
  readonly metadata_rate: number | null;
  /** What was seen, in words with the numbers. */
  readonly seen: string;
  /** Why it matters on a parallel file system. */
  readonly why: string;
  /** What to change, addressed to the program (the `jobio run` hint). */
  readonly hint: string;
}

export interface ReportClassJson {
  readonly calls: number;
  /** Share of all calls (0–1). */
  readonly calls_share: number;
}

export interface ReportApplicationJson {
  /** false when the job ran without the profiler (a report from the file system's series only); absent means true. */
  readonly profiled?: boolean;
  readonly red: ReportClassJson;
  readonly yellow: ReportClassJson;
  readonly green: ReportClassJson;
  readonly calls: number;
  /** The processes' accumulated run time, s: what shares are of. */
  readonly accumulated_run_time: number;
  /** The share of the run time below which a reason has nothing to gain. */
  readonly gain_threshold: number;
  /** Metadata operations of the job's busiest second. */
  readonly peak_metadata_rate: number;
  /** Every reason with red or yellow calls, findings or not, as the log has them (`gain` false: nothing to gain). */
  readonly reasons: readonly {
    readonly class: 'red' | 'yellow';
    readonly reason: string;
    readonly mount: string;
    readonly program: ProgramRef;
    readonly calls: number;
    readonly bytes: number;
    readonly share: number | null;
    readonly gain: boolean;
  }[];
  /** What the profiler could not see (processes without it, asynchronous I/O, file mappings). */
  readonly unseen: readonly DiagnosisUnseenJson[];
}

/** The job's busiest interval on one target and its share of the target's load then. */
export interface ReportTargetPeakJson {
  /** The load measured: requests on an MDT, bytes read + written on an OST. */
  readonly measure: 'operations' | 'bytes';
  /** The interval between two scrapes with the job's largest increase, RFC 3339 UTC. */
  readonly start: string;
  readonly end: string;
  /** The job's rate in the interval, per second. */
  readonly rate: number;
  /** All jobs' rate on the target in the same interval (the job's included), per second. */
  readonly target_rate: number;
  /** rate / target_rate (0–1). */
  readonly share: number;
}

/** The job on one MDT or OST, from the exporter's jobio_lustre_jobstats_* series. */
export interface ReportTargetJson {
  readonly target: string;
  readonly kind: 'mdt' | 'ost';
  /** Requests of the job over its series (all operations, as job_stats counts them). */
  readonly operations: number;
  /** Requests by operation (`open`, `getattr`, `write`, …), only those that moved. */
  readonly operations_by_kind: Readonly<Record<string, number>>;
  readonly read_bytes: number;
  readonly write_bytes: number;
  /** null when the job never changed the measure on this target. */
  readonly peak: ReportTargetPeakJson | null;
}

/** Totals of a target class. */
export interface ReportTargetClassJson {
  readonly targets: number;
  readonly operations: number;
  readonly read_bytes: number;
  readonly write_bytes: number;
}

/** One interval of the job's load over time, all its targets of a class summed: per second. */
export interface ReportRatePointJson {
  /** RFC 3339 UTC; the intervals are equal, back to back, over the job's job_stats span. */
  readonly start: string;
  readonly end: string;
  /** The interval's length, s (to µs: the dates are whole milliseconds). */
  readonly seconds: number;
  /** Requests on the MDTs per second. */
  readonly mdt_operations: number;
  /** Bytes read and written on the OSTs per second. */
  readonly ost_read_bytes: number;
  readonly ost_write_bytes: number;
}

/** The job's place among all jobs on a class of targets over the job's span: their mean rates by decade. */
export interface ReportDensityJson {
  /** requests per second on the MDTs, bytes (read + written) per second on the OSTs. */
  readonly measure: 'operations' | 'bytes';
  /** Jobs with series on the class's targets over the span, the job included. */
  readonly jobs: number;
  /** Jobs by decade of their mean rate: `"2"` is 100 ≤ rate < 1,000; `"zero"` did nothing. */
  readonly decades: Readonly<Record<string, number>>;
  /** The job's own mean rate over the span and its decade. */
  readonly rate: number;
  readonly decade: string;
  /** The share of the other jobs with a lower rate (0–1; 1: the busiest). */
  readonly busier_than: number;
}

/** The file system's (servers') view of the job: what Lustre's job_stats counted on each target. */
export interface ReportFileSystemJson {
  readonly mdt: ReportTargetClassJson;
  readonly ost: ReportTargetClassJson;
  /** OSTs that carried the job's reads or writes (the striping the job actually used). */
  readonly osts_with_data: number;
  /** Metadata operations by kind, summed over the MDTs. */
  readonly metadata_operations: Readonly<Record<string, number>>;
  /** Every target the job touched: MDTs first, then by name. */
  readonly targets: readonly ReportTargetJson[];
  /** The job's rates over time (at most 60 intervals); absent from a summary made before it existed. */
  readonly over_time?: readonly ReportRatePointJson[];
  /** The job's place in the cluster's density per target class (absent when no job has series on the class). */
  readonly density?: { readonly mdt?: ReportDensityJson; readonly ost?: ReportDensityJson };
}

/** One Lustre mount of the job's nodes as its client saw it (llite stats), with the profiler's bytes on it. */
export interface ReportClientMountJson {
  /** The file system's name and the mount point. */
  readonly fs: string;
  readonly mount: string;
  /** Bytes the client moved while the job ran on the node, summed over its nodes. */
  readonly read_bytes: number;
  readonly write_bytes: number;
  /** Client operations (llite counters' samples) and by llite counter (`open`, `getattr`, …), only those that moved. */
  readonly operations: number;
  readonly operations_by_kind: Readonly<Record<string, number>>;
  /** Bytes read and written the profiler counted on the same mount. */
  readonly profiler_bytes: number;
  /** profiler_bytes / (read_bytes + write_bytes); null when the client moved no byte. */
  readonly coverage: number | null;
}

/** The client's (llite) view of the job and the profiler's coverage of it, from the exporter's jobio_lustre_client_* series. */
export interface ReportClientJson {
  readonly read_bytes: number;
  readonly write_bytes: number;
  readonly profiler_bytes: number;
  /** All mounts: profiler bytes / client bytes; null when the client moved no byte. */
  readonly coverage: number | null;
  /** By bytes moved, largest first. */
  readonly mounts: readonly ReportClientMountJson[];
}

/** Where the job stands among the jobs of the same time: one of I, ρ, P. */
export interface ReportRankJson {
  /** Share of the population's jobs (of this direction, the job included) whose value is at or below the job's (0–1). */
  readonly share_at_or_below: number;
  /** The value that `quantile` of those jobs stay at or below. */
  readonly at_quantile: number;
}

/** I, ρ and P of one direction at one threshold c. */
export interface ReportThresholdJson {
  /** c: a server (a log: the client) counts as doing I/O in an interval when it moves more than c bytes of the direction. */
  readonly threshold_bytes: number;
  /** I: the share of the job's intervals with I/O (0–1). */
  readonly io_intensity: number;
  /** ρ = 1 − tanh(mean run of I/O intervals / mean run of idle ones); 0 without an idle run. */
  readonly burstiness: number;
  /** Servers over c per interval with I/O, on average (|S|·Π); null from a log (the client does not see the servers). */
  readonly busy_servers: number | null;
  /** P = (|S|·Π − 1) / (|S| − 1): 1 when every server works in every I/O interval, 0 when one does; null from a log. */
  readonly parallel_intensity: number | null;
  /** The job among the jobs with series of this direction in the same time range (from Prometheus; absent from a log). */
  readonly population?: {
    readonly jobs: number;
    readonly quantile: number;
    readonly io_intensity: ReportRankJson;
    readonly burstiness: ReportRankJson;
    readonly parallel_intensity: ReportRankJson;
  };
}

/** The characterisation of one direction (reads or writes) over the job's life. */
export interface ReportDirectionJson {
  readonly bytes: number;
  /** The busiest interval's rate, bytes/s. */
  readonly peak_bandwidth: number;
  /** |S|: the OSTs (and MDTs, Data-on-MDT) that moved any byte of this direction; null from a log. */
  readonly servers: number | null;
  /** One entry per threshold c, ascending. */
  readonly thresholds: readonly ReportThresholdJson[];
}

/** The job's I/O characterisation per direction (docs/analyses.md): I, ρ and P at several thresholds c. */
export interface ReportCharacterisationJson {
  /** `servers`: per OST/MDT from the job_stats series (Prometheus); `client`: the profiled I/O of all mounts per log frame. */
  readonly view: 'servers' | 'client';
  /** Δt, s: the length of one interval (Prometheus: the scrape interval seen in the job's samples; a log: its time frame). */
  readonly step: number;
  /** The job's intervals, from the first to the last with data. */
  readonly intervals: number;
  /** RFC 3339 UTC: the start of the first interval and the end of the last. */
  readonly start: string;
  readonly end: string;
  /** null: the job moved no byte of that direction. */
  readonly read: ReportDirectionJson | null;
  readonly write: ReportDirectionJson | null;
}

export interface ReportJson {
  readonly schema: typeof REPORT_SCHEMA;
  readonly source: ReportSourceJson;
  readonly verdict: ReportVerdictJson;
  readonly header: ReportHeaderJson;
  /** Most costly first: by severity, then share of the run time, then calls. */
  readonly findings: readonly ReportFindingJson[];
  /** What the profiler saw; a job run without it (from Prometheus) has all counts 0, no reasons and `profiled` false. */
  readonly application: ReportApplicationJson;
  /** From Prometheus when the job has jobio_lustre_jobstats_* series; absent from a log. */
  readonly file_system?: ReportFileSystemJson;
  /** From Prometheus when the job has jobio_lustre_client_* series (the node's llite stats); absent from a log. */
  readonly client?: ReportClientJson;
  /** The job's I/O characterisation per direction; absent when there is nothing to characterise (no job_stats series, no log frames). */
  readonly characterisation?: ReportCharacterisationJson;
  /** The job's Grafana dashboard over its time range (with --grafana-url or JOBIO_GRAFANA_URL and a job id); absent otherwise. */
  readonly dashboard?: string;
}
