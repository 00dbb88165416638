import type { QueryEditorProps, SelectableValue } from '@grafana/data';
import { InlineField, InlineFieldRow, InlineSwitch, Input, Select, TextArea } from '@grafana/ui';
import React from 'react';
import { parseThresholds } from '../../../../exporter/src/analysis/population.js';
import type { JobioDataSource } from '../datasource';
import { DEFAULT_QUERY, type JobioOptions, type JobioQuery, type QueryFilters, type QueryType } from '../types';

type Props = QueryEditorProps<JobioDataSource, JobioQuery, JobioOptions>;

const TYPES: Array<SelectableValue<QueryType>> = [
  { value: 'summary', label: 'Job I/O summary (RYG)', description: 'Calls and I/O time by class, per job, user or mount' },
  { value: 'topTalkers', label: 'Top talkers', description: 'topk by target, operation, user or job' },
  { value: 'characterisation', label: 'Job characterisation', description: 'Volume, bandwidth, IOPS, intensity, burstiness, parallelism' },
  { value: 'population', label: 'Population of jobs', description: 'I, ρ, P percentiles per direction and threshold; jobs by volume and peak bandwidth' },
  { value: 'trend', label: 'Trend change', description: 'Short vs long moving average of a rate' },
  { value: 'raw', label: 'PromQL', description: 'Any expression; variables are escaped' },
];

const FILTERS: Record<QueryType, Array<keyof QueryFilters>> = {
  summary: ['jobid', 'user', 'mount'],
  topTalkers: ['jobid', 'user', 'target', 'operation'],
  characterisation: ['jobid', 'user', 'target'],
  population: ['jobid', 'user', 'target'],
  trend: ['jobid', 'user', 'target', 'operation'],
  raw: [],
};

const opts = <T extends string>(...values: T[]): Array<SelectableValue<T>> => values.map((value) => ({ value, label: value }));

export function QueryEditor({ query, onChange, onRunQuery }: Props) {
  const q = { ...DEFAULT_QUERY, ...query };
  const type = q.queryType ?? 'summary';
  const set = (patch: Partial<JobioQuery>, run = true) => {
    onChange({ ...query, ...patch });
    if (run) {
      onRunQuery();
    }
  };
  const setFilter = (key: keyof QueryFilters, value: string) => onChange({ ...query, filters: { ...query.filters, [key]: value } });
  const text = (label: string, key: keyof JobioQuery, width = 12) => (
    <InlineField label={label}>
      <Input width={width} value={String(q[key] ?? '')} onChange={(e) => onChange({ ...query, [key]: e.currentTarget.value })} onBlur={onRunQuery} />
    </InlineField>
  );
  const number = (label: string, key: 'limit' | 'thresholdBytes' | 'changeRatio', width = 12) => (
    <InlineField label={label}>
      <Input width={width} type="number" value={q[key] ?? ''} onChange={(e) => onChange({ ...query, [key]: Number(e.currentTarget.value) })} onBlur={onRunQuery} />
    </InlineField>
  );
  return (
    <>
      <InlineFieldRow>
        <InlineField label="Query type">
          <Select width={32} options={TYPES} value={type} onChange={(v) => set({ queryType: v.value })} />
        </InlineField>
        {type === 'summary' && (
          <InlineField label="Group by">
            <Select width={14} options={opts('jobid', 'user', 'mount')} value={q.groupBy} onChange={(v) => set({ groupBy: v.value })} />
          </InlineField>
        )}
        {type === 'topTalkers' && (
          <>
            <InlineField label="By">
              <Select width={14} options={opts('target', 'operation', 'user', 'jobid')} value={q.dimension} onChange={(v) => set({ dimension: v.value })} />
            </InlineField>
            {number('Top', 'limit', 8)}
            <InlineField label="Table (instant)">
              <InlineSwitch value={q.instant ?? true} onChange={(e) => set({ instant: e.currentTarget.checked })} />
            </InlineField>
          </>
        )}
        {(type === 'topTalkers' || type === 'trend') && (
          <InlineField label="Metric">
            <Select width={16} options={opts('bytes', 'read_bytes', 'write_bytes', 'operations')} value={q.metric} onChange={(v) => set({ metric: v.value })} />
          </InlineField>
        )}
        {type === 'characterisation' && (
          <>
            {text('Interval Δt', 'interval', 8)}
            {number('Threshold c (bytes)', 'thresholdBytes')}
          </>
        )}
        {type === 'population' && (
          <>
            <InlineField label="View">
              <Select width={16} options={opts('percentiles', 'volume', 'bandwidth', 'summary')} value={q.populationView ?? 'percentiles'} onChange={(v) => set({ populationView: v.value })} />
            </InlineField>
            {text('Interval Δt', 'interval', 8)}
            <InlineField label="Thresholds c (bytes)" tooltip="Comma-separated; the percentile table has one column per direction and threshold">
              <Input
                width={24}
                value={(q.thresholdsBytes ?? [0, 131072, 1048576]).join(',')}
                onChange={(e) => onChange({ ...query, thresholdsBytes: parseThresholds(e.currentTarget.value) })}
                onBlur={onRunQuery}
              />
            </InlineField>
            <InlineField label="Share of jobs" tooltip="The table shows the value this share of the jobs is at or below (El Sayed et al., PDSW-DISCS 2016, use 0.8)">
              <Input width={8} type="number" value={q.quantile ?? 0.8} onChange={(e) => onChange({ ...query, quantile: Number(e.currentTarget.value) })} onBlur={onRunQuery} />
            </InlineField>
          </>
        )}
        {type === 'trend' && (
          <>
            {text('Short window', 'shortWindow', 8)}
            {text('Long window', 'longWindow', 8)}
            {number('Change ratio', 'changeRatio', 8)}
          </>
        )}
      </InlineFieldRow>
      {FILTERS[type].length > 0 && (
        <InlineFieldRow>
          {FILTERS[type].map((key) => (
            <InlineField key={key} label={key} tooltip="Literal value or template variable ($user); several values match any of them">
              <Input width={16} value={q.filters?.[key] ?? ''} onChange={(e) => setFilter(key, e.currentTarget.value)} onBlur={onRunQuery} />
            </InlineField>
          ))}
        </InlineFieldRow>
      )}
      {type === 'raw' && (
        <InlineField label="PromQL" grow>
          <TextArea rows={3} value={q.expr ?? ''} onChange={(e) => onChange({ ...query, expr: e.currentTarget.value })} onBlur={onRunQuery} />
        </InlineField>
      )}
    </>
  );
}
