// Colour scale of the density heatmap, chosen for the one cell an admin must see: a rare cell (one
// series alone at a high rate) has the lowest count, so the lowest count gets the colour that contrasts
// most with the panel background, in dark and light themes alike. A count c ≥ 1 maps to
// t = ln(c) / ln(max) in [0, 1], then to one of LEVELS palette steps; level 0 (count 1) is the most
// contrasting end of the scheme, and the scheme is cut where its contrast with the background falls
// under MIN_CONTRAST, so that no drawn cell fades into the background. Count 0 draws nothing.
import type { ColorScheme } from '../types';

export const LEVELS = 64;

/** WCAG 2.x minimum contrast for graphical objects (success criterion 1.4.11, non-text contrast). */
export const MIN_CONTRAST = 3;

const STOPS: Record<ColorScheme, string[]> = {
  viridis: ['#440154', '#3b528b', '#21918c', '#5ec962', '#fde725'],
  oranges: ['#fee6ce', '#fdae6b', '#fd8d3c', '#e6550d', '#a63603'],
  blues: ['#deebf7', '#9ecae1', '#6baed6', '#3182bd', '#08519c'],
};

export type Rgb = [number, number, number];

/** Palette level of a count: 0 for a count of 1 (the rarest), LEVELS − 1 for the largest; −1 for 0. */
export function logLevel(count: number, maxCount: number): number {
  if (count <= 0) {
    return -1;
  }
  if (maxCount <= 1) {
    return 0;
  }
  const t = Math.log(count) / Math.log(maxCount);
  return Math.min(LEVELS - 1, Math.max(0, Math.round(t * (LEVELS - 1))));
}

/** Count at a position t in [0, 1] of the legend (inverse of the level mapping). */
export function countAt(t: number, maxCount: number): number {
  return maxCount <= 1 ? 1 : Math.exp(t * Math.log(maxCount));
}

/** '#rgb', '#rrggbb', '#rrggbbaa' (alpha ignored) or 'rgb(a)(r, g, b…)'. */
export function parseColor(css: string): Rgb {
  const c = css.trim();
  const fn = /^rgba?\(\s*(\d+(?:\.\d+)?)[\s,]+(\d+(?:\.\d+)?)[\s,]+(\d+(?:\.\d+)?)/i.exec(c);
  if (fn) {
    return [Number(fn[1]), Number(fn[2]), Number(fn[3])];
  }
  const hex = /^#([0-9a-f]{3,8})$/i.exec(c)?.[1];
  if (hex && hex.length === 3) {
    return [0, 1, 2].map((i) => parseInt(`${hex[i]}${hex[i]}`, 16)) as Rgb;
  }
  if (hex && (hex.length === 6 || hex.length === 8)) {
    return [0, 2, 4].map((i) => parseInt(hex.slice(i, i + 2), 16)) as Rgb;
  }
  throw new Error(`unsupported colour ${JSON.stringify(css)}`);
}

/** WCAG relative luminance of an sRGB colour. */
export function luminance([r, g, b]: Rgb): number {
  const lin = (v: number) => {
    const s = v / 255;
    return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
}

/** WCAG contrast ratio (1 to 21) of two colours. */
export function contrastRatio(a: Rgb, b: Rgb): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}

const css = ([r, g, b]: Rgb) => `rgb(${Math.round(r)}, ${Math.round(g)}, ${Math.round(b)})`;

/** The colour at t in [0, 1] along the scheme's stops. */
function along(stops: Rgb[], t: number): Rgb {
  const x = t * (stops.length - 1);
  const k = Math.min(Math.floor(x), stops.length - 2);
  const f = x - k;
  const a = stops[k] as Rgb;
  const b = stops[k + 1] as Rgb;
  return [a[0] + (b[0] - a[0]) * f, a[1] + (b[1] - a[1]) * f, a[2] + (b[2] - a[2]) * f];
}

/**
 * LEVELS colours for a background: level 0 is the scheme's end with the higher contrast against it,
 * and the scale stops before the contrast falls under MIN_CONTRAST (all of it when the scheme never
 * gets that close to the background).
 */
export function palette(scheme: ColorScheme, background: string): string[] {
  const stops = (STOPS[scheme] ?? STOPS.viridis).map(parseColor);
  const bg = parseColor(background);
  const contrastAt = (t: number) => contrastRatio(along(stops, t), bg);
  // Orient: t = 0 is the more contrasting end.
  const flip = contrastAt(0) < contrastAt(1);
  const at = (u: number) => (flip ? 1 - u : u);
  // Longest span from the contrasting end that stays at or above MIN_CONTRAST (256 samples).
  let span = 1;
  for (let i = 1; i <= 256; i++) {
    if (contrastAt(at(i / 256)) < MIN_CONTRAST) {
      span = (i - 1) / 256;
      break;
    }
  }
  return Array.from({ length: LEVELS }, (_, i) => css(along(stops, at((i / (LEVELS - 1)) * span))));
}
