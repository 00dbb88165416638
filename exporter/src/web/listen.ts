// Binds the app to the listen address over HTTP or, with tls_server_config, HTTPS.
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { TLSSocket } from 'node:tls';
import type { Express } from 'express';
import type { WebConfig } from './web-config.js';
import { clientCertRefusal, makeAllowedSans } from './client-cert.js';
import type { WebMetrics } from './web-metrics.js';
import type { Logger } from '../util/logger.js';

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

export function listen(app: Express, address: ListenAddress, webConfig: WebConfig, metrics: WebMetrics, logger: Logger): Promise<Server> {
  const tls = webConfig.tls;
  let server: Server;
  if (tls) {
    server = createHttpsServer(
      {
        cert: tls.cert,
        key: tls.key,
        minVersion: tls.minVersion,
        ...(tls.maxVersion ? { maxVersion: tls.maxVersion } : {}),
        ...(tls.ca ? { ca: tls.ca } : {}),
        ...(tls.ciphers ? { ciphers: tls.ciphers } : {}),
        ...(tls.ecdhCurve ? { ecdhCurve: tls.ecdhCurve } : {}),
        honorCipherOrder: tls.honorCipherOrder,
        requestCert: tls.clientAuth !== 'NoClientCert',
        // OpenSSL itself fails the handshake only for the one type it can express; the others are
        // checked on the established connection (client-cert.ts).
        rejectUnauthorized: tls.clientAuth === 'RequireAndVerifyClientCert',
      },
      app,
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
    server.on('tlsClientError', (err: Error, socket: TLSSocket) => {
      metrics.connectionsDropped.inc({ reason: 'tls_handshake' });
      logger.debug({ peer: socket.remoteAddress, err: err.message }, 'TLS handshake failed');
    });
  } else {
    server = createHttpServer(app);
  }
  return new Promise((resolvePromise, reject) => {
    server.once('error', reject);
    server.listen(address.port, address.host, () => {
      server.off('error', reject);
      resolvePromise(server);
    });
  });
}
