import { type GrafanaTheme2, type TimeRange } from '@grafana/data';
import { Tooltip, useStyles2, useTheme2 } from '@grafana/ui';
import { css } from '@emotion/css';
import React, { useState } from 'react';
import { formatValue } from '../heatmap/labels';
import { jobDashboardUrl } from '../links';
import { orderGroups } from '../summary/order';
import { type ClassTotals, type GroupTotals, type RollupRules, CLASSES, rollup, shares } from '../summary/rollup';
import { STATUS_LETTERS, statusColor } from '../summary/status-style';
import { TestIds } from '../testids';
import type { SummaryOptions, SummarySort } from '../types';
import { SummaryTooltip } from './SummaryTooltip';

export interface SummaryViewProps {
  groups: GroupTotals[];
  hidden: number;
  options: SummaryOptions;
  height: number;
  timeRange?: TimeRange;
}

/** A column header that sorts the rows; a second click reverses the order. */
function SortHeader({ label, sortKey, sort, onSort }: { label: string; sortKey: SummarySort; sort: { key: SummarySort; reversed: boolean }; onSort: (key: SummarySort) => void }) {
  const active = sort.key === sortKey;
  return (
    <button
      type="button"
      data-testid={TestIds.summarySort}
      data-sort={sortKey}
      aria-sort={active ? (sort.reversed ? 'ascending' : 'descending') : 'none'}
      onClick={() => onSort(sortKey)}
      style={{ all: 'unset', cursor: 'pointer', whiteSpace: 'nowrap', fontWeight: active ? 600 : undefined }}
    >
      {label}
      {active ? (sort.reversed ? ' ▲' : ' ▼') : ''}
    </button>
  );
}

export function rulesOf(o: SummaryOptions): RollupRules {
  return { rule: o.rollupRule, basis: o.rollupBasis, redAt: o.redAt, yellowAt: o.yellowAt, ignoreBelow: o.ignoreBelow };
}

export function describeRule(o: SummaryOptions): string {
  const basis = o.rollupBasis === 'calls' ? 'calls' : 'I/O time';
  switch (o.rollupRule) {
    case 'threshold':
      return `red ≥ ${o.redAt}% red ${basis}; yellow ≥ ${o.yellowAt}% red+yellow`;
    case 'worst':
      return `worst class above ${o.ignoreBelow}% of ${basis}`;
    default:
      return `largest share of ${basis}`;
  }
}

function Bar({ totals, testId, label }: { totals: ClassTotals; testId: string; label: string }) {
  const theme = useTheme2();
  const styles = useStyles2(getStyles);
  const s = shares(totals);
  return (
    <div className={styles.bar} data-testid={testId} aria-label={label}>
      {CLASSES.map((c) => (
        <div key={c} data-class={c} data-share={s[c].toFixed(1)} style={{ width: `${s[c]}%`, background: statusColor(theme, c) }} />
      ))}
    </div>
  );
}

/**
 * One row per group: roll-up status, user, volume, stacked time-share and call-share bars, a link to
 * the job's dashboard; figures and red/yellow reasons on hover; sortable by every column.
 */
export function SummaryView({ groups, hidden, options, height, timeRange }: SummaryViewProps) {
  const styles = useStyles2(getStyles);
  const theme = useTheme2();
  const [sort, setSort] = useState({ key: options.sortBy, reversed: false });
  const rules = rulesOf(options);
  const ruleText = describeRule(options);
  const byJob = options.groupBy === 'jobid';
  const links = byJob && options.jobDashboard !== '';
  const ordered = orderGroups(groups, sort.key, options.rollupBasis);
  const rows = sort.reversed ? ordered.reverse() : ordered;
  const onSort = (key: SummarySort) => setSort((s) => ({ key, reversed: s.key === key ? !s.reversed : false }));
  const columns = `minmax(80px, 16%)${byJob ? ' minmax(60px, 10%)' : ''} minmax(64px, 10%) 1fr 1fr${links ? ' 44px' : ''}`;
  const sortProps = { sort, onSort };
  return (
    <div className={styles.wrap} style={{ maxHeight: height }} data-testid={TestIds.summary}>
      <div className={styles.header} style={{ gridTemplateColumns: columns }}>
        <SortHeader label={options.groupBy} sortKey="name" {...sortProps} />
        {byJob && <SortHeader label="user" sortKey="user" {...sortProps} />}
        <SortHeader label="volume" sortKey="volume" {...sortProps} />
        <SortHeader label="share of I/O time (red first)" sortKey="red" {...sortProps} />
        <SortHeader label="share of calls (most first)" sortKey="total" {...sortProps} />
        {links && <span />}
      </div>
      {rows.map((g) => {
        const status = rollup(g, rules);
        const color = statusColor(theme, status);
        const user = g.users.length > 1 ? `${g.users.length} users` : (g.users[0] ?? '');
        return (
          <Tooltip key={g.group} content={<SummaryTooltip group={g} status={status} rule={ruleText} />} placement="bottom-start">
            <div className={styles.row} style={{ gridTemplateColumns: columns }} data-testid={TestIds.summaryRow} data-group={g.group} data-status={status} tabIndex={0}>
              <span className={styles.name}>
                <span className={styles.badge} style={{ background: color, color: theme.colors.getContrastText(color) }} data-testid={TestIds.summaryStatus} aria-label={`status ${status}`}>
                  {STATUS_LETTERS[status]}
                </span>
                {g.group}
              </span>
              {byJob && (
                <span className={styles.cell} data-testid={TestIds.summaryUser} title={g.users.join(', ')}>
                  {user}
                </span>
              )}
              <span className={styles.number} data-testid={TestIds.summaryVolume} data-bytes={g.bytes ?? ''}>
                {g.bytes === undefined ? '–' : formatValue(g.bytes, 'bytes')}
              </span>
              <Bar totals={g.seconds} testId={TestIds.summaryTimeBar} label={`${g.group} I/O time shares`} />
              <Bar totals={g.calls} testId={TestIds.summaryCallsBar} label={`${g.group} call shares`} />
              {links && (
                <a
                  className={styles.link}
                  href={jobDashboardUrl(options.jobDashboard, g.group, g.users.length === 1 ? g.users[0] : undefined, timeRange)}
                  data-testid={TestIds.summaryJobLink}
                  title={`Open job ${g.group}`}
                >
                  job ›
                </a>
              )}
            </div>
          </Tooltip>
        );
      })}
      <div className={styles.footer}>
        {`Roll-up: ${ruleText}.`}
        {hidden > 0 && ` ${hidden} more not shown.`}
      </div>
    </div>
  );
}

const getStyles = (theme: GrafanaTheme2) => ({
  wrap: css({ overflowY: 'auto', display: 'flex', flexDirection: 'column', gap: theme.spacing(0.5), fontSize: theme.typography.bodySmall.fontSize }),
  header: css({ display: 'grid', gap: theme.spacing(1), color: theme.colors.text.secondary }),
  row: css({ display: 'grid', gap: theme.spacing(1), alignItems: 'center', '&:hover': { background: theme.colors.action.hover } }),
  cell: css({ overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap' }),
  number: css({ fontVariantNumeric: 'tabular-nums', whiteSpace: 'nowrap', textAlign: 'right' }),
  link: css({ color: theme.colors.text.link, whiteSpace: 'nowrap', '&:hover': { textDecoration: 'underline' } }),
  name: css({ display: 'flex', alignItems: 'center', gap: theme.spacing(0.75), overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap' }),
  badge: css({
    width: 16,
    height: 16,
    flex: 'none',
    borderRadius: theme.shape.radius.default,
    display: 'inline-flex',
    alignItems: 'center',
    justifyContent: 'center',
    fontSize: 11,
    fontWeight: theme.typography.fontWeightBold,
    lineHeight: 1,
  }),
  bar: css({ display: 'flex', height: 16, borderRadius: theme.shape.radius.default, overflow: 'hidden', background: theme.colors.background.secondary }),
  footer: css({ color: theme.colors.text.secondary, marginTop: theme.spacing(0.5) }),
});
