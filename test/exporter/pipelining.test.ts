// Clients that pipeline GET /metrics and never read. Every response used to keep its own copy of the
// exposition (and run its own gzip): 64 connections × 1,000 requests took the exporter past 1 GB
// in seconds, and it kept growing after the connections closed. Now a connection is served one
// request at a time (more than a few waiting closes it), every response of a scrape shares one body
// per encoding, and a response nobody reads is cut off by the write timeout.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startExporter, type RunningExporter } from '../helpers/exporter.js';
import { jobStatsExporterArgs } from '../lustre/replay.js';
import { jobStatsText, OST_OPS_214, type GeneratedJob } from '../lustre/generate-jobstats.js';

const JOBS = 3000;
const CONNECTIONS = 64;
const PIPELINED = 1000;
const STALLED = 32;

function value(text: string, series: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  assert.ok(line, `${series} is exported`);
  return Number(line.slice(series.length + 1));
}

/** Polls the exporter's metrics until `done` holds; a hang detector (60 s), not a timing assertion. */
async function waitForMetrics(exporter: RunningExporter, done: (text: string) => boolean): Promise<string> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const text = await (await fetch(`${exporter.url}/metrics`, { signal: AbortSignal.timeout(60_000) })).text();
    if (done(text)) return text;
    assert.ok(
      Date.now() < deadline,
      `gave up waiting; last metrics:\n${text
        .split('\n')
        .filter((l) => l.startsWith('jobio_web'))
        .join('\n')}`,
    );
    await new Promise((r) => setTimeout(r, 500));
  }
}

/** Opens a connection that writes `requests` and never reads a byte of the answers. */
function nonReader(port: number, requests: string): Promise<Socket> {
  return new Promise((resolveSocket) => {
    const socket = connect(port, '127.0.0.1');
    socket.pause();
    socket.on('error', () => undefined);
    socket.once('connect', () => socket.write(requests, () => resolveSocket(socket)));
  });
}

const peakRssBytes = (pid: number): number => Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) * 1024;

test('64 connections pipelining 1,000 scrapes without reading: closed as pipelined, one body per scrape, memory bounded and released', async (t) => {
  const root = mkdtempSync(join(tmpdir(), 'jobio-pipelining-'));
  const dir = join(root, 'proc/fs/lustre/obdfilter/fs-OST0000');
  mkdirSync(dir, { recursive: true });
  const jobs: GeneratedJob[] = Array.from({ length: JOBS }, (_, i) => ({
    id: `${i + 1}:5000:n1`,
    samples: Object.fromEntries(OST_OPS_214.map((op) => [op, 10 + i])),
    sums: { read_bytes: 4096 * (i + 1), write_bytes: 8192 * (i + 1) },
  }));
  writeFileSync(join(dir, 'job_stats'), jobStatsText(jobs, '2.14', OST_OPS_214));
  const exporter = await startExporter([
    ...jobStatsExporterArgs(root),
    `--collector.lustre_jobstats.max-jobs=${JOBS}`,
    // Long enough that a poll (itself a 4.8 MB scrape, seconds on a loaded machine) lands while the
    // stalled responses still hold their body.
    '--web.write-timeout=6s',
  ]);
  const sockets: Socket[] = [];
  try {
    const pid = exporter.child.pid!;
    const bodyBytes = Buffer.byteLength(await (await fetch(`${exporter.url}/metrics`, { headers: { 'Accept-Encoding': 'identity' } })).text());
    assert.ok(bodyBytes > 4_000_000, `the exposition is big enough that no kernel buffer takes it whole (${bodyBytes} bytes)`);
    const before = peakRssBytes(pid);

    // Pipelining: each connection's first request is served, 8 more may wait, the next closes it.
    const scrape = (gzip: boolean): string => `GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n${gzip ? 'Accept-Encoding: gzip\r\n' : ''}\r\n`;
    for (let i = 0; i < CONNECTIONS; i++) sockets.push(await nonReader(exporter.port, scrape(i % 2 === 0).repeat(PIPELINED)));
    let text = await waitForMetrics(exporter, (t) => value(t, 'jobio_web_connections_dropped_total{reason="pipelined"}') === CONNECTIONS);
    assert.equal(value(text, 'jobio_web_connections_dropped_total{reason="max_connections_per_peer"}'), 0);
    // Every body the attack caused is one per scrape and encoding, not one per request: at most one
    // scrape per connection's first request, plus the polls above.
    const polls = value(text, 'jobio_web_response_bodies_total{encoding="identity"}');
    assert.ok(value(text, 'jobio_web_response_bodies_total{encoding="gzip"}') <= CONNECTIONS / 2, 'at most one gzip per gzip connection');
    assert.ok(polls < CONNECTIONS * 2, `identity bodies ${polls}: not one per pipelined request`);

    // Not pipelining, just never reading: the write timeout cuts each one off; meanwhile they all
    // share a few bodies instead of holding one each.
    for (const s of sockets.splice(0)) s.destroy();
    for (let i = 0; i < STALLED; i++) sockets.push(await nonReader(exporter.port, scrape(false)));
    let heldDuring = 0;
    text = await waitForMetrics(exporter, (t) => {
      heldDuring = Math.max(heldDuring, value(t, 'jobio_web_response_bytes_held'));
      return value(t, 'jobio_web_connections_dropped_total{reason="write_timeout"}') === STALLED;
    });
    assert.ok(heldDuring > 0, 'the stalled responses were seen holding their body');
    assert.ok(heldDuring <= 8 * bodyBytes * 1.1, `held ${heldDuring} bytes for ${STALLED} stalled responses: shared bodies, at most 8`);
    assert.equal(value(text, 'jobio_web_connections_dropped_total{reason="pipelined"}'), CONNECTIONS);

    // Everything is released once the connections are gone: no body held, one connection (ours).
    for (const s of sockets.splice(0)) s.destroy();
    text = await waitForMetrics(exporter, (t) => value(t, 'jobio_web_connections') === 1);
    assert.equal(value(text, 'jobio_web_response_bytes_held'), 0);
    const grown = peakRssBytes(pid) - before;
    // Unbounded, the same attack grew the exporter by more than 1 GB (and it went on growing).
    t.diagnostic(`body ${bodyBytes} B; identity bodies ${polls}; held during the stall ${heldDuring} B; peak RSS grew ${Math.round(grown / 1048576)} MiB`);
    assert.ok(grown < 400 * 1024 * 1024, `peak RSS grew by ${Math.round(grown / 1048576)} MiB`);
    assert.equal(exporter.child.exitCode, null);
  } finally {
    for (const s of sockets) s.destroy();
    await exporter.stop();
    rmSync(root, { recursive: true, force: true });
  }
});
