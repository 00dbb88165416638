// `node --import tsx bench/run/refused-flood.ts`: what a flood of connections from another user costs
// the socket of refused processes (`jobio run`'s JOBIO_REFUSED_SOCKET), per connection, with the
// evidence it read before (cgroup, environ and exe, as the private socket reads them) and with the exe
// link alone (now), alternated in the same run. The flooder runs as nobody (so needs root), connects
// 2,000 times, says its name once on each connection and hangs up (the connection limits raised so
// that every connection is read); once with the environment of this
// shell and once with 1 MiB more of it (another user chooses its environment). The cost is this
// process's CPU time (every thread: the receiving thread and JavaScript) from the first connection
// to the last hang-up, over the connections whose message was read.
import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadSeqpacketAddon } from '../../exporter/src/profiler/native.js';
import { RefusedTally } from '../../exporter/src/profiler/refused-processes.js';

const CONNECTIONS = 2000;
const ROUNDS = 5;
const NOBODY = 65534;

const FLOODER = [
  'import socket, sys',
  'for _ in range(int(sys.argv[2])):',
  '    c = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)',
  '    try:',
  '        c.connect(sys.argv[1]); c.send(b"flood")',
  '    except OSError:',
  '        pass',
  '    c.close()',
].join('\n');

/** `bytes` of environment in variables of 128 KiB less a little (the kernel's limit for one string). */
function padding(bytes: number): Record<string, string> {
  const each = 128 * 1024 - 64;
  return Object.fromEntries(Array.from({ length: Math.ceil(bytes / each) }, (_, i) => [`PADDING_${i}`, 'x'.repeat(Math.min(each, bytes - i * each))]));
}

type Parts = readonly ('cgroup' | 'environ' | 'exe')[];

/** One flood against a server reading `evidence`: CPU microseconds per connection read, and how many were read. */
async function flood(dir: string, evidence: Parts, extraEnv: number): Promise<{ usPerConnection: number; read: number }> {
  const addon = loadSeqpacketAddon();
  const path = join(dir, 'refused.sock');
  const tally = new RefusedTally(process.getuid?.() ?? 0);
  // the options of RefusedProcesses but for `evidence` and the connection limits, raised so that every
  // connection is read (a connection refused at accept reads no evidence: it would blur the comparison)
  const server = new addon.SeqpacketServer(path, { maxFrame: 64, mode: 0o666, procfs: '/proc', evidence, maxConnections: 4096, maxConnectionsPerUser: 4096 }, (e) => tally.onEvent(e));
  try {
    const env = { PATH: process.env['PATH'] ?? '/usr/bin:/bin', ...Object.fromEntries(Object.entries(process.env).filter(([k]) => k !== 'PATH')), ...padding(extraEnv) };
    const before = process.cpuUsage();
    const child = spawn('setpriv', [`--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups', '/usr/bin/python3', '-c', FLOODER, path, String(CONNECTIONS)], { env, stdio: 'inherit' });
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    if (code !== 0) throw new Error(`the flooder exited ${String(code)}`);
    for (;;) {
      const s = server.stats();
      if (s.accepted === s.closed && s.enqueued === s.delivered && !s.pendingConnections) break;
      await new Promise((r) => setTimeout(r, 5));
    }
    const used = process.cpuUsage(before);
    const read = server.stats().frames;
    return { usPerConnection: (used.user + used.system) / read, read };
  } finally {
    server.close();
  }
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

const dir = mkdtempSync(join(tmpdir(), 'jobio-refused-bench-'));
chmodSync(dir, 0o711);
try {
  const rows: string[] = [];
  for (const [label, extra] of [
    ["this shell's environment", 0],
    ['1 MiB more environment', 1 << 20],
  ] as const) {
    const before: number[] = [];
    const now: number[] = [];
    let read = 0;
    await flood(dir, ['exe'], extra); // warm up
    for (let i = 0; i < ROUNDS; i++) {
      const b = await flood(dir, ['cgroup', 'environ', 'exe'], extra);
      const n = await flood(dir, ['exe'], extra);
      before.push(b.usPerConnection);
      now.push(n.usPerConnection);
      read = Math.min(read === 0 ? Infinity : read, b.read, n.read);
    }
    rows.push(`| ${label} | ${median(before).toFixed(1)} | ${median(now).toFixed(1)} | ${(median(now) / median(before)).toFixed(2)}x | ${read} |`);
  }
  console.log(
    [
      `${CONNECTIONS} connections from one process of uid ${NOBODY}; medians of ${ROUNDS} alternated rounds; CPU µs of the receiving process per connection read.`,
      '',
      '| flooder | cgroup + environ + exe µs | exe only µs | ratio | connections read (fewest) |',
      '| --- | ---: | ---: | ---: | ---: |',
      ...rows,
    ].join('\n'),
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
