// Options of the jobio panel. The option paths in module.ts are exactly these keys.

export type PanelView = 'summary' | 'heatmap';

export type SummaryGroupBy = 'jobid' | 'user' | 'mount';
/** How one group gets a single colour: see summary/rollup.ts. */
export type RollupRule = 'threshold' | 'worst' | 'majority';
/** Which share the roll-up looks at: of I/O time or of calls. */
export type RollupBasis = 'time' | 'calls';
export type SummarySort = 'red' | 'total' | 'name' | 'volume' | 'user';

export interface SummaryOptions {
  groupBy: SummaryGroupBy;
  rollupRule: RollupRule;
  rollupBasis: RollupBasis;
  /** threshold rule: red when the red share is ≥ redAt (percent). */
  redAt: number;
  /** threshold rule: otherwise yellow when red + yellow share is ≥ yellowAt (percent). */
  yellowAt: number;
  /** worst rule: a class counts only when its share is > ignoreBelow (percent). */
  ignoreBelow: number;
  sortBy: SummarySort;
  maxGroups: number;
  /** Frames of these query refIds are calls / I/O seconds when the frame does not say itself. */
  callsRefId: string;
  secondsRefId: string;
  /** Frames of this refId are bytes (read + written) by group, when the frame does not say itself. */
  bytesRefId: string;
  /** uid of the dashboard a job links to (with var-jobid and var-user set); empty = no links. */
  jobDashboard: string;
}

export type ColorScheme = 'viridis' | 'oranges' | 'blues';

export interface HeatmapOptions {
  /** Unit of the series values (a Grafana unit id, e.g. `ops`, `Bps`). */
  unit: string;
  /** Fixed log10 bucket range; values outside fall into the edge buckets. Empty = from the data. */
  minExponent?: number;
  maxExponent?: number;
  /** Labels shown for each series in the drill-down list (comma-separated); empty = all labels. */
  listLabels: string;
  /** Dashboard variable set from the drill-down (without `$`); empty = no drill-down variable. */
  drillVariable: string;
  /** Label whose value goes into that variable. */
  drillLabel: string;
  /** Label holding a series' job id: its drill-down row links to the job dashboard. */
  jobLabel: string;
  /** uid of that job dashboard (var-jobid set); empty = no links. */
  jobDashboard: string;
  showNoData: boolean;
  colorScheme: ColorScheme;
}

export interface PanelOptions {
  view: PanelView;
  summary: SummaryOptions;
  heatmap: HeatmapOptions;
}

export const DEFAULT_SUMMARY: SummaryOptions = {
  groupBy: 'jobid',
  rollupRule: 'threshold',
  rollupBasis: 'time',
  redAt: 50,
  yellowAt: 50,
  ignoreBelow: 0,
  sortBy: 'red',
  maxGroups: 50,
  callsRefId: 'A',
  secondsRefId: 'B',
  bytesRefId: 'C',
  jobDashboard: 'jobio-job',
};

export const DEFAULT_HEATMAP: HeatmapOptions = {
  unit: 'ops',
  listLabels: 'user,jobid',
  drillVariable: 'user',
  drillLabel: 'user',
  jobLabel: 'jobid',
  jobDashboard: 'jobio-job',
  showNoData: true,
  colorScheme: 'viridis',
};

export const DEFAULT_OPTIONS: PanelOptions = { view: 'summary', summary: DEFAULT_SUMMARY, heatmap: DEFAULT_HEATMAP };
