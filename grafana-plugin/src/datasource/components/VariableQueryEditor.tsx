import { InlineField, Input, Select } from '@grafana/ui';
import React from 'react';
import type { JobioVariableQuery, QueryFilters } from '../types';

export interface VariableQueryEditorProps {
  query: JobioVariableQuery | string;
  onChange: (query: JobioVariableQuery, definition: string) => void;
}

const KINDS: Array<JobioVariableQuery['kind']> = ['jobs', 'users', 'targets', 'mounts', 'operations'];

export function definitionOf(q: JobioVariableQuery): string {
  const filters = Object.entries(q.filters ?? {}).filter(([, v]) => v);
  return filters.length ? `${q.kind}(${filters.map(([k, v]) => `${k}=${v}`).join(', ')})` : q.kind;
}

/** Variable editor: which list (jobs, users, targets, …) and optional filters such as user=$user. */
export function VariableQueryEditor({ query, onChange }: VariableQueryEditorProps) {
  const q: JobioVariableQuery = typeof query === 'string' || !query ? { kind: 'jobs' } : query;
  const update = (patch: Partial<JobioVariableQuery>) => {
    const next = { ...q, ...patch };
    onChange(next, definitionOf(next));
  };
  const setFilter = (key: keyof QueryFilters, value: string) => update({ filters: { ...q.filters, [key]: value } });
  return (
    <>
      <InlineField label="List">
        <Select width={16} options={KINDS.map((k) => ({ value: k, label: k }))} value={q.kind} onChange={(v) => v.value && update({ kind: v.value })} />
      </InlineField>
      {(['user', 'target', 'jobid'] as const).map((key) => (
        <InlineField key={key} label={`where ${key}`}>
          <Input width={16} value={q.filters?.[key] ?? ''} onChange={(e) => setFilter(key, e.currentTarget.value)} />
        </InlineField>
      ))}
    </>
  );
}
