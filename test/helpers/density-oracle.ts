// The rate density's exposition written the slow, obvious way: each sample's labels rendered as a
// string (renderLabels, the escaping every other family uses), one line at a time. The density
// collector writes its samples as bytes and keeps them between scrapes; its tests compare it with this.
import { formatValue, type ExpositionFormat } from '../../exporter/src/scrape/exposition-writer.js';
import { renderLabels } from '../../exporter/src/scrape/metric-family.js';
import { BUCKETS, bucketLabel, DENSITY_OPERATIONS, RATE_CLASSES, type RateDensity } from '../../exporter/src/lustre/rate-density.js';

/** The density families' sample lines for these targets, in the order the collector writes them. */
export function densityText(shown: readonly { name: string; density: RateDensity }[], format: ExpositionFormat): string {
  const stamp = (ms: number): string => (format === 'openmetrics' ? `${ms / 1000}` : `${Math.round(ms)}`);
  const rows = (label: string, names: readonly string[]): Record<string, string>[] => names.flatMap((row) => Array.from({ length: BUCKETS }, (_, b) => ({ [label]: row, decade: bucketLabel(b) })));
  const families: [string, Record<string, string>[], (d: RateDensity, i: number) => number][] = [
    ['jobio_lustre_jobstats_rate_jobs', rows('class', RATE_CLASSES), (d, i) => d.jobs[i]!],
    ['jobio_lustre_jobstats_rate_users', rows('class', RATE_CLASSES), (d, i) => d.users[i]!],
    ['jobio_lustre_jobstats_operation_rate_jobs', rows('operation', DENSITY_OPERATIONS), (d, i) => d.jobs[RATE_CLASSES.length * BUCKETS + i]!],
    ['jobio_lustre_jobstats_rate_interval_seconds', [{}], (d) => d.intervalSeconds],
  ];
  return families
    .map(([name, tails, value]) =>
      shown.flatMap(({ name: target, density }) => tails.map((tail, i) => `${name}{${renderLabels({ target, ...tail })}} ${formatValue(value(density, i))} ${stamp(density.endMs)}\n`)).join(''),
    )
    .join('\n');
}

/** The sample lines of an exposition (HELP and TYPE lines, blank lines and `# EOF` left out). */
export const sampleLines = (text: string): string =>
  text
    .split(/(?<=\n)/)
    .filter((l) => !l.startsWith('#'))
    .join('')
    .replace(/\n\n/g, '\n');
