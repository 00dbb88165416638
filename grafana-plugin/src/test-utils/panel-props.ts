import { type DataFrame, EventBusSrv, type FieldConfigSource, LoadingState, type PanelProps, dateTime } from '@grafana/data';
import { DEFAULT_OPTIONS, type PanelOptions } from '../panel/types';

/** The props Grafana passes a panel, built here so the panel renders in tests without Grafana. */
export function buildPanelProps(series: DataFrame[], options: Partial<PanelOptions> = {}, overrides: Partial<PanelProps<PanelOptions>> = {}): PanelProps<PanelOptions> {
  const from = dateTime('2026-11-21T00:00:00Z');
  const to = dateTime('2026-11-21T01:00:00Z');
  const timeRange = { from, to, raw: { from: 'now-1h', to: 'now' } };
  const fieldConfig: FieldConfigSource = { defaults: {}, overrides: [] };
  return {
    id: 1,
    data: { state: LoadingState.Done, series, timeRange },
    timeRange,
    timeZone: 'utc',
    options: { ...DEFAULT_OPTIONS, ...options },
    fieldConfig,
    transparent: false,
    width: 800,
    height: 300,
    renderCounter: 0,
    title: 'jobio',
    eventBus: new EventBusSrv(),
    replaceVariables: (s: string) => s,
    onOptionsChange: jest.fn(),
    onFieldConfigChange: jest.fn(),
    onChangeTimeRange: jest.fn(),
    ...overrides,
  } as PanelProps<PanelOptions>;
}
