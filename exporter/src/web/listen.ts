// Binds the app to the listen address over HTTP or, with tls_server_config, HTTPS.
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { Express } from 'express';
import type { WebConfig } from './web-config.js';

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

export function listen(app: Express, address: ListenAddress, webConfig: WebConfig): Promise<Server> {
  const tls = webConfig.tls;
  const server: Server = tls
    ? createHttpsServer(
        {
          cert: tls.cert,
          key: tls.key,
          minVersion: tls.minVersion,
          ...(tls.maxVersion ? { maxVersion: tls.maxVersion } : {}),
          ...(tls.ca ? { ca: tls.ca } : {}),
          requestCert: tls.clientAuth !== 'NoClientCert',
          rejectUnauthorized: tls.clientAuth === 'RequireAndVerifyClientCert',
        },
        app,
      )
    : createHttpServer(app);
  return new Promise((resolvePromise, reject) => {
    server.once('error', reject);
    server.listen(address.port, address.host, () => {
      server.off('error', reject);
      resolvePromise(server);
    });
  });
}
