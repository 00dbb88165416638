// Tests read /metrics with the exporter's own reader of the text format (the one `jobio top` uses,
// exporter/src/top/exposition.ts), so there is one implementation of it. Lines it cannot read are
// skipped, as a scrape would.
import { parseExposition as readExposition, type Sample } from '../../exporter/src/top/exposition.js';

export type { Sample };

export function parseExposition(text: string): Sample[] {
  return readExposition(text).samples;
}

/** The value of the series with exactly these labels, or undefined. */
export function sample(samples: readonly Sample[], name: string, labels: Record<string, string>): number | undefined {
  const want = Object.entries(labels);
  const found = samples.find((s) => s.name === name && Object.keys(s.labels).length === want.length && want.every(([k, v]) => s.labels[k] === v));
  return found?.value;
}
