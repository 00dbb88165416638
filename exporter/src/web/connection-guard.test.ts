import { test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { connect, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { MetricRegistry } from '../scrape/metric-registry.js';
import { DEFAULT_LIMITS, listen, type ServerLimits } from './listen.js';
import { WebMetrics } from './web-metrics.js';
import { createLogger } from '../util/logger.js';

async function serve(limits: ServerLimits): Promise<{ port: number; registry: MetricRegistry; close: () => Promise<void> }> {
  const app = express();
  app.get('/', (_req, res) => res.send('ok'));
  const registry = new MetricRegistry();
  const server = await listen(
    app,
    { host: '127.0.0.1', port: 0 },
    { webConfig: { basicAuthUsers: new Map(), headers: new Map() }, metrics: new WebMetrics(registry), logger: createLogger('error', 'json'), limits },
  );
  return {
    port: (server.address() as AddressInfo).port,
    registry,
    close: () => {
      server.closeAllConnections();
      return new Promise((r) => server.close(() => r()));
    },
  };
}

async function opened(port: number): Promise<Socket> {
  const socket = connect(port, '127.0.0.1');
  socket.on('error', () => undefined);
  await once(socket, 'connect');
  socket.write('GET / HTTP/1.1\r\nHost: x\r\n');
  return socket;
}

async function dropped(registry: MetricRegistry, reason: string): Promise<number> {
  const line = (await registry.metrics()).split('\n').find((l) => l.startsWith(`jobio_web_connections_dropped_total{reason="${reason}"} `));
  return line === undefined ? NaN : Number(line.slice(line.lastIndexOf(' ') + 1));
}

test('at the total cap the longest-waiting connection is closed and a real request still gets through', async () => {
  const s = await serve({ ...DEFAULT_LIMITS, maxConnections: 5, maxPerPeer: 100, headerTimeoutMs: 60_000, requestTimeoutMs: 60_000 });
  const sockets: Socket[] = [];
  try {
    for (let i = 0; i < 10; i++) sockets.push(await opened(s.port));
    const res = await fetch(`http://127.0.0.1:${s.port}/`);
    assert.equal(await res.text(), 'ok');
    // 10 trickling + 1 real connection against a cap of 5: 6 of the trickling ones were closed.
    assert.equal(await dropped(s.registry, 'max_connections'), 6);
  } finally {
    for (const x of sockets) x.destroy();
    await s.close();
  }
});

test('a client that never finishes its headers is answered 408 after the header timeout, counted', async () => {
  const s = await serve({ ...DEFAULT_LIMITS, maxConnections: 5, maxPerPeer: 5, headerTimeoutMs: 200, requestTimeoutMs: 1000 });
  try {
    const socket = await opened(s.port);
    let reply = '';
    socket.on('data', (c: Buffer) => (reply += c.toString('utf8')));
    await once(socket, 'close');
    assert.match(reply, /^HTTP\/1\.1 408 Request Timeout/);
    assert.equal(await dropped(s.registry, 'timeout'), 1);
  } finally {
    await s.close();
  }
});
