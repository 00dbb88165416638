// Links from the panel to the job dashboard, keeping the panel's time range.
import { type TimeRange, urlUtil } from '@grafana/data';
import { config } from '@grafana/runtime';

/** URL of a job on the job dashboard (uid), with var-jobid (and var-user when known) set. */
export function jobDashboardUrl(uid: string, jobid: string, user: string | undefined, range?: TimeRange): string {
  const params: Record<string, string | number> = { 'var-jobid': jobid };
  if (user) {
    params['var-user'] = user;
  }
  if (range) {
    params['from'] = range.from.valueOf();
    params['to'] = range.to.valueOf();
  }
  return urlUtil.renderUrl(`${config.appSubUrl ?? ''}/d/${encodeURIComponent(uid)}`, params);
}
