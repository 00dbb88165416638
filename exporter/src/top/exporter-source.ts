// Increments straight from exporters (`--exporter URL`, repeatable): each refresh scrapes every
// exporter and subtracts the previous scrape locally, with the same reset rule as Prometheus (a
// decrease means the counter restarted: the increment is the new value). A series that was not in
// the previous scrape is new since then, so its whole value is an increment.
import { parseExposition } from './exposition.js';
import { FAMILIES, measureOf, type Increment, type TopMode } from './increments.js';
import { TopSourceError } from './prometheus-source.js';
import { endpoint, shownUrl } from './url-credentials.js';
import { JOB_INFO_FAMILY, jobInfoLabels, jobInfoMap, type JobInfoMap } from './job-info.js';

type Snapshot = Map<string, { readonly labels: Readonly<Record<string, string>>; readonly name: string; readonly value: number }>;

function seriesKey(url: string, name: string, labels: Readonly<Record<string, string>>): string {
  return `${url}\u0000${name}\u0000${Object.keys(labels)
    .sort()
    .map((k) => `${k}=${labels[k]}`)
    .join('\u0000')}`;
}

function matches(labels: Readonly<Record<string, string>>, filters: Readonly<Record<string, string | undefined>>): boolean {
  return Object.entries(filters).every(([k, v]) => v === undefined || labels[k] === v);
}

export class ExporterSource {
  private previous: Snapshot | undefined;
  /** jobio_job_info of the last scrape (read only when `withJobInfo`). */
  jobInfo: JobInfoMap = new Map();
  /** Whether the last scrape had any series of the mode's families, before the filters. */
  hasSeries = false;

  constructor(
    private readonly urls: readonly string[],
    private readonly mode: TopMode,
    private readonly filters: Readonly<Record<string, string | undefined>>,
    private readonly timeoutMs: number,
    private readonly withJobInfo = false,
  ) {}

  private async scrapeAll(): Promise<Snapshot> {
    const families = new Set<string>(Object.values(FAMILIES[this.mode]));
    if (this.withJobInfo) families.add(JOB_INFO_FAMILY);
    const texts = await Promise.all(
      this.urls.map(async (url) => {
        try {
          const { url: plain, headers } = endpoint(url);
          const res = await fetch(plain, { headers, signal: AbortSignal.timeout(this.timeoutMs) });
          if (!res.ok) throw new Error(`HTTP ${res.status}`);
          return { url, text: await res.text() };
        } catch (err) {
          const cause = (err as { cause?: { code?: string; message?: string } }).cause;
          throw new TopSourceError(`cannot scrape exporter ${shownUrl(url)}: ${cause?.code ?? cause?.message ?? (err as Error).message}`);
        }
      }),
    );
    const snapshot: Snapshot = new Map();
    const info: Array<Readonly<Record<string, string>>> = [];
    this.hasSeries = false;
    for (const { url, text } of texts) {
      const { samples } = parseExposition(text, (name) => families.has(name));
      info.push(...jobInfoLabels(samples));
      if (samples.some((s) => s.name !== JOB_INFO_FAMILY)) this.hasSeries = true;
      for (const s of samples) {
        if (s.name !== JOB_INFO_FAMILY && matches(s.labels, this.filters)) snapshot.set(seriesKey(url, s.name, s.labels), { labels: s.labels, name: s.name, value: s.value });
      }
    }
    if (this.withJobInfo) this.jobInfo = jobInfoMap(info);
    return snapshot;
  }

  /** The first call only records the starting values and resolves to undefined. */
  async next(): Promise<Increment[] | undefined> {
    const current = await this.scrapeAll();
    const before = this.previous;
    this.previous = current;
    if (!before) return undefined;
    const out: Increment[] = [];
    for (const [key, s] of current) {
      const measure = measureOf(this.mode, s.name, s.labels);
      if (!measure) continue;
      const prev = before.get(key)?.value;
      const delta = prev === undefined || s.value < prev ? s.value : s.value - prev;
      if (delta !== 0) out.push({ measure, labels: s.labels, value: delta });
    }
    return out;
  }
}
