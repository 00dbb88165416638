// A report as `jobio report --json` gives it, for the unit tests of what is made from one (the brief
// verdict, the stored summary): one job on one node, nothing found unless a test says so. Findings are
// built by their rank, so that a test names only what it varies.
import { REPORT_SCHEMA, type ReportFindingJson, type ReportJson } from '../../exporter/src/report/report-schema.js';

export const REPORT_PROGRAM = { name: 'app', path: '/home/a/app', role: 'job', label: 'your program app' } as const;

/** The i-th finding (0: the most costly): reason `r<i>`, 100 - i calls, low by the run time. */
export function reportFinding(i: number, over: Partial<ReportFindingJson> = {}): ReportFindingJson {
  return {
    severity: 'low',
    severity_from: 'run_time',
    class: 'red',
    reason: `r${i}`,
    mount: '/scratch',
    program: REPORT_PROGRAM,
    calls: 100 - i,
    bytes: 0,
    time: 1,
    time_error: 0,
    share: 0.1,
    metadata_rate: null,
    seen: 'seen',
    why: 'why',
    hint: 'hint',
    ...over,
  };
}

/** Job `jobid`'s report from Prometheus: nothing to change, unless `over` says otherwise. */
export function reportJson(jobid: string, over: Partial<ReportJson> = {}): ReportJson {
  return {
    schema: REPORT_SCHEMA,
    source: { kind: 'prometheus', url: 'http://prom:9090', jobid, range: '30d' },
    verdict: { text: 'nothing to change', findings: 0, high: 0, medium: 0, low: 0, nothing_to_gain: 0 },
    header: { jobid, hostname: 'n1', start: '', end: '', run_time: 1, cpu_time: null, peak_memory: null, user: 'alice', account: '', partition: '', job_name: '', work_dir: '', nodes: ['n1'] },
    findings: [],
    application: {
      red: { calls: 0, calls_share: 0 },
      yellow: { calls: 0, calls_share: 0 },
      green: { calls: 0, calls_share: 0 },
      calls: 0,
      accumulated_run_time: 1,
      gain_threshold: 0.01,
      peak_metadata_rate: 0,
      reasons: [],
      unseen: [],
    },
    ...over,
  };
}
