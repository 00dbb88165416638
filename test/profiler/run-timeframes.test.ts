// The most common job shape: read the input, then compute without a call. `jobio run --timeframe 1s`
// with the real library must put the reads in the frames they happened in (the library's flush
// thread sends each process's snapshot just before every second ends, and the run buckets it by the
// time it was taken), not in the frame of the process's exit. So too the opens and stats, whose class
// is decided later: a file kept open while computing (its class known at the exit) and stats of
// files never opened (red at the exit), and their estimated time with them (every call timed): a
// frame's time is that of the calls made in it, so the busiest second of I/O time is not the exit's.
// A second job makes only an open and stats after sleeping, nothing decided in their second: their
// time must be in that second all the same (the made time is released by a bound of its own), and
// the seconds' time must add up to the run's, exactly: time the bound held back is released in a
// later snapshot, where the frame shows it with 0 calls (docs/profiler.md).
// The oracle: strace -ttt inside the same run gives each call's wall-clock time; the job record
// gives the run's start.
//
// The one tolerance: the flush thread takes the snapshot 20 ms before a frame's end
// (JOBIO_FLUSH_LEAD_NS in native/profiler/src/process/flusher.c), so a read made in those last 20 ms
// is counted in the next frame. By the end of second k the run counted at least the calls strace saw
// before 20 ms ahead of its end and at most those before its end; in all, exactly strace's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runJobio } from '../helpers/exporter.js';
import { requireBinary } from '../helpers/binaries.js';
import { readValidLog } from './mistral-schema.js';

type Obj = Record<string, any>;
const SHM = '/dev/shm';
/** the flush thread's lead before a frame's end (native/profiler/src/process/flusher.c) */
const LEAD_MS = 20;

// 4 reads of 1 MiB and the one at the end of the file, a file opened and kept open, 3 files stat'ed
// and never opened, then ~3 s of computing without any call
const SCRIPT = `
import os, time
fd = os.open(os.environ['INPUT'], os.O_RDONLY)
while os.read(fd, 1 << 20):
    pass
os.close(fd)
kept = os.open(os.environ['INPUT'] + '.kept', os.O_RDONLY)
for i in range(3):
    os.stat(os.environ['INPUT'] + '.' + str(i))
t = time.monotonic()
x = 0
while time.monotonic() - t < 3.0:
    x += 1
`;

/** The calls compared, with the Mistral keys that count them and the strace lines that are them. */
interface Kind {
  readonly name: string;
  readonly keys: readonly string[];
  readonly line: RegExp;
  readonly n: number;
}
const KINDS: readonly Kind[] = [
  { name: 'read', keys: ['read_all'], line: /^(\d+\.\d+) read\(\d+<([^>]*)>/, n: 5 },
  { name: 'open', keys: ['open', 'create'], line: /^(\d+\.\d+) openat\(AT_FDCWD<[^>]*>, "([^"]*)"/, n: 2 },
  { name: 'stat', keys: ['access'], line: /^(\d+\.\d+) newfstatat\(AT_FDCWD<[^>]*>, "([^"]*)"/, n: 3 },
];

// after sleeping, an open kept to the exit and 3 stats of a path never opened, then sleeping again:
// nothing decided in the calls' second
const SLEEPER = `
import os, time
time.sleep(1.5)
kept = os.open(os.environ['INPUT'] + '.kept', os.O_RDONLY)
for i in range(3):
    os.stat(os.environ['INPUT'] + '.0')
time.sleep(3)
`;

/** One traced run of a script under jobio run --timeframe 1s, every call timed. */
interface TracedRun {
  readonly input: string;
  /** the run's start (ms) */
  readonly startMs: number;
  /** the periodic MOUNT records of the data's mount */
  readonly frames: readonly Obj[];
  /** the job total MOUNT record of the data's mount */
  readonly job: Obj;
  /** the second of the run a frame is for */
  readonly seconds: (x: Obj) => number;
  /** the last second with a periodic frame */
  readonly runS: number;
  /** strace's lines, every process */
  readonly lines: readonly string[];
}

async function traced(script: string, check: (run: TracedRun) => void): Promise<void> {
  const strace = requireBinary('strace');
  const python = requireBinary('python3');
  const dir = mkdtempSync(join(tmpdir(), 'jobio-run-timeframes-'));
  const data = mkdtempSync(join(SHM, 'jobio-run-timeframes-'));
  try {
    const input = join(data, 'input.bin');
    writeFileSync(input, Buffer.alloc(4 << 20, 1));
    for (const f of ['kept', '0', '1', '2']) writeFileSync(`${input}.${f}`, 'x');
    const path = join(dir, 'job.py');
    writeFileSync(path, script);
    const out = join(dir, 'out.jsonl');
    const prefix = join(dir, 'st');
    const cmd = [strace, '-f', '-ff', '-qq', '-ttt', '-y', '-e', 'trace=read,openat,newfstatat', '-o', prefix, python, path];
    // every call timed, and a duration reported however few calls were timed
    const options = ['--timeframe', '1s', '--sample-every', '1', '--min-sampled', '1', '--output', out];
    const r = await runJobio(['run', ...options, '--', ...cmd], { env: { INPUT: input }, timeoutMs: 120_000 });
    assert.equal(r.code, 0, r.stderr);
    const records = readValidLog(readFileSync(out, 'utf8'));
    // a frame of second k is stamped at its end, start + k + 1 s, in whole seconds (truncated)
    const startMs = (records.find((x) => x.jobtotal === true && x.jobstarttime !== undefined) as Obj).jobstarttime as number;
    const stamp = (x: Obj): number => Date.parse(String(x.timestamp));
    const periodic = records.filter((x) => x.type === 'resources' && x.jobtotal === false);
    const onData = (x: Obj): boolean => x.type === 'mountpoint' && (x.mountpoint as Obj).path === SHM;
    const seconds = (x: Obj): number => Math.ceil((stamp(x) - startMs) / 1000) - 1;
    const lines = readdirSync(dir)
      .filter((n) => n.startsWith('st.'))
      .flatMap((f) => readFileSync(join(dir, f), 'utf8').split('\n'));
    check({
      input,
      startMs,
      frames: records.filter((x) => onData(x) && x.jobtotal === false),
      job: records.find((x) => onData(x) && x.jobtotal === true) as Obj,
      seconds,
      runS: Math.max(...periodic.map(seconds)),
      lines,
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
    rmSync(data, { recursive: true, force: true });
  }
}

/** strace's calls of a kind on the job's files, in ms after the run's start. */
function straceTimes(run: TracedRun, kind: Kind): number[] {
  const times: number[] = [];
  for (const line of run.lines) {
    const m = kind.line.exec(line);
    if (m && m[2]?.startsWith(run.input)) times.push(Number(m[1]) * 1000 - run.startMs);
  }
  assert.equal(times.length, kind.n, `strace's ${kind.name} calls`);
  return times;
}

/** A figure of a kind's keys (calls.total, duration.total) per second, non-zero seconds only. */
function perSecond(run: TracedRun, kind: Kind, field: 'calls' | 'duration'): Map<number, number> {
  const got = new Map<number, number>();
  for (const f of run.frames) {
    const n = kind.keys.reduce((a, k) => a + ((f.io[k]?.[field]?.total as number | undefined) ?? 0), 0);
    if (n > 0) got.set(run.seconds(f), (got.get(run.seconds(f)) ?? 0) + n);
  }
  return got;
}

/** A kind's total in the job record (µs for the duration). */
function jobTotal(run: TracedRun, kind: Kind, field: 'calls' | 'duration'): number {
  return kind.keys.reduce((a, k) => a + ((run.job.io[k]?.[field]?.total as number | undefined) ?? 0), 0);
}

/** Holds a kind's calls per second to strace's, within the flush thread's lead; returns the text for messages. */
function assertCallsInStraceSeconds(run: TracedRun, kind: Kind, times: readonly number[]): string {
  const got = perSecond(run, kind, 'calls');
  const last = Math.max(...times.map((t) => Math.floor(t / 1000)));
  assert.ok(run.runS >= last + 2, `the job went on for seconds after its calls (frames up to ${run.runS}, ${kind.name} up to ${last})`);
  const why = `${kind.name} per second: profiler ${JSON.stringify([...got])} (strace: ms after the start ${times.map((t) => t.toFixed(0)).join(', ')}; frames ${run.frames.map((f) => String(f.timestamp)).join(', ')}, start ${run.startMs})`;
  const before = (ms: number): number => times.filter((t) => t < ms).length;
  let cumulative = 0;
  for (let k = 0; k <= run.runS; k++) {
    cumulative += got.get(k) ?? 0;
    const end = (k + 1) * 1000;
    assert.ok(before(end - LEAD_MS) <= cumulative && cumulative <= before(end), `${kind.name} by the end of second ${k}: ${cumulative}, strace ${before(end - LEAD_MS)}..${before(end)}; ${why}`);
  }
  assert.equal(cumulative, times.length, why);
  assert.ok(
    [...got.keys()].every((k) => k <= last + 1),
    `no ${kind.name} counted at the exit: ${why}`,
  );
  return why;
}

test('input then compute, --timeframe 1s: the reads, opens and stats are in the frames strace -ttt puts them in, not at the exit', async () => {
  await traced(SCRIPT, (run) => {
    for (const kind of KINDS) {
      const times = straceTimes(run, kind);
      const why = assertCallsInStraceSeconds(run, kind, times);
      const last = Math.max(...times.map((t) => Math.floor(t / 1000)));
      // their time (µs, every call timed) in the same frames, the run's total in all
      const time = perSecond(run, kind, 'duration');
      const total = jobTotal(run, kind, 'duration');
      const inFrames = [...time.values()].reduce((a, b) => a + b, 0);
      const whyTime = `${kind.name} time (µs) per second: ${JSON.stringify([...time])}, the run's ${total}; ${why}`;
      assert.ok(total > 0 && time.size > 0, whyTime);
      assert.ok(
        [...time.keys()].every((k) => k <= last + 1),
        `no ${kind.name} time counted at the exit: ${whyTime}`,
      );
      // (each frame's figure and the total are rounded to whole µs; max/call, measured, must not
      // exceed its frame's total, so a frame's total is its own time rounded, not a difference)
      assert.ok(Math.abs(inFrames - total) <= Math.max(1, time.size), whyTime);
    }
  });
});

test('sleep, then only an open kept to the exit and 3 stats, --timeframe 1s: their time is in the second they were made, and the seconds add up to the run', async () => {
  const kinds: readonly Kind[] = [
    { ...KINDS[1]!, n: 1 },
    { ...KINDS[2]!, n: 3 },
  ];
  await traced(SLEEPER, (run) => {
    for (const kind of kinds) {
      const times = straceTimes(run, kind);
      const why = assertCallsInStraceSeconds(run, kind, times);
      const calls = perSecond(run, kind, 'calls');
      const time = perSecond(run, kind, 'duration');
      const total = jobTotal(run, kind, 'duration');
      const inFrames = [...time.values()].reduce((a, b) => a + b, 0);
      const whyTime = `${kind.name} time (µs) per second: ${JSON.stringify([...time])}, the run's ${total}; ${why}`;
      assert.ok(total > 0, whyTime);
      // every second with calls made has their time, and no other second has any but the next (on a
      // loaded machine, time above the bound is held back and released a snapshot later, with no call)
      const last = Math.max(...calls.keys());
      for (const k of calls.keys()) assert.ok((time.get(k) ?? 0) > 0, `${kind.name} time in second ${k}, where the calls were made: ${whyTime}`);
      assert.ok(
        [...time.keys()].every((k) => calls.has(k) || k === last + 1),
        `${kind.name} time only in the seconds of its calls and the next: ${whyTime}`,
      );
      // (each frame's figure and the total are rounded to whole µs; max/call, measured, must not
      // exceed its frame's total, so a frame's total is its own time rounded, not a difference)
      assert.ok(Math.abs(inFrames - total) <= Math.max(1, time.size), whyTime);
    }
  });
});
