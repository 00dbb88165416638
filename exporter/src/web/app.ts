// The exporter's HTTP surface: `/` landing page, the telemetry path (default /metrics), /healthz.
import express, { type Express } from 'express';
import type { Scraper } from '../scrape/scraper.js';
import type { WebConfig } from './web-config.js';
import { basicAuth } from './basic-auth.js';
import { VERSION } from '../version.js';
import type { Logger } from '../util/logger.js';

export interface AppOptions {
  readonly scraper: Scraper;
  readonly telemetryPath: string;
  readonly webConfig: WebConfig;
  readonly collectorNames: readonly string[];
  readonly logger: Logger;
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

export function createApp(options: AppOptions): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  if (options.webConfig.headers.size > 0) {
    app.use((_req, res, next) => {
      for (const [name, value] of options.webConfig.headers) res.set(name, value);
      next();
    });
  }
  if (options.webConfig.basicAuthUsers.size > 0) app.use(basicAuth(options.webConfig.basicAuthUsers));

  app.get(options.telemetryPath, (_req, res) => {
    options.scraper.scrape().then(
      (text) => res.type(options.scraper.contentType).send(text),
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
  app.use((_req, res) => {
    res.status(404).type('text/plain').send('not found\n');
  });
  return app;
}
