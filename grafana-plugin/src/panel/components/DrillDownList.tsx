import { type GrafanaTheme2, type TimeRange } from '@grafana/data';
import { Button, IconButton, useStyles2 } from '@grafana/ui';
import { css } from '@emotion/css';
import React from 'react';
import type { CellMember } from '../heatmap/members';
import { formatValue } from '../heatmap/labels';
import { jobDashboardUrl } from '../links';
import { TestIds } from '../testids';

const MAX_ROWS = 200;

export interface DrillDownListProps {
  title: string;
  members: CellMember[];
  /** Jobs counted in the cell (exported density) that have no series of their own to list. */
  withoutSeries?: number;
  unit: string;
  /** Labels to show per series; empty = all labels. */
  listLabels: string[];
  /** Label whose value a click sends to the dashboard variable; undefined = no drill-down. */
  drillLabel?: string;
  drillVariable?: string;
  /** Label holding the job id, and the job dashboard's uid: each row links to its job. */
  jobLabel?: string;
  jobDashboard?: string;
  timeRange?: TimeRange;
  onDrill: (values: string[]) => void;
  onClose: () => void;
}

/** The label columns: those asked for, or every label the members have (first seen first); none = the series name. */
function columnsOf(members: CellMember[], listLabels: string[]): string[] {
  if (listLabels.length) {
    return listLabels;
  }
  const keys = new Set<string>();
  for (const m of members.slice(0, MAX_ROWS)) {
    Object.keys(m.labels).forEach((k) => k !== '__name__' && keys.add(k));
  }
  return [...keys];
}

/**
 * The series of one heatmap cell as a table (one column per listed label, the value, a job link),
 * largest value first; a click sets the drill-down variable, the "job" link opens the job dashboard
 * with var-jobid set. The table takes the list's whole width, which grows with the panel.
 */
export function DrillDownList(props: DrillDownListProps) {
  const styles = useStyles2(getStyles);
  const { members, drillLabel, drillVariable } = props;
  const canDrill = Boolean(drillLabel && drillVariable);
  const drillValues = canDrill ? [...new Set(members.map((m) => m.labels[drillLabel ?? ''] ?? '').filter((v) => v !== ''))] : [];
  const columns = columnsOf(members, props.listLabels);
  const links = Boolean(props.jobDashboard && props.jobLabel);
  return (
    <div className={styles.wrap} data-testid={TestIds.drilldown}>
      <div className={styles.header}>
        <span className={styles.title}>{props.title}</span>
        <IconButton name="times" tooltip="Close" size="sm" onClick={props.onClose} />
      </div>
      {canDrill && drillValues.length > 0 && (
        <Button size="sm" variant="secondary" fill="outline" data-testid={TestIds.drilldownSetAll} onClick={() => props.onDrill(drillValues)}>
          {`Set $${drillVariable} to ${drillValues.length === 1 ? drillValues[0] : `these ${drillValues.length}`}`}
        </Button>
      )}
      <div className={styles.scroll}>
        <table className={styles.table}>
          <thead>
            <tr>
              {columns.length ? columns.map((k) => <th key={k}>{k}</th>) : <th>series</th>}
              <th className={styles.number}>rate</th>
              {links && <th />}
            </tr>
          </thead>
          <tbody>
            {members.slice(0, MAX_ROWS).map((m) => {
              const value = m.labels[drillLabel ?? ''];
              const job = props.jobLabel ? m.labels[props.jobLabel] : undefined;
              return (
                <tr
                  key={m.index}
                  className={canDrill && value ? styles.clickable : undefined}
                  data-testid={TestIds.drilldownRow}
                  title={canDrill && value ? `Set $${drillVariable} = ${value}` : m.name}
                  onClick={canDrill && value ? () => props.onDrill([value]) : undefined}
                >
                  {columns.length ? (
                    columns.map((k) => (
                      // The job id is never cut (it is what one copies); other labels give way first.
                      <td key={k} className={k === props.jobLabel ? styles.whole : styles.squeezable} data-testid={TestIds.drilldownCell} data-label={k} title={m.labels[k]}>
                        {m.labels[k] ?? '–'}
                      </td>
                    ))
                  ) : (
                    <td className={styles.squeezable}>{m.name}</td>
                  )}
                  <td className={styles.number}>{formatValue(m.value, props.unit)}</td>
                  {links && (
                    <td className={styles.whole}>
                      {job && (
                        <a
                          className={styles.link}
                          href={jobDashboardUrl(props.jobDashboard as string, job, m.labels['user'], props.timeRange)}
                          data-testid={TestIds.drilldownJobLink}
                          title={`Open job ${job}`}
                          onClick={(e) => e.stopPropagation()}
                        >
                          job ›
                        </a>
                      )}
                    </td>
                  )}
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      {members.length > MAX_ROWS && <div className={styles.more}>{`… and ${members.length - MAX_ROWS} more`}</div>}
      {(props.withoutSeries ?? 0) > 0 && (
        <div className={styles.more} data-testid={TestIds.drilldownWithoutSeries} data-count={props.withoutSeries}>
          {`${props.withoutSeries} more ${props.withoutSeries === 1 ? 'job' : 'jobs'} without their own series (folded into jobid="_other")`}
        </div>
      )}
    </div>
  );
}

const getStyles = (theme: GrafanaTheme2) => {
  const cell = { padding: theme.spacing(0.25, 0.75), borderBottom: `1px solid ${theme.colors.border.weak}`, whiteSpace: 'nowrap' as const };
  return {
    wrap: css({ display: 'flex', flexDirection: 'column', gap: theme.spacing(0.5), height: '100%', overflow: 'hidden', fontSize: theme.typography.bodySmall.fontSize }),
    header: css({ display: 'flex', justifyContent: 'space-between', alignItems: 'center' }),
    title: css({ fontWeight: theme.typography.fontWeightMedium }),
    scroll: css({ overflow: 'auto', flex: 1, minHeight: 0 }),
    table: css({
      width: '100%',
      borderCollapse: 'collapse',
      th: { ...cell, textAlign: 'left', fontWeight: theme.typography.fontWeightMedium, color: theme.colors.text.secondary, position: 'sticky', top: 0, background: theme.colors.background.primary },
      td: cell,
    }),
    clickable: css({ cursor: 'pointer', '&:hover': { background: theme.colors.action.hover } }),
    // width 1% + nowrap: as narrow as its widest value, never cut.
    whole: css({ width: '1%' }),
    // max-width 0 lets the column give up the width the others need, with an ellipsis.
    squeezable: css({ maxWidth: 0, overflow: 'hidden', textOverflow: 'ellipsis' }),
    number: css({ width: '1%', textAlign: 'right', fontVariantNumeric: 'tabular-nums' }),
    more: css({ color: theme.colors.text.secondary }),
    link: css({ color: theme.colors.text.link, whiteSpace: 'nowrap', '&:hover': { textDecoration: 'underline' } }),
  };
};
