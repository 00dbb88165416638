import { fireEvent, render, screen } from '@testing-library/react';
import React from 'react';
import type { JobioDataSource } from '../datasource';
import type { JobioQuery } from '../types';
import { ConfigEditor } from './ConfigEditor';
import { QueryEditor } from './QueryEditor';
import { VariableQueryEditor, definitionOf } from './VariableQueryEditor';

describe('QueryEditor', () => {
  const renderEditor = (query: JobioQuery) => {
    const onChange = jest.fn();
    const onRunQuery = jest.fn();
    render(<QueryEditor query={query} onChange={onChange} onRunQuery={onRunQuery} datasource={{} as JobioDataSource} />);
    return { onChange, onRunQuery };
  };
  it('shows the filters of the summary query type and edits them', () => {
    const { onChange, onRunQuery } = renderEditor({ refId: 'A', queryType: 'summary' });
    expect(screen.getByText('Group by')).toBeInTheDocument();
    const inputs = screen.getAllByRole('textbox');
    expect(inputs).toHaveLength(3);
    fireEvent.change(inputs[1] as HTMLElement, { target: { value: '$user' } });
    expect(onChange).toHaveBeenCalledWith({ refId: 'A', queryType: 'summary', filters: { user: '$user' } });
    fireEvent.blur(inputs[1] as HTMLElement);
    expect(onRunQuery).toHaveBeenCalled();
  });
  it('shows the characterisation interval and threshold', () => {
    renderEditor({ refId: 'A', queryType: 'characterisation' });
    expect(screen.getByText('Interval Δt')).toBeInTheDocument();
    expect(screen.getByText('Threshold c (bytes)')).toBeInTheDocument();
  });
  it('shows the trend windows and the raw PromQL box', () => {
    renderEditor({ refId: 'A', queryType: 'trend' });
    expect(screen.getByText('Short window')).toBeInTheDocument();
    expect(screen.getByText('Change ratio')).toBeInTheDocument();
  });
  it('edits raw PromQL', () => {
    const { onChange } = renderEditor({ refId: 'A', queryType: 'raw', expr: '' });
    fireEvent.change(screen.getByRole('textbox'), { target: { value: 'up' } });
    expect(onChange).toHaveBeenCalledWith(expect.objectContaining({ expr: 'up' }));
  });
});

describe('ConfigEditor', () => {
  it('edits the scrape interval and the threshold in jsonData', () => {
    const onOptionsChange = jest.fn();
    const options = { jsonData: {}, secureJsonFields: {}, url: '', access: 'proxy' } as never;
    render(<ConfigEditor options={options} onOptionsChange={onOptionsChange} />);
    fireEvent.change(screen.getByPlaceholderText('15s'), { target: { value: '30s' } });
    expect(onOptionsChange).toHaveBeenCalledWith(expect.objectContaining({ jsonData: { scrapeInterval: '30s' } }));
    fireEvent.change(screen.getByPlaceholderText('1048576'), { target: { value: '4096' } });
    expect(onOptionsChange).toHaveBeenLastCalledWith(expect.objectContaining({ jsonData: { defaultThresholdBytes: 4096 } }));
  });
});

describe('VariableQueryEditor', () => {
  it('writes a readable definition', () => {
    expect(definitionOf({ kind: 'jobs' })).toBe('jobs');
    expect(definitionOf({ kind: 'jobs', filters: { user: '$user', target: '' } })).toBe('jobs(user=$user)');
  });
  it('edits a filter', () => {
    const onChange = jest.fn();
    render(<VariableQueryEditor query={{ kind: 'users' }} onChange={onChange} />);
    fireEvent.change(screen.getAllByRole('textbox')[1] as HTMLElement, { target: { value: 'scratch-MDT0000' } });
    expect(onChange).toHaveBeenCalledWith({ kind: 'users', filters: { target: 'scratch-MDT0000' } }, 'users(target=scratch-MDT0000)');
  });
});
