// One log line per collector when the exporter starts, as node_exporter prints its collectors, and
// saying more: whether each enabled collector found its source on this host, where it looked, and
// why it found nothing when it knows. Logged once, when the first scrape has run every collector.
//   level=info msg=collector collector=lustre_jobstats enabled=true found=true source="job_stats under …"
//   level=warn msg=collector collector=profiler enabled=true found=false source=… why="…"
import type { CollectorDescriptor } from './collector.js';
import type { EnabledCollector, Scraper } from './scraper.js';
import type { Logger } from '../util/logger.js';

export function logCollectors(descriptors: readonly CollectorDescriptor[], enabled: readonly EnabledCollector[], scraper: Scraper, logger: Logger): void {
  for (const d of descriptors) {
    const e = enabled.find((c) => c.name === d.name);
    if (!e) {
      logger.info({ collector: d.name, enabled: false }, 'collector');
      continue;
    }
    const last = scraper.lastOutcomes.get(d.name);
    const desc = e.collector.describe?.();
    const where = desc ? { source: desc.source } : {};
    if (last?.outcome === 'ok') logger.info({ collector: d.name, enabled: true, found: true, ...where }, 'collector');
    else if (last?.outcome === 'absent') {
      const fields = { collector: d.name, enabled: true, found: false, ...where, ...(desc?.why ? { why: desc.why } : {}) };
      if (desc?.warn) logger.warn(fields, 'collector');
      else logger.info(fields, 'collector');
    } else logger.warn({ collector: d.name, enabled: true, found: false, ...where, err: last?.error ?? 'no answer yet' }, 'collector');
  }
}
