import { type PanelProps } from '@grafana/data';
import { locationService } from '@grafana/runtime';
import React, { useCallback, useMemo } from 'react';
import { buildExportedDensity } from '../heatmap/exported-density';
import { framesToSeries } from '../heatmap/series';
import { collectGroups } from '../summary/collect';
import { orderGroups } from '../summary/order';
import { TestIds } from '../testids';
import { DEFAULT_HEATMAP, DEFAULT_SUMMARY, type PanelOptions } from '../types';
import { HeatmapView } from './HeatmapView';
import { SummaryView } from './SummaryView';

function Empty({ text }: { text: string }) {
  return (
    <div data-testid={TestIds.empty} style={{ padding: 8, opacity: 0.7 }}>
      {text}
    </div>
  );
}

/** Sets a dashboard variable from the drill-down; other panels using `$var` follow. */
export function setDashboardVariable(name: string, values: string[]): void {
  locationService.partial({ [`var-${name}`]: values.length === 1 ? values[0] : values }, true);
}

function SummaryPanel({ props }: { props: PanelProps<PanelOptions> }) {
  const options = { ...DEFAULT_SUMMARY, ...props.options.summary };
  const { groups, hidden } = useMemo(() => {
    // Which groups make the cut follows the configured order; the view re-sorts them on a header click.
    const all = collectGroups(props.data.series, options.groupBy, options);
    const ordered = orderGroups(all, options.sortBy, options.rollupBasis);
    return { groups: ordered.slice(0, options.maxGroups), hidden: Math.max(0, ordered.length - options.maxGroups) };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [props.data.series, options.groupBy, options.sortBy, options.rollupBasis, options.maxGroups, options.callsRefId, options.secondsRefId, options.bytesRefId]);
  if (groups.length === 0) {
    return <Empty text={`No jobio_profiler_calls_total / jobio_profiler_io_seconds_total series with labels "${options.groupBy}" and "class".`} />;
  }
  return <SummaryView groups={groups} hidden={hidden} options={options} height={props.height} timeRange={props.timeRange} />;
}

function HeatmapPanel({ props }: { props: PanelProps<PanelOptions> }) {
  const options = { ...DEFAULT_HEATMAP, ...props.options.heatmap };
  const all = useMemo(() => framesToSeries(props.data.series), [props.data.series]);
  // Series with a `decade` label are the exporter's counts of every job (exported-density.ts).
  const { series, index } = useMemo(
    () => buildExportedDensity(all, { minExponent: options.minExponent ?? undefined, maxExponent: options.maxExponent ?? undefined }),
    [all, options.minExponent, options.maxExponent],
  );
  const onDrill = useCallback((values: string[]) => setDashboardVariable(options.drillVariable, values), [options.drillVariable]);
  if (index.times.length === 0) {
    return <Empty text="No time series to count: the heatmap needs one or more series with a time field." />;
  }
  return <HeatmapView series={series} index={index} options={options} width={props.width} height={props.height} timeZone={props.timeZone} timeRange={props.timeRange} onDrill={onDrill} />;
}

export function JobioPanel(props: PanelProps<PanelOptions>) {
  return (
    <div data-testid={TestIds.panel} data-view={props.options.view} style={{ width: props.width, height: props.height, overflow: 'hidden' }}>
      {props.options.view === 'heatmap' ? <HeatmapPanel props={props} /> : <SummaryPanel props={props} />}
    </div>
  );
}
