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

function describe(member: CellMember, listLabels: string[]): string {
  const keys = listLabels.length ? listLabels : Object.keys(member.labels).filter((k) => k !== '__name__');
  const parts = keys.filter((k) => member.labels[k] !== undefined).map((k) => `${k}=${member.labels[k]}`);
  return parts.length ? parts.join(' ') : member.name;
}

/**
 * The series of one heatmap cell, largest value first; a click sets the drill-down variable, the
 * "job" link opens the job dashboard with var-jobid set.
 */
export function DrillDownList(props: DrillDownListProps) {
  const styles = useStyles2(getStyles);
  const { members, drillLabel, drillVariable } = props;
  const canDrill = Boolean(drillLabel && drillVariable);
  const drillValues = canDrill ? [...new Set(members.map((m) => m.labels[drillLabel ?? ''] ?? '').filter((v) => v !== ''))] : [];
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
      <ol className={styles.list}>
        {members.slice(0, MAX_ROWS).map((m) => {
          const value = m.labels[drillLabel ?? ''];
          return (
            <li
              key={m.index}
              className={canDrill && value ? styles.clickable : styles.row}
              data-testid={TestIds.drilldownRow}
              title={canDrill && value ? `Set $${drillVariable} = ${value}` : m.name}
              onClick={canDrill && value ? () => props.onDrill([value]) : undefined}
            >
              <span className={styles.name}>{describe(m, props.listLabels)}</span>
              <span className={styles.value}>{formatValue(m.value, props.unit)}</span>
              {props.jobDashboard && props.jobLabel && m.labels[props.jobLabel] && (
                <a
                  className={styles.link}
                  href={jobDashboardUrl(props.jobDashboard, m.labels[props.jobLabel] as string, m.labels['user'], props.timeRange)}
                  data-testid={TestIds.drilldownJobLink}
                  title={`Open job ${m.labels[props.jobLabel]}`}
                  onClick={(e) => e.stopPropagation()}
                >
                  job ›
                </a>
              )}
            </li>
          );
        })}
      </ol>
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
  const row = css({
    display: 'flex',
    justifyContent: 'space-between',
    gap: theme.spacing(1),
    padding: theme.spacing(0.25, 0.5),
    borderBottom: `1px solid ${theme.colors.border.weak}`,
  });
  return {
    wrap: css({ display: 'flex', flexDirection: 'column', gap: theme.spacing(0.5), height: '100%', overflow: 'hidden', fontSize: theme.typography.bodySmall.fontSize }),
    header: css({ display: 'flex', justifyContent: 'space-between', alignItems: 'center' }),
    title: css({ fontWeight: theme.typography.fontWeightMedium }),
    list: css({ listStyle: 'none', margin: 0, padding: 0, overflowY: 'auto', flex: 1 }),
    row,
    clickable: css(row, { cursor: 'pointer', '&:hover': { background: theme.colors.action.hover } }),
    name: css({ overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap' }),
    value: css({ fontVariantNumeric: 'tabular-nums', whiteSpace: 'nowrap' }),
    more: css({ color: theme.colors.text.secondary }),
    link: css({ color: theme.colors.text.link, whiteSpace: 'nowrap', '&:hover': { textDecoration: 'underline' } }),
  };
};
