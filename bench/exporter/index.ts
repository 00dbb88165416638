// Benchmark of the bare exporter framework: scrapes per second and latency percentiles of
// `jobio exporter --collector.disable-defaults` under autocannon on 127.0.0.1, against a baseline in
// the same run: a bare node:http server answering with the same exposition text (the floor any
// Node exporter shares). The ratio is what matters; the machines are noisy.
import autocannon from 'autocannon';
import { createServer } from 'node:http';
import { once } from 'node:events';
import { startExporter, scrape } from '../../test/helpers/exporter.js';
import { runAuthFlood } from './auth-flood.js';
import { everyJobOverHttp } from './every-job.js';

interface Load {
  readonly requestsPerSecond: number;
  readonly p50: number;
  readonly p99: number;
  readonly errors: number;
}

async function load(url: string, seconds: number): Promise<Load> {
  const result = await autocannon({ url, connections: 4, duration: seconds });
  return {
    requestsPerSecond: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.non2xx,
  };
}

export async function run(seconds = Number(process.env.JOBIO_BENCH_SECONDS ?? 10)): Promise<string> {
  const exporter = await startExporter(['--collector.disable-defaults']);
  const body = await scrape(`${exporter.url}/metrics`);
  const baseline = createServer((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/plain; version=0.0.4; charset=utf-8' });
    res.end(body);
  });
  baseline.listen(0, '127.0.0.1');
  await once(baseline, 'listening');
  const address = baseline.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  try {
    await load(`${exporter.url}/metrics`, 2); // warm-up (JIT)
    const floor = await load(`http://127.0.0.1:${port}/metrics`, seconds);
    const jobio = await load(`${exporter.url}/metrics`, seconds);
    const row = (name: string, l: Load): string => `| ${name} | ${l.requestsPerSecond.toFixed(0)} | ${l.p50} | ${l.p99} | ${l.errors} |`;
    return [
      '## Exporter framework (bare, `--collector.disable-defaults`)',
      '',
      `autocannon, 4 connections, ${seconds} s per run, 127.0.0.1.`,
      '',
      '| server | scrapes/s | p50 ms | p99 ms | errors |',
      '| --- | ---: | ---: | ---: | ---: |',
      row('baseline: bare node:http, same body', floor),
      row('jobio exporter', jobio),
      '',
      `Ratio jobio / baseline throughput: ${(jobio.requestsPerSecond / floor.requestsPerSecond).toFixed(2)}.`,
      '',
      await runAuthFlood(),
      await everyJobOverHttp(),
    ].join('\n');
  } finally {
    baseline.close();
    await exporter.stop();
  }
}
