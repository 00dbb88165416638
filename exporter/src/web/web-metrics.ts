// The HTTP server's own counters: what it refused or cut off, and why. They live in the
// self-metrics registry, so every scrape shows what the server is defending against.
import { Counter, Gauge, type Registry } from 'prom-client';
import { promRegisters, type MetricRegistry } from '../scrape/metric-registry.js';
import { CLIENT_CERT_REFUSALS } from './client-cert.js';

export const AUTH_FAILURES = ['bad_credentials', 'busy'] as const;
export type AuthFailure = (typeof AUTH_FAILURES)[number];
export const CONNECTION_DROPS = ['max_connections', 'max_connections_per_peer', 'timeout', 'tls_handshake', 'pipelined', 'write_timeout', 'slow_reader'] as const;
export type ConnectionDrop = (typeof CONNECTION_DROPS)[number];

export class WebMetrics {
  readonly tlsClientRefused: Counter<'reason'>;
  readonly authFailures: Counter<'reason'>;
  readonly connectionsDropped: Counter<'reason'>;
  readonly connections: Gauge;
  readonly responseBodies: Counter<'encoding'>;
  readonly responseBytesHeld: Gauge;

  constructor(registry: MetricRegistry | Registry) {
    const registers = promRegisters(registry);
    this.tlsClientRefused = new Counter({
      name: 'jobio_web_tls_client_refused_total',
      help: 'TLS connections closed after the handshake because the client certificate did not meet client_auth_type or client_allowed_sans.',
      labelNames: ['reason'] as const,
      registers,
    });
    this.authFailures = new Counter({
      name: 'jobio_web_auth_failures_total',
      help: 'Requests refused by basic auth: wrong or missing credentials (401), or too many password checks already queued (429).',
      labelNames: ['reason'] as const,
      registers,
    });
    this.connectionsDropped = new Counter({
      name: 'jobio_web_connections_dropped_total',
      help: 'Connections the server closed to protect itself: over the connection caps, too slow to send a request, a failed TLS handshake, too many pipelined requests, or too slow to read a response.',
      labelNames: ['reason'] as const,
      registers,
    });
    this.connections = new Gauge({ name: 'jobio_web_connections', help: 'Open connections to the HTTP server.', registers });
    this.responseBodies = new Counter({
      name: 'jobio_web_response_bodies_total',
      help: 'Exposition bodies built, by encoding: one per scrape and encoding, shared by every response of that scrape.',
      labelNames: ['encoding'] as const,
      registers,
    });
    this.responseBytesHeld = new Gauge({
      name: 'jobio_web_response_bytes_held',
      help: 'Bytes of exposition bodies held for responses not yet flushed to their clients, each shared body counted once.',
      registers,
    });
    // Every reason shows from the first scrape, so rate() and alerts see 0 rather than nothing.
    for (const reason of CLIENT_CERT_REFUSALS) this.tlsClientRefused.inc({ reason }, 0);
    for (const reason of AUTH_FAILURES) this.authFailures.inc({ reason }, 0);
    for (const reason of CONNECTION_DROPS) this.connectionsDropped.inc({ reason }, 0);
    for (const encoding of ['gzip', 'identity']) this.responseBodies.inc({ encoding }, 0);
  }
}
