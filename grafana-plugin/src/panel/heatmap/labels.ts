import { formattedValueToString, getValueFormat } from '@grafana/data';
import type { DensityIndex } from './density';

/** Axis label of a row: "no data", "0", or the bucket's lower bound in the panel unit. */
export function rowLabel(index: DensityIndex, row: number, unit: string): string {
  if (row < 0) {
    return 'no data';
  }
  if (row === 0) {
    return '0';
  }
  return formatValue(10 ** (index.minExponent + row - 1), unit);
}

export function formatValue(value: number, unit: string): string {
  if (!Number.isFinite(value)) {
    return String(value);
  }
  return formattedValueToString(getValueFormat(unit || 'none')(value));
}

/** "[1 K, 10 K) ops" style description of a row. */
export function rowRange(index: DensityIndex, row: number, unit: string): string {
  if (row < 0) {
    return 'no data';
  }
  if (row === 0) {
    return 'exactly 0';
  }
  const lo = 10 ** (index.minExponent + row - 1);
  return `[${formatValue(lo, unit)}, ${formatValue(lo * 10, unit)})`;
}

/** The unit as Grafana prints it after a value ("ops/s", "B/s"), or '' for unit-less values. */
export function unitName(unit: string): string {
  const f = getValueFormat(unit || 'none')(1);
  return `${f.prefix ?? ''}${f.suffix ?? ''}`.trim();
}

/** Title of the value axis: what a row measures, in which unit. */
export function valueAxisTitle(unit: string): string {
  const name = unitName(unit);
  return name ? `rate per series (${name}), log10 buckets` : 'value per series, log10 buckets';
}
