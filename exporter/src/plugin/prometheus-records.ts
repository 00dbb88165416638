// The log's `mountpoint` and `network` records as Prometheus text lines, one sample per figure with
// the record's timestamp: `jobio_run_{mountpoint,network}_{calls,bytes}` (docs/metrics.md). Each
// record's figures are totals over its timeframe (the frame, or the whole job for `jobtotal`), so the
// samples of one job's frames add up to its job total, as in the log.
import { renderLabels } from '../scrape/metric-family.js';

type Json = Record<string, unknown>;

/** A label value: strings and numbers as written, anything else empty. */
const text = (v: unknown): string => (typeof v === 'string' || typeof v === 'number' ? String(v) : '');

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The sample lines of one record (none for the other record types, or a record without a timestamp). */
export function recordSamples(record: Json): string[] {
  const kind = record['type'];
  if (kind !== 'mountpoint' && kind !== 'network') return [];
  const ms = Date.parse(String(record['timestamp']));
  const io = record['io'];
  if (!Number.isFinite(ms) || !isObject(io)) return [];
  const where: Record<string, string> =
    kind === 'mountpoint' && isObject(record['mountpoint']) ? { mountpoint: text(record['mountpoint']['path']), fstype: text(record['mountpoint']['fstype']) } : { address: text(record['address']) };
  const common = {
    hostname: text(record['hostname']),
    jobid: text(record['jobid']),
    ...where,
    jobtotal: String(record['jobtotal'] === true),
  };
  const out: string[] = [];
  for (const [op, figures] of Object.entries(io)) {
    if (!isObject(figures)) continue;
    for (const unit of ['calls', 'bytes'] as const) {
      const f = figures[unit];
      const total = isObject(f) ? f['total'] : undefined;
      if (typeof total !== 'number') continue;
      out.push(`jobio_run_${kind}_${unit}{${renderLabels({ ...common, op })}} ${total} ${ms}`);
    }
  }
  return out;
}
