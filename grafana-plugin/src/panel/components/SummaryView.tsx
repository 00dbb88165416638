import { type GrafanaTheme2 } from '@grafana/data';
import { Tooltip, useStyles2, useTheme2 } from '@grafana/ui';
import { css } from '@emotion/css';
import React from 'react';
import { type ClassTotals, type GroupTotals, type RollupRules, CLASSES, rollup, shares } from '../summary/rollup';
import { TestIds } from '../testids';
import type { SummaryOptions } from '../types';
import { SummaryTooltip } from './SummaryTooltip';

export interface SummaryViewProps {
  groups: GroupTotals[];
  hidden: number;
  options: SummaryOptions;
  height: number;
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
        <div key={c} data-class={c} data-share={s[c].toFixed(1)} style={{ width: `${s[c]}%`, background: theme.visualization.getColorByName(c) }} />
      ))}
    </div>
  );
}

/** One row per group: roll-up status, stacked time-share and call-share bars, figures on hover. */
export function SummaryView({ groups, hidden, options, height }: SummaryViewProps) {
  const styles = useStyles2(getStyles);
  const theme = useTheme2();
  const rules = rulesOf(options);
  const ruleText = describeRule(options);
  return (
    <div className={styles.wrap} style={{ maxHeight: height }} data-testid={TestIds.summary}>
      <div className={styles.header}>
        <span>{options.groupBy}</span>
        <span>share of I/O time</span>
        <span>share of calls</span>
      </div>
      {groups.map((g) => {
        const status = rollup(g, rules);
        const color = status === 'none' ? theme.colors.text.disabled : theme.visualization.getColorByName(status);
        return (
          <Tooltip key={g.group} content={<SummaryTooltip group={g} status={status} rule={ruleText} />} placement="bottom-start">
            <div className={styles.row} data-testid={TestIds.summaryRow} data-group={g.group} data-status={status} tabIndex={0}>
              <span className={styles.name}>
                <span className={styles.dot} style={{ background: color }} data-testid={TestIds.summaryStatus} />
                {g.group}
              </span>
              <Bar totals={g.seconds} testId={TestIds.summaryTimeBar} label={`${g.group} I/O time shares`} />
              <Bar totals={g.calls} testId={TestIds.summaryCallsBar} label={`${g.group} call shares`} />
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
  header: css({ display: 'grid', gridTemplateColumns: 'minmax(90px, 22%) 1fr 1fr', gap: theme.spacing(1), color: theme.colors.text.secondary }),
  row: css({ display: 'grid', gridTemplateColumns: 'minmax(90px, 22%) 1fr 1fr', gap: theme.spacing(1), alignItems: 'center', '&:hover': { background: theme.colors.action.hover } }),
  name: css({ display: 'flex', alignItems: 'center', gap: theme.spacing(0.75), overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap' }),
  dot: css({ width: 10, height: 10, borderRadius: '50%', flex: 'none' }),
  bar: css({ display: 'flex', height: 16, borderRadius: theme.shape.radius.default, overflow: 'hidden', background: theme.colors.background.secondary }),
  footer: css({ color: theme.colors.text.secondary, marginTop: theme.spacing(0.5) }),
});
