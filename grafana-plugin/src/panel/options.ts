import type { PanelOptionsEditorBuilder } from '@grafana/data';
import { DEFAULT_HEATMAP as H, DEFAULT_SUMMARY as S, type PanelOptions } from './types';

const isSummary = (o: PanelOptions) => o.view !== 'heatmap';
const isHeatmap = (o: PanelOptions) => o.view === 'heatmap';

export function buildOptions(builder: PanelOptionsEditorBuilder<PanelOptions>): PanelOptionsEditorBuilder<PanelOptions> {
  builder.addRadio({
    path: 'view',
    name: 'View',
    defaultValue: 'summary',
    settings: {
      options: [
        { value: 'summary', label: 'I/O summary (RYG)' },
        { value: 'heatmap', label: 'Density heatmap' },
      ],
    },
  });
  const summary = ['I/O summary'];
  builder
    .addRadio({
      path: 'summary.groupBy',
      name: 'Group by',
      category: summary,
      defaultValue: S.groupBy,
      settings: {
        options: [
          { value: 'jobid', label: 'Job' },
          { value: 'user', label: 'User' },
          { value: 'mount', label: 'Mount' },
        ],
      },
      showIf: isSummary,
    })
    .addSelect({
      path: 'summary.rollupRule',
      name: 'Roll-up rule',
      description: 'threshold: red if red share ≥ "red at", else yellow if red+yellow ≥ "yellow at"; worst: worst class above "ignore below"; majority: largest share (ties go to the worse class)',
      category: summary,
      defaultValue: S.rollupRule,
      settings: {
        options: [
          { value: 'threshold', label: 'Thresholds' },
          { value: 'worst', label: 'Worst class' },
          { value: 'majority', label: 'Majority' },
        ],
      },
      showIf: isSummary,
    })
    .addRadio({
      path: 'summary.rollupBasis',
      name: 'Roll-up basis',
      category: summary,
      defaultValue: S.rollupBasis,
      settings: {
        options: [
          { value: 'time', label: 'I/O time' },
          { value: 'calls', label: 'Calls' },
        ],
      },
      showIf: isSummary,
    })
    .addNumberInput({
      path: 'summary.redAt',
      name: 'Red at (% red)',
      category: summary,
      defaultValue: S.redAt,
      settings: { min: 0, max: 100 },
      showIf: (o) => isSummary(o) && o.summary?.rollupRule === 'threshold',
    })
    .addNumberInput({
      path: 'summary.yellowAt',
      name: 'Yellow at (% red + yellow)',
      category: summary,
      defaultValue: S.yellowAt,
      settings: { min: 0, max: 100 },
      showIf: (o) => isSummary(o) && o.summary?.rollupRule === 'threshold',
    })
    .addNumberInput({
      path: 'summary.ignoreBelow',
      name: 'Ignore classes at or below (%)',
      category: summary,
      defaultValue: S.ignoreBelow,
      settings: { min: 0, max: 100 },
      showIf: (o) => isSummary(o) && o.summary?.rollupRule === 'worst',
    })
    .addSelect({
      path: 'summary.sortBy',
      name: 'Sort by',
      category: summary,
      defaultValue: S.sortBy,
      settings: {
        options: [
          { value: 'red', label: 'Red share' },
          { value: 'total', label: 'Total' },
          { value: 'volume', label: 'Volume' },
          { value: 'user', label: 'User' },
          { value: 'name', label: 'Name' },
        ],
      },
      showIf: isSummary,
    })
    .addNumberInput({ path: 'summary.maxGroups', name: 'Max rows', category: summary, defaultValue: S.maxGroups, settings: { min: 1, integer: true }, showIf: isSummary })
    .addTextInput({
      path: 'summary.callsRefId',
      name: 'Calls query (refId)',
      description: 'Used when a frame carries neither __name__ nor a jobio tag',
      category: summary,
      defaultValue: S.callsRefId,
      showIf: isSummary,
    })
    .addTextInput({ path: 'summary.secondsRefId', name: 'I/O seconds query (refId)', category: summary, defaultValue: S.secondsRefId, showIf: isSummary })
    .addTextInput({ path: 'summary.bytesRefId', name: 'Volume query (refId)', description: 'Bytes read + written by group', category: summary, defaultValue: S.bytesRefId, showIf: isSummary })
    .addTextInput({
      path: 'summary.jobDashboard',
      name: 'Job dashboard (uid)',
      description: 'Job rows link to it with var-jobid set; empty = no links',
      category: summary,
      defaultValue: S.jobDashboard,
      showIf: isSummary,
    });
  const heatmap = ['Density heatmap'];
  builder
    .addUnitPicker({ path: 'heatmap.unit', name: 'Unit of the series values', category: heatmap, defaultValue: H.unit, showIf: isHeatmap })
    .addNumberInput({ path: 'heatmap.minExponent', name: 'Lowest bucket (log10)', description: 'Empty: from the data', category: heatmap, settings: { integer: true }, showIf: isHeatmap })
    .addNumberInput({ path: 'heatmap.maxExponent', name: 'Highest bucket (log10)', category: heatmap, settings: { integer: true }, showIf: isHeatmap })
    .addRadio({
      path: 'heatmap.colorScheme',
      name: 'Colours',
      category: heatmap,
      defaultValue: H.colorScheme,
      settings: {
        options: [
          { value: 'viridis', label: 'Viridis' },
          { value: 'oranges', label: 'Oranges' },
          { value: 'blues', label: 'Blues' },
        ],
      },
      showIf: isHeatmap,
    })
    .addBooleanSwitch({ path: 'heatmap.showNoData', name: 'Show "no data" row', category: heatmap, defaultValue: H.showNoData, showIf: isHeatmap })
    .addTextInput({ path: 'heatmap.listLabels', name: 'Labels in the drill-down list', description: 'Comma-separated; empty = all', category: heatmap, defaultValue: H.listLabels, showIf: isHeatmap })
    .addTextInput({
      path: 'heatmap.drillVariable',
      name: 'Drill-down variable',
      description: 'Dashboard variable (without $) set by a click in the list; empty = off',
      category: heatmap,
      defaultValue: H.drillVariable,
      showIf: isHeatmap,
    })
    .addTextInput({
      path: 'heatmap.drillLabel',
      name: 'Drill-down label',
      description: 'Series label whose value goes into the variable',
      category: heatmap,
      defaultValue: H.drillLabel,
      showIf: isHeatmap,
    })
    .addTextInput({
      path: 'heatmap.jobLabel',
      name: 'Job label',
      description: 'Series label holding the job id: each drill-down row links to the job dashboard',
      category: heatmap,
      defaultValue: H.jobLabel,
      showIf: isHeatmap,
    })
    .addTextInput({
      path: 'heatmap.jobDashboard',
      name: 'Job dashboard (uid)',
      description: 'Opened with var-jobid set; empty = no links',
      category: heatmap,
      defaultValue: H.jobDashboard,
      showIf: isHeatmap,
    });
  return builder;
}
