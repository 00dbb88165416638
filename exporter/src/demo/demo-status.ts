// The second half of `jobio demo`'s screen, under the Lustre table: the profiled programs' verdicts
// with their top reasons, and the alerts pending or firing, read from the demo's Prometheus (the
// verdicts from the exporter's own /metrics when no Prometheus runs). The verdict is the rule of the
// JobioMostlyRedJob alert on calls: red when more than half the calls are red, yellow when red and
// yellow together are more than half, green otherwise.
import { parseExposition } from '../top/exposition.js';
import { instantQuery, TopSourceError } from '../top/prometheus-source.js';
import { countRate } from '../top/units.js';
import { PROFILED_JOBS } from './profiled-jobs.js';

interface Figure {
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

export interface Alert {
  readonly name: string;
  readonly state: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly activeAt?: string;
}

export type Verdict = 'red' | 'yellow' | 'green' | 'none';

export function verdictOf(calls: Readonly<Record<string, number>>): Verdict {
  const red = calls.red ?? 0;
  const yellow = calls.yellow ?? 0;
  const total = red + yellow + (calls.green ?? 0);
  if (total === 0) return 'none';
  if (red / total > 0.5) return 'red';
  return (red + yellow) / total > 0.5 ? 'yellow' : 'green';
}

const JOB_RE = PROFILED_JOBS.map((j) => j.jobid).join('|');
const CALLS = `sum by (jobid, class) (jobio_profiler_calls_total{jobid=~"${JOB_RE}"})`;
const REASONS = `sum by (jobid, reason) (jobio_profiler_reason_calls_total{jobid=~"${JOB_RE}"})`;

async function fromPrometheus(url: string): Promise<{ calls: Figure[]; reasons: Figure[] }> {
  const q = async (query: string): Promise<Figure[]> =>
    (await instantQuery({ url, mode: 'job', intervalMs: 0, filters: {}, timeoutMs: 5000 }, query)).map((r) => ({ labels: r.metric, value: Number(r.value[1]) }));
  const [calls, reasons] = await Promise.all([q(CALLS), q(REASONS)]);
  return { calls, reasons };
}

async function fromExporter(metricsUrl: string): Promise<{ calls: Figure[]; reasons: Figure[] }> {
  const res = await fetch(metricsUrl, { signal: AbortSignal.timeout(5000) });
  const { samples } = parseExposition(await res.text(), (n) => n === 'jobio_profiler_calls_total' || n === 'jobio_profiler_reason_calls_total');
  const sum = (name: string, by: readonly string[]): Figure[] => {
    const sums = new Map<string, Figure>();
    for (const s of samples) {
      if (s.name !== name) continue;
      const labels = Object.fromEntries(by.map((k) => [k, s.labels[k] ?? '']));
      const key = JSON.stringify(labels);
      sums.set(key, { labels, value: (sums.get(key)?.value ?? 0) + s.value });
    }
    return [...sums.values()];
  };
  return { calls: sum('jobio_profiler_calls_total', ['jobid', 'class']), reasons: sum('jobio_profiler_reason_calls_total', ['jobid', 'reason']) };
}

export async function pendingAlerts(url: string): Promise<Alert[]> {
  const res = await fetch(`${url}/api/v1/alerts`, { signal: AbortSignal.timeout(5000) });
  const body = (await res.json()) as { data?: { alerts?: Array<{ labels?: Record<string, string>; state?: string; activeAt?: string }> } };
  return (body.data?.alerts ?? [])
    .map((a) => ({ name: a.labels?.alertname ?? '?', state: a.state ?? '?', labels: a.labels ?? {}, ...(a.activeAt ? { activeAt: a.activeAt } : {}) }))
    .sort((a, b) => (a.state === b.state ? a.name.localeCompare(b.name) || (a.labels.jobid ?? '').localeCompare(b.labels.jobid ?? '') : a.state === 'firing' ? -1 : 1));
}

/** The page of a Prometheus that lists the alerts: /alerts, or /classic/alerts (Debian's build has only the classic UI). */
export async function alertsPage(url: string): Promise<string> {
  for (const path of ['/alerts', '/classic/alerts']) {
    try {
      if ((await fetch(`${url}${path}`, { signal: AbortSignal.timeout(5000) })).ok) return `${url}${path}`;
    } catch {
      // try the next one
    }
  }
  return `${url}/alerts`;
}

const VERDICT_TEXT: Record<Verdict, string> = { red: 'RED   ', yellow: 'YELLOW', green: 'GREEN ', none: '-     ' };
const pct = (part: number, total: number): string => `${total > 0 ? Math.round((100 * part) / total) : 0}%`;

function since(activeAt: string | undefined, now: number): string {
  const t = activeAt ? Date.parse(activeAt) : Number.NaN;
  return Number.isFinite(t) ? ` for ${Math.max(0, Math.round((now - t) / 1000))}s` : '';
}

export interface StatusSources {
  readonly prometheusUrl?: string;
  readonly metricsUrl: string;
  /** What to say in place of the alerts without a Prometheus. */
  readonly noPrometheus: string;
}

/** The lines of the block (it never throws: a failed read is one line saying so). */
export async function statusLines(s: StatusSources, now = Date.now()): Promise<string[]> {
  const lines: string[] = [''];
  try {
    const { calls, reasons } = s.prometheusUrl ? await fromPrometheus(s.prometheusUrl) : await fromExporter(s.metricsUrl);
    lines.push(`profiled programs: verdict (the JobioMostlyRedJob rule on calls) and top reasons, from ${s.prometheusUrl ? 'Prometheus' : 'the exporter'}`);
    for (const job of PROFILED_JOBS) {
      const byClass: Record<string, number> = {};
      for (const f of calls) if (f.labels.jobid === job.jobid) byClass[f.labels.class ?? ''] = (byClass[f.labels.class ?? ''] ?? 0) + f.value;
      const total = (byClass.red ?? 0) + (byClass.yellow ?? 0) + (byClass.green ?? 0);
      const top = reasons
        .filter((f) => f.labels.jobid === job.jobid && f.value > 0)
        .sort((a, b) => b.value - a.value)
        .slice(0, 2)
        .map((f) => `${f.labels.reason ?? '?'} ${pct(f.value, total)}`);
      const verdict = verdictOf(byClass);
      const shares = total > 0 ? `red ${pct(byClass.red ?? 0, total).padStart(4)} of ${countRate(total).padStart(5)} calls` : 'no calls yet';
      lines.push(`  ${job.jobid}  ${job.short.padEnd(10)} ${VERDICT_TEXT[verdict]}  ${shares.padEnd(26)} ${top.length > 0 ? `top reasons: ${top.join(', ')}` : ''}`.trimEnd());
    }
  } catch (err) {
    lines.push(`profiled programs: cannot read them (${err instanceof TopSourceError ? err.message : (err as Error).message})`);
  }
  if (!s.prometheusUrl) return [...lines, `alerts: ${s.noPrometheus}`];
  try {
    const alerts = await pendingAlerts(s.prometheusUrl);
    lines.push(`alerts pending or firing in Prometheus: ${alerts.length === 0 ? 'none yet (JobioMetadataStorm turns pending some 20 s after the storm starts)' : alerts.length}`);
    for (const a of alerts) {
      const who = [a.labels.jobid ? `job ${a.labels.jobid}` : '', a.labels.user ? `user ${a.labels.user}` : '', a.labels.target ? `on ${a.labels.target}` : ''].filter((p) => p).join(' ');
      lines.push(`  ${a.state.toUpperCase().padEnd(8)} ${a.name.padEnd(24)} ${who}${since(a.activeAt, now)}`.trimEnd());
    }
  } catch (err) {
    lines.push(`alerts: cannot read them from Prometheus (${(err as Error).message})`);
  }
  return lines;
}
