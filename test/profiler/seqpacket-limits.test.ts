// The receiver addon (native/seqpacket) against local users who try to deny it service, with real
// sockets: a receiver out of file descriptors pauses accepting instead of spinning, one uid cannot
// hold more than its share of connections, and the queue to JavaScript is bounded in bytes and
// taken in turns (uid by uid, and process by process within a uid).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';
import { requireBinary } from '../helpers/binaries.js';
import { loadSeqpacketAddon, type SeqpacketEvent, type SeqpacketServerStats } from '../../exporter/src/profiler/native.js';
import { JOB_CGROUP_PATH_PATTERNS } from '../../exporter/src/labels/job-cgroup-layouts.js';

const addon = loadSeqpacketAddon();
const dir = mkdtempSync(join(tmpdir(), 'jobio-limits-'));
const ADDON_FILE = fileURLToPath(new URL('../../native/seqpacket/build/Release/jobio_seqpacket.node', import.meta.url));
const CLOCK_TICKS = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;

async function until(what: string, predicate: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!predicate()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** utime + stime of a process, in seconds (/proc/<pid>/stat fields 14 and 15). */
function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
}

/**
 * Runs the Python `body` to its end after a prelude that imports socket, os and time and defines
 * connect(), a SOCK_SEQPACKET connection to `path`. spawnSync blocks this thread meanwhile, so
 * JavaScript consumes nothing until the script is done. A failed script fails the test.
 */
function runSenders(path: string, body: readonly string[]): void {
  const prelude = ['import socket, os, time', 'def connect():', '    c = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)', `    c.connect(${JSON.stringify(path)})`, '    return c'];
  const py = spawnSync(requireBinary('python3'), ['-c', [...prelude, ...body].join('\n')], { encoding: 'utf8' });
  assert.equal(py.status, 0, py.stderr);
}

/** Lines of a child's stdout, as they come. */
function lines(child: ChildProcess): string[] {
  const seen: string[] = [];
  if (child.stdout) createInterface({ input: child.stdout }).on('line', (line) => seen.push(line));
  return seen;
}

test('out of file descriptors, the receiver pauses accepting instead of spinning, and accepts again once they are freed', async () => {
  const path = join(dir, 'fd.sock');
  // A tiny receiver in its own process, so that its open-file limit and its CPU time are its own.
  const script = join(dir, 'receiver.mjs');
  writeFileSync(
    script,
    [
      "import { createRequire } from 'node:module';",
      `const addon = createRequire(import.meta.url)(${JSON.stringify(ADDON_FILE)});`,
      `const server = new addon.SeqpacketServer(${JSON.stringify(path)}, { maxFrame: 100 }, () => {});`,
      'setInterval(() => process.stdout.write(JSON.stringify(server.stats()) + "\\n"), 50);',
    ].join('\n'),
  );
  const receiver = spawn('sh', ['-c', 'ulimit -n 64 && exec "$0" "$@"', process.execPath, script], { stdio: ['ignore', 'pipe', 'inherit'] });
  const reports = lines(receiver);
  const stats = (): SeqpacketServerStats | undefined => {
    const last = reports.at(-1);
    return last ? (JSON.parse(last) as SeqpacketServerStats) : undefined;
  };
  // The opener starts only once the receiver listens: started together, it could connect before the
  // socket file exists (FileNotFoundError under load).
  try {
    await until('the receiver to start', () => stats()?.listening === true);
  } catch (error) {
    receiver.kill();
    throw error;
  }
  // 150 connections held open (more than the 64 descriptors the receiver may have), then on a line on
  // stdin all closed and one new connection sends a frame.
  const opener = spawn(
    requireBinary('python3'),
    [
      '-c',
      [
        'import socket, sys',
        'held = []',
        'for i in range(150):',
        '    c = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)',
        `    c.connect(${JSON.stringify(path)})`,
        '    held.append(c)',
        "print('open', flush=True)",
        'sys.stdin.readline()',
        'for c in held: c.close()',
        'c = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)',
        `c.connect(${JSON.stringify(path)})`,
        "c.send(b'after')",
        "print('done', flush=True)",
        'sys.stdin.readline()',
      ].join('\n'),
    ],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  );
  const said = lines(opener);
  try {
    await until('the connections to be made', () => said.includes('open'));
    await until('accept4 to run out of descriptors', () => (stats()?.acceptErrors ?? 0) > 0);
    const held = stats();
    assert.ok(held && held.accepted < 64, `only what the descriptor limit allows is accepted (${held?.accepted})`);
    assert.equal(held.pendingConnections, true, 'the rest wait in the backlog');

    const pid = receiver.pid ?? 0;
    const before = cpuSeconds(pid);
    const started = Date.now();
    await new Promise((r) => setTimeout(r, 1000));
    const used = cpuSeconds(pid) - before;
    const wall = (Date.now() - started) / 1000;
    assert.ok(used < 0.5, `the receiver used ${used.toFixed(2)} s of CPU in ${wall.toFixed(2)} s while out of descriptors`);
    const errors = stats()?.acceptErrors ?? 0;
    assert.ok(errors >= 2 && errors <= 40, `accept4 was retried about every 100 ms, not in a loop (${errors} failures)`);

    opener.stdin.write('\n');
    await until('the new connection', () => said.includes('done'));
    await until('the frame sent after the connections were closed', () => (stats()?.frames ?? 0) === 1);
    const after = stats();
    assert.ok(after && after.accepted === 151, `every connection was eventually accepted (${after?.accepted})`);
  } finally {
    opener.kill();
    receiver.kill();
  }
});

test('one uid cannot hold more than maxConnectionsPerUser connections; the others are still served', async () => {
  const path = join(dir, 'user.sock');
  const events: SeqpacketEvent[] = [];
  const server = new addon.SeqpacketServer(path, { maxFrame: 100, maxConnectionsPerUser: 3 }, (e) => events.push(e));
  const root = process.getuid?.() === 0;
  // As root, a connection of another uid is made while this uid is at its cap: it must be accepted.
  if (root) chmodSync(dir, 0o755);
  try {
    runSenders(path, [
      'c = [connect() for i in range(4)]',
      'for i, s in enumerate(c):',
      '    try: s.send(b"c%d" % i)',
      '    except OSError: pass',
      'c[3].settimeout(5)',
      // Closed by the receiver: end of file, or a reset since the frame sent on it was never read.
      'try: assert c[3].recv(10) == b"", "the connection beyond the cap is closed by the receiver"',
      'except ConnectionResetError: pass',
      ...(root ? ['pid = os.fork()', 'if pid == 0:', '    os.setuid(65534); o = connect(); o.send(b"other"); o.close(); os._exit(0)', 'assert os.waitpid(pid, 0)[1] == 0'] : []),
      'c[0].close()',
      'time.sleep(0.3)',
      'n = connect(); n.send(b"c4"); n.close()',
      'c[1].close(); c[2].close()',
    ]);
    const expected = root ? 5 : 4;
    await until('every connection to close', () => server.stats().closed === expected);
    await until('every event to reach JavaScript', () => events.length === server.stats().enqueued);
    const stats = server.stats();
    assert.equal(stats.refusedPerUser, 1);
    assert.equal(stats.refused, 0);
    assert.equal(stats.accepted, expected);
    const frames = events.filter((e) => e.type === 'frame').map((e) => e.data?.toString());
    assert.deepEqual(frames.filter((f) => f !== 'other').sort(), ['c0', 'c1', 'c2', 'c4'], 'the accepted connections, and one made after a slot was freed, are served');
    if (root) assert.ok(frames.includes('other'), 'another uid is not affected by this uid being at its cap');
  } finally {
    server.close();
  }
});

test('the queue to JavaScript is bounded in bytes: frames beyond queueBytes are dropped and counted', async () => {
  const path = join(dir, 'queue.sock');
  const limit = 64 * 1024;
  const events: SeqpacketEvent[] = [];
  // One sender: its share of the queue is the whole queue here (the per-uid share is tested below).
  const server = new addon.SeqpacketServer(path, { maxFrame: 8192, queueBytes: limit, queueBytesPerUser: limit }, (e) => events.push(e));
  try {
    // spawnSync blocks this thread, and so does the loop below: nothing is consumed meanwhile.
    runSenders(path, ['c = connect()', 'for i in range(100): c.send(bytes([i]) * 4000)', 'c.close()']);
    const end = Date.now() + 5000;
    let busy = server.stats();
    while (busy.closed < 1 && Date.now() < end) busy = server.stats();
    assert.equal(busy.frames, 100);
    assert.ok(busy.queuedBytes <= limit, `queued ${busy.queuedBytes} bytes, limit ${limit}`);
    assert.ok(busy.queuedBytes > limit / 2, `the queue filled up to its limit (${busy.queuedBytes} bytes)`);
    assert.equal(busy.enqueued + busy.queueDropped, 101, 'every frame and the close event were either queued or dropped');
    assert.ok(busy.queueDropped >= 80, `about 16 frames of 4000 bytes fit in 64 KiB (${busy.queueDropped} dropped)`);

    await until('the queue to drain', () => server.stats().delivered === busy.enqueued);
    assert.equal(server.stats().queuedBytes, 0);
    const frames = events.filter((e) => e.type === 'frame');
    assert.ok(frames.length >= 10);
    assert.deepEqual(
      frames.map((e) => e.data?.[0]),
      frames.map((_, i) => i),
      'the first frames were kept, in order',
    );
  } finally {
    server.close();
  }
});

test(
  'one uid flooding the queue to JavaScript cannot make another uid lose frames: each uid has its share, losses are counted per uid',
  { skip: process.getuid?.() !== 0 && 'needs root to send as another uid' },
  async () => {
    const path = join(dir, 'fair.sock');
    chmodSync(dir, 0o755);
    const events: SeqpacketEvent[] = [];
    const server = new addon.SeqpacketServer(path, { maxFrame: 8192, queueBytes: 1 << 20, queueBytesPerUser: 256 << 10 }, (e) => events.push(e));
    const flooder = 65534;
    try {
      // The flooder (uid 65534) sends 2,000 frames of 4,000 bytes (8 MB, eight times the whole queue),
      // then this uid sends 200 frames of 500 bytes. spawnSync blocks JavaScript meanwhile, so nothing
      // is consumed: before per-uid shares the flood filled the queue and the 200 frames were dropped.
      runSenders(path, [
        'pid = os.fork()',
        'if pid == 0:',
        `    os.setuid(${flooder}); c = connect()`,
        '    for i in range(2000): c.send(b"F" * 4000)',
        '    c.close(); os._exit(0)',
        'assert os.waitpid(pid, 0)[1] == 0',
        'c = connect()',
        'for i in range(200): c.send(b"V" * 500)',
        'c.close()',
      ]);
      await until('both connections to close', () => server.stats().closed === 2);
      await until('the queue to drain', () => server.stats().delivered === server.stats().enqueued && events.length === server.stats().enqueued);
      const frames = events.filter((e) => e.type === 'frame');
      const victim = frames.filter((e) => e.uid !== flooder);
      assert.equal(victim.length, 200, 'the other uid kept all its frames');
      // Each uid's waiting events are taken in turns: the other uid's do not wait behind the flood's
      // (held that long, a steady sender grew heavy and lost frames once four uids flooded).
      assert.equal(
        events.findIndex((e) => e.uid !== flooder),
        1,
        "the other uid's first frame comes second, not after the flood's",
      );
      const flood = frames.filter((e) => e.uid === flooder).length;
      assert.ok(flood >= 40 && flood <= 66, `the flooder kept about its 256 KiB share of 4,000-byte frames (${flood})`);
      // The flooder's close event is small enough to fit in what is left of its share, or not.
      const lost = 2001 - flood - events.filter((e) => e.type === 'close' && e.uid === flooder).length;
      const stats = server.stats();
      assert.deepEqual(stats.queueDroppedByUid, { [flooder]: lost }, 'losses counted per uid, none for the other uid');
      assert.equal(stats.queueDropped, lost);
    } finally {
      server.close();
    }
  },
);

test("one process flooding the queue to JavaScript cannot hold back its uid's other processes: a uid's processes take turns", async () => {
  const path = join(dir, 'connection-turns.sock');
  const events: SeqpacketEvent[] = [];
  const server = new addon.SeqpacketServer(path, { maxFrame: 100 }, (e) => events.push(e));
  try {
    // One process floods 2,000 frames (a rank stuck in a loop of tiny writes); once the receiver has
    // read them all (nothing left in the socket's queue), another process of the same uid (another
    // rank of the job) sends three. JavaScript is blocked all along (spawnSync, then the loop below),
    // so every event waits at once. Taken in the order read, the three came after the whole flood.
    runSenders(path, [
      'import fcntl, termios, struct',
      'f = connect()',
      'for i in range(2000): f.send(b"F%d" % i)',
      'end = time.time() + 10',
      'while struct.unpack("i", fcntl.ioctl(f.fileno(), termios.TIOCOUTQ, b"\\0" * 4))[0] and time.time() < end: time.sleep(0.001)',
      'pid = os.fork()',
      'if pid == 0:',
      '    q = connect()',
      '    for i in range(3): q.send(b"Q%d" % i)',
      '    q.close(); os._exit(0)',
      'assert os.waitpid(pid, 0)[1] == 0',
      'f.close()',
    ]);
    const end = Date.now() + 5000;
    while (server.stats().closed < 2 && Date.now() < end);
    assert.equal(server.stats().enqueued, 2005, 'both connections read to their end before JavaScript takes any');
    await until('the queue to drain', () => server.stats().delivered === 2005 && events.length === 2005);
    const quiet = events.find((e) => e.data?.toString() === 'Q0')?.connection;
    const said = events.flatMap((e, i) => (e.connection === quiet ? [`${i}:${e.type}:${e.data?.toString() ?? ''}`] : []));
    // Each of its events waits behind one of the flood's, not behind the flood.
    assert.deepEqual(said, ['1:frame:Q0', '3:frame:Q1', '5:frame:Q2', '7:close:']);
    const flood = events.filter((e) => e.connection !== quiet && e.type === 'frame').map((e) => e.data?.toString());
    assert.deepEqual(
      flood,
      Array.from({ length: 2000 }, (_, i) => `F${i}`),
      "the flood's frames all delivered, in order",
    );
    assert.equal(server.stats().queueDropped, 0);
  } finally {
    server.close();
  }
});

test(
  "a flooding process holds back neither another user's nor its own user's other processes by more than one frame per turn",
  { skip: process.getuid?.() !== 0 && 'needs root to send as another uid' },
  async () => {
    const path = join(dir, 'two-level-turns.sock');
    chmodSync(dir, 0o755);
    const events: SeqpacketEvent[] = [];
    const server = new addon.SeqpacketServer(path, { maxFrame: 100 }, (e) => events.push(e));
    const flooder = 65534;
    try {
      // A process of uid 65534 floods 2,000 frames; once they are read, another process of that uid
      // sends three, then one of this uid sends three. JavaScript is blocked all along.
      runSenders(path, [
        'import fcntl, termios, struct',
        'pid = os.fork()',
        'if pid == 0:',
        `    os.setuid(${flooder}); f = connect()`,
        '    for i in range(2000): f.send(b"F%d" % i)',
        '    end = time.time() + 10',
        '    while struct.unpack("i", fcntl.ioctl(f.fileno(), termios.TIOCOUTQ, b"\\0" * 4))[0] and time.time() < end: time.sleep(0.001)',
        '    rank = os.fork()',
        '    if rank == 0:',
        '        q = connect()',
        '        for i in range(3): q.send(b"Q%d" % i)',
        '        q.close(); os._exit(0)',
        '    assert os.waitpid(rank, 0)[1] == 0',
        '    f.close(); os._exit(0)',
        'assert os.waitpid(pid, 0)[1] == 0',
        'o = connect()',
        'for i in range(3): o.send(b"O%d" % i)',
        'o.close()',
      ]);
      const end = Date.now() + 5000;
      while (server.stats().closed < 3 && Date.now() < end);
      assert.equal(server.stats().enqueued, 2009, 'every connection read to its end before JavaScript takes any');
      await until('the queue to drain', () => server.stats().delivered === 2009 && events.length === 2009);
      const at = (prefix: string): string[] => {
        const connection = events.find((e) => e.data?.toString() === `${prefix}0`)?.connection;
        return events.flatMap((e, i) => (e.connection === connection ? [`${i}:${e.data?.toString() ?? e.type}`] : []));
      };
      // The uids take turns (65534, 0, 65534, 0, ...), and within 65534's turns its two processes do.
      assert.deepEqual(at('O'), ['1:O0', '3:O1', '5:O2', '7:close']);
      assert.deepEqual(at('Q'), ['2:Q0', '6:Q1', '9:Q2', '11:close']);
      assert.equal(server.stats().queueDropped, 0);
    } finally {
      server.close();
    }
  },
);

test("a process's frames keep their order across its connections: an exec'd image's new connection does not overtake the old one's frames", async () => {
  const path = join(dir, 'process-order.sock');
  const events: SeqpacketEvent[] = [];
  const server = new addon.SeqpacketServer(path, { maxFrame: 100 }, (e) => events.push(e));
  try {
    // A process sends 100 frames and, once the receiver has read them, drops its connection and
    // connects again (as its image does after an exec: the old socket closes on exec, the new image
    // says hello on a new one), then sends three more. JavaScript is blocked all along. Had each
    // connection its own turn, the new image's frames came between the old one's last frames, which
    // the process table then took as stale (the same process, the sequence begun anew).
    runSenders(path, [
      'import fcntl, termios, struct',
      'a = connect()',
      'for i in range(100): a.send(b"A%d" % i)',
      'end = time.time() + 10',
      'while struct.unpack("i", fcntl.ioctl(a.fileno(), termios.TIOCOUTQ, b"\\0" * 4))[0] and time.time() < end: time.sleep(0.001)',
      'a.close()',
      'b = connect()',
      'for i in range(3): b.send(b"B%d" % i)',
      'b.close()',
    ]);
    const end = Date.now() + 5000;
    while (server.stats().closed < 2 && Date.now() < end);
    assert.equal(server.stats().enqueued, 105, 'both connections read to their end before JavaScript takes any');
    await until('the queue to drain', () => server.stats().delivered === 105 && events.length === 105);
    assert.deepEqual(
      events.filter((e) => e.type === 'frame').map((e) => e.data?.toString()),
      [...Array.from({ length: 100 }, (_, i) => `A${i}`), 'B0', 'B1', 'B2'],
    );
    assert.equal(server.stats().queueDropped, 0);
  } finally {
    server.close();
  }
});

test(
  "a connection's events reach JavaScript in the order they were sent, also when its process changes user between them",
  { skip: process.getuid?.() !== 0 && 'needs root to change user' },
  async () => {
    const path = join(dir, 'order.sock');
    chmodSync(dir, 0o755);
    const events: SeqpacketEvent[] = [];
    const server = new addon.SeqpacketServer(path, { maxFrame: 100 }, (e) => events.push(e));
    const nobody = 65534;
    try {
      // A job's process (this uid) has a frame waiting; its child connects, says hello, becomes nobody
      // and sends two more frames (the shape of a root job whose child drops its privileges).
      // JavaScript is blocked all along (spawnSync). Queued by the uid of each message, the child's
      // later frames went in nobody's turn, ahead of its hello waiting behind the parent's frame.
      runSenders(path, [
        'import fcntl, termios, struct',
        'a = connect(); a.send(b"parent")',
        // until the receiver has read the parent's frame (nothing of it left in the socket's queue)
        'end = time.time() + 10',
        'while struct.unpack("i", fcntl.ioctl(a.fileno(), termios.TIOCOUTQ, b"\\0" * 4))[0] and time.time() < end: time.sleep(0.001)',
        'pid = os.fork()',
        'if pid == 0:',
        '    b = connect(); b.send(b"hello")',
        `    os.setgid(${nobody}); os.setuid(${nobody})`,
        '    b.send(b"calls"); b.send(b"final"); b.close(); os._exit(0)',
        'assert os.waitpid(pid, 0)[1] == 0',
        'a.close()',
      ]);
      await until('both connections to close', () => server.stats().closed === 2);
      await until('the queue to drain', () => server.stats().delivered === server.stats().enqueued && events.length === server.stats().enqueued);
      const child = events.find((e) => e.data?.toString() === 'hello')?.connection;
      const said = events.filter((e) => e.connection === child).map((e) => `${e.type}:${e.data?.toString() ?? ''}:${e.uid}`);
      // The credentials stay the kernel's, message by message; only the order is the connection's.
      assert.deepEqual(said, ['frame:hello:0', `frame:calls:${nobody}`, `frame:final:${nobody}`, 'close::0']);
      assert.equal(server.stats().queueDropped, 0);
    } finally {
      server.close();
    }
  },
);

test(
  "four uids flooding their quarters of the queue cannot starve a light sender: the queue's last quarter is kept for uids holding under a sixteenth of it",
  { skip: process.getuid?.() !== 0 && 'needs root to send as other uids' },
  async () => {
    const path = join(dir, 'reserve.sock');
    chmodSync(dir, 0o755);
    const events: SeqpacketEvent[] = [];
    // The exporter's defaults: 16 MiB in all, 4 MiB per uid, 16,384 event slots.
    const server = new addon.SeqpacketServer(path, { maxFrame: 8192 }, (e) => events.push(e));
    const flooders = [65534, 65533, 65532, 65531];
    try {
      // Each flooder sends 1,100 frames of 4,000 bytes (more than its 4 MiB share), one after the
      // other, then this uid sends 200 frames of 500 bytes; JavaScript is blocked all along (spawnSync).
      // Before the reserve the four shares filled the queue and the 200 frames were all dropped.
      runSenders(path, [
        `for uid in ${JSON.stringify(flooders)}:`,
        '    pid = os.fork()',
        '    if pid == 0:',
        '        os.setuid(uid); c = connect()',
        '        for i in range(1100): c.send(b"F" * 4000)',
        '        c.close(); os._exit(0)',
        '    assert os.waitpid(pid, 0)[1] == 0',
        'c = connect()',
        'for i in range(200): c.send(b"V" * 500)',
        'c.close()',
      ]);
      await until('every connection to close', () => server.stats().closed === 5);
      await until('the queue to drain', () => server.stats().delivered === server.stats().enqueued && events.length === server.stats().enqueued);
      const frames = events.filter((e) => e.type === 'frame');
      assert.equal(frames.filter((e) => e.uid === 0).length, 200, 'the light sender kept all its frames');
      const stats = server.stats();
      assert.equal(stats.queueDroppedByUid['0'], undefined, 'no loss counted for it');
      const kept = flooders.map((uid) => frames.filter((e) => e.uid === uid).length);
      // 4 MiB of 4,000-byte frames (~4,200 bytes each with their event) is ~990; the fourth flooder
      // finds the queue at its reserve and keeps under a sixteenth (1 MiB, ~255 frames).
      assert.ok(
        kept.slice(0, 3).every((n) => n >= 980 && n <= 1023),
        `the first three kept their shares (${kept.join(', ')})`,
      );
      assert.ok(kept[3] !== undefined && kept[3] <= 256, `the fourth kept at most a sixteenth (${kept[3]})`);
      for (const [i, uid] of flooders.entries())
        assert.equal(stats.queueDroppedByUid[String(uid)], 1101 - kept[i]! - events.filter((e) => e.type === 'close' && e.uid === uid).length, `losses of ${uid} counted`);
    } finally {
      server.close();
    }
  },
);

test(
  'connections are kept back for processes in a job cgroup: colluding uids outside any job fill only the rest, refusals are counted per uid',
  { skip: process.getuid?.() !== 0 && 'needs root to connect as several uids' },
  async () => {
    const path = join(dir, 'job-reserve.sock');
    chmodSync(dir, 0o755);
    // Each peer's cgroup file is written into a made-up procfs by the peer itself (it knows its pid).
    const procfs = join(dir, 'reserve-proc');
    mkdirSync(procfs);
    const server = new addon.SeqpacketServer(path, { maxFrame: 100, procfs, maxConnections: 10, reservedConnections: 6, jobCgroupPatterns: JOB_CGROUP_PATH_PATTERNS }, () => {});
    // [uid, cgroup file]: one at a time, in this order, each holding its connection to the end.
    const flux = '0::/user.slice/user-500.slice/user@500.service/app.slice/shell-0-f2Z3bD9eRuF.service/task';
    const peers: [number, string][] = [
      // Four colluding uids outside any job, two connections each: four fit beside the six kept back.
      ...[2001, 2001, 2002, 2002, 2003, 2003, 2004, 2004].map((uid): [number, string] => [uid, `0::/user.slice/user-${uid}.slice/session-3.scope`]),
      // Look-alikes: a job directory in the user's own manager; a Flux unit of the peer's own manager.
      [2005, '0::/user.slice/user-2005.slice/user@2005.service/app.slice/job_7/task'],
      [500, flux],
      // One process per job layout (Slurm v1 and v2, PBS, LSF, Flux), then a sixth job process.
      [3001, '4:memory:/slurm/uid_3001/job_11/step_0/task_0\n0::/user.slice'],
      [3002, '0::/system.slice/node1_slurmstepd.scope/job_12/step_batch/user/task_0'],
      [3003, '0::/pbs_jobs.service/jobid/13.server/tasks'],
      [3004, '0::/lsf/cluster1/job.14.0.1700000000/task'],
      [3005, flux],
      [3006, '0::/system.slice/slurmstepd.scope/job_16/step_0/user/task_0'],
      // The budget is full now: a seventh job process is refused too.
      [3007, '0::/system.slice/slurmstepd.scope/job_17/step_0/user/task_0'],
    ];
    const script = [
      'import socket, os, sys',
      // One release pipe whose write end only this parent keeps: closing it lets every peer go at once.
      'release_r, release_w = os.pipe()',
      'held = []',
      `for uid, cgroup in ${JSON.stringify(peers)}:`,
      '    ready = os.pipe()',
      '    pid = os.fork()',
      '    if pid == 0:',
      '        os.close(release_w); os.close(ready[0])',
      `        d = os.path.join(${JSON.stringify(procfs)}, str(os.getpid())); os.mkdir(d)`,
      '        open(os.path.join(d, "cgroup"), "w").write(cgroup + "\\n")',
      '        os.setuid(uid)',
      '        c = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)',
      `        c.connect(${JSON.stringify(path)})`,
      '        os.write(ready[1], b"1"); os.read(release_r, 1); os._exit(0)',
      '    os.close(ready[1])',
      '    assert os.read(ready[0], 1) == b"1"',
      '    os.close(ready[0]); held.append(pid)',
      'print("connected", flush=True)',
      'sys.stdin.readline()',
      'os.close(release_w)',
      'for pid in held: os.waitpid(pid, 0)',
    ].join('\n');
    const py = spawn(requireBinary('python3'), ['-c', script], { stdio: ['pipe', 'pipe', 'inherit'] });
    try {
      await new Promise((resolve) => py.stdout.once('data', resolve));
      const decided = (s: SeqpacketServerStats): number => s.accepted + s.refused + s.refusedPerUser + s.refusedUnverified;
      await until('every connection to be accepted or refused', () => decided(server.stats()) === peers.length);
      const stats = server.stats();
      assert.equal(stats.reservedConnections, 6);
      assert.equal(stats.accepted, 10, 'four outside any job, six job processes');
      assert.equal(stats.refusedUnverified, 6, 'four of the colluding uids and the two look-alikes: only the reserved connections were left');
      assert.equal(stats.refused, 1, 'the seventh job process: all ten connections held');
      assert.equal(stats.refusedPerUser, 0);
      assert.deepEqual(stats.refusedByUid, { 2003: 2, 2004: 2, 2005: 1, 500: 1, 3007: 1 });
    } finally {
      py.stdin.end('\n');
      await new Promise((resolve) => py.once('exit', resolve));
      server.close();
    }
  },
);
