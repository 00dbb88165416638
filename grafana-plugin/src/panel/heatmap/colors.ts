// Log colour scale: a count c ≥ 1 maps to t = ln(c) / ln(max) in [0, 1] (t = 1 when max = 1), then to
// one of LEVELS palette steps. Count 0 draws nothing.
import type { ColorScheme } from '../types';

export const LEVELS = 64;

const STOPS: Record<ColorScheme, string[]> = {
  viridis: ['#440154', '#3b528b', '#21918c', '#5ec962', '#fde725'],
  oranges: ['#fee6ce', '#fdae6b', '#fd8d3c', '#e6550d', '#a63603'],
  blues: ['#deebf7', '#9ecae1', '#6baed6', '#3182bd', '#08519c'],
};

export function logLevel(count: number, maxCount: number): number {
  if (count <= 0) {
    return -1;
  }
  if (maxCount <= 1) {
    return LEVELS - 1;
  }
  const t = Math.log(count) / Math.log(maxCount);
  return Math.min(LEVELS - 1, Math.max(0, Math.round(t * (LEVELS - 1))));
}

function hex(c: string): [number, number, number] {
  return [parseInt(c.slice(1, 3), 16), parseInt(c.slice(3, 5), 16), parseInt(c.slice(5, 7), 16)];
}

/** LEVELS colours interpolated through the scheme's stops. */
export function palette(scheme: ColorScheme): string[] {
  const stops = (STOPS[scheme] ?? STOPS.viridis).map(hex);
  const out: string[] = [];
  for (let i = 0; i < LEVELS; i++) {
    const x = (i / (LEVELS - 1)) * (stops.length - 1);
    const k = Math.min(Math.floor(x), stops.length - 2);
    const f = x - k;
    const a = stops[k] as [number, number, number];
    const b = stops[k + 1] as [number, number, number];
    const mix = (j: 0 | 1 | 2) => Math.round(a[j] + (b[j] - a[j]) * f);
    out.push(`rgb(${mix(0)}, ${mix(1)}, ${mix(2)})`);
  }
  return out;
}
