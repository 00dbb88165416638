import { PanelOptionsEditorBuilder, standardEditorsRegistry } from '@grafana/data';
import { plugin } from './module';
import { buildOptions } from './options';
import { DEFAULT_OPTIONS, type PanelOptions } from './types';

// Grafana core registers the real option editors; here stand-ins with the same ids are enough.
standardEditorsRegistry.setInit(() => ['radio', 'select', 'number', 'text', 'boolean', 'unit'].map((id) => ({ id, name: id, editor: () => null })));

function items() {
  const builder = new PanelOptionsEditorBuilder<PanelOptions>();
  buildOptions(builder);
  return builder.getItems();
}

describe('panel plugin options', () => {
  it('declares every option path of PanelOptions', () => {
    expect(items().map((i) => i.path)).toEqual([
      'view',
      'summary.groupBy',
      'summary.rollupRule',
      'summary.rollupBasis',
      'summary.redAt',
      'summary.yellowAt',
      'summary.ignoreBelow',
      'summary.sortBy',
      'summary.maxGroups',
      'summary.callsRefId',
      'summary.secondsRefId',
      'summary.bytesRefId',
      'summary.jobDashboard',
      'heatmap.unit',
      'heatmap.minExponent',
      'heatmap.maxExponent',
      'heatmap.colorScheme',
      'heatmap.showNoData',
      'heatmap.listLabels',
      'heatmap.drillVariable',
      'heatmap.drillLabel',
      'heatmap.jobLabel',
      'heatmap.jobDashboard',
    ]);
  });
  it('gives the plugin the documented defaults', () => {
    const { view, summary, heatmap } = plugin.defaults as PanelOptions;
    expect(view).toBe('summary');
    expect(summary).toEqual(DEFAULT_OPTIONS.summary);
    expect(heatmap).toEqual(DEFAULT_OPTIONS.heatmap);
  });
  it('shows each view’s options only in that view, thresholds only for their rule', () => {
    const byPath = new Map(items().map((i) => [i.path, i]));
    const summary = { ...DEFAULT_OPTIONS, view: 'summary' as const };
    const heatmap = { ...DEFAULT_OPTIONS, view: 'heatmap' as const };
    expect(byPath.get('summary.redAt')?.showIf?.(summary, undefined)).toBe(true);
    expect(byPath.get('summary.redAt')?.showIf?.(heatmap, undefined)).toBe(false);
    expect(byPath.get('summary.ignoreBelow')?.showIf?.(summary, undefined)).toBe(false);
    expect(byPath.get('summary.ignoreBelow')?.showIf?.({ ...summary, summary: { ...summary.summary, rollupRule: 'worst' } }, undefined)).toBe(true);
    expect(byPath.get('heatmap.unit')?.showIf?.(heatmap, undefined)).toBe(true);
    expect(byPath.get('heatmap.unit')?.showIf?.(summary, undefined)).toBe(false);
  });
});
