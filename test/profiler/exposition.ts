// Tests read /metrics with the exporter's own reader of the text format (the one `jobio top` uses,
// exporter/src/top/exposition.ts), so there is one implementation of it. Lines it cannot read are
// skipped, as a scrape would.
import { parseExposition as readExposition, type Sample } from '../../exporter/src/top/exposition.js';
import { scrape } from '../helpers/exporter.js';

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

/**
 * Scrapes `url` until `done` holds for its samples; after timeoutMs, fails with the profiler's and the
 * jobs' series it last saw and `logs()` (a scheduler's, say).
 */
export async function pollSamples(url: string, what: string, done: (s: Sample[]) => boolean, timeoutMs: number, logs: () => string = () => ''): Promise<Sample[]> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const s = parseExposition(await scrape(url));
    if (done(s)) return s;
    if (Date.now() > until)
      throw new Error(
        `timed out waiting for ${what}; /metrics:\n${s
          .filter((x) => x.name.startsWith('jobio_profiler') || x.name.startsWith('jobio_job'))
          .map((x) => `${x.name}${JSON.stringify(x.labels)} ${x.value}`)
          .join('\n')}${logs() === '' ? '' : `\n${logs()}`}`,
      );
    await new Promise((r) => setTimeout(r, 100));
  }
}
