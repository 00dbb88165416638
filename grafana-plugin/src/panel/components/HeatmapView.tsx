import { type GrafanaTheme2, type TimeRange, dateTimeFormat } from '@grafana/data';
import { useStyles2, useTheme2 } from '@grafana/ui';
import { css } from '@emotion/css';
import React, { useEffect, useMemo, useRef, useState } from 'react';
import { palette } from '../heatmap/colors';
import type { DensityIndex } from '../heatmap/density';
import { drawHeatmap } from '../heatmap/draw';
import { rowRange } from '../heatmap/labels';
import { type CellRef, LEGEND_HEIGHT, cellOrigin, computeLayout, hitTest } from '../heatmap/layout';
import { cellMembers } from '../heatmap/members';
import { jobsWithoutSeries } from '../heatmap/exported-density';
import type { HeatSeries } from '../heatmap/series';
import { TestIds } from '../testids';
import type { HeatmapOptions } from '../types';
import { DrillDownList } from './DrillDownList';
import { HeatmapLegend } from './HeatmapLegend';

export interface HeatmapViewProps {
  series: HeatSeries[];
  index: DensityIndex;
  options: HeatmapOptions;
  width: number;
  height: number;
  timeZone: string;
  timeRange?: TimeRange;
  onDrill: (values: string[]) => void;
}

/** The drill-down list beside the plot grows with the panel: 30 % of it, between 300 and 560 px. */
export function listWidth(panelWidth: number): number {
  return Math.min(560, Math.max(300, Math.round(panelWidth * 0.3)));
}

function sameCell(a: CellRef | undefined, b: CellRef | undefined): boolean {
  return a?.step === b?.step && a?.row === b?.row;
}

export function HeatmapView(props: HeatmapViewProps) {
  const { index, options, series } = props;
  const theme = useTheme2();
  const styles = useStyles2(getStyles);
  const canvasRef = useRef<HTMLCanvasElement>(null);
  const [selected, setSelected] = useState<CellRef>();
  const [hover, setHover] = useState<CellRef>();
  const side = props.width >= 640;
  const sideWidth = listWidth(props.width);
  const plotWidth = selected && side ? props.width - sideWidth - 8 : props.width;
  const plotHeight = selected && !side ? Math.floor(props.height * 0.55) : props.height;
  const layout = useMemo(() => computeLayout(plotWidth, plotHeight, index.times.length, index.rows, options.showNoData), [plotWidth, plotHeight, index, options.showNoData]);
  const drawStyle = useMemo(
    () => ({
      palette: palette(options.colorScheme, theme.colors.background.primary),
      text: theme.colors.text.secondary,
      axis: theme.colors.border.medium,
      noData: theme.colors.text.disabled,
      font: `11px ${theme.typography.fontFamily}`,
      unit: options.unit,
      timeZone: props.timeZone,
    }),
    [theme, options.colorScheme, options.unit, props.timeZone],
  );

  useEffect(() => {
    const canvas = canvasRef.current;
    const ctx = canvas?.getContext('2d');
    if (!canvas || !ctx) {
      return;
    }
    const dpr = window.devicePixelRatio || 1;
    canvas.width = Math.round(plotWidth * dpr);
    canvas.height = Math.round(plotHeight * dpr);
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, plotWidth, plotHeight);
    drawHeatmap(ctx, index, layout, drawStyle);
    canvas.dataset['drawn'] = String(Date.now());
  }, [index, layout, drawStyle, plotWidth, plotHeight]);

  // A new result can shrink the grid under a selection: drop it while rendering the new index
  // (React's pattern for state that follows a prop; an effect would render twice).
  const [selectionIndex, setSelectionIndex] = useState(index);
  if (selectionIndex !== index) {
    setSelectionIndex(index);
    setSelected(undefined);
  }

  const cellAt = (e: React.MouseEvent<HTMLCanvasElement>) => {
    const rect = e.currentTarget.getBoundingClientRect();
    return hitTest(layout, e.clientX - rect.left, e.clientY - rect.top);
  };
  const members = useMemo(() => (selected && selected.row >= 0 ? cellMembers(index, series, selected.step, selected.row) : []), [selected, index, series]);
  const describeCell = (cell: CellRef) => {
    const time = dateTimeFormat(index.times[cell.step] ?? 0, { format: 'YYYY-MM-DD HH:mm:ss', timeZone: props.timeZone });
    const count = cell.row < 0 ? (index.noData[cell.step] ?? 0) : (index.counts[cell.step * index.rows + cell.row] ?? 0);
    return { time, range: rowRange(index, cell.row, options.unit), count };
  };
  const outline = (cell: CellRef, cls: string) => {
    const o = cellOrigin(layout, cell);
    return <div className={cls} style={{ left: o.x - 1, top: o.y - 1, width: layout.cellWidth + 1, height: layout.cellHeight + 1 }} />;
  };
  const hoverInfo = hover ? describeCell(hover) : undefined;
  const selectedInfo = selected ? describeCell(selected) : undefined;

  return (
    <div className={styles.wrap} style={{ flexDirection: side ? 'row' : 'column' }} data-testid={TestIds.heatmap} data-rows={index.rows} data-steps={index.times.length}>
      <div className={styles.plot} style={{ width: plotWidth, height: plotHeight }}>
        <canvas
          ref={canvasRef}
          data-testid={TestIds.heatmapCanvas}
          style={{ width: plotWidth, height: plotHeight, cursor: 'crosshair' }}
          onMouseMove={(e) => {
            const cell = cellAt(e);
            if (!sameCell(cell, hover)) {
              setHover(cell);
            }
          }}
          onMouseLeave={() => setHover(undefined)}
          onClick={(e) => {
            const cell = cellAt(e);
            setSelected(cell && !sameCell(cell, selected) ? cell : undefined);
          }}
        />
        <div className={styles.legend} style={{ left: layout.left, width: Math.max(0, plotWidth - layout.left) }}>
          <HeatmapLegend palette={drawStyle.palette} maxCount={index.maxCount} noDataColor={options.showNoData ? drawStyle.noData : undefined} />
        </div>
        {hover && outline(hover, styles.hoverBox)}
        {selected && outline(selected, styles.selectedBox)}
        {hover && hoverInfo && (
          <div className={styles.tooltip} data-testid={TestIds.heatmapHover} style={hoverPosition(layout, hover, plotWidth)}>
            <div>{hoverInfo.time}</div>
            <div>{hoverInfo.range}</div>
            <div>
              <strong>{hoverInfo.count}</strong> {hover.row < 0 ? 'series without data' : 'series'}
            </div>
          </div>
        )}
      </div>
      {selected && selectedInfo && (
        <div className={styles.list} style={side ? { width: sideWidth, height: props.height } : { height: props.height - plotHeight - 8 }}>
          <DrillDownList
            title={`${selectedInfo.time} · ${selectedInfo.range} · ${selectedInfo.count} series`}
            members={members}
            withoutSeries={jobsWithoutSeries(selectedInfo.count, members.length)}
            unit={options.unit}
            listLabels={options.listLabels
              .split(',')
              .map((s) => s.trim())
              .filter(Boolean)}
            drillLabel={options.drillLabel || undefined}
            drillVariable={options.drillVariable || undefined}
            jobLabel={options.jobLabel || undefined}
            jobDashboard={options.jobDashboard || undefined}
            timeRange={props.timeRange}
            onDrill={props.onDrill}
            onClose={() => setSelected(undefined)}
          />
        </div>
      )}
    </div>
  );
}

function hoverPosition(layout: ReturnType<typeof computeLayout>, cell: CellRef, width: number): React.CSSProperties {
  const o = cellOrigin(layout, cell);
  const left = o.x + layout.cellWidth + 8;
  return left + 200 > width ? { right: width - o.x + 8, top: Math.max(0, o.y - 20) } : { left, top: Math.max(0, o.y - 20) };
}

const getStyles = (theme: GrafanaTheme2) => ({
  wrap: css({ display: 'flex', gap: theme.spacing(1), width: '100%', height: '100%' }),
  plot: css({ position: 'relative', flex: 'none' }),
  list: css({ flex: 'none', minHeight: 0 }),
  legend: css({ position: 'absolute', bottom: 0, height: LEGEND_HEIGHT, overflow: 'hidden' }),
  hoverBox: css({ position: 'absolute', pointerEvents: 'none', border: `1px solid ${theme.colors.text.primary}` }),
  selectedBox: css({ position: 'absolute', pointerEvents: 'none', border: `2px solid ${theme.colors.primary.main}` }),
  tooltip: css({
    position: 'absolute',
    pointerEvents: 'none',
    background: theme.colors.background.secondary,
    border: `1px solid ${theme.colors.border.medium}`,
    borderRadius: theme.shape.radius.default,
    boxShadow: theme.shadows.z2,
    padding: theme.spacing(0.5, 1),
    fontSize: theme.typography.bodySmall.fontSize,
    whiteSpace: 'nowrap',
    zIndex: 1,
  }),
});
