import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type ServerResponse } from 'node:http';
import { connect, type Socket } from 'node:net';
import { once } from 'node:events';
import { gunzipSync } from 'node:zlib';
import { MetricRegistry } from '../scrape/metric-registry.js';
import { ExpositionBodies } from './exposition-bodies.js';
import { WebMetrics } from './web-metrics.js';

test('one body per scrape text and encoding, whatever the number of requests', async () => {
  const registry = new MetricRegistry();
  const bodies = new ExpositionBodies(new WebMetrics(registry));
  // A scrape's exposition: the same array of buffers for every request of that scrape.
  const text = [Buffer.from('jobio_x 1\n'.repeat(1000))];
  const [a, b] = await Promise.all([bodies.body(text, 'gzip'), bodies.body(text, 'gzip')]);
  assert.equal(a, b);
  assert.equal(await bodies.body(text, 'identity'), await bodies.body(text, 'identity'));
  assert.equal(gunzipSync(Buffer.concat(a)).toString(), 'jobio_x 1\n'.repeat(1000));
  await bodies.body([Buffer.from('jobio_x 2\n')], 'identity');
  const built = [...(await registry.metrics()).matchAll(/^jobio_web_response_bodies_total\{encoding="(\w+)"\} (\S+)$/gm)];
  assert.deepEqual(Object.fromEntries(built.map(([, encoding, value]) => [encoding, Number(value)])), { gzip: 1, identity: 2 });
});

test('unread responses hold at most 3 bodies: a new one closes the connections holding the oldest', async () => {
  const registry = new MetricRegistry();
  const metrics = new WebMetrics(registry);
  const bodies = new ExpositionBodies(metrics, 3);
  let served = 0;
  const answered: ServerResponse[] = [];
  // A distinct 8 MB body per request, more than any loopback socket buffer takes.
  const server = createServer((_req, res) => {
    const body = Buffer.alloc(8 << 20, served++);
    bodies.hold(res, [body]);
    answered.push(res);
    res.end(body);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as { port: number }).port;
  const clients: Socket[] = [];
  try {
    for (let i = 0; i < 5; i++) {
      const socket = connect(port, '127.0.0.1');
      socket.pause(); // never reads
      socket.on('error', () => undefined);
      socket.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
      clients.push(socket);
      while (served <= i) await new Promise((r) => setTimeout(r, 10));
    }
    const value = async (name: string, labels?: Record<string, string>): Promise<number> => {
      const line = (await registry.metrics()).split('\n').find((l) => l.startsWith(labels ? `${name}{reason="${labels.reason}"} ` : `${name} `));
      return line === undefined ? NaN : Number(line.slice(line.lastIndexOf(' ') + 1));
    };
    assert.equal(await value('jobio_web_connections_dropped_total', { reason: 'slow_reader' }), 2);
    assert.equal(await value('jobio_web_response_bytes_held'), 3 * (8 << 20));
    assert.deepEqual(
      answered.map((r) => r.socket === null || r.req.socket.destroyed),
      [true, true, false, false, false],
    );
    for (const c of clients) c.destroy();
    while (answered.some((r) => !r.req.socket.destroyed)) await new Promise((r) => setTimeout(r, 10));
    await new Promise((r) => setImmediate(r));
    assert.equal(await value('jobio_web_response_bytes_held'), 0);
  } finally {
    for (const c of clients) c.destroy();
    server.close();
  }
});
