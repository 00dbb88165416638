// Stable data-testid values, shared by jest, the Chromium test and the benchmark.
export const TestIds = {
  panel: 'jobio-panel',
  empty: 'jobio-panel-empty',
  summary: 'jobio-summary',
  summaryRow: 'jobio-summary-row',
  summaryStatus: 'jobio-summary-status',
  summaryTimeBar: 'jobio-summary-time-bar',
  summaryCallsBar: 'jobio-summary-calls-bar',
  summaryTooltip: 'jobio-summary-tooltip',
  heatmap: 'jobio-heatmap',
  heatmapCanvas: 'jobio-heatmap-canvas',
  heatmapHover: 'jobio-heatmap-hover',
  drilldown: 'jobio-drilldown',
  drilldownRow: 'jobio-drilldown-row',
  drilldownSetAll: 'jobio-drilldown-set-all',
  drilldownWithoutSeries: 'jobio-drilldown-without-series',
} as const;
