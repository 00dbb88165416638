// `max/call` of a `jobio run` log, with the real library and a real program whose longest calls are
// known, every call timed (--sample-every 1). The oracles:
// - an open of a FIFO that cannot return before the test opens the writing end, which it does WAIT_MS
//   after it saw the program inside that open (/proc/PID/syscall): the open lasted at least WAIT_MS;
// - the program's own clock around each of its later calls (CLOCK_MONOTONIC, like the library's,
//   read before and after the library's own readings): no call lasted longer than the program saw.
// The maxima are per frame, not cumulative: the frames after the FIFO's hold only the later calls'.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { jobioBin } from '../helpers/exporter.js';
import { requireBinary } from '../helpers/binaries.js';
import { readValidLog, type LogRecord } from './mistral-schema.js';
import { mountOf, requireProfilerLibrary } from './real-library.js';

requireProfilerLibrary();
const work = mkdtempSync(join(tmpdir(), 'jobio-max-call-'));
after(() => rmSync(work, { recursive: true, force: true }));

const WAIT_MS = 1000;
/** openat (and open) by architecture, as /proc/PID/syscall numbers them */
const OPEN_SYSCALLS: Record<string, string[]> = { x64: ['257', '2'], arm64: ['56'] };

/**
 * Opens the FIFO (blocks until the test opens its writing end), then waits for a line on stdin; then
 * 21 opens, 50 writes of 4 KiB and one of 8 MiB on the data file, each timed by the program itself.
 */
const PROGRAM = `
import os, sys, time
fifo, data = sys.argv[1], sys.argv[2]
def timed(call):
    t0 = time.monotonic_ns()
    r = call()
    return r, time.monotonic_ns() - t0
print('opening', flush=True)
fd, fifo_ns = timed(lambda: os.open(fifo, os.O_RDONLY))
os.close(fd)
print('fifo', fifo_ns, flush=True)
sys.stdin.readline()
opens = []
for i in range(20):
    fd, ns = timed(lambda: os.open(data, os.O_RDONLY))
    opens.append(ns)
    os.close(fd)
fd, ns = timed(lambda: os.open(data, os.O_WRONLY | os.O_TRUNC))
opens.append(ns)
small = [timed(lambda: os.write(fd, b'x' * 4096))[1] for i in range(50)]
big = b'y' * (8 << 20)
large = timed(lambda: os.write(fd, big))[1]
os.close(fd)
print('opens', max(opens), 'small', max(small), 'large', large, flush=True)
`;

async function until<T>(what: string, probe: () => T | undefined, timeoutMs = 60_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = probe();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

/** The pid of the interpreter running `-B script` (its path is unique: the test's own directory; `jobio run`'s arguments hold it too). */
function pidRunning(script: string): number | undefined {
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const argv = readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0');
      if (argv[1] === '-B' && argv[2] === script) return Number(name);
    } catch {
      // gone meanwhile
    }
  }
  return undefined;
}

function inOpen(pid: number): true | undefined {
  const numbers = OPEN_SYSCALLS[process.arch] ?? [];
  try {
    return numbers.includes(readFileSync(`/proc/${pid}/syscall`, 'utf8').split(' ')[0] ?? '') ? true : undefined;
  } catch {
    return undefined;
  }
}

const durationOf = (r: LogRecord, key: string): Record<string, number> | undefined => r.io?.[key]?.duration;
const maxCall = (r: LogRecord, key: string): number | undefined => durationOf(r, key)?.['max/call'];

test('max/call: the FIFO open in its own frame, later frames only the later calls, the job total the largest of the frames', async () => {
  if (!OPEN_SYSCALLS[process.arch]) throw new Error(`no openat number for ${process.arch}`);
  const python = requireBinary('python3');
  const fifo = join(work, 'fifo');
  execFileSync('mkfifo', [fifo]);
  const data = join(work, 'data');
  writeFileSync(data, '');
  const script = join(work, 'prog.py');
  writeFileSync(script, PROGRAM);
  const log = join(work, 'log.jsonl');
  const args = ['run', '--timeframe', '1s', '--sample-every', '1', '--min-sampled', '1', '--metadata', 'separate', '-o', log, '--', python, '-B', script, fifo, data];
  const child = spawn(process.execPath, [jobioBin, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  let pid: number | undefined;
  try {
    // the program is inside the FIFO's open (its only open after "opening"): WAIT_MS later, the writer
    await until('"opening"', () => (stdout.includes('opening\n') ? true : undefined));
    const program = await until('the program', () => pidRunning(script));
    pid = program;
    await until('the FIFO open', () => inOpen(program));
    await sleep(WAIT_MS);
    closeSync(openSync(fifo, 'w'));
    // the frame holding that open is written before the program goes on
    const mount = mountOf(work);
    const frames = (): LogRecord[] =>
      existsSync(log)
        ? readFileSync(log, 'utf8')
            .split('\n')
            .filter((l) => l.endsWith('}'))
            .map((l) => JSON.parse(l) as LogRecord)
            .filter((r) => r.type === 'mountpoint' && r.jobtotal === false && r.mountpoint?.path === mount)
        : [];
    await until('the frame of the FIFO open', () => (frames().some((r) => (maxCall(r, 'open') ?? 0) >= WAIT_MS * 1000) ? true : undefined));
    child.stdin.end('\n');
    assert.equal(await exited, 0, stderr);
  } finally {
    child.kill('SIGKILL');
    // (a program left blocked in the FIFO's open would outlive the test)
    if (pid !== undefined) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // ended
      }
    }
  }
  const measured = /opens (\d+) small (\d+) large (\d+)/.exec(stdout);
  assert.ok(measured, stdout);
  const [opensNs, smallNs, largeNs] = measured.slice(1).map(Number) as [number, number, number];
  const ceilUs = (ns: number): number => Math.ceil(ns / 1000);

  const records = readValidLog(readFileSync(log, 'utf8'));
  const mount = mountOf(work);
  const onMount = records.filter((r) => r.type === 'mountpoint' && r.mountpoint.path === mount);
  const frames = onMount.filter((r) => r.jobtotal === false);
  const total = onMount.find((r) => r.jobtotal === true);
  assert.ok(total);

  // the FIFO's frame: the open lasted at least WAIT_MS; not above the frame's (every call timed) open time
  const fifoFrame = frames.findIndex((r) => (maxCall(r, 'open') ?? 0) >= WAIT_MS * 1000);
  assert.ok(fifoFrame >= 0, JSON.stringify(frames.map((r) => durationOf(r, 'open'))));
  const fifoOpen = durationOf(frames[fifoFrame] as LogRecord, 'open');
  assert.ok(fifoOpen && (fifoOpen['max/call'] ?? 0) <= (fifoOpen.total ?? 0), JSON.stringify(fifoOpen));
  // later frames: only the later opens, each no longer than the program saw it
  const later = frames.slice(fifoFrame + 1).filter((r) => durationOf(r, 'open'));
  assert.ok(later.length > 0, 'the later opens are in later frames');
  for (const r of later) assert.ok((maxCall(r, 'open') ?? -1) <= ceilUs(opensNs), `later frame open ${JSON.stringify(durationOf(r, 'open'))}, program's longest ${opensNs} ns`);

  // the writes (all of them on this mount): the one large write is its bin's only call
  const large = durationOf(total, 'write_32KiB-128MiB');
  const small = durationOf(total, 'write_0-32KiB');
  assert.deepEqual([total.io['write_32KiB-128MiB'].calls.total, total.io['write_0-32KiB'].calls.total], [1, 50]);
  assert.ok(large && small);
  assert.equal(large['max/call'], large.total, 'one call: its duration is the total');
  assert.ok((large['max/call'] ?? Infinity) <= ceilUs(largeNs), `large write ${JSON.stringify(large)}, program ${largeNs} ns`);
  assert.ok((small['max/call'] ?? Infinity) <= ceilUs(smallNs), `small writes ${JSON.stringify(small)}, program's longest ${smallNs} ns`);
  assert.ok((small['max/call'] ?? -1) >= (small['mean/call'] ?? 0) - 1, `small writes: max/call not below mean/call ${JSON.stringify(small)}`);
  assert.equal(maxCall(total, 'write_all'), Math.max(large['max/call'] ?? 0, small['max/call'] ?? 0), 'write_all: the longest write of any size');

  // the job total's max/call of every key is the largest of the frames'
  for (const [key, entry] of Object.entries(total.io as Record<string, { duration?: Record<string, number> }>)) {
    if (!entry.duration) continue;
    const ofFrames = Math.max(...frames.map((r) => maxCall(r, key) ?? 0));
    assert.equal(entry.duration['max/call'] ?? 0, ofFrames, `${key}: job total against the frames`);
  }
});
