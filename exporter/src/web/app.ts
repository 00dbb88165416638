// The exporter's HTTP surface: `/` landing page, the telemetry path (default /metrics), /healthz.
import express, { type Express, type Request, type Response } from 'express';
import type { Scraper } from '../scrape/scraper.js';
import type { WebConfig } from './web-config.js';
import { basicAuth } from './basic-auth.js';
import type { PasswordChecker } from './password-checker.js';
import type { WebMetrics } from './web-metrics.js';
import { bodyBytes, ExpositionBodies, type Body } from './exposition-bodies.js';
import { negotiateFormat } from './negotiate-format.js';
import { CONTENT_TYPES, type ExpositionFormat } from '../scrape/exposition-writer.js';
import { VERSION } from '../version.js';
import type { Logger } from '../util/logger.js';

export interface AppOptions {
  readonly scraper: Scraper;
  readonly telemetryPath: string;
  readonly webConfig: WebConfig;
  readonly collectorNames: readonly string[];
  readonly logger: Logger;
  readonly webMetrics: WebMetrics;
  /** Runs the bcrypt checks of basic auth off the event loop; needed when basic auth users are set. */
  readonly passwordChecker?: PasswordChecker;
}

/** Whether a request path (percent-encoded as sent) is `path`. */
function samePath(requestPath: string, path: string): boolean {
  if (requestPath === path) return true;
  try {
    return decodeURIComponent(requestPath) === path;
  } catch {
    return false; // a malformed escape names no path of ours
  }
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function landingPage(telemetryPath: string, collectors: readonly string[]): string {
  const path = escapeHtml(telemetryPath);
  const items = collectors.map((c) => `<li><code>${escapeHtml(c)}</code></li>`).join('');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>jobio exporter</title></head>
<body>
<h1>jobio exporter</h1>
<p>Per-job I/O metrics for HPC clusters. Version ${escapeHtml(VERSION)}.</p>
<ul><li><a href="${path}">Metrics</a> (${path})</li><li><a href="healthz">Health</a></li></ul>
<h2>Enabled collectors</h2>
<ul>${items || '<li>none</li>'}</ul>
</body></html>
`;
}

/**
 * Sends the exposition, gzip-compressed when the scraper accepts it (Prometheus always does): a big
 * exposition shrinks about tenfold. The body is the scrape's shared one (exposition-bodies.ts), written
 * buffer by buffer.
 */
/**
 * Writes the exposition; `release` is called once nothing this response started reads its buffers: the
 * response finished or its connection closed (no write pending), and the gzip run it waited for ended.
 * After a failed gzip run it is never called (the buffers' memory is then never used again).
 */
function sendExposition(req: Request, res: Response, format: ExpositionFormat, exposition: Body, bodies: ExpositionBodies, logger: Logger, release: () => void): void {
  res.vary('Accept').vary('Accept-Encoding').type(CONTENT_TYPES[format]);
  const written = new Promise<void>((resolve) => {
    if (res.writableFinished || res.destroyed) return resolve();
    res.once('finish', resolve);
    res.once('close', resolve);
  });
  const send = (body: Body, free = true): void => {
    if (free) void written.then(release);
    if (res.destroyed) return;
    bodies.hold(res, body);
    res.set('Content-Length', String(bodyBytes(body)));
    if (req.method !== 'HEAD') for (const chunk of body) res.write(chunk);
    res.end();
  };
  if (req.acceptsEncodings('gzip', 'identity') !== 'gzip') {
    void bodies.body(exposition, 'identity').then(send);
    return;
  }
  bodies.body(exposition, 'gzip').then(
    (body) => {
      res.set('Content-Encoding', 'gzip');
      send(body);
    },
    async (err: unknown) => {
      logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'gzip failed, sending the exposition uncompressed');
      send(await bodies.body(exposition, 'identity'), false);
    },
  );
}

export function createApp(options: AppOptions): Express {
  const app = express();
  const bodies = new ExpositionBodies(options.webMetrics);
  app.disable('x-powered-by');
  app.set('etag', false);
  if (options.webConfig.headers.size > 0) {
    app.use((_req, res, next) => {
      for (const [name, value] of options.webConfig.headers) res.set(name, value);
      next();
    });
  }
  if (options.webConfig.basicAuthUsers.size > 0) {
    if (!options.passwordChecker) throw new Error('internal: basic auth users configured without a password checker');
    app.use(basicAuth(options.webConfig.basicAuthUsers, options.passwordChecker, options.webMetrics));
  }

  // The telemetry path is matched as written, as node_exporter does: given to app.get() it was a route
  // pattern, so `/m:x` served any `/m…`, `{…}` was optional, and `*` or `(` stopped start-up with a stack trace.
  app.use((req, res, next) => {
    if ((req.method !== 'GET' && req.method !== 'HEAD') || !samePath(req.path, options.telemetryPath)) {
      next();
      return;
    }
    // node_exporter's collect[]: only the named collectors (an unknown or disabled name is refused).
    const asked = new URLSearchParams(req.originalUrl.slice(req.originalUrl.indexOf('?') + 1 || req.originalUrl.length)).getAll('collect[]');
    const only = asked.length > 0 ? new Set(asked) : undefined;
    const unknown = asked.filter((name) => !options.scraper.collectorNames.includes(name));
    if (unknown.length > 0) {
      res
        .status(400)
        .type('text/plain')
        .send(`collect[]: not an enabled collector: ${unknown.map((n) => JSON.stringify(n)).join(', ')}\n`);
      return;
    }
    const format = negotiateFormat(req.get('Accept'));
    options.scraper.scrapeLeased(only, format).then(
      (exposition) => sendExposition(req, res, format, exposition.chunks, bodies, options.logger, exposition.release),
      (err: unknown) => {
        options.logger.error({ err: err instanceof Error ? err.message : String(err) }, 'scrape failed');
        res.status(500).type('text/plain').send('scrape failed\n');
      },
    );
  });
  app.get('/healthz', (_req, res) => {
    res.type('text/plain').send('ok\n');
  });
  if (options.telemetryPath !== '/') {
    app.get('/', (_req, res) => {
      res.type('html').send(landingPage(options.telemetryPath, options.collectorNames));
    });
  }
  // A path we serve asked with another method (OPTIONS, POST, …) is 405 with the methods it takes,
  // as HTTP says, not 404: the path exists.
  const served = (path: string): boolean => samePath(path, options.telemetryPath) || path === '/healthz' || path === '/';
  app.use((req, res) => {
    if (req.method !== 'GET' && req.method !== 'HEAD' && served(req.path)) {
      res.status(405).set('Allow', 'GET, HEAD').type('text/plain').send('method not allowed\n');
      return;
    }
    res.status(404).type('text/plain').send('not found\n');
  });
  return app;
}
