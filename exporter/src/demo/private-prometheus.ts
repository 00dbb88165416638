// The demo's private Prometheus, when installed: 127.0.0.1 and a free port, its data in the demo's
// directory, scraping the demo's exporter and loading jobio's rule files unchanged.
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { once } from 'node:events';
import { isAbsolute, join } from 'node:path';
import type { ChildGroup, StartedChild } from './child-group.js';

async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export interface PrometheusSettings {
  readonly binary: string;
  readonly dir: string;
  readonly exporterAddress: string;
  readonly ruleFiles: readonly string[];
}

/** A scrape and evaluation every 2 s, so rates and alerts move within the demo's first minute. */
export function prometheusConfig(exporterAddress: string, ruleFiles: readonly string[]): string {
  const rules = ruleFiles.map((f) => `  - ${JSON.stringify(isAbsolute(f) ? f : join(process.cwd(), f))}`).join('\n');
  return `# Written by jobio demo\nglobal:\n  scrape_interval: 2s\n  evaluation_interval: 2s\nrule_files:\n${rules}\nscrape_configs:\n  - job_name: jobio\n    static_configs:\n      - targets: [${JSON.stringify(exporterAddress)}]\n`;
}

export async function startPrometheus(group: ChildGroup, s: PrometheusSettings): Promise<{ url: string; started: StartedChild }> {
  const config = join(s.dir, 'prometheus.yml');
  writeFileSync(config, prometheusConfig(s.exporterAddress, s.ruleFiles));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const started = group.start('prometheus', s.binary, [`--config.file=${config}`, `--storage.tsdb.path=${join(s.dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`, '--log.level=warn']);
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      if ((await fetch(`${url}/-/ready`)).ok) return { url, started };
    } catch {
      // not listening yet
    }
    if (started.child.exitCode !== null || started.child.signalCode !== null || Date.now() > deadline) throw new Error(`prometheus did not become ready:\n${started.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
