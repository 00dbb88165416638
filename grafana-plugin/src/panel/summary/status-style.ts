// How a red/yellow/green status is drawn. Colour alone fails the readers with a red-green deficiency
// (about 1 man in 12), so every status also carries a letter. The shades are chosen from Grafana's
// palette so the three stay apart when deuteranopia or protanopia is simulated: with the primary red,
// yellow and green, simulated red and green differ by under 9 CIELAB units (both olive); a dark red is
// much darker than yellow and a light green, so lightness keeps them apart (over 30 units, both themes).
import type { GrafanaTheme2 } from '@grafana/data';
import type { RygClass, Status } from './rollup';

/** Grafana palette names (resolved per theme by theme.visualization.getColorByName). */
export const STATUS_SHADES: Readonly<Record<RygClass, string>> = { red: 'dark-red', yellow: 'yellow', green: 'light-green' };

/** The letter shown with the colour; "–" for a group with nothing to judge. */
export const STATUS_LETTERS: Readonly<Record<Status, string>> = { red: 'R', yellow: 'Y', green: 'G', none: '–' };

export function statusColor(theme: GrafanaTheme2, status: Status): string {
  return status === 'none' ? theme.colors.text.disabled : theme.visualization.getColorByName(STATUS_SHADES[status]);
}
