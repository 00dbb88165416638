// The link from a `jobio report` to the job's Grafana dashboard (dashboards/job.json: uid `jobio-job`,
// variables `user` and `jobid`), over the job's time range. Every value is URL-encoded, so a job id
// or user name cannot add parameters; credentials in the configured URL are left out of the link
// (it is printed, and a browser asks for them anyway).

/** The job dashboard's uid and slug (dashboards/job.json). */
export const JOB_DASHBOARD = { uid: 'jobio-job', slug: 'jobio-job' } as const;

export interface GrafanaLinkInput {
  /** Grafana's base URL, with its sub-path if it is served under one (`https://host/grafana`). */
  readonly base: string;
  readonly jobid: string;
  /** The job's user ('' when unknown: the dashboard then keeps its own choice). */
  readonly user: string;
  /** RFC 3339 start and end of the job. */
  readonly start: string;
  readonly end: string;
}

/** The dashboard URL, or undefined when the job has no id or no time range. */
export function grafanaLink(o: GrafanaLinkInput): string | undefined {
  const from = Date.parse(o.start);
  const to = Date.parse(o.end);
  if (o.jobid === '' || !Number.isFinite(from) || !Number.isFinite(to)) return undefined;
  const url = new URL(o.base);
  url.username = '';
  url.password = '';
  url.search = '';
  url.hash = '';
  url.pathname = `${url.pathname.replace(/\/+$/, '')}/d/${JOB_DASHBOARD.uid}/${JOB_DASHBOARD.slug}`;
  const params = new URLSearchParams();
  if (o.user !== '') params.set('var-user', o.user);
  params.set('var-jobid', o.jobid);
  // whole milliseconds around the job, so its first and last samples are inside
  params.set('from', String(Math.floor(from)));
  params.set('to', String(Math.ceil(to)));
  url.search = params.toString();
  return url.toString();
}
