// Parsers of LNet's counters, the Lustre network layer of every client and server:
//   /proc/sys/lnet/stats (up to 2.10) or /sys/kernel/debug/lnet/stats (later): one line of 11 integers,
//     msgs_alloc msgs_max errors send_count recv_count route_count drop_count
//     send_length recv_length route_length drop_length                    (`lnet_counters`, in this order)
//   `lnetctl stats show` (2.12+): YAML `statistics:` with the same counters by name, plus the health
//     counters of 2.12+ (resend_count, response_timeout_count, local_*_count, remote_*_count,
//     network_timeout_count)
//   `lnetctl net show -v 4`: YAML `net:` list of net types, each with `local NI(s):`, one per NID: its
//     status (up/down), message counts (statistics), and health (`health value` 0..1000, failure counts).
// Never throw on input: a value of no known shape is counted in `bad`, the others kept.
import { createRequire } from 'node:module';
import { isRecord } from '../util/is-record.js';

/** The counters every source gives, by their lnetctl names. */
export const LNET_COUNTERS = ['msgs_alloc', 'msgs_max', 'errors', 'send_count', 'recv_count', 'route_count', 'drop_count', 'send_length', 'recv_length', 'route_length', 'drop_length'] as const;
export type LnetCounter = (typeof LNET_COUNTERS)[number];

/** The health counters of `lnetctl stats show` (2.12+): why sends failed, where. */
export const LNET_FAILURES = {
  local_interrupt_count: ['local', 'interrupt'],
  local_dropped_count: ['local', 'dropped'],
  local_aborted_count: ['local', 'aborted'],
  local_no_route_count: ['local', 'no_route'],
  local_timeout_count: ['local', 'timeout'],
  local_error_count: ['local', 'error'],
  remote_dropped_count: ['remote', 'dropped'],
  remote_error_count: ['remote', 'error'],
  remote_timeout_count: ['remote', 'timeout'],
  network_timeout_count: ['network', 'timeout'],
} as const;
export type LnetFailure = keyof typeof LNET_FAILURES;

export interface LnetStats {
  readonly counters: Partial<Record<LnetCounter, number>>;
  readonly failures: Partial<Record<LnetFailure, number>>;
  readonly resends?: number;
  readonly responseTimeouts?: number;
  readonly bad: number;
}

/** One non-negative integer (a YAML number or digits); undefined for anything else. */
function count(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isSafeInteger(value) && value >= 0 ? value : undefined;
  if (typeof value === 'string' && /^\d{1,16}$/.test(value.trim())) return Number(value.trim());
  return undefined;
}

/** The 11-integer line; undefined when the file is not one (counted by the caller). */
export function parseLnetStatsFile(text: string): LnetStats | undefined {
  const fields = text.trim().split(/\s+/);
  if (fields.length !== LNET_COUNTERS.length || !fields.every((f) => /^\d{1,20}$/.test(f))) return undefined;
  const counters: Partial<Record<LnetCounter, number>> = {};
  LNET_COUNTERS.forEach((name, i) => (counters[name] = Number(fields[i])));
  return { counters, failures: {}, bad: 0 };
}

function yamlOf(text: string): unknown {
  try {
    // Loaded at the first lnetctl output, not at start: the YAML parser is about 1 MB of an idle
    // exporter's memory, and the stats file (the default source) is not YAML.
    const yaml = createRequire(import.meta.url)('yaml') as typeof import('yaml');
    return yaml.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** `lnetctl stats show`; undefined when there is no `statistics:` map. */
export function parseLnetctlStats(text: string): LnetStats | undefined {
  const doc = yamlOf(text);
  const stats = isRecord(doc) ? doc.statistics : undefined;
  if (!isRecord(stats)) return undefined;
  const counters: Partial<Record<LnetCounter, number>> = {};
  const failures: Partial<Record<LnetFailure, number>> = {};
  let resends: number | undefined;
  let responseTimeouts: number | undefined;
  let bad = 0;
  for (const [key, raw] of Object.entries(stats)) {
    const known = (LNET_COUNTERS as readonly string[]).includes(key) || Object.hasOwn(LNET_FAILURES, key) || key === 'resend_count' || key === 'response_timeout_count';
    if (!known) continue; // rst_alloc and later additions
    const value = count(raw);
    if (value === undefined) bad += 1;
    else if (key === 'resend_count') resends = value;
    else if (key === 'response_timeout_count') responseTimeouts = value;
    else if (Object.hasOwn(LNET_FAILURES, key)) failures[key as LnetFailure] = value;
    else counters[key as LnetCounter] = value;
  }
  return { counters, failures, ...(resends === undefined ? {} : { resends }), ...(responseTimeouts === undefined ? {} : { responseTimeouts }), bad };
}

/** The failure counts of an NI's `health stats:`, by lnetctl's names. */
export const NI_FAILURES = { interrupts: 'interrupt', dropped: 'dropped', aborted: 'aborted', 'no route': 'no_route', timeouts: 'timeout', error: 'error' } as const;

export interface LnetNi {
  readonly net: string;
  readonly nid: string;
  readonly up?: boolean;
  readonly sent?: number;
  readonly received?: number;
  readonly dropped?: number;
  /** 0..1000: 1000 is healthy; LNet lowers it on failures and avoids the NI while it is lower than another's. */
  readonly healthValue?: number;
  readonly fatalError?: number;
  readonly failures: Partial<Record<(typeof NI_FAILURES)[keyof typeof NI_FAILURES], number>>;
}

/** `lnetctl net show -v 4`; undefined when there is no `net:` list. */
export function parseLnetctlNets(text: string): { readonly nis: LnetNi[]; readonly bad: number } | undefined {
  const doc = yamlOf(text);
  const nets = isRecord(doc) ? doc.net : undefined;
  if (!Array.isArray(nets)) return undefined;
  const nis: LnetNi[] = [];
  let bad = 0;
  const take = (raw: unknown): number | undefined => {
    if (raw === undefined) return undefined;
    const v = count(raw);
    if (v === undefined) bad += 1;
    return v;
  };
  for (const net of nets) {
    const type = isRecord(net) ? net['net type'] : undefined;
    const locals = isRecord(net) ? net['local NI(s)'] : undefined;
    if (typeof type !== 'string' || !Array.isArray(locals)) {
      bad += 1;
      continue;
    }
    for (const ni of locals) {
      if (!isRecord(ni) || typeof ni.nid !== 'string') {
        bad += 1;
        continue;
      }
      const stats = isRecord(ni.statistics) ? ni.statistics : {};
      const health = isRecord(ni['health stats']) ? ni['health stats'] : {};
      const failures: LnetNi['failures'] = {};
      for (const [key, reason] of Object.entries(NI_FAILURES)) {
        const v = take(health[key]);
        if (v !== undefined) failures[reason] = v;
      }
      const status = ni.status;
      if (status !== undefined && status !== 'up' && status !== 'down') bad += 1;
      const entry: { -readonly [K in keyof LnetNi]: LnetNi[K] } = { net: type, nid: ni.nid, failures };
      if (status === 'up' || status === 'down') entry.up = status === 'up';
      const fields = [
        ['sent', stats.send_count],
        ['received', stats.recv_count],
        ['dropped', stats.drop_count],
        ['healthValue', health['health value']],
        ['fatalError', health.fatal_error],
      ] as const;
      for (const [field, raw] of fields) {
        const v = take(raw);
        if (v !== undefined) entry[field] = v;
      }
      nis.push(entry);
    }
  }
  return { nis, bad };
}
