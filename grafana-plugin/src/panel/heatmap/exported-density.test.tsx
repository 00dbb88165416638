import { fireEvent, render, screen, within } from '@testing-library/react';
import React from 'react';
import { seriesToFrames } from '../../datasource/prometheus/frames';
import { buildPanelProps } from '../../test-utils/panel-props';
import { JobioPanel } from '../components/JobioPanel';
import { cellOrigin, computeLayout } from './layout';
import { cellMembers } from './members';
import { TestIds } from '../testids';
import { DEFAULT_HEATMAP } from '../types';
import { buildExportedDensity, jobsWithoutSeries } from './exported-density';
import type { HeatSeries } from './series';

const T = [0, 60_000, 120_000];
const job = (jobid: string, values: number[]): HeatSeries => ({ name: jobid, labels: { target: 'fs-OST0000', jobid, user: 'alice' }, times: T, values });
const decade = (d: string, values: number[], target = 'fs-OST0000'): HeatSeries => ({ labels: { decade: d, target }, times: T, values });

// Three jobs with their own series (rates 5, 50, 0.5 ops/s at step 1) and the exporter's counts over
// every job: 40 jobs in [1, 10), 2 in [10, 100), 7 in [0.1, 1), 3 idle, over two targets.
const series = [
  job('1', [5, 5, 5]),
  job('2', [50, 50, 50]),
  job('3', [0.5, 0.5, 0.5]),
  decade('0', [30, 30, 30]),
  decade('0', [10, 10, 10], 'fs-OST0001'),
  decade('1', [2, 2, 2]),
  decade('-1', [7, 7, 7]),
  decade('zero', [3, 3, 3]),
];

describe('buildExportedDensity', () => {
  it('takes the counts of every cell from the decade series (summed over targets) and the members from the per-job series', () => {
    const { index, series: members, exported } = buildExportedDensity(series);
    expect(exported).toBe(true);
    expect(members).toHaveLength(3);
    expect(index.minExponent).toBe(-1);
    expect(index.rows).toBe(4); // zero, 10^-1, 10^0, 10^1
    for (let step = 0; step < 3; step++) {
      expect([...index.counts.slice(step * 4, step * 4 + 4)]).toEqual([3, 7, 40, 2]);
    }
    expect(index.maxCount).toBe(40);
    const cell = cellMembers(index, members, 1, 2);
    expect(cell.map((m) => m.labels['jobid'])).toEqual(['1']);
    expect(jobsWithoutSeries(index.counts[1 * 4 + 2] as number, cell.length)).toBe(39);
  });
  it('without decade series it is the plain density of the series', () => {
    const plain = buildExportedDensity(series.slice(0, 3));
    expect(plain.exported).toBe(false);
    expect([...plain.index.counts.slice(0, plain.index.rows)]).toEqual([0, 1, 1, 1]);
  });
  it('decades the exporter exports at 0 (it exports every one) do not widen the rows', () => {
    const empty = ['-3', '-2', '2', '5', '12'].map((d) => decade(d, [0, 0, 0]));
    const { index } = buildExportedDensity([...series, ...empty]);
    expect(index.minExponent).toBe(-1);
    expect(index.rows).toBe(4);
    expect([...index.counts.slice(0, 4)]).toEqual([3, 7, 40, 2]);
  });
  it('decade series alone still give a heatmap (no member to list)', () => {
    const { index } = buildExportedDensity(series.slice(3));
    expect(index.times).toHaveLength(3);
    expect([...index.counts.slice(0, index.rows)]).toEqual([3, 7, 40, 2]);
  });
});

describe('heatmap panel on the exported density', () => {
  it('lists the jobs with their own series and says how many more the cell holds', () => {
    const plain = (list: HeatSeries[]) => list.map((s) => ({ labels: s.labels, times: Array.from(s.times), values: Array.from(s.values) as number[] }));
    const frames = [...seriesToFrames(plain(series.slice(0, 3)), 'A'), ...seriesToFrames(plain(series.slice(3)), 'B')];
    const props = buildPanelProps(frames, { view: 'heatmap', heatmap: { ...DEFAULT_HEATMAP, listLabels: 'jobid' } });
    render(<JobioPanel {...props} />);
    const heat = screen.getByTestId(TestIds.heatmap);
    expect(heat.dataset['rows']).toBe('4');
    const layout = computeLayout(props.width, props.height, 3, 4, DEFAULT_HEATMAP.showNoData);
    const o = cellOrigin(layout, { step: 1, row: 2 });
    fireEvent.click(screen.getByTestId(TestIds.heatmapCanvas), { clientX: o.x + 2, clientY: o.y + 2 });
    const list = screen.getByTestId(TestIds.drilldown);
    expect(list).toHaveTextContent('40 series');
    expect(within(list).getAllByTestId(TestIds.drilldownRow)).toHaveLength(1);
    const more = within(list).getByTestId(TestIds.drilldownWithoutSeries);
    expect(more).toHaveTextContent('39 more jobs without their own series');
  });
});
