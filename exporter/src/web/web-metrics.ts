// The HTTP server's own counters: what it refused or cut off, and why. They live in the
// self-metrics registry, so every scrape shows what the server is defending against. Families of the
// one model (scrape/metric-family.ts): the server counts, the scrape reads the counts.
import type { MetricFamily, SampleSink } from '../scrape/metric-family.js';
import type { MetricRegistry } from '../scrape/metric-registry.js';
import { CLIENT_CERT_REFUSALS, type ClientCertRefusal } from './client-cert.js';

export const AUTH_FAILURES = ['bad_credentials', 'busy'] as const;
export type AuthFailure = (typeof AUTH_FAILURES)[number];
export const CONNECTION_DROPS = ['max_connections', 'max_connections_per_peer', 'timeout', 'tls_handshake', 'pipelined', 'write_timeout', 'slow_reader'] as const;
export type ConnectionDrop = (typeof CONNECTION_DROPS)[number];
export const BODY_ENCODINGS = ['gzip', 'identity'] as const;

/** A counter per value of one label. Every value is shown from the first scrape, so rate() and alerts see 0 rather than nothing. */
export class LabelCounter<L extends string, V extends string> implements MetricFamily {
  readonly type = 'counter';
  private readonly counts: Map<string, number>;

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly label: L,
    values: readonly V[],
  ) {
    this.counts = new Map(values.map((v) => [v, 0]));
  }

  inc(labels: Readonly<Record<L, V>>): void {
    const value = labels[this.label];
    this.counts.set(value, (this.counts.get(value) ?? 0) + 1);
  }

  collect(sink: SampleSink): void {
    for (const [value, count] of this.counts) sink.sample({ [this.label]: value }, count);
  }
}

/** A label-less gauge the server sets. */
export class Level implements MetricFamily {
  readonly type = 'gauge';
  private value = 0;

  constructor(
    readonly name: string,
    readonly help: string,
  ) {}

  set(value: number): void {
    this.value = value;
  }

  collect(sink: SampleSink): void {
    sink.sample({}, this.value);
  }
}

export class WebMetrics {
  readonly tlsClientRefused: LabelCounter<'reason', ClientCertRefusal>;
  readonly authFailures: LabelCounter<'reason', AuthFailure>;
  readonly connectionsDropped: LabelCounter<'reason', ConnectionDrop>;
  readonly connections: Level;
  readonly responseBodies: LabelCounter<'encoding', (typeof BODY_ENCODINGS)[number]>;
  readonly responseBytesHeld: Level;

  constructor(registry: MetricRegistry) {
    this.tlsClientRefused = registry.register(
      new LabelCounter(
        'jobio_web_tls_client_refused_total',
        'TLS connections closed after the handshake because the client certificate did not meet client_auth_type or client_allowed_sans.',
        'reason',
        CLIENT_CERT_REFUSALS,
      ),
    );
    this.authFailures = registry.register(
      new LabelCounter(
        'jobio_web_auth_failures_total',
        'Requests refused by basic auth: wrong or missing credentials (401), or too many password checks already queued (429).',
        'reason',
        AUTH_FAILURES,
      ),
    );
    this.connectionsDropped = registry.register(
      new LabelCounter(
        'jobio_web_connections_dropped_total',
        'Connections the server closed to protect itself: over the connection caps, too slow to send a request, a failed TLS handshake, too many pipelined requests, or too slow to read a response.',
        'reason',
        CONNECTION_DROPS,
      ),
    );
    this.connections = registry.register(new Level('jobio_web_connections', 'Open connections to the HTTP server.'));
    this.responseBodies = registry.register(
      new LabelCounter('jobio_web_response_bodies_total', 'Exposition bodies built, by encoding: one per scrape and encoding, shared by every response of that scrape.', 'encoding', BODY_ENCODINGS),
    );
    this.responseBytesHeld = registry.register(
      new Level('jobio_web_response_bytes_held', 'Bytes of exposition bodies held for responses not yet flushed to their clients, each shared body counted once.'),
    );
  }
}
