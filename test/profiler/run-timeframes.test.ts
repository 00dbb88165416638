// The most common job shape: read the input, then compute without a call. `jobio run --timeframe 1s`
// with the real library must put the reads in the frames they happened in (the library's flush
// thread sends each process's snapshot just before every second ends, and the run buckets it by the
// time it was taken), not in the frame of the process's exit. So too the opens and stats, whose class
// is decided later: a file kept open while computing (its class known at the exit) and stats of
// files never opened (red at the exit), and their estimated time with them (every call timed): a
// frame's time is that of the calls made in it, so the busiest second of I/O time is not the exit's.
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
const KINDS = [
  { name: 'read', keys: ['read_all'], line: /^(\d+\.\d+) read\(\d+<([^>]*)>/, n: 5 },
  { name: 'open', keys: ['open', 'create'], line: /^(\d+\.\d+) openat\(AT_FDCWD<[^>]*>, "([^"]*)"/, n: 2 },
  { name: 'stat', keys: ['access'], line: /^(\d+\.\d+) newfstatat\(AT_FDCWD<[^>]*>, "([^"]*)"/, n: 3 },
] as const;

test('input then compute, --timeframe 1s: the reads, opens and stats are in the frames strace -ttt puts them in, not at the exit', async () => {
  const strace = requireBinary('strace');
  const python = requireBinary('python3');
  const dir = mkdtempSync(join(tmpdir(), 'jobio-run-timeframes-'));
  const data = mkdtempSync(join(SHM, 'jobio-run-timeframes-'));
  try {
    const input = join(data, 'input.bin');
    writeFileSync(input, Buffer.alloc(4 << 20, 1));
    for (const f of ['kept', '0', '1', '2']) writeFileSync(`${input}.${f}`, 'x');
    const script = join(dir, 'job.py');
    writeFileSync(script, SCRIPT);
    const out = join(dir, 'out.jsonl');
    const prefix = join(dir, 'st');
    const traced = [strace, '-f', '-ff', '-qq', '-ttt', '-y', '-e', 'trace=read,openat,newfstatat', '-o', prefix, python, script];
    // every call timed, and a duration reported however few calls were timed
    const options = ['--timeframe', '1s', '--sample-every', '1', '--min-sampled', '1', '--output', out];
    const r = await runJobio(['run', ...options, '--', ...traced], { env: { INPUT: input }, timeoutMs: 120_000 });
    assert.equal(r.code, 0, r.stderr);
    const records = readValidLog(readFileSync(out, 'utf8'));
    // the run's start (ms); a frame of second k is stamped at its end, start + k + 1 s, in whole seconds (truncated)
    const startMs = (records.find((x) => x.jobtotal === true && x.jobstarttime !== undefined) as Obj).jobstarttime as number;
    const stamp = (x: Obj): number => Date.parse(String(x.timestamp));
    const periodic = records.filter((x) => x.type === 'resources' && x.jobtotal === false);
    const frames = records.filter((x) => x.type === 'mountpoint' && x.jobtotal === false && (x.mountpoint as Obj).path === SHM);
    const seconds = (x: Obj): number => Math.ceil((stamp(x) - startMs) / 1000) - 1;
    const runS = Math.max(...periodic.map(seconds));
    const lines = readdirSync(dir)
      .filter((n) => n.startsWith('st.'))
      .flatMap((f) => readFileSync(join(dir, f), 'utf8').split('\n'));
    for (const kind of KINDS) {
      // strace's calls on the job's files, each in the second of the run it happened in
      const times: number[] = [];
      for (const line of lines) {
        const m = kind.line.exec(line);
        if (m && m[2]?.startsWith(input)) times.push(Number(m[1]) * 1000 - startMs);
      }
      assert.equal(times.length, kind.n, `strace's ${kind.name} calls`);
      const last = Math.max(...times.map((t) => Math.floor(t / 1000)));
      const got = new Map<number, number>();
      for (const f of frames) {
        const n = kind.keys.reduce((a, k) => a + ((f.io[k]?.calls.total as number | undefined) ?? 0), 0);
        if (n > 0) got.set(seconds(f), (got.get(seconds(f)) ?? 0) + n);
      }
      assert.ok(runS >= last + 2, `the job computed for seconds after its calls (frames up to ${runS}, ${kind.name} up to ${last})`);
      const why = `${kind.name} per second: profiler ${JSON.stringify([...got])} (strace: ms after the start ${times.map((t) => t.toFixed(0)).join(', ')}; frames ${frames.map((f) => String(f.timestamp)).join(', ')}, start ${startMs})`;
      const before = (ms: number): number => times.filter((t) => t < ms).length;
      let cumulative = 0;
      for (let k = 0; k <= runS; k++) {
        cumulative += got.get(k) ?? 0;
        const end = (k + 1) * 1000;
        assert.ok(before(end - LEAD_MS) <= cumulative && cumulative <= before(end), `${kind.name} by the end of second ${k}: ${cumulative}, strace ${before(end - LEAD_MS)}..${before(end)}; ${why}`);
      }
      assert.equal(cumulative, times.length, why);
      assert.ok(
        [...got.keys()].every((k) => k <= last + 1),
        `no ${kind.name} counted at the exit: ${why}`,
      );
      // their time (µs, every call timed) in the same frames, the run's total in all
      const time = new Map<number, number>();
      for (const f of frames) {
        const us = kind.keys.reduce((a, k) => a + ((f.io[k]?.duration?.total as number | undefined) ?? 0), 0);
        if (us > 0) time.set(seconds(f), (time.get(seconds(f)) ?? 0) + us);
      }
      const job = records.find((x) => x.type === 'mountpoint' && x.jobtotal === true && (x.mountpoint as Obj).path === SHM) as Obj;
      const total = kind.keys.reduce((a, k) => a + ((job.io[k]?.duration?.total as number | undefined) ?? 0), 0);
      const inFrames = [...time.values()].reduce((a, b) => a + b, 0);
      const whyTime = `${kind.name} time (µs) per second: ${JSON.stringify([...time])}, the run's ${total}; ${why}`;
      assert.ok(total > 0 && time.size > 0, whyTime);
      assert.ok(
        [...time.keys()].every((k) => k <= last + 1),
        `no ${kind.name} time counted at the exit: ${whyTime}`,
      );
      // (each frame's figure and the total are rounded to whole µs)
      assert.ok(Math.abs(inFrames - total) <= time.size, whyTime);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
    rmSync(data, { recursive: true, force: true });
  }
});
