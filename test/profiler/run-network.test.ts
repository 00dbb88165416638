// `jobio run --network --output` with the real profiler: one `network` record per peer address and
// the address "*" total, with exact calls and bytes. The oracle is the servers this test runs: what
// each one received from the client and sent back. The address is the peer host (as Mistral's), so
// the two TCP servers listen on two loopback addresses, 127.0.0.1 and 127.0.0.2; the third is a Unix
// socket. Beyond 16 peers a process folds the rest into the total, and says how many calls it folded.
import { before, after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jobioBin } from '../helpers/exporter.js';
import { requireBinary } from '../helpers/binaries.js';
import { buildTests, testBin } from '../profiler-native/harness.js';
import { readValidLog } from './mistral-schema.js';
import { requireProfilerLibrary } from './real-library.js';

type Obj = Record<string, any>;
const work = mkdtempSync(join(tmpdir(), 'jobio-run-network-'));

/** A server that reads `expect` bytes, then answers `reply` bytes; it records what it received and sent. */
interface Peer {
  server: Server;
  received: number;
  sent: number;
}

function serve(expect: number, reply: number): Peer {
  const peer: Peer = { server: createServer(), received: 0, sent: 0 };
  peer.server.on('connection', (s: Socket) => {
    s.on('data', (d: Buffer) => {
      peer.received += d.length;
      if (peer.received === expect) {
        s.end(Buffer.alloc(reply, 'r'));
        peer.sent += reply;
      }
    });
    s.on('error', () => {});
  });
  return peer;
}

const listen = (p: Peer, ...args: [number, string] | [string]): Promise<void> =>
  new Promise((resolve, reject) => {
    p.server.once('error', reject);
    p.server.listen(...(args as [number, string]), () => resolve());
  });

/** Runs jobio run asynchronously (the servers above answer from this process's event loop). */
function jobio(args: readonly string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [jobioBin, 'run', ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

const sizes = { a: [1000, 300], b: [2000, 500], unix: [700, 100] } as const;
const peers = { a: serve(...sizes.a), b: serve(...sizes.b), unix: serve(...sizes.unix) };
const unixPath = join(work, 'peer.sock');

before(async () => {
  await listen(peers.a, 0, '127.0.0.1');
  await listen(peers.b, 0, '127.0.0.2');
  await listen(peers.unix, unixPath);
  buildTests();
});

after(() => {
  for (const p of Object.values(peers)) p.server.close();
  rmSync(work, { recursive: true, force: true });
});

// One connection to each server: send all, then read the whole answer with one recv (MSG_WAITALL).
const client = `
import socket, sys
def talk(family, addr, send, reply):
    s = socket.socket(family, socket.SOCK_STREAM)
    s.connect(addr)
    s.sendall(b'x' * send)
    got = s.recv(reply, socket.MSG_WAITALL)
    assert len(got) == reply, len(got)
    s.close()
a, b, path = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
talk(socket.AF_INET, ('127.0.0.1', a), ${sizes.a[0]}, ${sizes.a[1]})
talk(socket.AF_INET, ('127.0.0.2', b), ${sizes.b[0]}, ${sizes.b[1]})
talk(socket.AF_UNIX, path, ${sizes.unix[0]}, ${sizes.unix[1]})
`;

const port = (p: Peer): string => String((p.server.address() as AddressInfo).port);

/** calls and bytes of an io key of a record ({} when absent) */
const figures = (io: Obj, key: string): { calls?: number; bytes?: number } => ({ calls: io[key]?.calls?.total, bytes: io[key]?.bytes?.total });

test('a python client of two TCP servers and a Unix socket: one network record per address, exact calls and bytes, and the total', async () => {
  requireProfilerLibrary();
  const python = requireBinary('python3');
  const out = join(work, 'net.jsonl');
  const r = await jobio(['--network', '--output', out, '--', python, '-c', client, port(peers.a), port(peers.b), unixPath]);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual([peers.a.received, peers.b.received, peers.unix.received], [sizes.a[0], sizes.b[0], sizes.unix[0]]);
  const records = readValidLog(readFileSync(out, 'utf8'));
  const totals = new Map(records.filter((x) => x.type === 'network' && x.jobtotal === true).map((x) => [x.address as string, x]));
  assert.deepEqual([...totals.keys()].sort(), ['*', '127.0.0.1', '127.0.0.2', `unix:${unixPath}`]);
  const expect = (address: string, send: number, reply: number, connects: number): void => {
    const rec = totals.get(address);
    assert.ok(rec, address);
    assert.equal(rec.cumulative, address === '*', `${address}: cumulative`);
    const io = rec.io as Obj;
    assert.deepEqual(figures(io, 'connect'), { calls: connects, bytes: undefined }, `${address}: connect`);
    assert.deepEqual(figures(io, 'write_all'), { calls: connects, bytes: send }, `${address}: written`);
    assert.deepEqual(figures(io, 'read_all'), { calls: connects, bytes: reply }, `${address}: read`);
  };
  // what each server received is what the client wrote to it; what it sent, what the client read
  expect('127.0.0.1', peers.a.received, peers.a.sent, 1);
  expect('127.0.0.2', peers.b.received, peers.b.sent, 1);
  expect(`unix:${unixPath}`, peers.unix.received, peers.unix.sent, 1);
  expect('*', peers.a.received + peers.b.received + peers.unix.received, peers.a.sent + peers.b.sent + peers.unix.sent, 3);
  // the frames: records per address (and "*") whose figures add up to the job totals
  const periodic = records.filter((y) => y.type === 'network' && y.jobtotal === false);
  assert.deepEqual([...new Set(periodic.map((x) => x.address as string))].sort(), [...totals.keys()].sort());
  for (const [address, total] of totals) {
    for (const key of ['connect', 'write_all', 'read_all']) {
      const framed = periodic.filter((x) => x.address === address).reduce((n, x) => n + (figures(x.io as Obj, key).calls ?? 0), 0);
      assert.equal(framed, figures(total.io as Obj, key).calls, `${address} ${key}: frames add up to the total`);
    }
  }
  assert.doesNotMatch(r.stderr, /went to more peer addresses/);
});

test('beyond 16 peers a process folds the rest into the total, and jobio run says how many calls', async () => {
  requireProfilerLibrary();
  const out = join(work, 'fold.jsonl');
  const r = await jobio(['--network', '--output', out, '--', testBin('t_net_peers'), work, 'fold']);
  assert.equal(r.code, 0, r.stderr);
  const records = readValidLog(readFileSync(out, 'utf8'));
  const totals = records.filter((x) => x.type === 'network' && x.jobtotal === true);
  const addresses = totals.map((x) => x.address as string);
  assert.deepEqual(addresses.filter((a) => a !== '*').sort(), Array.from({ length: 16 }, (_, i) => `127.0.0.${i + 1}`).sort());
  const star = totals.find((x) => x.address === '*') as Obj;
  // 18 datagrams of 10 bytes and 5 bytes over the connected socket; one read of 10; one connect
  assert.deepEqual(figures(star.io, 'write_all'), { calls: 19, bytes: 185 });
  assert.deepEqual(figures(star.io, 'read_all'), { calls: 1, bytes: 10 });
  assert.deepEqual(figures(star.io, 'connect'), { calls: 1, bytes: undefined });
  const own = totals.filter((x) => x.address !== '*').reduce((n, x) => n + Number((x.io as Obj)['write_all'].bytes.total), 0);
  assert.equal(own, 160, 'the 16 peers apart: 10 bytes each; the folded 25 are in the total only');
  assert.match(r.stderr, /note: 3 socket call\(s\) went to more peer addresses than a process keeps apart/);
});
