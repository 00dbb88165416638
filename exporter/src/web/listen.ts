// Binds the app to the listen address over HTTP or, with tls_server_config, HTTPS, with the
// connection caps and timeouts that keep it reachable under a slowloris (connection-guard.ts).
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import type { Express } from 'express';
import type { WebConfig } from './web-config.js';
import { clientCertRefusal, makeAllowedSans } from './client-cert.js';
import type { WebMetrics } from './web-metrics.js';
import type { Logger } from '../util/logger.js';
import { guardConnections, type ConnectionLimits } from './connection-guard.js';
import { oneRequestAtATime, type PipelineLimits } from './one-at-a-time.js';

export interface ServerLimits extends ConnectionLimits, PipelineLimits {
  /** Time a client has to send its request headers (and, over TLS, to complete the handshake). */
  readonly headerTimeoutMs: number;
  /** Time a client has to send its whole request. */
  readonly requestTimeoutMs: number;
}

export const DEFAULT_LIMITS: ServerLimits = {
  maxConnections: 512,
  maxPerPeer: 64,
  headerTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  maxPipelined: 8,
  writeTimeoutMs: 30_000,
};

export interface ListenOptions {
  readonly webConfig: WebConfig;
  readonly metrics: WebMetrics;
  readonly logger: Logger;
  readonly limits: ServerLimits;
}

export interface ListenAddress {
  readonly host: string | undefined;
  readonly port: number;
}

/** Parses `[host]:port`, `host:port` or `:port` (all interfaces). */
export function parseListenAddress(text: string): ListenAddress {
  const match = /^(?:\[([^\]]+)\]|([^:]*)):(\d{1,5})$/.exec(text.trim());
  const port = Number(match?.[3]);
  if (!match || !Number.isInteger(port) || port > 65535) {
    throw new Error(`invalid listen address "${text}": expected [host]:port, e.g. :9717 or 127.0.0.1:9717`);
  }
  const host = match[1] ?? match[2];
  return { host: host === '' ? undefined : host, port };
}

export function listen(app: Express, address: ListenAddress, options: ListenOptions): Promise<Server> {
  const { webConfig, metrics, logger, limits } = options;
  const tls = webConfig.tls;
  const timeouts = {
    headersTimeout: limits.headerTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    // Node checks the two timeouts above only this often (30 s by default).
    connectionsCheckingInterval: Math.min(1000, limits.headerTimeoutMs),
  };
  const handler = oneRequestAtATime(app, limits, metrics);
  let server: Server;
  if (tls) {
    server = createHttpsServer(
      {
        ...timeouts,
        handshakeTimeout: limits.headerTimeoutMs,
        cert: tls.cert,
        key: tls.key,
        minVersion: tls.minVersion,
        ...(tls.maxVersion ? { maxVersion: tls.maxVersion } : {}),
        ...(tls.ca ? { ca: tls.ca } : {}),
        ...(tls.ciphers ? { ciphers: tls.ciphers } : {}),
        ...(tls.ecdhCurve ? { ecdhCurve: tls.ecdhCurve } : {}),
        honorCipherOrder: tls.honorCipherOrder,
        requestCert: tls.clientAuth !== 'NoClientCert',
        // Every type is enforced by the check below, the way Node enforces rejectUnauthorized itself
        // (verify once the handshake is done, destroy before the socket is handed on), so that each
        // refusal is counted with its reason.
        rejectUnauthorized: false,
      },
      handler,
    );
    const sanAllowed = tls.allowedSans ? makeAllowedSans(tls.allowedSans) : undefined;
    // Prepended, so the check runs before the HTTP layer attaches to the socket and reads a byte.
    server.prependListener('secureConnection', (socket: TLSSocket) => {
      const refusal = clientCertRefusal(socket, tls, sanAllowed);
      if (!refusal) return;
      metrics.tlsClientRefused.inc({ reason: refusal });
      logger.debug({ peer: socket.remoteAddress, reason: refusal }, 'client certificate refused');
      socket.destroy();
    });
    server.on('tlsClientError', (err: NodeJS.ErrnoException, socket: TLSSocket) => {
      // Counted: protocol failures and handshake timeouts; not a peer that hung up (or that the
      // connection guard closed) before the handshake finished.
      if (!/^ERR_SSL_|^ERR_TLS_/.test(err.code ?? '')) return;
      metrics.connectionsDropped.inc({ reason: 'tls_handshake' });
      logger.debug({ peer: socket.remoteAddress, err: err.message }, 'TLS handshake failed');
    });
  } else {
    server = createHttpServer(timeouts, handler);
  }
  guardConnections(server, limits, metrics);
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Socket) => {
    // Node's default answer, plus counting the timeouts: the slow clients a cap did not catch.
    const timedOut = err.code === 'ERR_HTTP_REQUEST_TIMEOUT';
    if (timedOut) metrics.connectionsDropped.inc({ reason: 'timeout' });
    const status = timedOut ? '408 Request Timeout' : err.code === 'HPE_HEADER_OVERFLOW' ? '431 Request Header Fields Too Large' : '400 Bad Request';
    // As Node does: answer only if nothing was written yet on this connection (not mid-keep-alive).
    if (socket.writable && socket.bytesWritten === 0 && err.code !== 'ECONNRESET') socket.write(`HTTP/1.1 ${status}\r\nConnection: close\r\n\r\n`);
    socket.destroy();
  });
  return new Promise((resolvePromise, reject) => {
    server.once('error', reject);
    server.listen(address.port, address.host, () => {
      server.off('error', reject);
      resolvePromise(server);
    });
  });
}
