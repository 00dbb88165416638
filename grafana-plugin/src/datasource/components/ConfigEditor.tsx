import type { DataSourcePluginOptionsEditorProps } from '@grafana/data';
import { DataSourceHttpSettings, Field, Input } from '@grafana/ui';
import React from 'react';
import type { JobioOptions } from '../types';

type Props = DataSourcePluginOptionsEditorProps<JobioOptions>;

/** Prometheus URL and auth (Grafana's standard HTTP settings, proxied), plus jobio defaults. */
export function ConfigEditor({ options, onOptionsChange }: Props) {
  const setJson = (patch: Partial<JobioOptions>) => onOptionsChange({ ...options, jsonData: { ...options.jsonData, ...patch } });
  return (
    <>
      <DataSourceHttpSettings defaultUrl="http://localhost:9090" dataSourceConfig={options} onChange={onOptionsChange} showAccessOptions={false} />
      <Field label="Scrape interval" description="The Prometheus scrape interval of the jobio exporters; the smallest step and rate window.">
        <Input width={20} placeholder="15s" value={options.jsonData.scrapeInterval ?? ''} onChange={(e) => setJson({ scrapeInterval: e.currentTarget.value })} />
      </Field>
      <Field label="Characterisation threshold c (bytes per interval)" description="A server counts as doing I/O in an interval when it moves more than c bytes.">
        <Input
          width={20}
          type="number"
          placeholder="1048576"
          value={options.jsonData.defaultThresholdBytes ?? ''}
          onChange={(e) => setJson({ defaultThresholdBytes: e.currentTarget.value === '' ? undefined : Number(e.currentTarget.value) })}
        />
      </Field>
    </>
  );
}
