// The metrics of the lustre_lnet collector (names fixed in docs/metrics.md): LNet's own running
// counts, exported as read at each scrape (they restart from 0 when the lnet module is loaded again),
// plus a running count of the values this collector could not read or parse.
import type { MetricFamily } from '../scrape/metric-family.js';
import type { MetricRegistry } from '../scrape/metric-registry.js';
import { ShownWhilePresent } from './lustre_targets_metrics.js';
import { combinedFamily } from './lustre_target_families.js';
import { LNET_FAILURES, type LnetCounter, type LnetFailure, type LnetNi, type LnetStats } from '../parsers/lustre-lnet.js';

/** Why a value is missing: its file or command could not be read, or it held no value of the known shape. */
export type LnetErrorReason = 'read' | 'parse';

export class LustreLnetMetrics {
  // Label-less: shown only while read (a label-less series has no "no value" for a value the source did not give).
  private readonly counters: Readonly<Record<LnetCounter, ShownWhilePresent>>;
  private readonly resends: ShownWhilePresent;
  private readonly responseTimeouts: ShownWhilePresent;
  private readonly errorTotals = new Map<LnetErrorReason, number>();
  /** What the last refill was handed, read by the families when the scrape renders them. */
  private read: { errorsShown: boolean; stats?: LnetStats; nis: LnetNi[] } = { errorsShown: false, nis: [] };

  constructor(registry: MetricRegistry) {
    const single = {
      counter: (name: string, help: string) => ShownWhilePresent.counter(registry, name, help),
      gauge: (name: string, help: string) => ShownWhilePresent.gauge(registry, name, help),
    };
    this.counters = {
      msgs_alloc: single.gauge('jobio_lnet_messages_allocated', 'LNet messages allocated now (msgs_alloc).'),
      msgs_max: single.gauge('jobio_lnet_messages_allocated_max', 'Most LNet messages allocated at once since the module was loaded (msgs_max).'),
      errors: single.counter('jobio_lnet_errors_total', 'LNet errors (errors).'),
      send_count: single.counter('jobio_lnet_sent_messages_total', 'LNet messages sent (send_count).'),
      recv_count: single.counter('jobio_lnet_received_messages_total', 'LNet messages received (recv_count).'),
      route_count: single.counter('jobio_lnet_routed_messages_total', 'LNet messages forwarded by this node as a router (route_count).'),
      drop_count: single.counter('jobio_lnet_dropped_messages_total', 'LNet messages dropped (drop_count).'),
      send_length: single.counter('jobio_lnet_sent_bytes_total', 'Bytes of LNet messages sent (send_length).'),
      recv_length: single.counter('jobio_lnet_received_bytes_total', 'Bytes of LNet messages received (recv_length).'),
      route_length: single.counter('jobio_lnet_routed_bytes_total', 'Bytes of LNet messages forwarded as a router (route_length).'),
      drop_length: single.counter('jobio_lnet_dropped_bytes_total', 'Bytes of LNet messages dropped (drop_length).'),
    };
    this.resends = single.counter('jobio_lnet_resent_messages_total', 'LNet messages sent again after a failure (resend_count; lnetctl, 2.12+).');
    this.responseTimeouts = single.counter('jobio_lnet_response_timeouts_total', 'LNet messages whose response did not come in time (response_timeout_count; lnetctl, 2.12+).');
    const nis = (): readonly LnetNi[] => this.read.nis;
    /** One series per NI that has the reading (two NIs of one net and NID are one series: counts added, the last state). */
    const perNi = (name: string, help: string, type: 'counter' | 'gauge', reading: (n: LnetNi) => number | undefined): MetricFamily =>
      combinedFamily(
        name,
        help,
        type,
        (add) => {
          for (const n of nis()) {
            const value = reading(n);
            if (value !== undefined) add({ net: n.net, nid: n.nid }, value);
          }
        },
        type === 'gauge' ? 'last' : 'sum',
      );
    const families = [
      combinedFamily(
        'jobio_lnet_send_failures_total',
        'LNet sends that failed, by where (origin: local, remote, network) and why (reason: interrupt, dropped, aborted, no_route, timeout, error) (the *_count health counters; lnetctl, 2.12+).',
        'counter',
        (add) => {
          for (const [key, value] of Object.entries(this.read.stats?.failures ?? {}) as [LnetFailure, number][]) {
            const [origin, reason] = LNET_FAILURES[key];
            add({ origin, reason }, value);
          }
        },
      ),
      perNi('jobio_lnet_ni_up', '1 when the local network interface (NI) is up, 0 when down (lnetctl net show status).', 'gauge', (n) => (n.up === undefined ? undefined : n.up ? 1 : 0)),
      perNi('jobio_lnet_ni_sent_messages_total', 'LNet messages sent through the NI (statistics send_count).', 'counter', (n) => n.sent),
      perNi('jobio_lnet_ni_received_messages_total', 'LNet messages received through the NI (statistics recv_count).', 'counter', (n) => n.received),
      perNi('jobio_lnet_ni_dropped_messages_total', 'LNet messages dropped on the NI (statistics drop_count).', 'counter', (n) => n.dropped),
      perNi('jobio_lnet_ni_health_value', "The NI's health value, 0 to 1000 (1000 healthy; LNet lowers it on failures and prefers healthier NIs).", 'gauge', (n) => n.healthValue),
      perNi('jobio_lnet_ni_fatal_error', '1 when the NI had a fatal error (its link went down), else 0 (health stats fatal_error).', 'gauge', (n) =>
        n.fatalError === undefined ? undefined : n.fatalError === 0 ? 0 : 1,
      ),
      combinedFamily('jobio_lnet_ni_send_failures_total', 'Sends that failed on the NI, by reason (interrupt, dropped, aborted, no_route, timeout, error; health stats).', 'counter', (add) => {
        for (const n of nis()) for (const [reason, value] of Object.entries(n.failures)) add({ net: n.net, nid: n.nid, reason }, value);
      }),
      combinedFamily(
        'jobio_lnet_scrape_errors_total',
        'LNet values skipped: reason="read" (the stats file or lnetctl could not be read) or "parse" (no value of the known shape).',
        'counter',
        (add) => {
          if (this.read.errorsShown) for (const reason of ['read', 'parse'] as const) add({ reason }, this.errorTotals.get(reason) ?? 0);
        },
      ),
    ];
    for (const family of families) registry.register(family);
  }

  clear(): void {
    this.read = { errorsShown: false, nis: [] };
    for (const m of [...Object.values(this.counters), this.resends, this.responseTimeouts]) m.clear();
  }

  count(reason: LnetErrorReason, n = 1): void {
    this.errorTotals.set(reason, (this.errorTotals.get(reason) ?? 0) + n);
  }

  /** Starts a refill: everything cleared, the error totals shown (both reasons, from 0). */
  begin(): void {
    this.clear();
    this.read.errorsShown = true;
  }

  stats(s: LnetStats): void {
    for (const [name, value] of Object.entries(s.counters) as [LnetCounter, number][]) this.counters[name].show(value);
    if (s.resends !== undefined) this.resends.show(s.resends);
    if (s.responseTimeouts !== undefined) this.responseTimeouts.show(s.responseTimeouts);
    this.read.stats = s;
  }

  ni(n: LnetNi): void {
    this.read.nis.push(n);
  }
}
