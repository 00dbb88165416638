// Slowloris: 1,100 connections from 127.0.0.1 that trickle header lines and never finish a request,
// against an exporter held to systemd's default of 1,024 open files. A normal scrape from the same
// address must still be served: per-peer and total connection caps close the longest-waiting
// connection that has no request in progress, header and request timeouts reap the rest.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { connect, type Socket } from 'node:net';
import { startExporter } from '../helpers/exporter.js';
import { requireBinary } from '../helpers/binaries.js';

const ATTACKERS = 1100;

/** Attackers' connections the exporter has closed so far (before the test's own clean-up). */
let closedByExporter = 0;

function trickle(port: number): Promise<Socket> {
  return new Promise((resolveSocket) => {
    const socket = connect(port, '127.0.0.1');
    const timer = setInterval(() => socket.writable && socket.write(`X-Slow-${Math.random().toString(36).slice(2, 6)}: 1\r\n`), 1000);
    socket.once('connect', () => {
      socket.write('GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n');
      resolveSocket(socket);
    });
    socket.on('error', () => undefined);
    socket.once('close', () => {
      clearInterval(timer);
      closedByExporter += 1;
      resolveSocket(socket);
    });
    // A connection the kernel leaves in SYN-SENT (backlog full) counts as opened for the attack.
    setTimeout(() => resolveSocket(socket), 5000).unref();
  });
}

test('1,100 trickling connections from 127.0.0.1 do not deny a scrape from 127.0.0.1', async () => {
  const exporter = await startExporter(['--collector.disable-defaults']);
  const sockets: Socket[] = [];
  try {
    execFileSync(requireBinary('prlimit'), [`--pid=${exporter.child.pid}`, '--nofile=1024:1024']);
    const until = Date.now() + 30_000;
    for (let i = 0; i < ATTACKERS; i += 100) {
      sockets.push(...(await Promise.all(Array.from({ length: Math.min(100, ATTACKERS - i) }, () => trickle(exporter.port)))));
      // The next 100 once the exporter has taken these (it closes one old connection for each new one
      // past the cap). Sent faster than it accepts, many connections wait in the kernel's queue and are
      // accepted in one turn of the event loop, before the closed ones' descriptors are given back; at
      // 1,024 open files some can then be refused before the exporter sees them (uncounted, and not the
      // cap's doing: a fresh-clone run counted 1,032 of 1,036). A hang detector, not a timing assertion.
      while (closedByExporter < sockets.length - 64 && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
    }
    // A hang detector, not a timing assertion: without the defence this waits for minutes.
    const res = await fetch(`${exporter.url}/metrics`, { signal: AbortSignal.timeout(20_000) });
    assert.equal(res.status, 200);
    const text = await res.text();
    const dropped = Number(/^jobio_web_connections_dropped_total\{reason="max_connections_per_peer"\} (\d+)$/m.exec(text)?.[1]);
    assert.ok(dropped >= ATTACKERS - 64, `trickling connections beyond the per-peer cap were closed (${dropped})`);
    const open = Number(/^jobio_web_connections (\d+)$/m.exec(text)?.[1]);
    assert.ok(open <= 64, `at most the per-peer cap is open (${open})`);
    assert.equal(exporter.child.exitCode, null);
  } finally {
    for (const s of sockets) s.destroy();
    await exporter.stop();
  }
});
