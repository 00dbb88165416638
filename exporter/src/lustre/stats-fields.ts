// What the exporter keeps of a plain stats section (exports/*/stats, obdfilter stats, md_stats), as
// numbered fields of the shared FieldTable: `samples` of every counter as an operation, the `sum` of
// read_bytes/write_bytes as bytes, the latency `sum` of `[usecs]` counters as operation seconds (only
// the lustre_client collector exports those). As with job_stats (export-fields.ts): from 2.14 the
// `read`/`write` lines count the requests, before that the `*_bytes` samples are the `read`/`write`
// operations. min/max/sumsq are dropped.
import type { StatsSection } from '../parsers/lustre-stats.js';
import type { FieldTable } from './export-fields.js';
import { normalizeU64, type U64 } from '../util/u64.js';

export interface StatsFieldValue {
  readonly id: number;
  readonly value: U64;
}

/** The section's fields; `dropped` counts counters whose name did not fit the bounded table. */
export function statsFields(section: StatsSection, table: FieldTable): { values: StatsFieldValue[]; dropped: number } {
  const values: StatsFieldValue[] = [];
  let dropped = 0;
  const push = (id: number, value: U64): void => {
    if (id < 0) dropped += 1;
    else values.push({ id, value });
  };
  const names = new Set(section.counters.map((c) => c.name));
  for (const c of section.counters) {
    if (c.name === 'read_bytes' || c.name === 'write_bytes') {
      const read = c.name === 'read_bytes';
      // A negative sum would be a corrupt line: Lustre byte sums only grow.
      if (c.sum !== undefined && c.sum >= 0n) push(table.id(read ? 'read_bytes' : 'write_bytes', read ? 'read' : 'write'), normalizeU64(c.sum));
      if (!names.has(read ? 'read' : 'write')) push(table.id('operations', read ? 'read' : 'write'), c.samples);
      continue;
    }
    push(table.id('operations', c.name), c.samples);
    if (c.unit === 'usecs' && c.sum !== undefined && c.sum >= 0n) push(table.id('operation_seconds', c.name), normalizeU64(c.sum));
  }
  return { values, dropped };
}
