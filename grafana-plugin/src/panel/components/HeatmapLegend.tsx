import { type GrafanaTheme2 } from '@grafana/data';
import { useStyles2 } from '@grafana/ui';
import { css } from '@emotion/css';
import React from 'react';
import { logLevel } from '../heatmap/colors';
import { TestIds } from '../testids';

export interface HeatmapLegendProps {
  palette: string[];
  maxCount: number;
  noDataColor?: string;
}

/** Ticks of the count scale: 1, the powers of ten in between, and the largest count. */
export function legendTicks(maxCount: number): number[] {
  const ticks = [1];
  for (let p = 10; p < maxCount; p *= 10) {
    if (Math.log(p) / Math.log(maxCount) < 0.92) {
      ticks.push(p);
    }
  }
  if (maxCount > 1) {
    ticks.push(maxCount);
  }
  return ticks;
}

/** Colour key of the heatmap: series per cell on the same log scale as the cells, rarest first. */
export function HeatmapLegend({ palette, maxCount, noDataColor }: HeatmapLegendProps) {
  const styles = useStyles2(getStyles);
  const ticks = legendTicks(maxCount);
  const position = (c: number) => (maxCount <= 1 ? 0 : (100 * Math.log(c)) / Math.log(maxCount));
  const gradient = maxCount <= 1 ? (palette[0] ?? '') : `linear-gradient(to right, ${palette.join(', ')})`;
  return (
    <div className={styles.wrap} data-testid={TestIds.heatmapLegend} data-max={maxCount}>
      <span className={styles.title}>series per cell</span>
      <div className={styles.scale}>
        <div className={styles.bar} style={{ background: gradient }} />
        {ticks.map((c) => (
          <span key={c} className={styles.tick} style={{ left: `${position(c)}%` }} data-testid={TestIds.heatmapLegendTick} data-count={c} data-color={palette[logLevel(c, maxCount)]}>
            {c.toLocaleString('en')}
          </span>
        ))}
      </div>
      {noDataColor && (
        <span className={styles.noData}>
          <span className={styles.swatch} style={{ background: noDataColor, opacity: 0.55 }} />
          no data
        </span>
      )}
    </div>
  );
}

const getStyles = (theme: GrafanaTheme2) => ({
  wrap: css({ display: 'flex', alignItems: 'center', gap: theme.spacing(1), height: 24, fontSize: theme.typography.bodySmall.fontSize, color: theme.colors.text.secondary }),
  title: css({ whiteSpace: 'nowrap' }),
  scale: css({ position: 'relative', flex: '0 1 260px', minWidth: 120, height: 22 }),
  bar: css({ position: 'absolute', left: 0, right: 0, top: 0, height: 8, borderRadius: 2 }),
  tick: css({
    position: 'absolute',
    top: 9,
    transform: 'translateX(-50%)',
    whiteSpace: 'nowrap',
    lineHeight: '12px',
    '&:first-of-type': { transform: 'none' },
    '&:last-of-type': { transform: 'translateX(-100%)' },
  }),
  noData: css({ display: 'flex', alignItems: 'center', gap: theme.spacing(0.5), whiteSpace: 'nowrap' }),
  swatch: css({ width: 10, height: 10, borderRadius: 2, display: 'inline-block' }),
});
