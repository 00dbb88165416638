// --collector.<name>.new-series-grace: how long a new series' counters stay at 0 (series-book.ts), so
// every scraper of an HA pair sees the series start (docs/scaling.md "HA pairs").
import { valueFlag } from '../scrape/flags.js';
import { nonNegativeDuration } from '../scrape/flag-values.js';

/** The flag for a collector whose series are per `what` (a job, a client). Off by default: a new series' load shows one scrape after it appears, as for one Prometheus. */
export function newSeriesGraceFlag(what: string) {
  return valueFlag(
    'new-series-grace',
    '0',
    `A new ${what}'s counter is exported at 0 for this long after it appears (besides its first scrape), then with its whole value, so every scraper of an HA pair sees the series start at 0 and increase() counts the ${what}'s first interval; set it above the scrape interval (2 intervals or more) when several servers scrape the exporter.`,
    nonNegativeDuration,
  );
}
