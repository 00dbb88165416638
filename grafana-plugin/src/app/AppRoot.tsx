import type { AppRootProps, GrafanaTheme2 } from '@grafana/data';
import { useStyles2 } from '@grafana/ui';
import { css } from '@emotion/css';
import React from 'react';

/** The app's page: what jobio adds to Grafana and where to start. */
export function AppRoot(_props: AppRootProps) {
  const styles = useStyles2(getStyles);
  return (
    <div className={styles.page} data-testid="jobio-app-root">
      <h2>jobio</h2>
      <p>Per-job I/O monitoring for HPC clusters: Lustre jobstats, the LD_PRELOAD profiler and GPU metrics, scraped by Prometheus.</p>
      <ul>
        <li>
          <strong>jobio panel</strong>: red/yellow/green I/O summary per job, user or mount; density heatmap of per-series rates with drill-down to the series in a cell.
        </li>
        <li>
          <strong>jobio data source</strong> (over Prometheus): job I/O summary, top talkers, per-job characterisation, trend change; job, user and target variables.
        </li>
        <li>
          <strong>Dashboards</strong>: cluster file system, job, host/GPU (provisioned from the repository&apos;s <code>dashboards/</code>).
        </li>
      </ul>
    </div>
  );
}

const getStyles = (theme: GrafanaTheme2) => ({
  page: css({ padding: theme.spacing(2), maxWidth: 900 }),
});
