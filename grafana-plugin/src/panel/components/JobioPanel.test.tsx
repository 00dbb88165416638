import { fireEvent, render, screen, within } from '@testing-library/react';
import { locationService } from '@grafana/runtime';
import { createTheme } from '@grafana/data';
import React from 'react';
import { seriesToFrames } from '../../datasource/prometheus/frames';
import { toSeries } from '../../datasource/prometheus/parse';
import { capture } from '../../test-utils/prom-fixtures';
import { buildPanelProps } from '../../test-utils/panel-props';
import { buildDensity } from '../heatmap/density';
import { cellOrigin, computeLayout } from '../heatmap/layout';
import { framesToSeries } from '../heatmap/series';
import { TestIds } from '../testids';
import { DEFAULT_HEATMAP, DEFAULT_SUMMARY } from '../types';
import { JobioPanel } from './JobioPanel';
import { STATUS_LETTERS, STATUS_SHADES } from '../summary/status-style';
import { listWidth } from './HeatmapView';

const summaryFrames = () => [
  ...seriesToFrames(toSeries(capture('prom-summary-calls-by-jobid-class').body.data), 'A'),
  ...seriesToFrames(toSeries(capture('prom-summary-seconds-by-jobid-class').body.data), 'B'),
];
const heatFrames = () => seriesToFrames(toSeries(capture('heatmap-mdt-user-rates').body.data), 'A');

describe('summary view', () => {
  it('renders one row per job with roll-up status and bars whose shares add up to 100', () => {
    render(<JobioPanel {...buildPanelProps(summaryFrames())} />);
    const rows = screen.getAllByTestId(TestIds.summaryRow);
    expect(rows.map((r) => r.dataset['group']).sort()).toEqual(['7001', '7002', '7003', '7004', '7005']);
    for (const row of rows) {
      const shares = within(row).getByTestId(TestIds.summaryTimeBar).querySelectorAll('[data-share]');
      const sum = [...shares].reduce((a, el) => a + Number((el as HTMLElement).dataset['share']), 0);
      expect(sum).toBeCloseTo(100, 0);
    }
  });
  it('colours groups by the explicit roll-up rule: dd bs=512 and never-opened stats red, stat+seek yellow, dd bs=1M and cp green', () => {
    render(<JobioPanel {...buildPanelProps(summaryFrames())} />);
    const status = (g: string) => screen.getAllByTestId(TestIds.summaryRow).find((r) => r.dataset['group'] === g)?.dataset['status'];
    expect(status('7002')).toBe('red');
    expect(status('7004')).toBe('red');
    expect(status('7003')).toBe('yellow');
    expect(status('7001')).toBe('green');
    expect(status('7005')).toBe('green');
    const order = screen.getAllByTestId(TestIds.summaryRow).map((r) => r.dataset['group']);
    expect(new Set(order.slice(0, 2))).toEqual(new Set(['7002', '7004']));
  });
  it('marks every status with a letter besides its colour (R, Y, G), and the colours are the status shades', () => {
    render(<JobioPanel {...buildPanelProps(summaryFrames())} />);
    const theme = createTheme({ colors: { mode: 'dark' } });
    const rgb = (hex: string) => `rgb(${[1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16)).join(', ')})`;
    const seen = new Map<string, string>();
    for (const row of screen.getAllByTestId(TestIds.summaryRow)) {
      const status = row.dataset['status'] as 'red' | 'yellow' | 'green';
      const badge = within(row).getByTestId(TestIds.summaryStatus);
      expect(badge).toHaveTextContent(STATUS_LETTERS[status]);
      expect(badge).toHaveAttribute('aria-label', `status ${status}`);
      expect(badge.style.background).toBe(rgb(theme.visualization.getColorByName(STATUS_SHADES[status])));
      seen.set(status, badge.textContent as string);
    }
    expect(Object.fromEntries(seen)).toEqual({ red: 'R', yellow: 'Y', green: 'G' });
  });
  it('follows the options: calls basis and worst rule make any red job red', () => {
    render(<JobioPanel {...buildPanelProps(summaryFrames(), { summary: { ...DEFAULT_SUMMARY, rollupRule: 'worst', rollupBasis: 'calls' } })} />);
    const statuses = screen.getAllByTestId(TestIds.summaryRow).map((r) => r.dataset['status']);
    expect(statuses.filter((s) => s === 'red').length).toBeGreaterThanOrEqual(4);
    expect(screen.getByText(/worst class above 0% of calls/)).toBeInTheDocument();
  });
  it('limits rows and says how many are hidden', () => {
    render(<JobioPanel {...buildPanelProps(summaryFrames(), { summary: { ...DEFAULT_SUMMARY, maxGroups: 2 } })} />);
    expect(screen.getAllByTestId(TestIds.summaryRow)).toHaveLength(2);
    expect(screen.getByText(/3 more not shown/)).toBeInTheDocument();
  });
  it('shows absolute figures in the tooltip', async () => {
    render(<JobioPanel {...buildPanelProps(summaryFrames())} />);
    const row = screen.getAllByTestId(TestIds.summaryRow).find((r) => r.dataset['group'] === '7002') as HTMLElement;
    fireEvent.mouseEnter(row);
    fireEvent.focus(row);
    const tip = await screen.findByTestId(TestIds.summaryTooltip);
    expect(tip).toHaveTextContent('7002');
    expect(tip).toHaveTextContent(/red.*%/);
    expect(tip).toHaveTextContent(/total/);
  });
  const volumeFrames = () => seriesToFrames(toSeries(capture('summary-jobid-bytes').body.data), 'C');
  const reasonFrames = () => [
    ...seriesToFrames(toSeries(capture('summary-jobid-reason-calls').body.data), 'A', { jobioMetric: 'reasonCalls' }),
    ...seriesToFrames(toSeries(capture('summary-jobid-reason-seconds').body.data), 'A', { jobioMetric: 'reasonSeconds' }),
  ];
  const rowOf = (g: string) => screen.getAllByTestId(TestIds.summaryRow).find((r) => r.dataset['group'] === g) as HTMLElement;
  it('shows user, volume (bytes) and a link to the job dashboard with var-jobid per job', () => {
    render(<JobioPanel {...buildPanelProps([...summaryFrames(), ...volumeFrames()])} />);
    expect(within(rowOf('7001')).getByTestId(TestIds.summaryUser)).toHaveTextContent('alice');
    const bytesOf = (j: string) => capture('summary-jobid-bytes').body.data.result.find((r: any) => r.metric.jobid === j).value[1];
    expect(within(rowOf('7001')).getByTestId(TestIds.summaryVolume).dataset['bytes']).toBe(bytesOf('7001'));
    // 7001: 8,100,326,325 bytes = 53.6 runs in the range of dd bs=1M writing 48 MiB to /dev/shm, then
    // reading it back and writing it to / (144 MiB a run).
    expect(within(rowOf('7001')).getByTestId(TestIds.summaryVolume)).toHaveTextContent('7.54 GiB');
    // 7004: 1,192,467 bytes, python3's start-up reads (its stats of never-opened files move nothing).
    expect(within(rowOf('7004')).getByTestId(TestIds.summaryVolume)).toHaveTextContent('1.14 MiB');
    const href = within(rowOf('7002')).getByTestId(TestIds.summaryJobLink).getAttribute('href') as string;
    const url = new URL(href, 'http://grafana.local');
    expect(url.pathname).toBe('/d/jobio-job');
    expect(url.searchParams.get('var-jobid')).toBe('7002');
    expect(url.searchParams.get('var-user')).toBe('bob');
    expect(url.searchParams.get('from')).toBe(String(Date.parse('2026-11-21T00:00:00Z')));
  });
  it('shows the user of every job from the calls and seconds series alone (no volume series: volume "–")', () => {
    const withUser = [
      ...seriesToFrames(toSeries(capture('prom-summary-calls-by-jobid-user-class').body.data), 'A'),
      ...seriesToFrames(toSeries(capture('prom-summary-seconds-by-jobid-user-class').body.data), 'B'),
    ];
    render(<JobioPanel {...buildPanelProps(withUser)} />);
    const users = Object.fromEntries(['7001', '7002', '7003', '7004', '7005'].map((j) => [j, within(rowOf(j)).getByTestId(TestIds.summaryUser).textContent]));
    expect(users).toEqual({ '7001': 'alice', '7002': 'bob', '7003': 'carol', '7004': 'dave', '7005': 'erin' });
    expect(rowOf('7004').dataset['status']).toBe('red');
    expect(within(rowOf('7004')).getByTestId(TestIds.summaryVolume)).toHaveTextContent('–');
  });
  it('sorts by a column header; a second click reverses', () => {
    render(<JobioPanel {...buildPanelProps([...summaryFrames(), ...volumeFrames()])} />);
    const order = () => screen.getAllByTestId(TestIds.summaryRow).map((r) => r.dataset['group']);
    const header = (key: string) => screen.getAllByTestId(TestIds.summarySort).find((h) => h.dataset['sort'] === key) as HTMLElement;
    // Bytes: 7001 8.10 GB, 7005 2.14 GB, 7003 419 MB, 7002 257 MB, 7004 1.19 MB.
    fireEvent.click(header('volume'));
    expect(order()).toEqual(['7001', '7005', '7003', '7002', '7004']);
    expect(header('volume')).toHaveAttribute('aria-sort', 'descending');
    fireEvent.click(header('volume'));
    expect(order()).toEqual(['7004', '7002', '7003', '7005', '7001']);
    // Users: alice 7001, bob 7002, carol 7003, dave 7004, erin 7005.
    fireEvent.click(header('user'));
    expect(order()).toEqual(['7001', '7002', '7003', '7004', '7005']);
    fireEvent.click(header('user'));
    expect(order()).toEqual(['7005', '7004', '7003', '7002', '7001']);
    fireEvent.click(header('name'));
    expect(order()).toEqual(['7001', '7002', '7003', '7004', '7005']);
  });
  it('lists the top red/yellow reasons in the tooltip when the data source returns them, and none otherwise', async () => {
    const { unmount } = render(<JobioPanel {...buildPanelProps([...summaryFrames(), ...reasonFrames()])} />);
    fireEvent.mouseEnter(rowOf('7004'));
    fireEvent.focus(rowOf('7004'));
    const tip = await screen.findByTestId(TestIds.summaryTooltip);
    const reasons = within(tip).getByTestId(TestIds.summaryReasons).querySelectorAll('[data-reason]');
    // 7004's python3 stats missing files (0.84 s) and files it never opens (0.44 s); the top four by time.
    expect([...reasons].map((r) => (r as HTMLElement).dataset['reason'])).toEqual(['failed_not_found', 'stat_unused', 'open_bytes_unseen', 'small_read']);
    const fixture = (name: string) => Number(capture(name).body.data.result.find((r: any) => r.metric.jobid === '7004' && r.metric.reason === 'stat_unused').value[1]);
    const secs = fixture('summary-jobid-reason-seconds');
    const calls = Math.round(fixture('summary-jobid-reason-calls')).toLocaleString('en');
    expect(tip).toHaveTextContent(`stat unused (red)${(secs * 1000).toFixed(1)} ms${calls}`);
    unmount();
    render(<JobioPanel {...buildPanelProps(summaryFrames())} />);
    fireEvent.mouseEnter(rowOf('7004'));
    fireEvent.focus(rowOf('7004'));
    const plain = await screen.findByTestId(TestIds.summaryTooltip);
    expect(within(plain).queryByTestId(TestIds.summaryReasons)).toBeNull();
  });
  it('explains an empty result', () => {
    render(<JobioPanel {...buildPanelProps([])} />);
    expect(screen.getByTestId(TestIds.empty)).toHaveTextContent(/jobio_profiler_calls_total/);
  });
});

describe('heatmap view', () => {
  const options = { view: 'heatmap' as const, heatmap: { ...DEFAULT_HEATMAP } };
  it('draws the density of the captured per-user rates', () => {
    render(<JobioPanel {...buildPanelProps(heatFrames(), options)} />);
    const heat = screen.getByTestId(TestIds.heatmap);
    expect(Number(heat.dataset['steps'])).toBeGreaterThan(10);
    expect(Number(heat.dataset['rows'])).toBeGreaterThan(4);
    const canvas = screen.getByTestId(TestIds.heatmapCanvas) as HTMLCanvasElement;
    const events = (canvas.getContext('2d') as unknown as { __getEvents(): Array<{ type: string }> }).__getEvents();
    expect(events.filter((e) => e.type === 'fillRect').length).toBeGreaterThan(50);
  });
  it('lists the series of a clicked cell sorted by value and sets the drill-down variable', () => {
    const partial = jest.spyOn(locationService, 'partial').mockImplementation(() => {});
    const props = buildPanelProps(heatFrames(), options);
    render(<JobioPanel {...props} />);
    const series = framesToSeries(props.data.series);
    const index = buildDensity(series);
    // Pick the busiest non-zero cell.
    let best = { step: 0, row: 1, count: -1 };
    for (let step = 0; step < index.times.length; step++) {
      for (let row = 1; row < index.rows; row++) {
        const count = index.counts[step * index.rows + row] ?? 0;
        if (count > best.count) {
          best = { step, row, count };
        }
      }
    }
    const layout = computeLayout(props.width, props.height, index.times.length, index.rows, true);
    const o = cellOrigin(layout, best);
    fireEvent.click(screen.getByTestId(TestIds.heatmapCanvas), { clientX: o.x + 2, clientY: o.y + 2 });
    const list = screen.getByTestId(TestIds.drilldown);
    const rows = within(list).getAllByTestId(TestIds.drilldownRow);
    expect(rows).toHaveLength(best.count);
    expect(list).toHaveTextContent(`${best.count} series`);
    // A table: one cell per listed label (user, jobid), then the rate and the job link.
    const cells = (row: HTMLElement) =>
      Object.fromEntries(
        within(row)
          .getAllByTestId(TestIds.drilldownCell)
          .map((c) => [c.dataset['label'], c.textContent]),
      );
    const first = cells(rows[0] as HTMLElement);
    expect(Object.keys(first)).toEqual(['user', 'jobid']);
    expect(first['user']).toMatch(/^\S+$/);
    expect(first['jobid']).toMatch(/^\d+$/);
    // Each row links to its job on the job dashboard (var-jobid, var-user set).
    const link = new URL(
      within(rows[0] as HTMLElement)
        .getByTestId(TestIds.drilldownJobLink)
        .getAttribute('href') as string,
      'http://grafana.local',
    );
    expect(link.pathname).toBe('/d/jobio-job');
    expect(first).toEqual({ user: link.searchParams.get('var-user'), jobid: link.searchParams.get('var-jobid') });
    fireEvent.click(rows[0] as HTMLElement);
    expect(partial).toHaveBeenCalledWith({ 'var-user': expect.any(String) }, true);
    fireEvent.click(within(list).getByTestId(TestIds.drilldownSetAll));
    const last = partial.mock.calls[partial.mock.calls.length - 1]?.[0] as Record<string, unknown>;
    expect(best.count === 1 ? typeof last['var-user'] : (last['var-user'] as string[]).length).toBe(best.count === 1 ? 'string' : best.count);
    partial.mockRestore();
  });
  it("has a colour legend with counts on the cells' scale and a value-axis title with the unit", () => {
    const props = buildPanelProps(heatFrames(), options);
    render(<JobioPanel {...props} />);
    const index = buildDensity(framesToSeries(props.data.series));
    const legend = screen.getByTestId(TestIds.heatmapLegend);
    expect(legend).toHaveTextContent('series per cell');
    expect(Number(legend.dataset['max'])).toBe(index.maxCount);
    const ticks = within(legend)
      .getAllByTestId(TestIds.heatmapLegendTick)
      .map((t) => Number(t.dataset['count']));
    expect(ticks[0]).toBe(1);
    expect(ticks[ticks.length - 1]).toBe(index.maxCount);
    const canvas = screen.getByTestId(TestIds.heatmapCanvas) as HTMLCanvasElement;
    const texts = (canvas.getContext('2d') as unknown as { __getEvents(): Array<{ type: string; props: { text?: string } }> })
      .__getEvents()
      .filter((e) => e.type === 'fillText')
      .map((e) => e.props.text);
    expect(texts).toContain('rate per series (ops/s), log10 buckets');
  });
  it('shows a hover tooltip with the count', () => {
    const props = buildPanelProps(heatFrames(), options);
    render(<JobioPanel {...props} />);
    const index = buildDensity(framesToSeries(props.data.series));
    const layout = computeLayout(props.width, props.height, index.times.length, index.rows, true);
    const o = cellOrigin(layout, { step: 0, row: -1 });
    fireEvent.mouseMove(screen.getByTestId(TestIds.heatmapCanvas), { clientX: o.x + 1, clientY: o.y + 1 });
    expect(screen.getByTestId(TestIds.heatmapHover)).toHaveTextContent(/series without data/);
  });
  it('gives the drill-down list 30 % of the panel, between 300 and 560 px', () => {
    expect([640, 1000, 1200, 1600, 1880].map(listWidth)).toEqual([300, 300, 360, 480, 560]);
  });
  it('explains an empty result', () => {
    render(<JobioPanel {...buildPanelProps([], options)} />);
    expect(screen.getByTestId(TestIds.empty)).toHaveTextContent(/heatmap needs/);
  });
});
